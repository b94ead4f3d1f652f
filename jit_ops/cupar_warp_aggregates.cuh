// cupar JIT: thread 0's fold of a block's warp aggregates in the out-of-line (tier-1) reduce
// kernels (cupar_reduce.cuh, cupar_segmented_reduce.cuh, with CUPAR_OUT_OF_LINE): the operator's
// fold of four (one out-of-line call for four aggregates) and single calls for the rest, in CUB's
// order (warp 0's aggregate, then warp 1's, ...), so the result is the inlined build's bit for bit.
// The operator is a functor with fold4 (CUPAR_OPERATOR_FOLD_MEMBERS, cupar_prelude.cuh).
#pragma once

template <class F, class T>
__device__ __forceinline__ T cupar_fold_warp_aggregates(const F& op, T acc, const T* a, int warps) {
  int w = 1;
  for (; w + 4 <= warps; w += 4)
    acc = op.fold4(acc, a[w], a[w + 1], a[w + 2], a[w + 3]);
  for (; w < warps; ++w)
    acc = op(acc, a[w]);
  return acc;
}

/// The body of an explicit specialisation of CUB's BlockReduceWarpReductions::ApplyWarpAggregates
/// (inside CUB's namespace): each warp's aggregate AGG to shared memory, then thread 0 folds those
/// of the first WARPS_WITH_ITEMS warps with the operator OP, and returns AGG.
#define CUPAR_APPLY_WARP_AGGREGATES(OP, AGG, WARPS_WITH_ITEMS)                                 \
  if (lane_id == 0) {                                                                          \
    detail::uninitialized_copy_single(temp_storage.warp_aggregates + warp_id, AGG);            \
  }                                                                                            \
  __syncthreads();                                                                             \
  if (linear_tid == 0) {                                                                       \
    AGG = cupar_fold_warp_aggregates(OP, AGG, temp_storage.warp_aggregates, WARPS_WITH_ITEMS); \
  }                                                                                            \
  return AGG
