// cupar JIT: CUB's transform kernel with a run-time operator. Unary: cupar_In and
// cupar_jit_op(state, cupar_In x) -> cupar_Out; with CUPAR_TRANSFORM_BINARY: cupar_A, cupar_B and
// cupar_jit_op(state, cupar_A a, cupar_B b) -> cupar_Out.
#pragma once

#include <cub/device/dispatch/kernels/transform.cuh>
#include <cub/device/dispatch/tuning/tuning_transform.cuh>

#include <cuda/std/tuple>

// The state stays bytes in both builds (not cupar_functor_state): as 16-byte words the
// out-of-line transforms ran 1.2-1.3x slower on an H200 (unary f32 and binary i32 at 2^24 and
// 2^28), while the families that copy the functor in their reductions gained.
#if defined(CUPAR_TRANSFORM_BINARY)
struct cupar_transform_op {
  cupar_op_state state;
  __device__ __forceinline__ cupar_Out operator()(cupar_A a, cupar_B b) const {
    return cupar_jit_op(state.bytes, a, b);
  }
};
typedef cub::detail::transform::policy_hub<false,
                                           ::cuda::std::tuple<const cupar_A*, const cupar_B*>>
    cupar_hub;
#define CUPAR_TRANSFORM_INPUTS const cupar_A*, const cupar_B*
#else
struct cupar_transform_op {
  cupar_op_state state;
  __device__ __forceinline__ cupar_Out operator()(cupar_In x) const {
    return cupar_jit_op(state.bytes, x);
  }
};
typedef cub::detail::transform::policy_hub<false, ::cuda::std::tuple<const cupar_In*>> cupar_hub;
#define CUPAR_TRANSFORM_INPUTS const cupar_In*
#endif

typedef long long cupar_offset;
typedef cupar_hub::max_policy cupar_policy;
typedef cupar_policy::ActivePolicy cupar_active;
