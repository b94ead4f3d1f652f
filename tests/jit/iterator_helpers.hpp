// cupar tests: helpers shared by the GPU suites of run-time iterator expressions
// (iterator_runtime_test.cpp, iterator_dp_test.cpp).
#pragma once

#include <cupar/jit.hpp>

#include <cstddef>
#include <random>
#include <vector>

namespace cupar::testing {

/// The sizes every expression case runs at: 0, 1, 2, odd, and large.
inline const std::vector<std::size_t> expression_sizes = {0, 1, 2, 1001, (1u << 20) + 3, 1u << 24};

/// Small integers as T (floating-point values: sums of products stay exact in double).
template <class T>
std::vector<T> small_values(std::size_t n, unsigned seed, int lo = -8, int hi = 8) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> d(lo, hi);
  std::vector<T> v(n);
  for (auto& x : v)
    x = static_cast<T>(d(rng));
  return v;
}

/// n indices below n drawn at random (all 0 for n = 0), for gathers.
inline std::vector<unsigned> random_indices(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<unsigned> idx(n);
  for (auto& i : idx)
    i = static_cast<unsigned>(n == 0 ? 0 : rng() % n);
  return idx;
}

/// Every case twice: with the operators called out of line (tier 1, the first call) and inlined
/// (tier 2, after the background build), which must agree with the CPU alike.
template <class F>
void both_tiers(F&& run) {
  run();
  cupar::jit::wait_for_background_builds();
  run();
}

}  // namespace cupar::testing
