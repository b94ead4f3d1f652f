// cupar benchmarks: host overhead per call with run-time (JIT) operators, beside the cupar and
// cub rows of host_overhead.cu: 1,000 calls on 1,024 floats, one stream synchronisation at the
// end (time_host_overhead). Host compiler only.
//
//   cupar_jit       the free function (cupar::reduce, ...) with one jit::op object reused by
//                   every call: each call looks its build up in the operator's cache
//   cupar_jit_plan  a plan (reduce_plan, scan_plan, transform_plan) built once: no lookup
//   cupar_jit_expr  over iterator expressions rebuilt for every call (their code generated again)
//
// Operators as in the kernel rows: "a + b" (reduce, scan), "2.0f * x + 1.0f" (transform). The
// warm-up (jit_rows.hpp) waits for the optimised build, so the loop runs the same kernels as
// the cub rows. A plan is made by the first call of the warm-up (inside the row's error guard:
// it compiles, and needs a GPU).
#include "jit_rows.hpp"
#include "rows.hpp"
#include "runners.hpp"

#include <cupar/cupar.hpp>

#include <optional>

namespace cupar_bench {

using cupar::jit::op;

void host_overhead_cupar_jit_reduce_f32(benchmark::State& state) {
  const op plus("a + b");
  jit_row_guard guard("host_overhead reduce f32 \"a + b\"");
  host_overhead_runner(
      state, jit_warmed(guard, [&](const float* in, float* out, std::size_t n, cudaStream_t s) {
        cupar::reduce(in, out, n, plus, 0.0f, s);
      }));
  guard.check(state);
}

void host_overhead_cupar_jit_plan_reduce_f32(benchmark::State& state) {
  std::optional<cupar::jit::reduce_plan<float>> plan;
  jit_row_guard guard("host_overhead reduce_plan f32 \"a + b\"");
  host_overhead_runner(
      state, jit_warmed(guard, [&](const float* in, float* out, std::size_t n, cudaStream_t s) {
        if (!plan) plan.emplace(op("a + b"));
        (*plan)(in, out, n, 0.0f, s);
      }));
  guard.check(state);
}

void host_overhead_cupar_jit_inclusive_scan_f32(benchmark::State& state) {
  const op plus("a + b");
  jit_row_guard guard("host_overhead inclusive_scan f32 \"a + b\"");
  host_overhead_runner(
      state, jit_warmed(guard, [&](const float* in, float* out, std::size_t n, cudaStream_t s) {
        cupar::inclusive_scan(in, out, n, plus, s);
      }));
  guard.check(state);
}

void host_overhead_cupar_jit_plan_inclusive_scan_f32(benchmark::State& state) {
  std::optional<cupar::jit::scan_plan<float>> plan;
  jit_row_guard guard("host_overhead scan_plan f32 \"a + b\"");
  host_overhead_runner(
      state, jit_warmed(guard, [&](const float* in, float* out, std::size_t n, cudaStream_t s) {
        if (!plan) plan.emplace(op("a + b"), true);
        plan->inclusive(in, out, n, s);
      }));
  guard.check(state);
}

void host_overhead_cupar_jit_transform_f32(benchmark::State& state) {
  const op f("2.0f * x + 1.0f");
  jit_row_guard guard("host_overhead transform f32 \"2.0f * x + 1.0f\"");
  host_overhead_runner(
      state, jit_warmed(guard, [&](const float* in, float* out, std::size_t n, cudaStream_t s) {
        cupar::transform(in, out, n, f, s);
      }));
  guard.check(state);
}

void host_overhead_cupar_jit_plan_transform_f32(benchmark::State& state) {
  std::optional<cupar::jit::transform_plan<float, float>> plan;
  jit_row_guard guard("host_overhead transform_plan f32 \"2.0f * x + 1.0f\"");
  host_overhead_runner(
      state, jit_warmed(guard, [&](const float* in, float* out, std::size_t n, cudaStream_t s) {
        if (!plan) plan.emplace(op("2.0f * x + 1.0f"));
        (*plan)(in, out, n, s);
      }));
  guard.check(state);
}

// Expressions: the per-call code generation (the expression's shape generated again, its
// interned definition found) on top of the lookup: transform over the arrays as expressions
// (the for_each set) and a reduce over transform(x, "x * x") (the "+index" reduce sets).
void host_overhead_cupar_jit_expr_transform_f32(benchmark::State& state) {
  const op f("2.0f * x + 1.0f");
  jit_row_guard guard("host_overhead transform over expressions f32 \"2.0f * x + 1.0f\"");
  host_overhead_runner(
      state, jit_warmed(guard, [&](const float* in, float* out, std::size_t n, cudaStream_t s) {
        cupar::transform(cupar::jit::iterator(in), cupar::jit::output(out), n, f, s);
      }));
  guard.check(state);
}

void host_overhead_cupar_jit_expr_reduce_f32(benchmark::State& state) {
  const op square("x * x");
  jit_row_guard guard("host_overhead reduce over transform(x, \"x * x\") f32");
  host_overhead_runner(
      state, jit_warmed(guard, [&](const float* in, float* out, std::size_t n, cudaStream_t s) {
        cupar::reduce(cupar::jit::transform(in, square), out, n, cupar::jit::plus, 0.0f, s);
      }));
  guard.check(state);
}

}  // namespace cupar_bench
