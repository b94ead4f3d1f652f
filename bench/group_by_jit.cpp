// cupar benchmarks: group_by with a run-time combining operator (plain C++): the group_by.cu
// workload, the rows' statistics computed by an iterator expression from the float column (a
// query engine's shape: the hash method and the block tables over the rows as given read the
// expression in their kernels; partitioned rows and the sort route write it to a temporary array
// of the 16-byte struct first) and combined by a snippet, timed once its optimised build serves
// (jit_rows.hpp).
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

namespace cupar_bench {
namespace {

using cupar::jit::op;

void jit_row(benchmark::State& state, std::size_t groups) {
  static const op to_stats("bench_stats{1u, x, x, x}");
  static const op merge(
      "bench_stats{a.count + b.count, a.sum + b.sum, fminf(a.min, b.min), fmaxf(a.max, b.max)}");
  jit_row_guard guard("group_by u32/bench_stats");
  group_by_runner(
      state, groups, [&](const std::uint32_t* k, const float* v, std::size_t n, cudaStream_t s) {
        std::size_t found = 0;
        const auto body = [&] {
          found = cupar::group_by<std::uint32_t, bench_stats>(
                      k, cupar::jit::transform<bench_stats>(cupar::jit::iterator(v), to_stats), n,
                      merge, s)
                      .size();
        };
        if (guard.warmed()) {
          body();
        } else {
          guard.warm_up(body);
        }
        return found;
      });
  guard.check(state);
}

}  // namespace

#define CUPAR_GROUP_BY_JIT_ROW(family, groups)                 \
  void family##_cupar_jit_u32_stats(benchmark::State& state) { \
    jit_row(state, groups);                                    \
  }

CUPAR_GROUP_BY_JIT_ROW(group_by_100, 100)
CUPAR_GROUP_BY_JIT_ROW(group_by_1k, std::size_t(1) << 10)
CUPAR_GROUP_BY_JIT_ROW(group_by_4k, std::size_t(1) << 12)
CUPAR_GROUP_BY_JIT_ROW(group_by_32k, std::size_t(1) << 15)
CUPAR_GROUP_BY_JIT_ROW(group_by_1m, std::size_t(1) << 20)
CUPAR_GROUP_BY_JIT_ROW(group_by_16m, std::size_t(1) << 24)
#undef CUPAR_GROUP_BY_JIT_ROW

}  // namespace cupar_bench
