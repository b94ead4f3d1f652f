// cupar benchmarks: what the group-by rows share (group_by.cu, group_by_jit.cpp): the accumulator
// and the runner (host only: the run-time rows' translation unit is compiled by the host
// compiler).
#pragma once

#include "runners.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace cupar_bench {

/// COUNT, SUM, MIN, MAX of a group's values (16 bytes).
struct bench_stats {
  unsigned int count;
  float sum, min, max;
};

/// A key of two 4-byte columns (the pair_stats rows: group_by on struct keys under a hash and an
/// equality), and the same key packed into one 8-byte integer (what a caller packs by hand).
struct bench_pair {
  std::uint32_t a, b;
};

/// pairs[i] = {keys[i], keys[i] * 2654435761u} and packed[i] = a << 32 | b (group_by.cu).
void make_pair_keys(const std::uint32_t* keys, bench_pair* pairs, std::uint64_t* packed,
                    std::size_t n, cudaStream_t stream);

/// Throws unless `found` groups are what n rows of keys drawn uniformly from `groups` give: every
/// group where n >= 32 groups (a group is missed with probability e^-(n/groups), so 16x left about
/// two of 2^24 groups unseen at 2^28 rows, and every route found the same 16,777,214), else no
/// more than `groups` and, from 4 rows a group, no more missing than three times the expected
/// number plus 10.
inline void require_plausible_groups(std::size_t found, std::size_t groups, std::size_t n) {
  const double per_group = static_cast<double>(n) / static_cast<double>(groups);
  bool plausible = found <= groups;
  if (plausible && per_group >= 32) {
    plausible = found == groups;
  } else if (plausible && per_group >= 4) {
    const double expected_missing = static_cast<double>(groups) * std::exp(-per_group);
    plausible = static_cast<double>(groups - found) <= 3 * expected_missing + 10;
  }
  if (!plausible) {
    throw std::runtime_error("found " + std::to_string(found) + " groups of " +
                             std::to_string(groups) + " in " + std::to_string(n) + " rows");
  }
}

/// n keys in [0, groups) and n values; call(keys, values, n, stream) -> number of groups, which
/// must be the number of distinct keys (checked after the timed runs against the hash route's).
template <class Call>
void group_by_runner(benchmark::State& state, std::size_t groups, Call call) {
  run_guarded(state, true, [&] {
    const std::size_t n = size_arg(state);
    const std::size_t sets = rotation_sets(padded_bytes<std::uint32_t>(n) + padded_bytes<float>(n));
    rotating<std::uint32_t> keys(n, sets);
    rotating<float> values(n, sets);
    keys.fill(seed_input, {0.0, static_cast<double>(groups - 1)}, bench_stream());
    values.fill(seed_values, {-1.0, 1.0}, bench_stream());
    std::size_t found = 0;
    time_gpu(state, {n, static_cast<double>(n * (sizeof(std::uint32_t) + sizeof(float)))}, sets,
             [&](std::size_t s) { found = call(keys[s], values[s], n, bench_stream()); });
    require_plausible_groups(found, groups, n);
    state.counters["groups"] = static_cast<double>(found);
  });
}

/// group_by_runner with the keys as pairs of columns and as their packed 8-byte integers:
/// call(pairs, packed, values, n, stream) -> number of groups.
template <class Call>
void group_by_pair_runner(benchmark::State& state, std::size_t groups, Call call) {
  run_guarded(state, true, [&] {
    const std::size_t n = size_arg(state);
    const std::size_t sets = rotation_sets(padded_bytes<bench_pair>(n) +
                                           padded_bytes<std::uint64_t>(n) + padded_bytes<float>(n));
    rotating<std::uint32_t> keys(n, sets);
    rotating<bench_pair> pairs(n, sets);
    rotating<std::uint64_t> packed(n, sets);
    rotating<float> values(n, sets);
    keys.fill(seed_input, {0.0, static_cast<double>(groups - 1)}, bench_stream());
    for (std::size_t s = 0; s < sets; ++s)
      make_pair_keys(keys[s], pairs[s], packed[s], n, bench_stream());
    values.fill(seed_values, {-1.0, 1.0}, bench_stream());
    std::size_t found = 0;
    time_gpu(
        state, {n, static_cast<double>(n * (sizeof(bench_pair) + sizeof(float)))}, sets,
        [&](std::size_t s) { found = call(pairs[s], packed[s], values[s], n, bench_stream()); });
    require_plausible_groups(found, groups, n);
    state.counters["groups"] = static_cast<double>(found);
  });
}

}  // namespace cupar_bench
