// cupar benchmarks: the stream compaction families with run-time operators (cupar_jit rows, plain
// C++): the same operators as the cupar rows of bench/select.cu, as snippets, timed once their
// optimised build serves (jit_rows.hpp).
//
//   select_if, partition  "x < t" with the parameter t = 2^31
//   three_way_partition   "x < t" with t = 2^30, then "x < t" with t = 2^31
//   unique                "a == b"; cupar_jit_named: no equality given (the precompiled ==)
//   select_if_transformed select_if of transform(x, "x * 3u") by "x < t" (fused, and unfused)
//   select_flagged_transformed select_flagged of transform(x, "x * 3u"): read by the "+index"
//                         kernels (fused), and unfused (the transform into a temporary first)
//   select_if_output      select_if by "x < t" written through transform_output(out, "x * 3u")
//                         (the kernels write a temporary, one bounded pass stores it), and
//                         unfused (select_if to an array, then a transform of all n items)
#include "jit_rows.hpp"
#include "rows.hpp"
#include "select_runners.hpp"

#include <cupar/cupar.hpp>

#include <cstdint>
#include <string>

namespace cupar_bench {
namespace {

using cupar::jit::op;
using u32 = std::uint32_t;

op below(u32 t) {
  return op("x < t").param("t", t);
}

void three_way_jit(benchmark::State& state, const op& first, const op& second,
                   const std::string& label) {
  jit_row_guard guard(label);
  three_way_runner<u32>(
      state, jit_warmed(guard, [&](const u32* in, u32* f, u32* sc, u32* r, std::size_t* counts,
                                   std::size_t n, cudaStream_t s) {
        cupar::three_way_partition(in, f, sc, r, counts, n, first, second, s);
      }));
  guard.check(state);
}

}  // namespace

void select_if_cupar_jit_u32(benchmark::State& state) {
  const op pred = below(select_threshold);
  jit_row_guard guard("select_if u32 \"x < t\"");
  select_runner<u32>(state, jit_warmed(guard, [&](const u32* in, u32* out, std::size_t* count,
                                                  std::size_t n, cudaStream_t s) {
                       cupar::select_if(in, out, count, n, pred, s);
                     }));
  guard.check(state);
}

// select_if of the expression transform(x, "x * 3u") (select.cu's select_if_transformed rows):
// cupar_jit_expr reads it in the "+index" kernels; cupar_jit_unfused writes the transform to a
// temporary array first, then selects from it (what a caller without expressions does).
void select_if_transformed_cupar_jit_expr_u32(benchmark::State& state) {
  const op pred = below(select_threshold), times3("x * 3u");
  jit_row_guard guard("select_if_transformed u32 transform(x, \"x * 3u\"), \"x < t\"");
  select_runner<u32>(state, jit_warmed(guard, [&](const u32* in, u32* out, std::size_t* count,
                                                  std::size_t n, cudaStream_t s) {
                       cupar::select_if(cupar::jit::transform(in, times3), out, count, n, pred, s);
                     }));
  guard.check(state);
}

void select_if_transformed_cupar_jit_unfused_u32(benchmark::State& state) {
  const op pred = below(select_threshold), times3("x * 3u");
  cupar::device_buffer<u32> tmp(size_arg(state), cupar::stream_ref(bench_stream()));
  jit_row_guard guard("select_if_transformed u32 transform then select_if");
  select_runner<u32>(state, jit_warmed(guard, [&](const u32* in, u32* out, std::size_t* count,
                                                  std::size_t n, cudaStream_t s) {
                       cupar::transform(in, tmp.data(), n, times3, s);
                       cupar::select_if(tmp.data(), out, count, n, pred, s);
                     }));
  guard.check(state);
}

// select_flagged of the expression transform(x, "x * 3u"): cupar_jit_expr reads it in the
// "+index" kernels; cupar_jit_unfused writes it to a temporary array first (what the library did
// before those sets).
void select_flagged_transformed_cupar_jit_expr_u32(benchmark::State& state) {
  const op times3("x * 3u");
  jit_row_guard guard("select_flagged_transformed u32 transform(x, \"x * 3u\")");
  select_flagged_runner<u32>(
      state, jit_warmed(guard, [&](const u32* in, const std::uint8_t* flags, u32* out,
                                   std::size_t* count, std::size_t n, cudaStream_t s) {
        cupar::select_flagged(cupar::jit::transform(in, times3), flags, out, count, n, s);
      }));
  guard.check(state);
}

void select_flagged_transformed_cupar_jit_unfused_u32(benchmark::State& state) {
  const op times3("x * 3u");
  cupar::device_buffer<u32> tmp(size_arg(state), cupar::stream_ref(bench_stream()));
  jit_row_guard guard("select_flagged_transformed u32 transform then select_flagged");
  select_flagged_runner<u32>(
      state, jit_warmed(guard, [&](const u32* in, const std::uint8_t* flags, u32* out,
                                   std::size_t* count, std::size_t n, cudaStream_t s) {
        cupar::transform(in, tmp.data(), n, times3, s);
        cupar::select_flagged(tmp.data(), flags, out, count, n, s);
      }));
  guard.check(state);
}

// select_if through an output expression (select.cu's select_if_output rows): the "+io" set's
// kernels store each selected item through transform_output(out, "x * 3u") as they compact (the
// input and the output are apart). Unfused: select into a temporary, transform all n of it.
void select_if_output_cupar_jit_expr_u32(benchmark::State& state) {
  const op pred = below(select_threshold), times3("x * 3u");
  jit_row_guard guard("select_if_output u32 \"x < t\" -> transform_output(out, \"x * 3u\")");
  select_runner<u32>(state, jit_warmed(guard, [&](const u32* in, u32* out, std::size_t* count,
                                                  std::size_t n, cudaStream_t s) {
                       cupar::select_if<u32>(in, cupar::jit::transform_output(out, times3), count,
                                             n, pred, s);
                     }));
  guard.check(state);
}

void select_if_output_cupar_jit_unfused_u32(benchmark::State& state) {
  const op pred = below(select_threshold), times3("x * 3u");
  cupar::device_buffer<u32> tmp(size_arg(state), cupar::stream_ref(bench_stream()));
  jit_row_guard guard("select_if_output u32 select_if then transform");
  select_runner<u32>(state, jit_warmed(guard, [&](const u32* in, u32* out, std::size_t* count,
                                                  std::size_t n, cudaStream_t s) {
                       cupar::select_if(in, tmp.data(), count, n, pred, s);
                       cupar::transform(tmp.data(), out, n, times3, s);
                     }));
  guard.check(state);
}

void partition_cupar_jit_u32(benchmark::State& state) {
  const op pred = below(select_threshold);
  jit_row_guard guard("partition u32 \"x < t\"");
  select_runner<u32>(state, jit_warmed(guard, [&](const u32* in, u32* out, std::size_t* count,
                                                  std::size_t n, cudaStream_t s) {
                       cupar::partition(in, out, count, n, pred, s);
                     }));
  guard.check(state);
}

void three_way_partition_cupar_jit_u32(benchmark::State& state) {
  three_way_jit(state, below(select_first_threshold), below(select_threshold),
                "three_way_partition u32 \"x < t\", \"x < t\"");
}

// The same partition with the thresholds written in the operators' text, as cuda.compute compiles
// its Python operators (constants folded into the kernel; the row above passes them as parameters,
// so that one build serves every threshold): the peer comparison's like-for-like row.
void three_way_partition_cupar_jit_literal_u32(benchmark::State& state) {
  three_way_jit(state, op("x < 0x40000000u"), op("x < 0x80000000u"),
                "three_way_partition u32 \"x < 0x40000000u\", \"x < 0x80000000u\"");
}

void unique_cupar_jit_u32(benchmark::State& state) {
  const op eq("a == b");
  jit_row_guard guard("unique u32 \"a == b\"");
  unique_runner<u32>(
      state, jit_warmed(guard, [&](const u32* in, u32* out, std::size_t* count, std::size_t n,
                                   cudaStream_t s) { cupar::unique(in, out, count, n, eq, s); }));
  guard.check(state);
}

void unique_cupar_jit_named_u32(benchmark::State& state) {
  jit_row_guard guard("unique u32 (default ==)");
  unique_runner<u32>(
      state, jit_warmed(guard, [&](const u32* in, u32* out, std::size_t* count, std::size_t n,
                                   cudaStream_t s) { cupar::unique(in, out, count, n, s); }));
  guard.check(state);
}

}  // namespace cupar_bench
