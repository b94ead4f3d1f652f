// cupar internal: the kernel of the vectorised binary searches (lower_bound, upper_bound),
// written once for both operator paths: nvcc instantiates it with the caller's comparator in the
// caller's translation unit (search.cuh), NVRTC with the JIT's comparator slot
// (jit_ops/cupar_binary_search.cuh; this file is embedded in the library under its include name).
//
// One thread per needle, a resident grid looping over them. A search is log2(n) dependent loads:
// it is bound by the memory system, not by bandwidth, so what counts is many searches in flight
// (full occupancy) and few loads each: every block first copies a sample of the sorted range
// into shared memory and resolves the upper levels of its searches there. The loop has the same
// trip count (within one) for every needle, so warps stay converged.
#pragma once

#include <cub/util_macro.cuh>
#include <cub/util_type.cuh>

namespace cupar {
namespace detail {
namespace bsearch {

/// Threads per block.
inline constexpr int block_threads = 256;

/// Blocks per SM the launch keeps resident (8 x 256 threads: every thread slot of an sm_90 SM);
/// the grid is at most this many blocks per SM, each looping over needles, so that the sample
/// below is loaded once per resident block, not once per 256 needles.
inline constexpr int blocks_per_sm = 8;

/// Bytes of the sorted range each block copies into shared memory: 2^k - 1 keys taken at evenly
/// spaced positions, which resolve the first k levels of every search of the block without a
/// global load. A search is log2(n) dependent loads and bound by the memory system; on the H100
/// (docs/probes/bsearch.cu, u32, m = n, 2026-11-24) an 8 KiB sample (2,047 keys: 11 levels) took
/// it from 0.954 to 0.980 of Thrust's vectorised lower_bound at 2^28 (1.03 -> 1.05 at 2^24, 1.11
/// -> 1.15 at 2^20); evict-first hints on the needle and position streams changed nothing.
inline constexpr int sample_bytes = 8192;

/// Keys of the sample for values of `size` bytes: the largest 2^k - 1 that fits sample_bytes.
__host__ __device__ constexpr int sample_keys(unsigned long long size) {
  int s = 1;
  while ((2 * static_cast<unsigned long long>(s) + 1) * size <=
         static_cast<unsigned long long>(sample_bytes))
    s = 2 * s + 1;
  return s;
}

/// The sample pays off once the range has several keys per splitter.
__host__ __device__ constexpr bool sampled(unsigned long long n, int keys) {
  return n >= 4ull * (static_cast<unsigned long long>(keys) + 1);
}

/// Splitter i of S sits at position (i + 1) * n / (S + 1) - 1 of the sorted range.
__device__ __forceinline__ unsigned long long splitter_position(unsigned long long i,
                                                                unsigned long long n, int keys) {
  return (i + 1) * n / (static_cast<unsigned long long>(keys) + 1) - 1;
}

/// Copies the sample of d_sorted[0, n) into `sample` (all threads of the block take part).
template <class SortedIt, class T>
__device__ __forceinline__ void load_sample(SortedIt d_sorted, unsigned long long n, T* sample,
                                            int keys) {
  for (int i = threadIdx.x; i < keys; i += blockDim.x)
    sample[i] = d_sorted[splitter_position(static_cast<unsigned long long>(i), n, keys)];
  __syncthreads();
}

/// The part of [0, n) that holds x's position, found in the sample: c splitters come before x
/// (lower bound: comp(s, x); upper bound: !comp(x, s)), so the position lies in (pos(c - 1),
/// pos(c)]: the search goes on over [first, first + count), and returns first + count when no
/// key there qualifies (pos(c) itself, which does).
template <class T, class Comp>
__device__ __forceinline__ void narrow(const T* sample, int keys, unsigned long long n, const T& x,
                                       Comp& comp, int upper, unsigned long long& first,
                                       unsigned long long& count) {
  int c = 0;
  for (int step = (keys + 1) / 2; step >= 1; step >>= 1) {
    const T& s = sample[c + step - 1];
    const bool before = upper ? !static_cast<bool>(comp(x, s)) : static_cast<bool>(comp(s, x));
    if (before) c += step;
  }
  first = c == 0 ? 0 : splitter_position(static_cast<unsigned long long>(c) - 1, n, keys) + 1;
  const unsigned long long last =
      c == keys ? n : splitter_position(static_cast<unsigned long long>(c), n, keys);
  count = last - first;
}

/// The position of needle x in sorted[first, first + count): the first p with
/// !comp(sorted[p], x) (lower bound), or with comp(x, sorted[p]) (upper bound); first + count
/// when there is none.
template <class SortedIt, class T, class Comp>
__device__ __forceinline__ unsigned long long search_one(SortedIt d_sorted,
                                                         unsigned long long first,
                                                         unsigned long long count, const T& x,
                                                         Comp& comp, int upper) {
  if (upper) {
    while (count > 0) {
      const unsigned long long half = count >> 1;
      if (!static_cast<bool>(comp(x, d_sorted[first + half]))) {
        first += half + 1;
        count -= half + 1;
      } else {
        count = half;
      }
    }
  } else {
    while (count > 0) {
      const unsigned long long half = count >> 1;
      if (static_cast<bool>(comp(d_sorted[first + half], x))) {
        first += half + 1;
        count -= half + 1;
      } else {
        count = half;
      }
    }
  }
  return first;
}

/// The searches of needles [j0, m) step `stride`, over any random-access iterators: T is the
/// needles' value type, positions are converted to Index on write.
template <class T, class Index, class Comp, class SortedIt, class NeedleIt, class OutIt>
__device__ __forceinline__ void search_all(SortedIt d_sorted, unsigned long long n,
                                           NeedleIt d_needles, unsigned long long m, OutIt d_out,
                                           Comp& comp, int upper) {
  constexpr int keys = sample_keys(sizeof(T));
  __shared__ __align__(16) unsigned char sample_storage[keys * sizeof(T)];
  T* sample = reinterpret_cast<T*>(sample_storage);
  const bool use_sample = sampled(n, keys);  // the same for every thread
  if (use_sample) load_sample(d_sorted, n, sample, keys);
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long j =
           static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
       j < m; j += stride) {
    const T x = d_needles[j];
    unsigned long long first = 0, count = n;
    if (use_sample) narrow(sample, keys, n, x, comp, upper, first, count);
    d_out[j] = static_cast<Index>(search_one(d_sorted, first, count, x, comp, upper));
  }
}

/// out[j] = the first position p in [0, n) with !comp(sorted[p], needles[j]) (lower bound), or
/// with comp(needles[j], sorted[p]) (upper bound, `upper` != 0); n when there is none.
///
/// `Tag` is a CUB type (cub::NullType): it puts CUB's per-architecture-list namespace into the
/// kernel's mangled name, as CUB does for its own kernels, so that translation units compiled for
/// different architectures never share an instantiation.
template <class Tag, class T, class Index, class Comp>
CUB_DETAIL_KERNEL_ATTRIBUTES __launch_bounds__(block_threads) void kernel(
    const T* __restrict__ d_sorted, unsigned long long n, const T* __restrict__ d_needles,
    unsigned long long m, Index* __restrict__ d_out, Comp comp, int upper) {
  search_all<T, Index>(d_sorted, n, d_needles, m, d_out, comp, upper);
}

/// The kernel above over any random-access iterators (the compiled path's fancy iterators).
template <class Tag, class T, class Index, class Comp, class SortedIt, class NeedleIt, class OutIt>
CUB_DETAIL_KERNEL_ATTRIBUTES __launch_bounds__(block_threads) void iterator_kernel(
    SortedIt d_sorted, unsigned long long n, NeedleIt d_needles, unsigned long long m, OutIt d_out,
    Comp comp, int upper) {
  search_all<T, Index>(d_sorted, n, d_needles, m, d_out, comp, upper);
}

}  // namespace bsearch
}  // namespace detail
}  // namespace cupar
