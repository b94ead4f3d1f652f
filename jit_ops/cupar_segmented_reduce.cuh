// cupar JIT: CUB's segmented reduce kernel (DeviceSegmentedReduceKernel, one block per segment)
// with a run-time operator. Expects cupar_T (the values' size class) and the slot function
// cupar_jit_op(const unsigned char* state, cupar_T a, cupar_T b) -> cupar_T.
//
// CCCL 3.0.1's DispatchSegmentedReduce has a kernel-source seam: src/jit/families/segmented.cu
// runs CUB's own dispatch with this kernel, instantiated exactly as
// cub::DeviceSegmentedReduce::Reduce instantiates it for 64-bit offset arrays (OffsetT = the
// offsets' value type).
#pragma once

#include <cub/device/dispatch/kernels/segmented_reduce.cuh>
#include <cub/device/dispatch/tuning/tuning_reduce.cuh>

#include <cuda/std/cstdint>

struct cupar_segmented_reduce_op {
  cupar_functor_state state;
  __device__ __forceinline__ cupar_T operator()(const cupar_T& a, const cupar_T& b) const {
    return cupar_jit_op(state.bytes, a, b);
  }
};

typedef ::cuda::std::int64_t cupar_offset;
// CUB's reduce tuning for sm_90 (its Policy600) depends on neither the operator nor the value
// beyond its size, so the size class tunes as the user's type would.
typedef cub::detail::reduce::policy_hub<cupar_T, cupar_offset, cupar_segmented_reduce_op>::MaxPolicy
    cupar_policy;
typedef cupar_policy::ActivePolicy cupar_active;

static constexpr long long cupar_m0 = cupar_active::SegmentedReducePolicy::BLOCK_THREADS;
static constexpr long long cupar_m1 = cupar_active::SegmentedReducePolicy::ITEMS_PER_THREAD;
