// cupar benchmarks: group_by with a run-time combining operator (plain C++): the group_by.cu
// workload, the rows' statistics computed by an iterator expression from the float column (a
// query engine's shape: the hash method and the block tables read the expression in their
// kernels; partitioned rows and the sort route move the float column with the keys, the
// expression read from it after) and combined by a snippet, timed once its optimised build
// serves (jit_rows.hpp).
//
//   cupar_jit  group_by, automatic method, exactly sized buffers
#include "group_by_runners.hpp"
#include "jit_rows.hpp"
#include "rows.hpp"

#include <cupar/cupar.hpp>

#include <cstdint>
#include <string>

CUPAR_JIT_TYPE(cupar_bench::bench_stats, "bench_stats",
               "struct bench_stats { unsigned int count; float sum, min, max; };")
CUPAR_JIT_TYPE(cupar_bench::bench_pair, "bench_pair", "struct bench_pair { unsigned int a, b; };")

namespace cupar_bench {
namespace {

using cupar::jit::op;

const op& to_stats() {
  static const op t("bench_stats{1u, x, x, x}");
  return t;
}
const op& merge() {
  static const op m(
      "bench_stats{a.count + b.count, a.sum + b.sum, fminf(a.min, b.min), fmaxf(a.max, b.max)}");
  return m;
}

/// body() -> the number of groups, run once the guard's optimised build serves.
template <class Body>
std::size_t warmed_groups(jit_row_guard& guard, Body body) {
  std::size_t found = 0;
  const auto run = [&] { found = body(); };
  if (guard.warmed()) {
    run();
  } else {
    guard.warm_up(run);
  }
  return found;
}

void jit_row(benchmark::State& state, std::size_t groups) {
  jit_row_guard guard("group_by u32/bench_stats");
  group_by_runner(
      state, groups, [&](const std::uint32_t* k, const float* v, std::size_t n, cudaStream_t s) {
        return warmed_groups(guard, [&] {
          return cupar::group_by<std::uint32_t, bench_stats>(
                     k, cupar::jit::transform<bench_stats>(cupar::jit::iterator(v), to_stats()), n,
                     merge(), s)
              .size();
        });
      });
  guard.check(state);
}

void jit_pair_row(benchmark::State& state, std::size_t groups) {
  static const op hash("(static_cast<unsigned long long>(x.a) << 32) | x.b");
  static const op same("a.a == b.a && a.b == b.b");
  jit_row_guard guard("group_by bench_pair/bench_stats");
  group_by_pair_runner(
      state, groups,
      [&](const bench_pair* k, const std::uint64_t*, const float* v, std::size_t n,
          cudaStream_t s) {
        return warmed_groups(guard, [&] {
          return cupar::group_by<bench_pair, bench_stats>(
                     k, cupar::jit::transform<bench_stats>(cupar::jit::iterator(v), to_stats()), n,
                     hash, same, merge(), s)
              .size();
        });
      });
  guard.check(state);
}

}  // namespace

#define CUPAR_GROUP_BY_JIT_ROW(family, groups)                  \
  void family##_cupar_jit_u32_stats(benchmark::State& state) {  \
    jit_row(state, groups);                                     \
  }                                                             \
  void family##_cupar_jit_pair_stats(benchmark::State& state) { \
    jit_pair_row(state, groups);                                \
  }

CUPAR_GROUP_BY_JIT_ROW(group_by_100, 100)
CUPAR_GROUP_BY_JIT_ROW(group_by_1k, std::size_t(1) << 10)
CUPAR_GROUP_BY_JIT_ROW(group_by_4k, std::size_t(1) << 12)
CUPAR_GROUP_BY_JIT_ROW(group_by_32k, std::size_t(1) << 15)
CUPAR_GROUP_BY_JIT_ROW(group_by_1m, std::size_t(1) << 20)
CUPAR_GROUP_BY_JIT_ROW(group_by_16m, std::size_t(1) << 24)
#undef CUPAR_GROUP_BY_JIT_ROW

}  // namespace cupar_bench
