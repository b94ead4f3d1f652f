// cupar tests: what the group_by tests share (host code: the compiled and the run-time tests):
// keys drawn from G groups, values whose float sums are exact in any order, keys compared as
// group_by groups them.
#pragma once

#include "data.hpp"

#include <cupar/group_by.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace cupar::testing {

/// Keys drawn from `groups` distinct values (spread over the key type's range), n rows.
template <class K>
std::vector<K> group_keys(std::size_t n, std::size_t groups, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::uint64_t> pick(0, groups - 1);
  std::vector<K> out(n);
  for (auto& k : out) {
    const std::uint64_t g = pick(rng);
    if constexpr (std::is_floating_point_v<K>) {
      k = static_cast<K>(static_cast<double>(g) * 0.5 - 1000.0);
    } else {
      k = static_cast<K>(g * 2654435761u);
    }
  }
  return out;
}

/// n rows of exactly `groups` distinct keys (1 <= groups <= n), each at least once, in a shuffled
/// order: the first `groups` rows' keys distinct, the others repeating keys drawn among them.
template <class K>
std::vector<K> exact_group_keys(std::size_t n, std::size_t groups, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::uint64_t> pick(0, groups - 1);
  std::vector<K> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t g = i < groups ? i : pick(rng);
    if constexpr (std::is_floating_point_v<K>) {
      out[i] = static_cast<K>(static_cast<double>(g) * 0.5 - 1000.0);
    } else {
      out[i] = static_cast<K>(g * 2654435761u);
    }
  }
  std::shuffle(out.begin(), out.end(), rng);
  return out;
}

/// Small integers: float sums exact in any order.
inline std::vector<float> small_floats(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> d(-50, 50);
  std::vector<float> out(n);
  for (auto& x : out)
    x = static_cast<float>(d(rng));
  return out;
}

/// The many-groups cases of both paths' tests (the sort route): n of 1, 7, 1001 and `large` rows
/// with n, 4/5 n and 3/4 n groups; f(n, groups, keys, values), the keys by exact_group_keys and
/// the values by small_floats.
template <class K, class F>
void for_each_many_groups_case(std::size_t large, F&& f) {
  for (std::size_t n : {std::size_t(1), std::size_t(7), std::size_t(1001), large}) {
    for (std::size_t groups : {n, (n * 4 + 4) / 5, (n * 3 + 3) / 4}) {
      SCOPED_TRACE("n = " + std::to_string(n) + ", groups " + std::to_string(groups));
      f(n, groups, exact_group_keys<K>(n, groups, static_cast<unsigned>(n + groups)),
        small_floats(n, static_cast<unsigned>(5 * n + groups)));
    }
  }
}

/// The cases of both paths' tests of automatic's row count (group_by_sort_below_rows): 1,001 rows,
/// the count less one and the count itself (each through scaled(): all below it at
/// CUPAR_TEST_SCALE=small), 100 groups drawn; f(n, below, keys, values), `below` whether n is
/// under the count, the keys by group_keys and the values by small_floats.
template <class K, class F>
void for_each_sort_below_case(F&& f) {
  const std::size_t limit = cupar::group_by_sort_below_rows;
  for (std::size_t n : {std::size_t(1001), scaled(limit - 1), scaled(limit)}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    f(n, n < limit, group_keys<K>(n, 100, static_cast<unsigned>(n)),
      small_floats(n, static_cast<unsigned>(n + 1)));
  }
}

/// The key as the map orders it (NaN last, -0.0 as +0.0).
template <class K>
struct key_less {
  bool operator()(K a, K b) const {
    if constexpr (std::is_floating_point_v<K>) {
      if (a != a) return false;
      if (b != b) return true;
    }
    return a < b;
  }
};

template <class K>
K normalised(K k) {
  if constexpr (std::is_floating_point_v<K>) {
    if (k == K(0)) return K(0);
    if (k != k) return std::numeric_limits<K>::quiet_NaN();
  }
  return k;
}

template <class K>
bool same_key(K a, K b) {
  if constexpr (std::is_floating_point_v<K>) {
    if (a != a && b != b) return true;
    return a == b && std::signbit(a) == std::signbit(b);
  }
  return a == b;
}

/// The groups of keys under a hash and an equality (keys[i], values[i] for i < count) against
/// the CPU's `want` (the keys packed into 64 bits by `pack`, in key order): each key once, in a
/// sort of the packed keys (not a map: millions of groups), then `compare(value, wanted,
/// packed key)` (its own expectations) side by side.
template <class K, class V, class Pack, class Compare>
void expect_keyed_groups(const std::vector<K>& keys, const std::vector<V>& values,
                         std::size_t count, const std::map<unsigned long long, V>& want, Pack pack,
                         Compare compare) {
  ASSERT_EQ(count, want.size());
  std::vector<std::pair<unsigned long long, std::size_t>> got(count);
  for (std::size_t i = 0; i < count; ++i)
    got[i] = {pack(keys[i]), i};
  std::sort(got.begin(), got.end());
  std::size_t j = 0;
  for (const auto& [k, v] : want) {
    ASSERT_EQ(got[j].first, k) << "group " << j << ": a key missing or twice";
    compare(values[got[j++].second], v, k);
  }
}

inline const char* method_name(cupar::group_by_method m) {
  return m == cupar::group_by_method::hash   ? "hash"
         : m == cupar::group_by_method::sort ? "sort"
                                             : "automatic";
}

}  // namespace cupar::testing
