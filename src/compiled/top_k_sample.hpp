// cupar internal: the sampled threshold both top-k routes use (src/compiled/top_k.cu's radix
// select and the run-time comparator route in src/jit/families/merge_sort.cu).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace cupar::detail {

/// The rank (from 0) in a sample of `samples` evenly spaced keys of n of the threshold whose keys
/// not after it hold the k first keys with a margin: p s + 4 sqrt(p s) + 8 for the fraction
/// p = k / n (the sample's count of keys before the k-th key has mean p s and about that
/// variance, so it falls short of the rank about once in 30,000 draws). Both routes use it where
/// k is a small fraction of n (k <= n / 16 with 65,536 samples, k <= n / 64 with 4,096): the
/// threshold then sits in the sample's first 7% (2.6%) at most.
inline std::size_t sample_threshold_rank(std::size_t n, std::size_t k, std::size_t samples) {
  const double ps = static_cast<double>(k) * static_cast<double>(samples) / static_cast<double>(n);
  const double r = std::ceil(ps + 4.0 * std::sqrt(ps) + 8.0);
  return std::min(samples - 1, static_cast<std::size_t>(r));
}

}  // namespace cupar::detail
