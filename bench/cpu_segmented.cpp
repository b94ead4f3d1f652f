// cupar benchmarks: CPU baselines of the segmented reduce and the binary search (cpu_seq: the
// sequential C++ standard library, std::accumulate per segment and std::lower_bound per needle),
// on the values of segmented_runners.hpp generated on the host.
#include "rows.hpp"
#include "segmented_runners.hpp"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

namespace cupar_bench {
namespace {

template <class T>
std::vector<T> host_values(std::size_t n, std::uint64_t seed, value_range range) {
  std::vector<T> v(n);
  const value_generator<T> gen{seed, range};
  for (std::size_t i = 0; i < n; ++i)
    v[i] = gen(i);
  return v;
}

}  // namespace

void segmented_reduce_cpu_seq_f32(benchmark::State& state) {
  run_guarded(state, false, [&] {
    const std::size_t n = size_arg(state);
    const std::vector<std::int64_t> offsets = segment_offsets(n);
    const std::size_t s = offsets.size() - 1;
    const std::vector<float> in = host_values<float>(n, seed_input, arithmetic_range<float>());
    std::vector<float> out(s);
    time_cpu(
        state, {n, static_cast<double>(n * sizeof(float) + s * (sizeof(float) + 16))},
        [&] {
          for (std::size_t k = 0; k < s; ++k) {
            out[k] = std::accumulate(in.begin() + offsets[k], in.begin() + offsets[k + 1], 0.0f);
          }
          benchmark::DoNotOptimize(out.data());
        },
        [] {});
  });
}

void lower_bound_cpu_seq_u32(benchmark::State& state) {
  using u32 = std::uint32_t;
  run_guarded(state, false, [&] {
    const std::size_t n = size_arg(state), m = n;
    std::vector<u32> sorted(n);
    for (std::size_t i = 0; i < n; ++i)
      sorted[i] = static_cast<u32>(search_stride * i + hash64(seed_input, i) % search_stride);
    const std::vector<u32> needles =
        host_values<u32>(m, seed_values, {0.0, static_cast<double>(search_stride) * n - 1.0});
    std::vector<u32> out(m);
    time_cpu(
        state, {m, static_cast<double>(2 * m * sizeof(u32))},
        [&] {
          for (std::size_t j = 0; j < m; ++j) {
            out[j] = static_cast<u32>(std::lower_bound(sorted.begin(), sorted.end(), needles[j]) -
                                      sorted.begin());
          }
          benchmark::DoNotOptimize(out.data());
        },
        [] {});
  });
}

}  // namespace cupar_bench
