// cupar internal: how samples are presented to CUB's histogram so that three CUB 3.0.1 bugs do not
// show (docs/CUB_NOTES.md, "Histogram bugs"): negative int8 samples dropped, bin indices wrapping
// for 16-bit samples with many bins, and floating-point samples just below `upper` binned one past
// the last bin.
#pragma once

#include <cupar/detail/checks.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

namespace cupar::detail {

/// What to do to samples of type S (after any sample operator) before CUB bins them.
template <class S>
struct histogram_binning {
  /// int8: bin (unsigned char)(x ^ 0x80) with every level shifted by +128.
  static constexpr bool xor_sign = std::is_integral_v<S> && std::is_signed_v<S> && sizeof(S) == 1;
  /// 16-bit samples with more bins than the type's largest value: bin them as int.
  bool widen = false;
  /// Floating-point even bins: samples in [clamp_max, upper) are binned as clamp_max.
  bool clamp = false;
  S clamp_max{};
  S upper{};
};

/// Bin of `s` as CUB computes even bins of floating-point samples.
template <class T>
int cub_float_bin(T s, T lower, T upper, int bins) {
  const T reciprocal = static_cast<T>(static_cast<T>(bins) / static_cast<T>(upper - lower));
  return static_cast<int>((s - lower) * reciprocal);
}

template <class S>
void check_bins_for_samples(const char* function, int num_levels) {
  if constexpr (std::is_same_v<S, float>) {
    if (num_levels - 1 > (1 << 24)) {
      throw_invalid_argument(function,
                             "more than 2^24 bins for float samples cannot be counted "
                             "exactly (CUB passes bin indices as float); use double "
                             "samples or fewer bins");
    }
  }
}

/// Binning of a histogram of S samples with `num_levels` levels; `lower`/`upper` for even bins
/// (ignored for custom levels, pass `even = false`).
template <class S, class Level>
histogram_binning<S> plan_histogram_binning(const char* function, int num_levels, bool even,
                                            Level lower, Level upper) {
  check_bins_for_samples<S>(function, num_levels);
  histogram_binning<S> b;
  const long long bins = num_levels - 1;
  if constexpr (std::is_integral_v<S> && sizeof(S) == 2) {
    b.widen = bins > static_cast<long long>(std::numeric_limits<S>::max());
  }
  if constexpr (std::is_floating_point_v<S>) {
    if (even) {
      const S lo = static_cast<S>(lower), hi = static_cast<S>(upper);
      S v = std::nextafter(hi, -std::numeric_limits<S>::infinity());
      if (v >= lo && cub_float_bin(v, lo, hi, static_cast<int>(bins)) >= bins) {
        while (v > lo && cub_float_bin(v, lo, hi, static_cast<int>(bins)) >= bins) {
          v = std::nextafter(v, -std::numeric_limits<S>::infinity());
        }
        b.clamp = true;
        b.clamp_max = v;
        b.upper = hi;
      }
    }
  }
  return b;
}

/// Level shift that goes with xor_sign (int8 samples binned as unsigned): +128.
template <class S, class Level>
Level shifted_level(Level l) {
  if constexpr (histogram_binning<S>::xor_sign) {
    return static_cast<Level>(l + 128);
  } else {
    return l;
  }
}

}  // namespace cupar::detail
