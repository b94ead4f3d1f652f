// cupar benchmarks: the runners of the stream compaction families (select_if, select_flagged,
// partition, three_way_partition, unique). Host-only, like runners.hpp.
//
// Data (u32, same values for every row of a family, GPU and CPU):
//   select_if, partition: every bit pattern; the predicate x < 2^31 selects half of the items.
//   three_way_partition:  the same values; x < 2^30 (a quarter) first, then x < 2^31 (a quarter).
//   select_flagged:       the same values; 1-byte flags, each set with probability 1/2.
//   unique:               runs of 4 equal values (value_generator at i / 4): a quarter is kept.
// Bytes processed: the input (and flags) read once, the expected output written once, so
// GB/s compare with the copy row; ratios between rows do not depend on this choice.
#pragma once

#include "runners.hpp"

#include <cstddef>
#include <cstdint>

namespace cupar_bench {

inline constexpr std::uint32_t select_threshold = 0x80000000u;        // x < t: half
inline constexpr std::uint32_t select_first_threshold = 0x40000000u;  // three-way: a quarter
inline constexpr int unique_run_log2 = 2;                             // runs of 4

/// d[i] = value_generator<T>{seed, full_bits}(i >> log2_run) (bench/select.cu).
template <class T>
void fill_runs(T* d, std::size_t n, std::uint64_t seed, int log2_run, cudaStream_t stream);
/// d[i] = hash64(seed, i) & 1 (bench/select.cu).
void fill_flags(std::uint8_t* d, std::size_t n, std::uint64_t seed, cudaStream_t stream);

/// call(const T* in, T* out, std::size_t* d_count, n, stream)
template <class T, class Call>
void select_runner(benchmark::State& state, Call call) {
  run_guarded(state, true, [&] {
    const std::size_t n = size_arg(state);
    const std::size_t sets = rotation_sets(2 * padded_bytes<T>(n) + padded_bytes<std::size_t>(1));
    rotating<T> in(n, sets), out(n, sets);
    rotating<std::size_t> count(1, sets);
    in.fill(seed_input, full_bits, bench_stream());
    time_gpu(state, {n, 1.5 * n * sizeof(T)}, sets,
             [&](std::size_t s) { call(in[s], out[s], count[s], n, bench_stream()); });
  });
}

/// call(const T* in, const std::uint8_t* flags, T* out, std::size_t* d_count, n, stream)
template <class T, class Call>
void select_flagged_runner(benchmark::State& state, Call call) {
  run_guarded(state, true, [&] {
    const std::size_t n = size_arg(state);
    const std::size_t sets = rotation_sets(2 * padded_bytes<T>(n) + padded_bytes<std::uint8_t>(n) +
                                           padded_bytes<std::size_t>(1));
    rotating<T> in(n, sets), out(n, sets);
    rotating<std::uint8_t> flags(n, sets);
    rotating<std::size_t> count(1, sets);
    in.fill(seed_input, full_bits, bench_stream());
    fill_flags(flags[0], flags.sets() * (padded_bytes<std::uint8_t>(n)), seed_values,
               bench_stream());
    time_gpu(state, {n, 1.5 * n * sizeof(T) + n}, sets,
             [&](std::size_t s) { call(in[s], flags[s], out[s], count[s], n, bench_stream()); });
  });
}

/// call(const T* in, T* selected, T* rejected, std::size_t* d_counts, n, stream): a stable
/// partition into two arrays (every item read once and written once; d_counts has room for 2).
template <class T, class Call>
void partition_copy_runner(benchmark::State& state, Call call) {
  run_guarded(state, true, [&] {
    const std::size_t n = size_arg(state);
    const std::size_t sets = rotation_sets(3 * padded_bytes<T>(n) + padded_bytes<std::size_t>(2));
    rotating<T> in(n, sets), selected(n, sets), rejected(n, sets);
    rotating<std::size_t> counts(2, sets);
    in.fill(seed_input, full_bits, bench_stream());
    time_gpu(state, {n, 2.0 * n * sizeof(T)}, sets, [&](std::size_t s) {
      call(in[s], selected[s], rejected[s], counts[s], n, bench_stream());
    });
  });
}

/// call(const T* in, T* first, T* second, T* rest, std::size_t* d_counts, n, stream)
template <class T, class Call>
void three_way_runner(benchmark::State& state, Call call) {
  run_guarded(state, true, [&] {
    const std::size_t n = size_arg(state);
    const std::size_t sets = rotation_sets(4 * padded_bytes<T>(n) + padded_bytes<std::size_t>(2));
    rotating<T> in(n, sets), first(n, sets), second(n, sets), rest(n, sets);
    rotating<std::size_t> counts(2, sets);
    in.fill(seed_input, full_bits, bench_stream());
    time_gpu(state, {n, 2.0 * n * sizeof(T)}, sets, [&](std::size_t s) {
      call(in[s], first[s], second[s], rest[s], counts[s], n, bench_stream());
    });
  });
}

/// call(const T* in, T* out, std::size_t* d_count, n, stream) on runs of 4 equal values.
template <class T, class Call>
void unique_runner(benchmark::State& state, Call call) {
  run_guarded(state, true, [&] {
    const std::size_t n = size_arg(state);
    const std::size_t sets = rotation_sets(2 * padded_bytes<T>(n) + padded_bytes<std::size_t>(1));
    rotating<T> in(n, sets), out(n, sets);
    rotating<std::size_t> count(1, sets);
    for (std::size_t s = 0; s < sets; ++s)
      fill_runs(in[s], n, seed_input + s, unique_run_log2, bench_stream());
    time_gpu(state, {n, 1.25 * n * sizeof(T)}, sets,
             [&](std::size_t s) { call(in[s], out[s], count[s], n, bench_stream()); });
  });
}

}  // namespace cupar_bench
