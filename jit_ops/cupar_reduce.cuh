// cupar JIT: CUB's reduce kernels with a run-time operator. Expects cupar_T and the operator
// function cupar_jit_op(const unsigned char* state, cupar_T a, cupar_T b) -> cupar_T. With
// CUPAR_TRANSFORM_REDUCE (transform_reduce sets) also cupar_In and the transform
// cupar_jit_xform(const unsigned char* state, cupar_In x) -> cupar_T, which CUB's agent applies
// to each loaded item (after its vector loads); with CUPAR_INDEX_INPUT as well ("+index" sets)
// the items are indices and the transform is an iterator expression.
#pragma once

#include <cub/device/dispatch/kernels/reduce.cuh>
#include <cub/device/dispatch/tuning/tuning_reduce.cuh>

#include <cuda/std/iterator>

#if defined(CUPAR_INDEX_INPUT)
/// The input of the "+index" sets: element i is the index i itself, which the first slot (an
/// iterator expression, cupar_jit_xform) turns into the element. The host passes it as an 8-byte
/// argument holding 0 (cupar_In is unsigned long long). CUB reads a non-pointer input with
/// striped (coalesced) loads, one element per thread per step.
struct cupar_index_iterator {
  typedef unsigned long long value_type;
  typedef long long difference_type;
  typedef const unsigned long long* pointer;
  typedef unsigned long long reference;
  typedef ::cuda::std::random_access_iterator_tag iterator_category;
  unsigned long long base;
  __host__ __device__ __forceinline__ value_type operator*() const { return base; }
  __host__ __device__ __forceinline__ value_type operator[](difference_type i) const {
    return base + static_cast<unsigned long long>(i);
  }
  __host__ __device__ __forceinline__ cupar_index_iterator operator+(difference_type i) const {
    return {base + static_cast<unsigned long long>(i)};
  }
  __host__ __device__ __forceinline__ cupar_index_iterator operator-(difference_type i) const {
    return {base - static_cast<unsigned long long>(i)};
  }
  __host__ __device__ __forceinline__ difference_type operator-(cupar_index_iterator o) const {
    return static_cast<difference_type>(base - o.base);
  }
  __host__ __device__ __forceinline__ cupar_index_iterator& operator+=(difference_type i) {
    base += static_cast<unsigned long long>(i);
    return *this;
  }
  __host__ __device__ __forceinline__ cupar_index_iterator& operator++() {
    ++base;
    return *this;
  }
  __host__ __device__ __forceinline__ bool operator==(cupar_index_iterator o) const {
    return base == o.base;
  }
  __host__ __device__ __forceinline__ bool operator!=(cupar_index_iterator o) const {
    return base != o.base;
  }
};
#endif

#if defined(CUPAR_OUT_OF_LINE)
CUPAR_OPERATOR_FOLDS_DECLARE(cupar_T)
#endif

/// A template (of one, unused, parameter) so that the out-of-line kernels' thread-level
/// reductions take the batched form (cupar_prelude.cuh); the same type in both builds.
template <int Unused>
struct cupar_reduce_fn {
  cupar_functor_state state;
  __device__ __forceinline__ cupar_T operator()(const cupar_T& a, const cupar_T& b) const {
    return cupar_jit_op(state.bytes, a, b);
  }
#if defined(CUPAR_OUT_OF_LINE)
  CUPAR_OPERATOR_FOLD_MEMBERS(cupar_T)
#endif
};
typedef cupar_reduce_fn<0> cupar_reduce_op;

#if defined(CUPAR_OUT_OF_LINE)
// The out-of-line (tier-1) kernels: a full warp's reduction in one call of the operator's
// generated cupar_jit_op_warp_reduce (CUB's five shuffle steps in CUB's order, the operator
// inlined there) instead of five calls; partial warps keep CUB's steps.
CUB_NAMESPACE_BEGIN
namespace detail {
template <>
template <>
__device__ __forceinline__ cupar_T WarpReduceShfl<cupar_T, 32>::Reduce<true, cupar_reduce_op>(
    cupar_T input, int, cupar_reduce_op reduction_op) {
  return cupar_jit_op_warp_reduce(reduction_op.state.bytes, input);
}
}  // namespace detail
CUB_NAMESPACE_END
#endif

