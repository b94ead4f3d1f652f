// cupar benchmarks: what the group-by rows share (group_by.cu, group_by_jit.cpp): the accumulator
// and the runner (host only: the run-time rows' translation unit is compiled by the host
// compiler).
#pragma once

#include "runners.hpp"

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
    // Every group is drawn at least once when n is well above their number.
    if (n >= 16 * groups && found != groups) {
      throw std::runtime_error("found " + std::to_string(found) + " groups, expected " +
                               std::to_string(groups));
    }
    state.counters["groups"] = static_cast<double>(found);
  });
}

}  // namespace cupar_bench
