// cupar internal: the kernel of the vectorised binary searches (lower_bound, upper_bound),
// written once for both operator paths: nvcc instantiates it with the caller's comparator in the
// caller's translation unit (search.cuh), NVRTC with the JIT's comparator slot
// (jit_ops/cupar_binary_search.cuh; this file is embedded in the library under its include name).
//
// One thread per needle (grid-stride). A search is log2(n) dependent loads: it is bound by memory
// latency, not bandwidth, so what counts is many searches in flight (full occupancy, small blocks
// of work) rather than CUB transform's bytes-in-flight tuning, which is made for streaming. The
// loop has the same trip count (floor or ceil of log2(n + 1)) for every needle, so warps stay
// converged.
#pragma once

#include <cub/util_macro.cuh>
#include <cub/util_type.cuh>

namespace cupar {
namespace detail {
namespace bsearch {

/// Threads per block.
inline constexpr int block_threads = 256;

/// The position of needle x in sorted[0, n): the first p with !comp(sorted[p], x) (lower bound),
/// or with comp(x, sorted[p]) (upper bound); n when there is none.
template <class SortedIt, class T, class Comp>
__device__ __forceinline__ unsigned long long search_one(SortedIt d_sorted, unsigned long long n,
                                                         const T& x, Comp& comp, int upper) {
  unsigned long long first = 0, count = n;
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
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long j =
           static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
       j < m; j += stride) {
    const T x = d_needles[j];
    unsigned long long first = 0, count = n;
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
    d_out[j] = static_cast<Index>(first);
  }
}

/// The kernel above over any random-access iterators (the compiled path's fancy iterators): T is
/// the needles' value type, positions are converted to Index on write. The pointer kernel keeps
/// its own loop (restrict-qualified parameters, the measured code of both paths).
template <class Tag, class T, class Index, class Comp, class SortedIt, class NeedleIt, class OutIt>
CUB_DETAIL_KERNEL_ATTRIBUTES __launch_bounds__(block_threads) void iterator_kernel(
    SortedIt d_sorted, unsigned long long n, NeedleIt d_needles, unsigned long long m, OutIt d_out,
    Comp comp, int upper) {
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long j =
           static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
       j < m; j += stride) {
    const T x = d_needles[j];
    d_out[j] = static_cast<Index>(search_one(d_sorted, n, x, comp, upper));
  }
}

}  // namespace bsearch
}  // namespace detail
}  // namespace cupar
