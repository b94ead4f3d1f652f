// cupar benchmarks: the by-key families with run-time operators (plain C++): the same operators as
// the cupar rows of bench/by_key.cu, timed once their optimised build serves (jit_rows.hpp).
//
//   reduce_by_key, inclusive_scan_by_key  cupar_jit: "a + b"; cupar_jit_named: cupar::jit::plus
//                                         (precompiled: nothing compiled); both with the default
//                                         equality (the precompiled ==)
//   unique_by_key                         cupar_jit: "a == b"; cupar_jit_named: no equality given
//   reduce_by_key_transformed             values transform(v, "x * 2.0f"), "a + b": cupar_jit_expr
//                                         reads them in the "+index" kernels; cupar_jit_unfused
//                                         writes them to a temporary first
//   run_length_encode                     cupar: it has no operator; the library serves it with
//                                         its precompiled kernels and ==, warmed like a JIT row
//   reduce_by_key key16_f32               16-byte struct keys of no by-key class under a text
//                                         equality of their four fields: each row's mark from the
//                                         equality, the u32-keyed sets on the marks
#include "by_key_runners.hpp"
#include "jit_rows.hpp"
#include "records_jit.hpp"
#include "rows.hpp"

#include <cupar/cupar.hpp>

#include <cstdint>

namespace cupar_bench {
namespace {

using cupar::jit::op;
using u32 = std::uint32_t;

void reduce_by_key_jit(benchmark::State& state, const op& sum, const char* label) {
  jit_row_guard guard(label);
  by_key_compact_runner<u32, float>(
      state, jit_warmed(guard, [&](const u32* k, const float* v, u32* ko, float* vo,
                                   std::size_t* count, std::size_t n, cudaStream_t s) {
        cupar::reduce_by_key(k, v, ko, vo, count, n, sum, s);
      }));
  guard.check(state);
}

void scan_by_key_jit(benchmark::State& state, const op& sum, const char* label) {
  jit_row_guard guard(label);
  scan_by_key_runner<u32, float>(
      state, jit_warmed(guard, [&](const u32* k, const float* v, float* out, std::size_t n,
                                   cudaStream_t s) {
        cupar::inclusive_scan_by_key(k, v, out, n, sum, s);
      }));
  guard.check(state);
}

}  // namespace

void reduce_by_key_cupar_jit_u32_f32(benchmark::State& state) {
  const op sum("a + b");
  reduce_by_key_jit(state, sum, "reduce_by_key u32/f32 \"a + b\"");
}
void reduce_by_key_cupar_jit_key16_f32(benchmark::State& state) {
  const op sum("a + b");
  const op same("a.a == b.a && a.b == b.b && a.c == b.c && a.d == b.d");
  jit_row_guard guard("reduce_by_key key16_f32 \"a + b\", equality on four fields");
  by_key_compact_runner<key16, float>(
      state, jit_warmed(guard, [&](const key16* k, const float* v, key16* ko, float* vo,
                                   std::size_t* count, std::size_t n, cudaStream_t s) {
        cupar::reduce_by_key(k, v, ko, vo, count, n, sum, same, s);
      }));
  guard.check(state);
}
void reduce_by_key_cupar_jit_named_u32_f32(benchmark::State& state) {
  reduce_by_key_jit(state, cupar::jit::plus, "reduce_by_key u32/f32 plus");
}

void reduce_by_key_transformed_cupar_jit_expr_u32_f32(benchmark::State& state) {
  const op sum("a + b"), twice("x * 2.0f");
  jit_row_guard guard("reduce_by_key_transformed u32/f32 transform(v, \"x * 2.0f\"), \"a + b\"");
  by_key_compact_runner<u32, float>(
      state, jit_warmed(guard, [&](const u32* k, const float* v, u32* ko, float* vo,
                                   std::size_t* count, std::size_t n, cudaStream_t s) {
        cupar::reduce_by_key(k, cupar::jit::transform(v, twice), ko, vo, count, n, sum, s);
      }));
  guard.check(state);
}
void reduce_by_key_transformed_cupar_jit_unfused_u32_f32(benchmark::State& state) {
  const op sum("a + b"), twice("x * 2.0f");
  cupar::device_buffer<float> tmp(size_arg(state), cupar::stream_ref(bench_stream()));
  jit_row_guard guard("reduce_by_key_transformed u32/f32 transform then reduce_by_key");
  by_key_compact_runner<u32, float>(
      state, jit_warmed(guard, [&](const u32* k, const float* v, u32* ko, float* vo,
                                   std::size_t* count, std::size_t n, cudaStream_t s) {
        cupar::transform(v, tmp.data(), n, twice, s);
        cupar::reduce_by_key(k, tmp.data(), ko, vo, count, n, sum, s);
      }));
  guard.check(state);
}

void inclusive_scan_by_key_cupar_jit_u32_f32(benchmark::State& state) {
  const op sum("a + b");
  scan_by_key_jit(state, sum, "inclusive_scan_by_key u32/f32 \"a + b\"");
}
void inclusive_scan_by_key_cupar_jit_named_u32_f32(benchmark::State& state) {
  scan_by_key_jit(state, cupar::jit::plus, "inclusive_scan_by_key u32/f32 plus");
}

// The snippet rows again, beside the C++ path and CUB given a user functor adding floats (type
// u32_f32_functor): CUB takes its faster reduce-by-key scan only for cuda::std::plus, so a
// snippet is judged against what CUB does with any other operator.
void reduce_by_key_cupar_jit_u32_f32_functor(benchmark::State& state) {
  const op sum("a + b");
  reduce_by_key_jit(state, sum, "reduce_by_key u32/f32 \"a + b\" (functor peers)");
}
void inclusive_scan_by_key_cupar_jit_u32_f32_functor(benchmark::State& state) {
  const op sum("a + b");
  scan_by_key_jit(state, sum, "inclusive_scan_by_key u32/f32 \"a + b\" (functor peers)");
}

void unique_by_key_cupar_jit_u32_f32(benchmark::State& state) {
  const op eq("a == b");
  jit_row_guard guard("unique_by_key u32/f32 \"a == b\"");
  by_key_compact_runner<u32, float>(
      state, jit_warmed(guard, [&](const u32* k, const float* v, u32* ko, float* vo,
                                   std::size_t* count, std::size_t n, cudaStream_t s) {
        cupar::unique_by_key(k, v, ko, vo, count, n, eq, s);
      }));
  guard.check(state);
}
void unique_by_key_cupar_jit_named_u32_f32(benchmark::State& state) {
  jit_row_guard guard("unique_by_key u32/f32 (default ==)");
  by_key_compact_runner<u32, float>(
      state, jit_warmed(guard, [&](const u32* k, const float* v, u32* ko, float* vo,
                                   std::size_t* count, std::size_t n, cudaStream_t s) {
        cupar::unique_by_key(k, v, ko, vo, count, n, s);
      }));
  guard.check(state);
}

void run_length_encode_cupar_u32(benchmark::State& state) {
  jit_row_guard guard("run_length_encode u32");
  run_length_runner<u32>(
      state, jit_warmed(guard, [&](const u32* in, u32* uo, u32* counts, std::size_t* count,
                                   std::size_t n, cudaStream_t s) {
        cupar::run_length_encode(in, uo, counts, count, n, s);
      }));
  guard.check(state);
}

}  // namespace cupar_bench
