// cupar JIT: CUB's merge sort kernels with a run-time comparator. Expects cupar_K, optionally
// CUPAR_SORT_PAIRS with cupar_V, and cupar_jit_op(const unsigned char* state, cupar_K a,
// cupar_K b) -> bool.
#pragma once

#include <cub/device/dispatch/kernels/merge_sort.cuh>
#include <cub/device/dispatch/tuning/tuning_merge_sort.cuh>
#include <cub/util_type.cuh>

struct cupar_sort_compare {
  cupar_functor_state state;
  __device__ __forceinline__ bool operator()(const cupar_K& a, const cupar_K& b) const {
    return cupar_jit_op(state.bytes, a, b);
  }
};

#if defined(CUPAR_SORT_PAIRS)
typedef cupar_V cupar_value;
typedef const cupar_V* cupar_value_in;
typedef cupar_V* cupar_value_out;
#else
typedef cub::NullType cupar_value;
typedef cub::NullType* cupar_value_in;
typedef cub::NullType* cupar_value_out;
#endif

typedef long long cupar_offset;
typedef cub::detail::merge_sort::policy_hub<cupar_K*>::MaxPolicy cupar_policy;
typedef cub::detail::merge_sort::merge_sort_vsmem_helper_t<
    cupar_policy::ActivePolicy::MergeSortPolicy, const cupar_K*, cupar_value_in, cupar_K*,
    cupar_value_out, cupar_offset, cupar_sort_compare, cupar_K, cupar_value>
    cupar_vsmem_helper;

#if defined(CUPAR_OUT_OF_LINE)
// The out-of-line (tier-1) block sort's and merge kernel's merge path searches (over their tile:
// int offsets; the partition kernel's searches over global memory with 64-bit offsets keep CUB's
// template) in one call of the comparator's generated MergePath (batch::merge_path), the comparator
// inlined. A non-template overload found by argument-dependent lookup: preferred to CUB's template
// where the arguments match it exactly.
extern "C" __device__ int cupar_jit_op_merge_path(const unsigned char* state, const cupar_K* keys1,
                                                  const cupar_K* keys2, int count1, int count2,
                                                  int diag);
__device__ __forceinline__ int MergePath(cupar_K* keys1, cupar_K* keys2, int keys1_count,
                                         int keys2_count, int diag, cupar_sort_compare compare_op) {
  return cupar_jit_op_merge_path(compare_op.state.bytes, keys1, keys2, keys1_count, keys2_count,
                                 diag);
}
#endif

#if defined(CUPAR_OUT_OF_LINE) && !defined(CUPAR_SORT_PAIRS)
// The out-of-line (tier-1) serial merges of a sort of keys (the block sort's merge rounds and the
// merge kernel: a thread's keys from two sorted runs in shared memory, one comparison a key) in
// chunks of the comparator's generated merge (codegen.cpp, batch::merge_chunk), the comparator
// inlined there: each chunk's keys and the first run's new begin come back by value, in registers
// (at most 12 words under the sm_90 call ABI: 11 4-byte keys, two calls for 17; 5 8-byte keys),
// and the thread's array stays in registers. The same comparisons, reads and keys as CUB's. The
// positions are not computed: a sort of keys never reads them (cub/block/block_merge_sort.cuh and
// cub/agent/agent_merge_sort.cuh read them only for items). Found by argument-dependent lookup,
// more specialised than CUB's template. (One call a whole merge, its keys and positions through
// the caller's local memory, made tier 1 1.6x slower: docs/PERFORMANCE_NOTES.md.)
#ifndef CUPAR_MERGED_DEFINED
#define CUPAR_MERGED_DEFINED
template <class K>
struct cupar_merge_chunk {
  static constexpr int value = sizeof(K) > 44        ? 1
                               : 44 / sizeof(K) > 17 ? 17
                                                     : static_cast<int>(44 / sizeof(K));
};
template <class K, int N>
struct cupar_merged {
  K k[N];
  int b1;
};
#endif
extern "C" __device__ cupar_merged<cupar_K, cupar_merge_chunk<cupar_K>::value>
cupar_jit_op_merge_chunk(const unsigned char* state, const cupar_K* keys, int begin1, int begin2,
                         int end1, int end2, int n);
template <int N>
__device__ __forceinline__ void SerialMerge(cupar_K* keys_shared, int keys1_beg, int keys2_beg,
                                            int keys1_count, int keys2_count, cupar_K (&output)[N],
                                            int (&indices)[N], cupar_sort_compare compare_op) {
  constexpr int chunk = cupar_merge_chunk<cupar_K>::value;
  const int keys1_end = keys1_beg + keys1_count;
  const int keys2_end = keys2_beg + keys2_count;
#pragma unroll
  for (int c = 0; c < N; c += chunk) {
    const int n = N - c < chunk ? N - c : chunk;
    const cupar_merged<cupar_K, chunk> r = cupar_jit_op_merge_chunk(
        compare_op.state.bytes, keys_shared, keys1_beg, keys2_beg, keys1_end, keys2_end, n);
#pragma unroll
    for (int j = 0; j < chunk; ++j)
      if (c + j < N) output[c + j] = r.k[j];
    keys2_beg += n - (r.b1 - keys1_beg);
    keys1_beg = r.b1;
  }
#pragma unroll
  for (int i = 0; i < N; ++i)
    indices[i] = 0;
}

// The out-of-line (tier-1) block sort: a thread's keys sorted by CUB's stable odd-even
// transposition sort (StableOddEvenSort, cub/thread/thread_sort.cuh) in one call of the
// comparator's generated network (codegen.cpp, batch::oddeven), the comparator inlined there,
// instead of one out-of-line call per compare-swap (17 passes of 8 for 4-byte keys): the
// tier-1 block sort was issue-bound on those calls (2.4x the optimised kernel's instructions,
// docs/PERFORMANCE_NOTES.md). The same compare-swaps in the same order. Found by
// argument-dependent lookup (cupar_sort_compare), more specialised than CUB's template. The
// network reads and writes a copy of the keys: only the copy's address is taken, so the caller's
// array stays in registers through the block sort (with `keys` passed itself, the whole array
// lived in local memory: f32's kernel had 130 local stores and 70 loads, 18 and 18 now).
extern "C" __device__ void cupar_jit_op_oddeven(const unsigned char* state, cupar_K* keys, int n);
template <int N>
__device__ __forceinline__ void StableOddEvenSort(cupar_K (&keys)[N], cub::NullType (&)[N],
                                                  cupar_sort_compare compare_op) {
  static_assert(N <= 17, "batch::oddeven sorts at most oddeven_max (17) keys");
  cupar_K k[N];
#pragma unroll
  for (int i = 0; i < N; ++i)
    k[i] = keys[i];
  cupar_jit_op_oddeven(compare_op.state.bytes, k, N);
#pragma unroll
  for (int i = 0; i < N; ++i)
    keys[i] = k[i];
}
#endif
