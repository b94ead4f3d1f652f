// cupar benchmarks: the runners of the by-key families (reduce_by_key, inclusive_scan_by_key,
// unique_by_key, run_length_encode). Host-only, like runners.hpp.
//
// Data (the same for every row of a family, GPU and CPU): u32 keys in runs of random length, the
// shape of a group-by on sorted keys: each position i > 0 starts a new run with probability
// 1/1000 (hash64(seed, i) % 1000 == 0), so run lengths are geometric with mean 1000 (about
// n / 1000 runs; 2^10 items make one or two runs), and each run's key is a random u32 (adjacent
// runs differ with probability 1 - 2^-32). Values: f32 uniform over [-1, 1) (the reduce and scan
// rows' distribution). run_length_encode encodes the keys with u32 counts.
// Bytes processed: the inputs read once and the outputs written once (one key and value per run
// for the compacting families), so GB/s compare with the copy row.
#pragma once

#include "records.hpp"
#include "runners.hpp"

#include <cstddef>
#include <cstdint>

namespace cupar_bench {

inline constexpr std::uint64_t by_key_mean_run = 1000;

/// Whether position i starts a run (i > 0), and the key of run r: shared by the GPU generator
/// (bench/by_key.cu) and the CPU baselines (bench/cpu_by_key.cpp).
CUPAR_BENCH_HD inline bool starts_run(std::uint64_t seed, std::uint64_t i) {
  return i > 0 && hash64(seed, i) % by_key_mean_run == 0;
}
CUPAR_BENCH_HD inline std::uint32_t key_of_run(std::uint64_t seed, std::uint64_t r) {
  return static_cast<std::uint32_t>(hash64(seed ^ 0x5BD1E995ull, r));
}

/// d[i] = key_of_run(seed, number of run starts in (0, i]) on `stream`; returns the number of
/// runs (synchronises the stream; bench/by_key.cu).
std::size_t fill_run_keys(std::uint32_t* d, std::size_t n, std::uint64_t seed, cudaStream_t stream);
/// The same runs with key16::of(the run's u32 key) as keys.
std::size_t fill_run_keys(key16* d, std::size_t n, std::uint64_t seed, cudaStream_t stream);

/// Keys and values in and out: reduce_by_key and unique_by_key.
/// call(const K* keys, const V* values, K* keys_out, V* values_out, std::size_t* d_count, n,
///      stream)
template <class K, class V, class Call>
void by_key_compact_runner(benchmark::State& state, Call call) {
  run_guarded(state, true, [&] {
    const std::size_t n = size_arg(state);
    const std::size_t sets =
        rotation_sets(2 * (padded_bytes<K>(n) + padded_bytes<V>(n)) + padded_bytes<std::size_t>(1));
    rotating<K> keys(n, sets), keys_out(n, sets);
    rotating<V> values(n, sets), values_out(n, sets);
    rotating<std::size_t> count(1, sets);
    std::size_t runs = 0;
    for (std::size_t s = 0; s < sets; ++s) {
      const std::size_t r = fill_run_keys(keys[s], n, seed_input + s, bench_stream());
      if (s == 0) runs = r;
    }
    values.fill(seed_values, arithmetic_range<V>(), bench_stream());
    time_gpu(state,
             {n, static_cast<double>(n * (sizeof(K) + sizeof(V)) + runs * (sizeof(K) + sizeof(V)))},
             sets, [&](std::size_t s) {
               call(keys[s], values[s], keys_out[s], values_out[s], count[s], n, bench_stream());
             });
  });
}

/// call(const K* keys, const V* values, V* out, n, stream)
template <class K, class V, class Call>
void scan_by_key_runner(benchmark::State& state, Call call) {
  run_guarded(state, true, [&] {
    const std::size_t n = size_arg(state);
    const std::size_t sets = rotation_sets(padded_bytes<K>(n) + 2 * padded_bytes<V>(n));
    rotating<K> keys(n, sets);
    rotating<V> values(n, sets), out(n, sets);
    for (std::size_t s = 0; s < sets; ++s)
      fill_run_keys(keys[s], n, seed_input + s, bench_stream());
    values.fill(seed_values, arithmetic_range<V>(), bench_stream());
    time_gpu(state, {n, static_cast<double>(n * (sizeof(K) + 2 * sizeof(V)))}, sets,
             [&](std::size_t s) { call(keys[s], values[s], out[s], n, bench_stream()); });
  });
}

/// call(const K* in, K* unique_out, std::uint32_t* counts_out, std::size_t* d_count, n, stream)
template <class K, class Call>
void run_length_runner(benchmark::State& state, Call call) {
  run_guarded(state, true, [&] {
    const std::size_t n = size_arg(state);
    const std::size_t sets = rotation_sets(2 * padded_bytes<K>(n) + padded_bytes<std::uint32_t>(n) +
                                           padded_bytes<std::size_t>(1));
    rotating<K> in(n, sets), unique_out(n, sets);
    rotating<std::uint32_t> counts(n, sets);
    rotating<std::size_t> count(1, sets);
    std::size_t runs = 0;
    for (std::size_t s = 0; s < sets; ++s) {
      const std::size_t r = fill_run_keys(in[s], n, seed_input + s, bench_stream());
      if (s == 0) runs = r;
    }
    time_gpu(
        state, {n, static_cast<double>(n * sizeof(K) + runs * (sizeof(K) + sizeof(std::uint32_t)))},
        sets,
        [&](std::size_t s) { call(in[s], unique_out[s], counts[s], count[s], n, bench_stream()); });
  });
}

}  // namespace cupar_bench
