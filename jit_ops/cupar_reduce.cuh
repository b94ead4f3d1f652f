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
// by argument-dependent lookup, more specialised than CUB's) compute a thread's items with the
// transform's batched forms instead: an array's items eight or four a call, the items and the
// results by value, in registers; an iterator expression's in one call (cupar_prelude.cuh says
// why; the thread-level reduction that follows takes the fold; cupar_xform_items.cuh).
#if defined(CUPAR_INDEX_INPUT)
extern "C" __device__ void cupar_jit_xform_strided(const unsigned char* state,
                                                   unsigned long long first,
                                                   unsigned long long stride, cupar_T* out, int n);
/// A full tile's items of the "+index" sets: element base + tid + k * BlockThreads of the
/// iterator expression into items[k], all in one call. (Eight or four elements a call with the
/// results by value ran dot's tier 1 1.18x slower on the H200: a call returns only once its loads
/// have landed, so the tile's loads no longer overlap; docs/PERFORMANCE_NOTES.md.)
template <int BlockThreads, int N>
__device__ __forceinline__ void load_transform_direct_striped(int tid, cupar_index_iterator src,
                                                              cupar_T (&items)[N],
                                                              cupar_transform_op op) {
  cupar_jit_xform_strided(op.state.bytes, src.base + static_cast<unsigned long long>(tid),
                          BlockThreads, items, N);
}
#else
#include "cupar_xform_items.cuh"
/// A full tile's items loaded (striped, as CUB's own: a misaligned array), then transformed
/// eight or four a call, the items and results by value.
template <int BlockThreads, class It, int N>
__device__ __forceinline__ void load_transform_direct_striped(int tid, It src, cupar_T (&items)[N],
                                                              cupar_transform_op op) {
  cupar_In loaded[N];
#pragma unroll
  for (int k = 0; k < N; ++k)
    loaded[k] = src[tid + k * BlockThreads];
  cupar_transform_items<0>(op.state.bytes, loaded, items);
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

#if defined(CUPAR_OUT_OF_LINE) && defined(CUPAR_TRANSFORM_REDUCE) && !defined(CUPAR_INDEX_INPUT)
// The out-of-line (tier-1) kernels: a full tile of an aligned array takes CUB's vector loads, after
// which CUB calls the transform once an item (eight out-of-line calls a tile, each item taken
// through the kernel's stack frame); here a thread's loaded items go to the transform's batched
// form eight (or four) at a time by value and its results come back by value, in registers
// (cupar_items, jit_ops/cupar_prelude.cuh: up to eight words each way), then CUB's thread
// reduction (the operator's fold). CUB's tiles, items and order.
CUB_NAMESPACE_BEGIN
namespace detail {
namespace reduce {
typedef AgentReduce<cupar_active::ReducePolicy, const cupar_In*, cupar_T*, cupar_offset,
                    cupar_reduce_op, cupar_T, cupar_transform_op>
    cupar_transform_agent;
/// A thread's items of the full tile at `block_offset`, CUB's vector loads.
__device__ __forceinline__ void cupar_load_vectorized(
    const cupar_transform_agent& agent, cupar_offset block_offset,
    cupar_In (&loaded)[cupar_transform_agent::ITEMS_PER_THREAD]) {
  typedef cupar_transform_agent A;
  constexpr int words = A::ITEMS_PER_THREAD / A::VECTOR_LOAD_LENGTH;
  cupar_In* first =
      const_cast<cupar_In*>(agent.d_in) + block_offset + (threadIdx.x * A::VECTOR_LOAD_LENGTH);
  CacheModifiedInputIterator<A::LOAD_MODIFIER, typename A::VectorT, cupar_offset> vectors(
      reinterpret_cast<typename A::VectorT*>(first));
  typename A::VectorT* loaded_vectors = reinterpret_cast<typename A::VectorT*>(loaded);
#pragma unroll
  for (int i = 0; i < words; ++i)
    loaded_vectors[i] = vectors[A::BLOCK_THREADS * i];
}
/// The loaded items transformed by value, then folded into the thread's aggregate (CUB's order).
template <bool IsFirstTile>
__device__ __forceinline__ void cupar_reduce_loaded(
    cupar_transform_agent& agent, cupar_T& thread_aggregate,
    const cupar_In (&loaded)[cupar_transform_agent::ITEMS_PER_THREAD]) {
  cupar_T items[cupar_transform_agent::ITEMS_PER_THREAD];
  ::cupar_transform_items<0>(agent.transform_op.state.bytes, loaded, items);
  thread_aggregate = IsFirstTile ? cub::ThreadReduce(items, agent.reduction_op)
                                 : cub::ThreadReduce(items, agent.reduction_op, thread_aggregate);
}
/// CUB's AgentReduce::ConsumeTile for a full tile with vector loads, the transform by value.
template <bool IsFirstTile>
__device__ __forceinline__ void cupar_consume_vectorized(cupar_transform_agent& agent,
                                                         cupar_T& thread_aggregate,
                                                         cupar_offset block_offset) {
  cupar_In loaded[cupar_transform_agent::ITEMS_PER_THREAD];
  cupar_load_vectorized(agent, block_offset, loaded);
  cupar_reduce_loaded<IsFirstTile>(agent, thread_aggregate, loaded);
}
template <>
template <>
__device__ __forceinline__ void cupar_transform_agent::ConsumeTile<1>(cupar_T& thread_aggregate,
                                                                      cupar_offset block_offset,
                                                                      int, ::cuda::std::true_type,
                                                                      ::cuda::std::true_type) {
  cupar_consume_vectorized<true>(*this, thread_aggregate, block_offset);
}
template <>
template <>
__device__ __forceinline__ void cupar_transform_agent::ConsumeTile<0>(cupar_T& thread_aggregate,
                                                                      cupar_offset block_offset,
                                                                      int, ::cuda::std::true_type,
                                                                      ::cuda::std::true_type) {
  cupar_consume_vectorized<false>(*this, thread_aggregate, block_offset);
}
/// Whether a block's full tiles go two at a time (below): where a thread's items of one tile are
/// at most 32 bytes (four words: transform_reduce<f32,u64>'s eight floats, the counts).
constexpr bool cupar_tile_pairs = sizeof(cupar_In) * cupar_transform_agent::ITEMS_PER_THREAD <= 32;
/// CUB's AgentReduce::ConsumeFullTileRange of the vectorized path (a block's full tiles, strip
/// mined: block_offset, + block_stride, ...), with two full tiles at a time where the tile is
/// small: both tiles' loads are issued before the first out-of-line call (a call waits for the
/// loads in flight), so a thread keeps twice the bytes in flight at the 3 blocks an SM the calls
/// leave. CUB's tiles, items and order of the fold.
template <>
template <>
__device__ __forceinline__ void cupar_transform_agent::ConsumeFullTileRange<true>(
    cupar_T& thread_aggregate, GridEvenShare<cupar_offset>& even_share,
    ::cuda::std::true_type can_vectorize) {
  if constexpr (!cupar_tile_pairs) {
    ConsumeTile<true>(thread_aggregate, even_share.block_offset, TILE_ITEMS,
                      ::cuda::std::true_type(), can_vectorize);
    if (even_share.block_end - even_share.block_offset < even_share.block_stride) return;
    even_share.block_offset += even_share.block_stride;
    while (even_share.block_offset <= even_share.block_end - TILE_ITEMS) {
      ConsumeTile<false>(thread_aggregate, even_share.block_offset, TILE_ITEMS,
                         ::cuda::std::true_type(), can_vectorize);
      if (even_share.block_end - even_share.block_offset < even_share.block_stride) return;
      even_share.block_offset += even_share.block_stride;
    }
  } else {
    const cupar_offset end = even_share.block_end;
    const cupar_offset stride = even_share.block_stride;
    cupar_offset& offset = even_share.block_offset;
    // Whether the tile after the one at `offset` (full: offset <= end - TILE_ITEMS) is full too.
    auto second_full = [&] {
      return end - offset >= stride && end - offset - stride >= TILE_ITEMS;
    };
    cupar_In loaded[2][ITEMS_PER_THREAD];
    // The full tile at `offset` and, where it is full too, the next one (offset left on the last
    // tile taken); `first`: whether the first of them starts the thread's aggregate.
    auto consume = [&](auto first) {
      constexpr bool First = decltype(first)::value;
      if (second_full()) {
        cupar_load_vectorized(*this, offset, loaded[0]);
        cupar_load_vectorized(*this, offset + stride, loaded[1]);
        cupar_reduce_loaded<First>(*this, thread_aggregate, loaded[0]);
        cupar_reduce_loaded<false>(*this, thread_aggregate, loaded[1]);
        offset += stride;
      } else {
        cupar_consume_vectorized<First>(*this, thread_aggregate, offset);
      }
    };
    consume(::cuda::std::true_type());
    for (;;) {
      if (end - offset < stride) return;
      offset += stride;
      if (offset > end - TILE_ITEMS) break;
      consume(::cuda::std::false_type());
    }
  }
  // A partially full tile.
  if (even_share.block_offset < even_share.block_end) {
    const int valid_items = static_cast<int>(even_share.block_end - even_share.block_offset);
    ConsumeTile<false>(thread_aggregate, even_share.block_offset, valid_items,
                       ::cuda::std::false_type(), can_vectorize);
  }
}
}  // namespace reduce
}  // namespace detail
CUB_NAMESPACE_END
#endif

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
