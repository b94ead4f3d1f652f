// cupar benchmarks: top-k selection (top_k.hpp, the library's radix select; plain C++): the k
// largest of n keys over the whole range, k = 1, 100 and 65,536 (k = n below that size). The
// reference is sorting all n keys (the radix_sort_keys rows, run with these: a full sort is what
// ORDER BY ... LIMIT k costs without top-k). CUB 3.0.1 has no top-k.
#include "rows.hpp"
#include "runners.hpp"

#include <cupar/top_k.hpp>

#include <algorithm>
#include <cstdint>

namespace cupar_bench {
namespace {

template <class K>
void top_k_runner(benchmark::State& state, std::size_t wanted) {
  run_guarded(state, true, [&] {
    const std::size_t n = size_arg(state);
    const std::size_t k = std::min(wanted, n);
    const std::size_t sets = rotation_sets(padded_bytes<K>(n));
    rotating<K> in(n, sets);
    device_array<K> out(k);
    in.fill(seed_input, key_range<K>(), bench_stream());
    time_gpu(state, {n, static_cast<double>(n * sizeof(K))}, sets, [&](std::size_t s) {
      cupar::top_k(in[s], out.get(), n, k, cupar::sort_order::descending, bench_stream());
    });
  });
}

}  // namespace

void top_k_1_cupar_u32(benchmark::State& state) {
  top_k_runner<std::uint32_t>(state, 1);
}
void top_k_100_cupar_u32(benchmark::State& state) {
  top_k_runner<std::uint32_t>(state, 100);
}
void top_k_65536_cupar_u32(benchmark::State& state) {
  top_k_runner<std::uint32_t>(state, 65536);
}
void top_k_100_cupar_f32(benchmark::State& state) {
  top_k_runner<float>(state, 100);
}
void top_k_100_cupar_u64(benchmark::State& state) {
  top_k_runner<std::uint64_t>(state, 100);
}

}  // namespace cupar_bench