#if defined(CUPAR_TRANSFORM_REDUCE)
struct cupar_transform_op {
  cupar_functor_state state;
  __device__ __forceinline__ cupar_T operator()(const cupar_In& x) const {
    return cupar_jit_xform(state.bytes, x);
  }
};
#endif

#if defined(CUPAR_OUT_OF_LINE) && defined(CUPAR_TRANSFORM_REDUCE)
// The out-of-line (tier-1) kernels: transform_reduce's agent loads a full tile's items with
// load_transform_direct_striped, which calls the transform once per item; these overloads (found
// by argument-dependent lookup, more specialised than CUB's) compute a thread's items in one call
// of the transform's batched form instead (cupar_prelude.cuh says why; the thread-level
// reduction that follows takes the fold).
#if defined(CUPAR_INDEX_INPUT)
extern "C" __device__ void cupar_jit_xform_strided(const unsigned char* state,
                                                   unsigned long long first,
                                                   unsigned long long stride, cupar_T* out, int n);
/// A full tile's items of the "+index" sets: element base + tid + k * BlockThreads of the
/// iterator expression into items[k], all in one call.
template <int BlockThreads, int N>
__device__ __forceinline__ void load_transform_direct_striped(int tid, cupar_index_iterator src,
                                                              cupar_T (&items)[N],
                                                              cupar_transform_op op) {
  cupar_jit_xform_strided(op.state.bytes, src.base + static_cast<unsigned long long>(tid),
                          BlockThreads, items, N);
}
#else
extern "C" __device__ void cupar_jit_xform_map(const unsigned char* state, const cupar_In* in,
                                               cupar_T* out, int n);
/// A full tile's items loaded (striped, as CUB's own), then transformed in one call.
template <int BlockThreads, class It, int N>
__device__ __forceinline__ void load_transform_direct_striped(int tid, It src, cupar_T (&items)[N],
                                                              cupar_transform_op op) {
  cupar_In loaded[N];
#pragma unroll
  for (int k = 0; k < N; ++k)
    loaded[k] = src[tid + k * BlockThreads];
  cupar_jit_xform_map(op.state.bytes, loaded, items, N);
}
#endif
#endif

/// The initial value: a host value or one read from device memory when the kernel runs
/// (cupar_init, cupar_prelude.cuh).
typedef cupar_init<cupar_T> cupar_reduce_init;

typedef unsigned long long cupar_offset;
typedef cub::detail::reduce::policy_hub<cupar_T, cupar_offset, cupar_reduce_op>::MaxPolicy
    cupar_policy;
typedef cupar_policy::ActivePolicy cupar_active;

#if defined(CUPAR_OUT_OF_LINE)
// The out-of-line (tier-1) kernels: thread 0 combines the warps' aggregates of a full tile with
// the operator's fold of four (one call for four aggregates) and single calls for the rest, in
// CUB's order, instead of one call per warp (cupar_warp_aggregates.cuh).
#include "cupar_warp_aggregates.cuh"
CUB_NAMESPACE_BEGIN
namespace detail {
template <>
template <>
__device__ __forceinline__ cupar_T
BlockReduceWarpReductions<cupar_T, cupar_active::ReducePolicy::BLOCK_THREADS, 1, 1>::
    ApplyWarpAggregates<true, cupar_reduce_op>(cupar_reduce_op reduction_op, cupar_T warp_aggregate,
                                               int) {
  CUPAR_APPLY_WARP_AGGREGATES(reduction_op, warp_aggregate, WARPS);
}
}  // namespace detail
CUB_NAMESPACE_END
#endif
