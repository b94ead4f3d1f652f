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

#if defined(CUPAR_OUT_OF_LINE)
CUPAR_OPERATOR_FOLDS_DECLARE(cupar_T)
#include "cupar_warp_aggregates.cuh"
#endif

/// A template (of one, unused, parameter) so that the out-of-line kernels' thread-level
/// reductions take the batched form (cupar_prelude.cuh); the same type in both builds.
template <int Unused>
struct cupar_segmented_reduce_fn {
  cupar_functor_state state;
  __device__ __forceinline__ cupar_T operator()(const cupar_T& a, const cupar_T& b) const {
    return cupar_jit_op(state.bytes, a, b);
  }
#if defined(CUPAR_OUT_OF_LINE)
  CUPAR_OPERATOR_FOLD_MEMBERS(cupar_T)
#endif
};
typedef cupar_segmented_reduce_fn<0> cupar_segmented_reduce_op;

typedef ::cuda::std::int64_t cupar_offset;
// CUB's reduce tuning for sm_90 (its Policy600) depends on neither the operator nor the value
// beyond its size, so the size class tunes as the user's type would.
typedef cub::detail::reduce::policy_hub<cupar_T, cupar_offset, cupar_segmented_reduce_op>::MaxPolicy
    cupar_policy;
typedef cupar_policy::ActivePolicy cupar_active;

static constexpr long long cupar_m0 = cupar_active::SegmentedReducePolicy::BLOCK_THREADS;
static constexpr long long cupar_m1 = cupar_active::SegmentedReducePolicy::ITEMS_PER_THREAD;

#if defined(CUPAR_OUT_OF_LINE)
// The out-of-line (tier-1) kernels. A block reduces one segment, and a segment of at most a tile
// (4,096 items of 4 bytes on sm_90) is all its work: one item or a few a thread, then the block's
// reduction, whose calls of the operator (five a warp, seven more in thread 0) were most of a
// tier-1 block's time. Here a warp's reduction is one call of the operator's generated
// cupar_jit_op_warp_reduce (full warps) or _warp_reduce_partial (the last warp of a segment
// shorter than the block: CUB's steps up to its last valid lane), and thread 0 combines the warps'
// aggregates with the operator's fold of four, all in CUB's order (results equal the inlined
// build's bit for bit).
CUB_NAMESPACE_BEGIN
namespace detail {
template <>
template <>
__device__ __forceinline__ cupar_T
WarpReduceShfl<cupar_T, 32>::Reduce<true, cupar_segmented_reduce_op>(
    cupar_T input, int, cupar_segmented_reduce_op reduction_op) {
  return cupar_jit_op_warp_reduce(reduction_op.state.bytes, input);
}
template <>
template <>
__device__ __forceinline__ cupar_T
WarpReduceShfl<cupar_T, 32>::Reduce<false, cupar_segmented_reduce_op>(
    cupar_T input, int valid_items, cupar_segmented_reduce_op reduction_op) {
  return cupar_jit_op_warp_reduce_partial(reduction_op.state.bytes, input, valid_items - 1);
}

typedef BlockReduceWarpReductions<cupar_T, cupar_active::SegmentedReducePolicy::BLOCK_THREADS, 1, 1>
    cupar_segmented_block_reduce;

template <>
template <>
__device__ __forceinline__ cupar_T
cupar_segmented_block_reduce::ApplyWarpAggregates<true, cupar_segmented_reduce_op>(
    cupar_segmented_reduce_op reduction_op, cupar_T warp_aggregate, int) {
  CUPAR_APPLY_WARP_AGGREGATES(reduction_op, warp_aggregate, WARPS);
}

template <>
template <>
__device__ __forceinline__ cupar_T
cupar_segmented_block_reduce::ApplyWarpAggregates<false, cupar_segmented_reduce_op>(
    cupar_segmented_reduce_op reduction_op, cupar_T warp_aggregate, int num_valid) {
  // CUB adds warp w's aggregate when w * 32 < num_valid.
  const int warps = (num_valid + LOGICAL_WARP_SIZE - 1) / LOGICAL_WARP_SIZE;
  CUPAR_APPLY_WARP_AGGREGATES(reduction_op, warp_aggregate, warps < WARPS ? warps : WARPS);
}
namespace reduce {
/// A partial tile's items (CUB's loop: each thread's items block-striped, folded left in order),
/// in chunks of the fold's width loaded first, then one call of the operator's fold of up to that
/// many items, instead of a load and a call per item.
template <bool First, class It>
__device__ __forceinline__ cupar_T cupar_segmented_partial_tile(It in,
                                                                const cupar_segmented_reduce_op& op,
                                                                cupar_T acc, int valid_items) {
  constexpr int threads = cupar_active::ReducePolicy::BLOCK_THREADS;
  constexpr int width = cupar_segmented_reduce_op::cupar_fold_width;
  int at = static_cast<int>(threadIdx.x);
  if (First && at < valid_items) {
    acc = in[at];
    at += threads;
  }
  while (at < valid_items) {
    cupar_T x[width];
    int m = 0;
#pragma unroll
    for (int k = 0; k < width; ++k) {
      if (at + k * threads < valid_items) {
        x[k] = in[at + k * threads];
        ++m;
      } else {
        x[k] = acc;  // not folded (only the first m are)
      }
    }
    if constexpr (width == 8) {
      acc = op.fold_upto8(acc, x[0], x[1], x[2], x[3], x[4], x[5], x[6], x[7], m);
    } else {
      acc = op.fold_upto4(acc, x[0], x[1], x[2], x[3], m);
    }
    at += width * threads;
  }
  return acc;
}

typedef AgentReduce<cupar_active::ReducePolicy, const cupar_T*, cupar_T*, cupar_offset,
                    cupar_segmented_reduce_op, cupar_T>
    cupar_segmented_agent;

#define CUPAR_SEGMENTED_PARTIAL_TILE(FIRST, VECTORIZE)                                  \
  template <>                                                                           \
  template <>                                                                           \
  __device__ __forceinline__ void cupar_segmented_agent::ConsumeTile<FIRST, VECTORIZE>( \
      cupar_T & thread_aggregate, cupar_offset block_offset, int valid_items,           \
      ::cuda::std::false_type, ::cuda::std::bool_constant<VECTORIZE>) {                 \
    thread_aggregate = cupar_segmented_partial_tile<FIRST != 0>(                        \
        d_wrapped_in + block_offset, reduction_op, thread_aggregate, valid_items);      \
  }
CUPAR_SEGMENTED_PARTIAL_TILE(1, true)
CUPAR_SEGMENTED_PARTIAL_TILE(1, false)
CUPAR_SEGMENTED_PARTIAL_TILE(0, true)
CUPAR_SEGMENTED_PARTIAL_TILE(0, false)
#undef CUPAR_SEGMENTED_PARTIAL_TILE
}  // namespace reduce
}  // namespace detail
CUB_NAMESPACE_END
#endif
