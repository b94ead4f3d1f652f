// cupar tests: seeded data generation, the standard sizes, and tolerances.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace cupar::testing {

/// The largest element count the tests use, from the environment variable CUPAR_TEST_SCALE:
/// unset, empty or "full": no limit; "small": 65,537, the largest fixed standard size (every
/// kernel path of the standard sizes is still taken: several tiles of every reduce, scan, merge
/// sort and histogram policy); a number: that count. scripts/sanitize.sh runs the GPU suite with
/// "small", where compute-sanitizer makes every kernel 10-100 times slower.
inline std::size_t test_size_limit() {
  static const std::size_t limit = [] {
    const char* env = std::getenv("CUPAR_TEST_SCALE");
    if (env == nullptr || *env == '\0' || std::string(env) == "full") return SIZE_MAX;
    if (std::string(env) == "small") return std::size_t(65537);
    const unsigned long long n = std::strtoull(env, nullptr, 10);
    return n >= 1000 ? static_cast<std::size_t>(n) : std::size_t(65537);
  }();
  return limit;
}

/// `n`, or when it is above test_size_limit(), the limit plus n % 64 (sizes stay distinct and
/// keep an odd remainder where they had one). Tests wrap their fixed large sizes in it.
inline std::size_t scaled(std::size_t n) {
  const std::size_t limit = test_size_limit();
  return n <= limit ? n : limit + n % 64;
}

/// `sizes` through scaled(), duplicates removed (order kept).
inline std::vector<std::size_t> scaled(const std::vector<std::size_t>& sizes) {
  std::vector<std::size_t> out;
  for (std::size_t n : sizes) {
    const std::size_t s = scaled(n);
    bool seen = false;
    for (std::size_t x : out)
      seen = seen || x == s;
    if (!seen) out.push_back(s);
  }
  return out;
}

/// Sizes every family is checked at: empty, tiny, warp boundaries, common tile boundaries of
/// CUB's H100 policies (reduce 4096, scan 1920, merge sort 4352, histogram 6144), and seeded
/// random sizes up to 2^24 (capped by CUPAR_TEST_SCALE: test_size_limit()).
inline std::vector<std::size_t> standard_sizes(std::uint64_t seed = 20261121) {
  std::vector<std::size_t> sizes = {0,    1,    2,    31,   32,   33,   1000, 1919, 1920, 1921,
                                    4095, 4096, 4097, 4351, 4352, 4353, 6143, 6145, 65537};
  std::mt19937_64 rng(seed);
  sizes.push_back(std::uniform_int_distribution<std::size_t>(100000, 1u << 20)(rng));
  sizes.push_back(std::uniform_int_distribution<std::size_t>((1u << 20) + 1, 1u << 24)(rng));
  sizes.push_back(std::size_t(1) << 24);
  return scaled(sizes);
}

/// Smaller set for the slowest CPU references (comparison sorts of every type).
inline std::vector<std::size_t> quick_sizes(std::uint64_t seed = 20261121) {
  std::vector<std::size_t> sizes = {0, 1, 2, 31, 33, 1000, 4097, 4353, 65537};
  std::mt19937_64 rng(seed);
  sizes.push_back(std::uniform_int_distribution<std::size_t>(100000, 1u << 22)(rng));
  return scaled(sizes);
}

/// Uniform values: integers over [lo, hi], floating point over [lo, hi).
template <class T>
std::vector<T> random_values(std::size_t n, std::uint64_t seed, double lo, double hi) {
  std::vector<T> v(n);
  std::mt19937_64 rng(seed);
  if constexpr (std::is_floating_point_v<T>) {
    std::uniform_real_distribution<T> d(static_cast<T>(lo), static_cast<T>(hi));
    for (auto& x : v)
      x = d(rng);
  } else if constexpr (std::is_signed_v<T>) {
    std::uniform_int_distribution<long long> d(static_cast<long long>(lo),
                                               static_cast<long long>(hi));
    for (auto& x : v)
      x = static_cast<T>(d(rng));
  } else {
    std::uniform_int_distribution<unsigned long long> d(static_cast<unsigned long long>(lo),
                                                        static_cast<unsigned long long>(hi));
    for (auto& x : v)
      x = static_cast<T>(d(rng));
  }
  return v;
}

/// Values over the type's whole range (every bit pattern for integers; finite values of every
/// magnitude and both signs for floating point).
template <class T>
std::vector<T> full_range_values(std::size_t n, std::uint64_t seed) {
  std::vector<T> v(n);
  std::mt19937_64 rng(seed);
  for (auto& x : v) {
    if constexpr (std::is_floating_point_v<T>) {
      do {
        const std::uint64_t bits = rng();
        if constexpr (sizeof(T) == 4) {
          const auto b32 = static_cast<std::uint32_t>(bits);
          std::memcpy(&x, &b32, 4);
        } else {
          std::memcpy(&x, &bits, 8);
        }
      } while (!std::isfinite(x));
    } else {
      const std::uint64_t bits = rng();
      std::memcpy(&x, &bits, sizeof(T));
    }
  }
  return v;
}

/// a + b with wrap-around for integers (the GPU's behaviour, defined for the reference).
template <class T>
T wrapping_add(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    return a + b;
  }
}

/// Tolerance of a floating-point sum of terms whose absolute values add up to `abs_sum`:
/// tree-ordered sums (CUB) err by at most about log2(n) + 1 roundings of the running magnitude.
template <class T>
double sum_tolerance(std::size_t n, double abs_sum, double extra_terms = 0) {
  const double eps = std::numeric_limits<T>::epsilon();
  return (std::log2(static_cast<double>(n) + 1.0) + 2.0 + extra_terms) * eps * abs_sum + 1e-30;
}

/// The extra rounding terms of determinism::not_guaranteed's single pass: its blocks' totals are
/// added to the output one after another (atomic adds in finishing order), so its error grows
/// with the number of blocks, at most one per 2,048 elements (a tile of 8-byte elements) and at
/// most the grid CUB's even share allows (16,384 covers every GPU so far).
inline double atomic_sum_terms(std::size_t n) {
  const double blocks = std::ceil(static_cast<double>(n) / 2048.0);
  return blocks < 16384.0 ? blocks : 16384.0;
}

template <class T>
std::string type_label() {
  if constexpr (std::is_same_v<T, float>)
    return "f32";
  else if constexpr (std::is_same_v<T, double>)
    return "f64";
  else
    return (std::is_signed_v<T> ? "i" : "u") + std::to_string(8 * sizeof(T));
}

}  // namespace cupar::testing
