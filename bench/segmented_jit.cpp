// cupar benchmarks: the segmented families and the binary search with run-time operators (the
// cupar_jit rows, plain C++ compiled by the host compiler), timed once their optimised build
// serves (jit_rows.hpp), on the data of segmented_runners.hpp.
//
//   segmented_reduce          "a + b"; cupar_jit_named: cupar::jit::plus (a precompiled object
//                             linked to the precompiled kernels: nothing compiled at run time)
//   segmented_inclusive_scan  "a + b"
//   lower_bound               "a < b"; cupar_jit_named: the default comparator (the precompiled
//                             `less`)
#include "jit_rows.hpp"
#include "rows.hpp"
#include "segmented_runners.hpp"

#include <cupar/cupar.hpp>

#include <cstdint>
#include <string>

namespace cupar_bench {
namespace {

using cupar::jit::op;
using u32 = std::uint32_t;

std::string label(const char* family, const char* type, const op& o) {
  return std::string(family) + " " + type + " \"" + (o.is_named() ? "(named)" : o.source()) + "\"";
}

void segmented_reduce_jit(benchmark::State& state, const op& o) {
  jit_row_guard guard(label("segmented_reduce", "f32", o));
  segmented_reduce_runner<float>(
      state, jit_warmed(guard, [&](const float* in, float* out, std::size_t n, std::size_t s,
                                   const std::int64_t* b, const std::int64_t* e, cudaStream_t st) {
        cupar::segmented_reduce(in, out, n, s, b, e, o, 0.0f, st);
      }));
  guard.check(state);
}

void lower_bound_jit(benchmark::State& state, const op* comp) {
  jit_row_guard guard(comp != nullptr ? label("lower_bound", "u32", *comp)
                                      : std::string("lower_bound u32 (default <)"));
  lower_bound_runner(state,
                     jit_warmed(guard, [&](const u32* sorted, std::size_t n, const u32* needles,
                                           std::size_t m, u32* out, cudaStream_t st) {
                       if (comp != nullptr) {
                         cupar::lower_bound(sorted, n, needles, m, out, *comp, st);
                       } else {
                         cupar::lower_bound(sorted, n, needles, m, out, st);
                       }
                     }));
  guard.check(state);
}

}  // namespace

void segmented_reduce_cupar_jit_f32(benchmark::State& state) {
  segmented_reduce_jit(state, op("a + b"));
}

void segmented_reduce_cupar_jit_named_f32(benchmark::State& state) {
  segmented_reduce_jit(state, cupar::jit::plus);
}

void segmented_inclusive_scan_cupar_jit_f32(benchmark::State& state) {
  const op plus("a + b");
  jit_row_guard guard(label("segmented_inclusive_scan", "f32", plus));
  segmented_scan_runner<float>(
      state, jit_warmed(guard, [&](const float* in, float* out, std::size_t n, std::size_t s,
                                   const std::int64_t* b, const std::int64_t* e, cudaStream_t st) {
        cupar::segmented_inclusive_scan(in, out, n, s, b, e, plus, st);
      }));
  guard.check(state);
}

void lower_bound_cupar_jit_u32(benchmark::State& state) {
  const op less("a < b");
  lower_bound_jit(state, &less);
}

void lower_bound_cupar_jit_named_u32(benchmark::State& state) {
  lower_bound_jit(state, nullptr);
}

}  // namespace cupar_bench
