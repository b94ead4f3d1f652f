// cupar benchmarks: top-k selection (top_k.hpp, the library's radix select; plain C++): the k
// largest of n keys over the whole range, k = 1, 100 and 65,536 (k = n below that size). The
// reference is sorting all n keys (the radix_sort_keys rows, run with these: a full sort is what
// ORDER BY ... LIMIT k costs without top-k). CUB 3.0.1 has no top-k.
//
// cupar_jit: top_k with the run-time comparator "a > b" (the comparator path: a sampled
// threshold, one selecting pass, the candidates sorted), timed once its optimised builds serve;
// cupar_jit_sort: what it replaces, sort_keys of all n keys with the same comparator (CUB's
// merge sort) and the first k copied.
#include "jit_rows.hpp"
#include "rows.hpp"
#include "runners.hpp"

#include <cupar/cupar.hpp>
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

/// top_k by a run-time comparator (`sort`: the whole sort by it, then the first k copied).
void top_k_jit_runner(benchmark::State& state, std::size_t wanted, bool sort) {
  static const cupar::jit::op greater("a > b");
  jit_row_guard guard(sort ? "top_k f32 sort_keys \"a > b\"" : "top_k f32 \"a > b\"");
  run_guarded(state, true, [&] {
    const std::size_t n = size_arg(state);
    const std::size_t k = std::min(wanted, n);
    const std::size_t sets = rotation_sets(padded_bytes<float>(n));
    rotating<float> in(n, sets);
    device_array<float> out(sort ? n : k);
    in.fill(seed_input, key_range<float>(), bench_stream());
    auto call = jit_warmed(guard, [&](std::size_t s) {
      if (sort) {
        cupar::sort_keys(in[s], out.get(), n, greater, bench_stream());
      } else {
        cupar::top_k(in[s], out.get(), n, k, greater, bench_stream());
      }
    });
    time_gpu(state, {n, static_cast<double>(n * sizeof(float))}, sets, call);
  });
  guard.check(state);
}

}  // namespace

void top_k_100_cupar_jit_f32(benchmark::State& state) {
  top_k_jit_runner(state, 100, false);
}
void top_k_65536_cupar_jit_f32(benchmark::State& state) {
  top_k_jit_runner(state, 65536, false);
}
void top_k_100_cupar_jit_sort_f32(benchmark::State& state) {
  top_k_jit_runner(state, 100, true);
}

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
