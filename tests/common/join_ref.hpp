// cupar tests: the joins' CPU reference and their pairs' check (host code: the compiled and the
// host-compiled join tests share it).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <type_traits>
#include <vector>

namespace cupar::testing {

/// n keys drawn from `distinct` values (spread over the type's range).
template <class K>
std::vector<K> join_keys(std::size_t n, std::size_t distinct, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::uint64_t> pick(0, distinct - 1);
  std::vector<K> out(n);
  for (auto& k : out) {
    const std::uint64_t g = pick(rng);
    if constexpr (std::is_floating_point_v<K>) {
      k = static_cast<K>(static_cast<double>(g) * 0.25 - 100.0);
    } else {
      k = static_cast<K>(g * 2654435761u);
    }
  }
  return out;
}

/// The CPU's matches: for each probe row, its build rows ascending (keys equal by ==; the
/// callers' keys have no NaN, and -0.0 == +0.0 as the joins compare them).
template <class K>
std::vector<std::vector<std::uint64_t>> cpu_matches(const std::vector<K>& build,
                                                    const std::vector<K>& probe) {
  std::map<K, std::vector<std::uint64_t>> rows;
  for (std::size_t i = 0; i < build.size(); ++i)
    rows[build[i]].push_back(i);
  std::vector<std::vector<std::uint64_t>> out(probe.size());
  for (std::size_t i = 0; i < probe.size(); ++i) {
    const auto it = rows.find(probe[i]);
    if (it != rows.end()) out[i] = it->second;
  }
  return out;
}

/// The pairs (b[i], p[i]) are `want`'s: grouped by probe row in probe-row order, each probe
/// row's build rows in any order.
template <class Index>
void expect_pairs(const std::vector<Index>& b, const std::vector<Index>& p,
                  const std::vector<std::vector<std::uint64_t>>& want) {
  std::size_t total = 0;
  for (const auto& w : want)
    total += w.size();
  ASSERT_EQ(b.size(), total);
  ASSERT_EQ(p.size(), total);
  std::size_t at = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    std::vector<std::uint64_t> got;
    for (; at < p.size() && static_cast<std::uint64_t>(p[at]) == i; ++at)
      got.push_back(static_cast<std::uint64_t>(b[at]));
    std::sort(got.begin(), got.end());
    ASSERT_EQ(got, want[i]) << "probe row " << i;
  }
  EXPECT_EQ(at, p.size()) << "pairs out of probe-row order";
}

}  // namespace cupar::testing
