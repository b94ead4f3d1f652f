// cupar benchmarks: the random data every benchmark runs on. One hash of (seed, index) gives the
// same values on the GPU (the generator kernel of common.cu) and on the host (the CPU baselines),
// so every row of a family, GPU or CPU, sorts or reduces exactly the same numbers.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#if defined(__CUDACC__)
#define CUPAR_BENCH_HD __host__ __device__
#else
#define CUPAR_BENCH_HD
#endif

namespace cupar_bench {

/// True for the benchmarks' record structs (records.hpp), which make their values from a hash
/// with a static from_hash(h) and ignore the value range.
template <class T, class = void>
struct is_record : std::false_type {};

/// The 16-bit floating-point element types (made like floats, then rounded to the type).
template <class T>
inline constexpr bool is_half_v = std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>;
template <class T>
struct is_record<T, std::void_t<decltype(T::from_hash(std::uint64_t{}))>> : std::true_type {};

/// Range of generated values: floating point uniform over [lo, hi) (24 random bits), integers
/// uniform over [lo, hi]; `full_bits` gives every bit pattern of an integer type instead.
struct value_range {
  double lo = 0;
  double hi = 1;
  bool full_bits = false;
};

inline constexpr value_range full_bits{0, 0, true};

/// splitmix64 of (seed, index): independent, well-mixed 64-bit values, never a constant fill.
CUPAR_BENCH_HD inline std::uint64_t hash64(std::uint64_t seed, std::uint64_t i) {
  std::uint64_t z = seed * 0x9E3779B97F4A7C15ull + i + 0x632BE59BD9B4E019ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Separately rounded float operations: nvcc would otherwise contract a * b + c into an FMA on
// the device and the host values would differ in the last bit.
CUPAR_BENCH_HD inline float mul_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}
CUPAR_BENCH_HD inline float add_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fadd_rn(a, b);
#else
  return a + b;
#endif
}

/// Element `i` of the sequence `seed` over `range`. The parameters are passed pre-converted
/// (lo, span) so the device code does no double arithmetic.
template <class T>
struct value_generator {
  std::uint64_t seed;
  value_range range;

  CUPAR_BENCH_HD T operator()(std::uint64_t i) const {
    const std::uint64_t h = hash64(seed, i);
    if constexpr (std::is_floating_point_v<T> || is_half_v<T>) {
      const float u = static_cast<float>(h >> 40) * (1.0f / 16777216.0f);  // [0, 1), exact
      const float lo = static_cast<float>(range.lo);
      const float span = static_cast<float>(range.hi - range.lo);
      return static_cast<T>(add_rn(lo, mul_rn(span, u)));
    } else if constexpr (std::is_integral_v<T>) {
      if (range.full_bits) {
        T v;
        std::memcpy(&v, &h, sizeof(T));
        return v;
      }
      const auto lo = static_cast<long long>(range.lo);
      const auto count = static_cast<unsigned long long>(static_cast<long long>(range.hi) - lo) + 1;
      return static_cast<T>(lo + static_cast<long long>(h % count));
    } else {
      static_assert(is_record<T>::value, "value_generator: arithmetic types and records only");
      return T::from_hash(h);
    }
  }
};

}  // namespace cupar_bench
