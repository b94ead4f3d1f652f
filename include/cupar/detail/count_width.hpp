// cupar internal: the width of the element count handed to CUB.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>

namespace cupar::detail {

/// Calls `f(count)` with `n` as a 32-bit count when it is below 2^31, else as a 64-bit one, and
/// returns what `f` returns (both calls must return the same type).
///
/// CUB instantiates its kernels and its host dispatch on the count's type. With 64-bit counts its
/// merge sort runs about 2% slower and its reduce spends up to 0.5 us more on the host per call
/// (docs/CUB_NOTES.md, "Offset width"); a 32-bit count cannot reach n >= 2^31. Thrust makes the
/// same choice. The price is two instantiations per call site, so only the families where the width
/// was measured to matter use it.
template <class F>
auto with_count_width(std::size_t n, F&& f) {
  if (n <= static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max())) {
    return f(static_cast<std::int32_t>(n));
  }
  return f(static_cast<std::int64_t>(n));
}

}  // namespace cupar::detail
