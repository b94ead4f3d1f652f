// cupar tests: the radix sort's order on the host (the reference of the radix sort and top-k
// tests): a key's order-preserving radix representation as the documentation defines it (sign bit
// flipped for signed integers; for floating point all bits flipped for negative values and the
// sign bit flipped for the others; -0.0 and +0.0 one key), the input positions in the order of a
// stable sort by it, and keys that exercise it (the whole range, floating-point specials,
// duplicates).
#pragma once

#include "../conformance/common.hpp"

#include <cupar/types.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <utility>
#include <vector>

namespace cupar::testing {

template <class K>
using radix_bits_t = std::conditional_t<
    sizeof(K) == 1, std::uint8_t,
    std::conditional_t<sizeof(K) == 2, std::uint16_t,
                       std::conditional_t<sizeof(K) == 4, std::uint32_t, std::uint64_t>>>;

template <class K>
radix_bits_t<K> radix_key(K k, bool zeros_as_negative) {
  using U = radix_bits_t<K>;
  U bits;
  std::memcpy(&bits, &k, sizeof(K));
  constexpr U high = static_cast<U>(U(1) << (8 * sizeof(K) - 1));
  if constexpr (std::is_floating_point_v<K>) {
    if (bits == high || bits == 0) bits = zeros_as_negative ? high : 0;  // both zeros as one
    return (bits & high) != 0 ? static_cast<U>(~bits) : static_cast<U>(bits | high);
  } else if constexpr (std::is_signed_v<K>) {
    return static_cast<U>(bits ^ high);
  } else {
    return bits;
  }
}

template <class K>
radix_bits_t<K> digit(K k, int begin_bit, int end_bit, bool zeros_as_negative) {
  using U = radix_bits_t<K>;
  const int width = end_bit - begin_bit;
  U d = static_cast<U>(radix_key(k, zeros_as_negative) >> begin_bit);
  if (width < static_cast<int>(8 * sizeof(K))) d = static_cast<U>(d & ((U(1) << width) - 1));
  return d;
}

/// Input positions in the order of a stable radix sort with `o`.
/// `zeros_as_negative`: which zero's bits -0.0 and +0.0 take (matters only for floating-point keys
/// under a partial bit range, where it is unspecified).
template <class K>
std::vector<std::uint32_t> radix_order(const std::vector<K>& keys, radix_options o,
                                       bool zeros_as_negative = false) {
  const int end_bit = o.end_bit == -1 ? static_cast<int>(8 * sizeof(K)) : o.end_bit;
  using U = radix_bits_t<K>;
  std::vector<std::pair<U, std::uint32_t>> v(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    v[i] = {digit(keys[i], o.begin_bit, end_bit, zeros_as_negative), static_cast<std::uint32_t>(i)};
  }
  if (o.order == sort_order::ascending) {
    std::sort(v.begin(), v.end());
  } else {
    std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
  }
  std::vector<std::uint32_t> order(v.size());
  for (std::size_t i = 0; i < v.size(); ++i)
    order[i] = v[i].second;
  return order;
}

template <class T>
std::vector<T> gather(const std::vector<T>& v, const std::vector<std::uint32_t>& order) {
  std::vector<T> out(order.size());
  for (std::size_t i = 0; i < order.size(); ++i)
    out[i] = v[order[i]];
  return out;
}

template <class F>
F float_from_bits(radix_bits_t<F> bits) {
  F f;
  std::memcpy(&f, &bits, sizeof(F));
  return f;
}

/// Floating-point specials: NaNs of both signs and several payloads, infinities, zeros,
/// denormals, extremes.
template <class F>
std::vector<F> float_specials() {
  using U = radix_bits_t<F>;
  using lim = std::numeric_limits<F>;
  constexpr int mant = lim::digits - 1;
  const U exp_all = static_cast<U>(((U(1) << (8 * sizeof(F) - 1 - mant)) - 1) << mant);
  const U sign = static_cast<U>(U(1) << (8 * sizeof(F) - 1));
  const U quiet = static_cast<U>(U(1) << (mant - 1));
  return {float_from_bits<F>(exp_all | quiet),          // +qNaN
          float_from_bits<F>(exp_all | 1),              // +sNaN, smallest payload
          float_from_bits<F>(exp_all | quiet | 12345),  // +qNaN with payload
          float_from_bits<F>(sign | exp_all | quiet),   // -qNaN
          float_from_bits<F>(sign | exp_all | 1),       // -sNaN
          float_from_bits<F>(sign | exp_all | quiet | 77),
          lim::infinity(),
          -lim::infinity(),
          F(0.0),
          F(-0.0),
          lim::denorm_min(),
          -lim::denorm_min(),
          lim::min(),
          -lim::min(),
          lim::max(),
          lim::lowest(),
          F(1),
          F(-1)};
}

/// Keys over the type's whole range; floating point with the specials mixed in.
template <class K>
std::vector<K> radix_keys(std::size_t n, std::uint64_t seed) {
  auto v = full_range_values<K>(n, seed);
  if constexpr (std::is_floating_point_v<K>) {
    const auto specials = float_specials<K>();
    for (std::size_t i = 2; i < n; i += 5)
      v[i] = specials[(i / 5) % specials.size()];
  }
  return v;
}

/// Keys with many duplicates (so stability shows).
template <class K>
std::vector<K> duplicate_keys(std::size_t n, std::uint64_t seed) {
  auto v = radix_keys<K>(64, seed);
  const auto pick = random_values<std::uint32_t>(n, seed + 1, 0, 63);
  std::vector<K> out(n);
  for (std::size_t i = 0; i < n; ++i)
    out[i] = v[pick[i]];
  return out;
}

}  // namespace cupar::testing
