// cupar JIT: CUB's reduce kernels with a run-time operator. Expects cupar_T and the operator
// function cupar_jit_op(const unsigned char* state, cupar_T a, cupar_T b) -> cupar_T. With
// CUPAR_TRANSFORM_REDUCE (transform_reduce sets) also cupar_In and the transform
// cupar_jit_xform(const unsigned char* state, cupar_In x) -> cupar_T, which CUB's agent applies
// to each loaded item (after its vector loads).
#pragma once

#include <cub/device/dispatch/kernels/reduce.cuh>
#include <cub/device/dispatch/tuning/tuning_reduce.cuh>

struct cupar_reduce_op {
  cupar_op_state state;
  __device__ __forceinline__ cupar_T operator()(const cupar_T& a, const cupar_T& b) const {
    return cupar_jit_op(state.bytes, a, b);
  }
};

#if defined(CUPAR_TRANSFORM_REDUCE)
struct cupar_transform_op {
  cupar_op_state state;
  __device__ __forceinline__ cupar_T operator()(const cupar_In& x) const {
    return cupar_jit_xform(state.bytes, x);
  }
};
#endif

typedef unsigned long long cupar_offset;
typedef cub::detail::reduce::policy_hub<cupar_T, cupar_offset, cupar_reduce_op>::MaxPolicy
    cupar_policy;
typedef cupar_policy::ActivePolicy cupar_active;
