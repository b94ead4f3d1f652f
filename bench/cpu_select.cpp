// cupar benchmarks: CPU baselines of the stream compaction families (cpu_seq: the sequential C++
// standard library, std::copy_if, std::partition_copy, std::unique_copy, a loop for flags), on the
// values of select_runners.hpp generated on the host.
#include "rows.hpp"
#include "select_runners.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace cupar_bench {
namespace {

using u32 = std::uint32_t;

/// value_generator<u32>{seed, full_bits} at i >> log2_run, i in [0, n).
std::vector<u32> host_runs(std::size_t n, std::uint64_t seed, int log2_run) {
  std::vector<u32> v(n);
  const value_generator<u32> gen{seed, full_bits};
  for (std::size_t i = 0; i < n; ++i)
    v[i] = gen(i >> log2_run);
  return v;
}

/// run(const std::vector<u32>& in, std::vector<u32>& out) on the values of the family.
template <class Run>
void cpu_select(benchmark::State& state, int log2_run, double bytes_per_item, Run run) {
  run_guarded(state, false, [&] {
    const std::size_t n = size_arg(state);
    const std::vector<u32> in = host_runs(n, seed_input, log2_run);
    std::vector<u32> out(n);
    time_cpu(
        state, {n, bytes_per_item * n}, [&] { run(in, out); }, [] {});
  });
}

bool below(u32 x) {
  return x < select_threshold;
}

}  // namespace

void select_if_cpu_seq_u32(benchmark::State& state) {
  cpu_select(state, 0, 1.5 * sizeof(u32), [](const std::vector<u32>& in, std::vector<u32>& out) {
    benchmark::DoNotOptimize(std::copy_if(in.begin(), in.end(), out.begin(), below));
  });
}

void select_flagged_cpu_seq_u32(benchmark::State& state) {
  run_guarded(state, false, [&] {
    const std::size_t n = size_arg(state);
    const std::vector<u32> in = host_runs(n, seed_input, 0);
    std::vector<std::uint8_t> flags(n);
    for (std::size_t i = 0; i < n; ++i)
      flags[i] = static_cast<std::uint8_t>(hash64(seed_values, i) & 1u);
    std::vector<u32> out(n);
    time_cpu(
        state, {n, 1.5 * n * sizeof(u32) + n},
        [&] {
          std::size_t k = 0;
          for (std::size_t i = 0; i < n; ++i)
            if (flags[i] != 0) out[k++] = in[i];
          benchmark::DoNotOptimize(k);
        },
        [] {});
  });
}

void partition_cpu_seq_u32(benchmark::State& state) {
  // Selected items to the front of `out`, the others to a scratch array of n items (as Thrust's
  // row). Writing them to the back half of `out`, as this row did before 2026-11-27, ran past
  // `out` whenever fewer than half the items were selected (heap corruption at 2^14).
  std::vector<u32> rejected(size_arg(state));  // zero-filled here: no page faults when timed
  cpu_select(state, 0, 2.0 * sizeof(u32), [&](const std::vector<u32>& in, std::vector<u32>& out) {
    benchmark::DoNotOptimize(
        std::partition_copy(in.begin(), in.end(), out.begin(), rejected.begin(), below));
  });
}

void unique_cpu_seq_u32(benchmark::State& state) {
  cpu_select(state, unique_run_log2, 1.25 * sizeof(u32),
             [](const std::vector<u32>& in, std::vector<u32>& out) {
               benchmark::DoNotOptimize(std::unique_copy(in.begin(), in.end(), out.begin()));
             });
}

}  // namespace cupar_bench
