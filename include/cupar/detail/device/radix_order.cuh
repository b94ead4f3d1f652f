// cupar internal: a key's order-preserving unsigned bits, the order CUB's radix sort sorts
// arithmetic keys in (sort.hpp): sign bit flipped for signed integers; for floating point all
// bits flipped for negative values and the sign bit flipped for the others, -0.0 as +0.0, so NaNs
// sort by bit pattern (negative NaNs first, positive last); descending: the complement. Used by
// the kernels that must agree with the radix sort: top-k (src/compiled/top_k.cu) and cupar::dist's
// sample sort (src/dist/kernels.cu).
#pragma once

#include <cstdint>
#include <type_traits>

namespace cupar::detail {

/// The unsigned integer of K's size.
template <class K>
using uint_of_t = std::conditional_t<
    sizeof(K) == 1, std::uint8_t,
    std::conditional_t<sizeof(K) == 2, std::uint16_t,
                       std::conditional_t<sizeof(K) == 4, std::uint32_t, std::uint64_t>>>;

/// The key as an unsigned integer ordered as the radix sort orders keys (descending: reversed).
template <class K>
__device__ __forceinline__ uint_of_t<K> ordered_bits(K key, bool descending) {
  using U = uint_of_t<K>;
  U bits;
  memcpy(&bits, &key, sizeof(K));
  constexpr U sign = static_cast<U>(U(1) << (8 * sizeof(K) - 1));
  if constexpr (std::is_floating_point_v<K>) {
    if (static_cast<U>(bits << 1) == 0) bits = 0;  // -0.0 sorts as +0.0
    bits = (bits & sign) ? static_cast<U>(~bits) : static_cast<U>(bits | sign);
  } else if constexpr (std::is_signed_v<K>) {
    bits = static_cast<U>(bits ^ sign);
  }
  return descending ? static_cast<U>(~bits) : bits;
}

}  // namespace cupar::detail
