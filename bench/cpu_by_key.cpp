// cupar benchmarks: CPU baselines of the by-key families (cpu_seq: sequential loops over the
// runs, and std::unique_copy's rule for unique_by_key), on the data of by_key_runners.hpp
// generated on the host.
#include "by_key_runners.hpp"
#include "rows.hpp"

#include <cstdint>
#include <vector>

namespace cupar_bench {
namespace {

using u32 = std::uint32_t;

/// The keys of fill_run_keys, on the host.
std::vector<u32> host_run_keys(std::size_t n, std::uint64_t seed) {
  std::vector<u32> k(n);
  std::uint64_t run = 0;
  for (std::size_t i = 0; i < n; ++i) {
    run += starts_run(seed, i) ? 1 : 0;
    k[i] = key_of_run(seed, run);
  }
  return k;
}

std::vector<float> host_values(std::size_t n) {
  std::vector<float> v(n);
  const value_generator<float> gen{seed_values, arithmetic_range<float>()};
  for (std::size_t i = 0; i < n; ++i)
    v[i] = gen(i);
  return v;
}

std::size_t runs_of(const std::vector<u32>& keys) {
  std::size_t runs = keys.empty() ? 0 : 1;
  for (std::size_t i = 1; i < keys.size(); ++i)
    runs += keys[i] != keys[i - 1];
  return runs;
}

}  // namespace

void reduce_by_key_cpu_seq_u32_f32(benchmark::State& state) {
  run_guarded(state, false, [&] {
    const std::size_t n = size_arg(state);
    const auto keys = host_run_keys(n, seed_input);
    const auto values = host_values(n);
    const std::size_t runs = runs_of(keys);
    std::vector<u32> keys_out(n);
    std::vector<float> sums(n);
    time_cpu(
        state, {n, static_cast<double>(n * 8 + runs * 8)},
        [&] {
          std::size_t r = 0;
          for (std::size_t i = 0; i < n; ++i) {
            if (i == 0 || keys[i] != keys[i - 1]) {
              keys_out[r] = keys[i];
              sums[r++] = values[i];
            } else {
              sums[r - 1] += values[i];
            }
          }
          benchmark::DoNotOptimize(r);
        },
        [] {});
  });
}

void inclusive_scan_by_key_cpu_seq_u32_f32(benchmark::State& state) {
  run_guarded(state, false, [&] {
    const std::size_t n = size_arg(state);
    const auto keys = host_run_keys(n, seed_input);
    const auto values = host_values(n);
    std::vector<float> out(n);
    time_cpu(
        state, {n, static_cast<double>(n * 12)},
        [&] {
          for (std::size_t i = 0; i < n; ++i) {
            out[i] = i == 0 || keys[i] != keys[i - 1] ? values[i] : out[i - 1] + values[i];
          }
          benchmark::DoNotOptimize(out.data());
        },
        [] {});
  });
}

void unique_by_key_cpu_seq_u32_f32(benchmark::State& state) {
  run_guarded(state, false, [&] {
    const std::size_t n = size_arg(state);
    const auto keys = host_run_keys(n, seed_input);
    const auto values = host_values(n);
    const std::size_t runs = runs_of(keys);
    std::vector<u32> keys_out(n);
    std::vector<float> values_out(n);
    time_cpu(
        state, {n, static_cast<double>(n * 8 + runs * 8)},
        [&] {
          std::size_t r = 0;
          for (std::size_t i = 0; i < n; ++i) {
            if (i == 0 || keys[i] != keys[i - 1]) {
              keys_out[r] = keys[i];
              values_out[r++] = values[i];
            }
          }
          benchmark::DoNotOptimize(r);
        },
        [] {});
  });
}

void run_length_encode_cpu_seq_u32(benchmark::State& state) {
  run_guarded(state, false, [&] {
    const std::size_t n = size_arg(state);
    const auto keys = host_run_keys(n, seed_input);
    const std::size_t runs = runs_of(keys);
    std::vector<u32> unique_out(n), counts(n);
    time_cpu(
        state, {n, static_cast<double>(n * 4 + runs * 8)},
        [&] {
          std::size_t r = 0;
          for (std::size_t i = 0; i < n; ++i) {
            if (i == 0 || keys[i] != keys[i - 1]) {
              unique_out[r] = keys[i];
              counts[r++] = 1;
            } else {
              ++counts[r - 1];
            }
          }
          benchmark::DoNotOptimize(r);
        },
        [] {});
  });
}

}  // namespace cupar_bench
