// cupar tests: user-defined element types and their CPU semantics.
#pragma once

#include <cstdint>
#include <ostream>
#include <type_traits>

namespace cupar::testing {

/// 2x2 matrix of integers modulo 2^32. Multiplication is associative but not commutative, so a
/// reduction or scan that reordered operands would give a different answer.
struct mat2 {
  std::uint32_t a, b, c, d;
  friend bool operator==(const mat2& x, const mat2& y) {
    return x.a == y.a && x.b == y.b && x.c == y.c && x.d == y.d;
  }
  friend std::ostream& operator<<(std::ostream& os, const mat2& m) {
    return os << "[" << m.a << " " << m.b << "; " << m.c << " " << m.d << "]";
  }
};

#if defined(__CUDACC__)
#define CUPAR_TEST_HD __host__ __device__
#else
#define CUPAR_TEST_HD
#endif

CUPAR_TEST_HD inline mat2 mat2_mul(const mat2& x, const mat2& y) {
  return {x.a * y.a + x.b * y.c, x.a * y.b + x.b * y.d, x.c * y.a + x.d * y.c,
          x.c * y.b + x.d * y.d};
}

inline constexpr mat2 mat2_identity{1, 0, 0, 1};

/// A record sorted by `key`; `payload` tracks the input position (to check stability).
struct record {
  float key;
  std::uint32_t payload;
  friend bool operator==(const record& x, const record& y) {
    return x.key == y.key && x.payload == y.payload;
  }
  friend std::ostream& operator<<(std::ostream& os, const record& r) {
    return os << "{" << r.key << ", " << r.payload << "}";
  }
};

/// The element types of the single-pass sum of determinism::not_guaranteed: 32- and 64-bit
/// integers, float, double (the GPU adds them atomically).
template <class T>
constexpr bool atomic_addable() {
  return (std::is_integral_v<T> && !std::is_same_v<T, bool> &&
          (sizeof(T) == 4 || sizeof(T) == 8)) ||
         std::is_same_v<T, float> || std::is_same_v<T, double>;
}

}  // namespace cupar::testing
