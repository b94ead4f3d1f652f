// cupar benchmarks: the join with a run-time hash and equality (plain C++): join.cu's workload
// (a build table of n / 4 rows whose keys are drawn from n / 4 values, a probe table of n rows
// drawn from n / 2 values, about 40% of the probe rows matching) with its keys made two-column
// structs (bench_pair, group_by_runners.hpp: {k, k * 2654435761u}, the class s8a4, whose join
// set is precompiled), joined into caller arrays, timed once the optimised build serves
// (jit_rows.hpp; CUPAR_JIT_MODE=fast times the out-of-line build: the tier1 stage of
// scripts/gpu-evidence.sh).
//
//   cupar_jit  inner_join(build, nb, probe, np, ..., hash, equality): hash
//              "(static_cast<unsigned long long>(x.a) << 32) | x.b", equality
//              "a.a == b.a && a.b == b.b"
#include "group_by_runners.hpp"
#include "jit_rows.hpp"
#include "rows.hpp"

#include <cupar/cupar.hpp>

#include <cstdint>

CUPAR_JIT_TYPE(cupar_bench::bench_pair, "bench_pair", "struct bench_pair { unsigned int a, b; };")

namespace cupar_bench {

void join_cupar_jit_pair(benchmark::State& state) {
  static const cupar::jit::op hash("(static_cast<unsigned long long>(x.a) << 32) | x.b");
  static const cupar::jit::op same("a.a == b.a && a.b == b.b");
  jit_row_guard guard("join bench_pair");
  run_guarded(state, true, [&] {
    const std::size_t np = size_arg(state);
    const std::size_t nb = np / 4 > 0 ? np / 4 : 1;
    const std::size_t sets =
        rotation_sets(padded_bytes<bench_pair>(np) + padded_bytes<bench_pair>(nb));
    rotating<std::uint32_t> build_keys(nb, sets), probe_keys(np, sets);
    rotating<bench_pair> build(nb, sets), probe(np, sets);
    rotating<std::uint64_t> build_packed(nb, sets), probe_packed(np, sets);
    build_keys.fill(seed_input, {0.0, static_cast<double>(nb - 1)}, bench_stream());
    probe_keys.fill(seed_values, {0.0, static_cast<double>(2 * nb - 1)}, bench_stream());
    for (std::size_t s = 0; s < sets; ++s) {
      make_pair_keys(build_keys[s], build[s], build_packed[s], nb, bench_stream());
      make_pair_keys(probe_keys[s], probe[s], probe_packed[s], np, bench_stream());
    }
    const std::size_t room = 2 * np + 1024;
    device_array<std::uint32_t> build_rows(room), probe_rows(room);
    std::size_t pairs = 0;
    time_gpu(
        state, {np, static_cast<double>((np + nb) * sizeof(bench_pair))}, sets, [&](std::size_t s) {
          const auto run = [&] {
            pairs =
                cupar::inner_join(static_cast<const bench_pair*>(build[s]), nb,
                                  static_cast<const bench_pair*>(probe[s]), np, build_rows.get(),
                                  probe_rows.get(), room, hash, same, bench_stream());
          };
          if (guard.warmed()) {
            run();
          } else {
            guard.warm_up(run);
          }
        });
    state.counters["pairs"] = static_cast<double>(pairs);
  });
  guard.check(state);
}

}  // namespace cupar_bench
