// cupar tests: CPU references of the histogram binning rules documented in histogram.hpp, written
// from the documentation (not from CUB): even bins with the stated formula, custom bins by
// comparison with the boundaries, NaN and out-of-range samples dropped.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

namespace cupar::testing {

/// The type boundaries of `Sample`s are held in (histogram.hpp): the sample type for floating
/// point, int for 1-2 byte integers, long long for 4-byte integers and the 8-byte types themselves.
template <class Sample>
using level_of_t = std::conditional_t<
    std::is_floating_point_v<Sample>, Sample,
    std::conditional_t<(sizeof(Sample) <= 2), int,
                       std::conditional_t<(sizeof(Sample) == 4), long long,
                                          std::conditional_t<std::is_signed_v<Sample>, long long,
                                                             unsigned long long>>>>;

/// Even bins: the bin of `s` by the documented formula, or -1 when the sample is dropped (NaN or
/// outside [lower, upper)). For floating point the formula is
/// (int)((s - lower) * (bins / (upper - lower))) in the sample's type, which can round up to
/// `bins` for the last representable samples below upper: that value is returned as is, for the
/// caller to decide (see even_bin_rounds_past_last()).
template <class Sample>
long long even_bin(Sample s, level_of_t<Sample> lower, level_of_t<Sample> upper, int bins) {
  if constexpr (std::is_floating_point_v<Sample>) {
    if (!(s >= lower && s < upper)) return -1;
    const Sample scale = static_cast<Sample>(static_cast<Sample>(bins) / (upper - lower));
    const Sample offset = s - lower;
    return static_cast<int>(offset * scale);
  } else {
    const __int128 v = static_cast<__int128>(s), lo = static_cast<__int128>(lower),
                   hi = static_cast<__int128>(upper);
    if (v < lo || v >= hi) return -1;
    return static_cast<long long>(((v - lo) * bins) / (hi - lo));
  }
}

/// True when the documented formula gives `bins` (a bin that does not exist) for a sample in
/// [lower, upper): only possible for floating point.
template <class Sample>
bool even_bin_rounds_past_last(Sample s, level_of_t<Sample> lower, level_of_t<Sample> upper,
                               int bins) {
  return even_bin(s, lower, upper, bins) >= bins;
}

/// Custom bins: the i with levels[i] <= s < levels[i + 1], or -1.
template <class Sample>
long long range_bin(Sample s, const std::vector<level_of_t<Sample>>& levels) {
  if constexpr (std::is_floating_point_v<Sample>) {
    if (std::isnan(s)) return -1;
  }
  const auto v = static_cast<level_of_t<Sample>>(s);
  const auto it = std::upper_bound(levels.begin(), levels.end(), v);
  const long long bin = static_cast<long long>(it - levels.begin()) - 1;
  return bin >= 0 && bin < static_cast<long long>(levels.size()) - 1 ? bin : -1;
}

/// Counts of an even histogram; samples whose formula gives `bins` are counted in `past_last`.
template <class Sample>
std::vector<std::uint64_t> even_histogram(const std::vector<Sample>& samples,
                                          level_of_t<Sample> lower, level_of_t<Sample> upper,
                                          int bins, std::size_t* past_last = nullptr) {
  std::vector<std::uint64_t> h(static_cast<std::size_t>(bins), 0);
  std::size_t past = 0;
  for (const Sample& s : samples) {
    const long long b = even_bin(s, lower, upper, bins);
    if (b >= bins) {
      ++past;
    } else if (b >= 0) {
      ++h[static_cast<std::size_t>(b)];
    }
  }
  if (past_last != nullptr) *past_last = past;
  return h;
}

template <class Sample>
std::vector<std::uint64_t> range_histogram(const std::vector<Sample>& samples,
                                           const std::vector<level_of_t<Sample>>& levels) {
  std::vector<std::uint64_t> h(levels.size() - 1, 0);
  for (const Sample& s : samples) {
    const long long b = range_bin(s, levels);
    if (b >= 0) ++h[static_cast<std::size_t>(b)];
  }
  return h;
}

/// Replaces the samples whose formula result is `bins` by `lower`, so that a test of the
/// formula is not also a test of that edge (which has its own test).
template <class Sample>
void avoid_past_last(std::vector<Sample>& samples, level_of_t<Sample> lower,
                     level_of_t<Sample> upper, int bins) {
  if constexpr (std::is_floating_point_v<Sample>) {
    for (Sample& s : samples) {
      if (even_bin_rounds_past_last(s, lower, upper, bins)) s = static_cast<Sample>(lower);
    }
  }
}

/// Device counters widened for comparison.
template <class Counter>
std::vector<std::uint64_t> widen(const std::vector<Counter>& counts) {
  return std::vector<std::uint64_t>(counts.begin(), counts.end());
}

}  // namespace cupar::testing
