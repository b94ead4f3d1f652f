// cupar benchmarks: kernel time of cupar with run-time (JIT) operators, the cupar_jit rows. Plain
// C++ compiled by the host compiler (no nvcc, no CUB headers): the operators are source snippets
// compiled by cupar at run time. Each row uses the same operator as the family's cupar (lambda)
// row and the same runner, so it is timed exactly like it, after a warm-up that waits for the
// optimised (inlined, tier-2) build (jit_rows.hpp).
//
//   reduce_sum        "a + b"; cupar_jit_named: cupar::jit::plus (a CUB instantiation
//                     precompiled in the library, nothing compiled at run time)
//   reduce_max        "a < b ? b : a"
//   inclusive_scan    "a + b"
//   transform_unary   "2.0f * x + 1.0f";  transform_binary "a + b"; cupar_jit_expr: the same
//   through
//                     transform over expressions (the "for_each" set); transform_mixed i32 -> f64
//                     "x * 0.5" (no CUB set for the pair: the pointer call runs for_each)
//   merge_sort_*      comparator "a < b" (cupar::jit::less would run the radix sort instead)
//   histogram_even_op sample operator "1.0f - x"
//   reduce_sum_squares, count_where  transform_reduce: transform "x * x" / "x > 0.5f ? 1ull :
//                     0ull", the named plus (the fused rows of fused.cu); cupar_jit_expr: the
//                     same over an iterator expression (jit::transform), the "+index" sets
//   scan_squares      inclusive scan of the expression transform(x, "x * x") ("+index" scan sets)
//   inclusive_scan_out  inclusive scan written through transform_output(out, "2.0f * x") ("+io")
//   dot, argmax       iterator expressions: transform<float>(zip(a, b), "x._0 * x._1");
//                     zip({"i", counting(0ll)}, {"v", x}) into a struct {long long i; float v;}
//   zip8, zip16       transform<float>(zip(c0, ..., cK-1), "x._0 + ... + x._K-1"), reduced with
//                     the named plus: K columns (16: a 128-byte state, in device memory)
#include "jit_rows.hpp"
#include "rows.hpp"
#include "runners.hpp"

#include <cupar/cupar.hpp>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

// (index, value) of the argmax rows: lowest index on ties. argmax32: a 32-bit index (8 bytes,
// the class s8a4).
CUPAR_JIT_STRUCT(bench_arg_f32, long long i; float v;)
CUPAR_JIT_STRUCT(bench_arg32_f32, int i; float v;)

namespace cupar_bench {
namespace {

using cupar::jit::op;

template <class T>
const char* type_name();
template <>
const char* type_name<float>() {
  return "f32";
}
template <>
const char* type_name<std::int32_t>() {
  return "i32";
}

std::string label(const char* family, const char* type, const op& o) {
  return std::string(family) + " " + type + " \"" + (o.is_named() ? "(named)" : o.source()) + "\"";
}

template <class T>
void reduce_jit(benchmark::State& state, const char* family, const op& o, T init) {
  jit_row_guard guard(label(family, type_name<T>(), o));
  reduce_runner<T>(state,
                   jit_warmed(guard, [&](const T* in, T* out, std::size_t n, cudaStream_t s) {
                     cupar::reduce(in, out, n, o, init, s);
                   }));
  guard.check(state);
}

template <class T>
void inclusive_scan_jit(benchmark::State& state) {
  const op plus("a + b");
  jit_row_guard guard(label("inclusive_scan", type_name<T>(), plus));
  scan_runner<T>(state, jit_warmed(guard, [&](const T* in, T* out, std::size_t n, cudaStream_t s) {
                   cupar::inclusive_scan(in, out, n, plus, s);
                 }));
  guard.check(state);
}

template <class K>
void merge_sort_keys_jit(benchmark::State& state) {
  const op less("a < b");
  jit_row_guard guard(label("merge_sort_keys", type_name<K>(), less));
  sort_keys_runner<K>(state,
                      jit_warmed(guard, [&](const K* in, K* out, std::size_t n, cudaStream_t s) {
                        cupar::sort_keys(in, out, n, less, s);
                      }));
  guard.check(state);
}

/// transform_reduce rows: the fused reductions of fused.cu with run-time operators (the transform
/// a snippet, the reduction the named plus).
template <class Out>
void fused_reduce_jit(benchmark::State& state, const char* family, const op& transform) {
  jit_row_guard guard(label(family, "f32", transform));
  fused_reduce_runner<Out>(
      state, jit_warmed(guard, [&](const float* in, Out* out, std::size_t n, cudaStream_t s) {
        cupar::transform_reduce(in, out, n, transform, cupar::jit::plus, Out(0), s);
      }));
  guard.check(state);
}

/// Rows over run-time iterator expressions (jit_iterator.hpp): `expr(in, n)` builds the
/// expression over the runner's input (inputs * n floats), rebuilt for every call as a user
/// would (its shape is cached, so only the first call compiles).
template <class Out, class Expr>
void expression_reduce_jit(benchmark::State& state, const std::string& what, const op& reduction,
                           Out init, int inputs, Expr expr) {
  jit_row_guard guard(what);
  fused_reduce_runner<Out>(
      state,
      jit_warmed(guard,
                 [&](const float* in, Out* out, std::size_t n, cudaStream_t s) {
                   cupar::reduce(expr(in, n), out, n, reduction, init, s);
                 }),
      inputs);
  guard.check(state);
}

}  // namespace

void reduce_sum_squares_cupar_jit_expr_f32(benchmark::State& state) {
  expression_reduce_jit<float>(
      state, "reduce_sum_squares f32 transform(x, \"x * x\")", cupar::jit::plus, 0.0f, 1,
      [](const float* in, std::size_t) { return cupar::jit::transform(in, op("x * x")); });
}
void dot_cupar_jit_f32(benchmark::State& state) {
  expression_reduce_jit<float>(state, "dot f32 transform<float>(zip(a, b), \"x._0 * x._1\")",
                               cupar::jit::plus, 0.0f, 2, [](const float* in, std::size_t n) {
                                 return cupar::jit::transform<float>(cupar::jit::zip(in, in + n),
                                                                     op("x._0 * x._1"));
                               });
}
void argmax_cupar_jit_f32(benchmark::State& state) {
  expression_reduce_jit<bench_arg_f32>(
      state, "argmax f32 zip(counting(0ll), x)",
      op("b.v > a.v || (b.v == a.v && b.i < a.i) ? b : a"), bench_arg_f32{-1, -1e30f}, 1,
      [](const float* in, std::size_t) {
        return cupar::jit::zip({{"i", cupar::jit::counting(0ll)}, {"v", in}});
      });
}
void argmax32_cupar_jit_f32(benchmark::State& state) {
  expression_reduce_jit<bench_arg32_f32>(
      state, "argmax32 f32 zip(counting(0), x)",
      op("b.v > a.v || (b.v == a.v && b.i < a.i) ? b : a"), bench_arg32_f32{-1, -1e30f}, 1,
      [](const float* in, std::size_t) {
        return cupar::jit::zip({{"i", cupar::jit::counting(0)}, {"v", in}});
      });
}
namespace {
/// The zip rows: K columns of the runner's K n floats, their fields summed.
template <int K>
void zip_sum_jit(benchmark::State& state) {
  std::string sum;
  for (int k = 0; k < K; ++k)
    sum += (k == 0 ? "x._" : " + x._") + std::to_string(k);
  const op rows(sum);
  expression_reduce_jit<float>(
      state, "zip" + std::to_string(K) + " f32 transform<float>(zip(...), \"" + sum + "\")",
      cupar::jit::plus, 0.0f, K, [&](const float* in, std::size_t n) {
        std::vector<cupar::jit::field> columns;
        for (int k = 0; k < K; ++k)
          columns.push_back({"_" + std::to_string(k), in + std::size_t(k) * n});
        return cupar::jit::transform<float>(cupar::jit::zip(columns), rows);
      });
}
}  // namespace

void zip8_cupar_jit_f32(benchmark::State& state) {
  zip_sum_jit<8>(state);
}
void zip16_cupar_jit_f32(benchmark::State& state) {
  zip_sum_jit<16>(state);
}
void count_where_cupar_jit_expr_f32(benchmark::State& state) {
  expression_reduce_jit<unsigned long long>(
      state, "count_where f32 transform(x, \"x > 0.5f ? 1ull : 0ull\")", cupar::jit::plus, 0ull, 1,
      [](const float* in, std::size_t) {
        return cupar::jit::transform<unsigned long long>(in, op("x > 0.5f ? 1ull : 0ull"));
      });
}

void scan_squares_cupar_jit_expr_f32(benchmark::State& state) {
  const op square("x * x");
  jit_row_guard guard("scan_squares f32 transform(x, \"x * x\")");
  unary_runner<float, float>(
      state, jit_warmed(guard, [&](const float* in, float* out, std::size_t n, cudaStream_t s) {
        cupar::inclusive_scan(cupar::jit::transform(in, square), out, n, cupar::jit::plus, s);
      }));
  guard.check(state);
}

// A scan written through a transform output (2 s), the "+io" scan sets: fused.cu's
// inclusive_scan_out rows on the run-time path.
void inclusive_scan_out_cupar_jit_expr_f32(benchmark::State& state) {
  const op twice("2.0f * x");
  jit_row_guard guard("inclusive_scan_out f32 transform_output(out, \"2.0f * x\")");
  unary_runner<float, float>(
      state, jit_warmed(guard, [&](const float* in, float* out, std::size_t n, cudaStream_t s) {
        cupar::inclusive_scan<float>(in, cupar::jit::transform_output(out, twice), n,
                                     cupar::jit::plus, s);
      }));
  guard.check(state);
}

// A radix sort of keys computed by the expression transform(x, "x * 7u") (fused.cu's
// sort_computed rows): the expression written to the output by the "for_each" kernels, then
// sorted there.
void sort_computed_cupar_jit_expr_u32(benchmark::State& state) {
  const op times7("x * 7u");
  jit_row_guard guard("sort_computed u32 transform(x, \"x * 7u\"), jit::less");
  sort_keys_runner<std::uint32_t>(
      state, jit_warmed(guard, [&](const std::uint32_t* in, std::uint32_t* out, std::size_t n,
                                   cudaStream_t s) {
        cupar::sort_keys(cupar::jit::transform(in, times7), out, n, cupar::jit::less, s);
      }));
  guard.check(state);
}

void reduce_sum_cupar_jit_f32(benchmark::State& state) {
  reduce_jit<float>(state, "reduce_sum", op("a + b"), 0.0f);
}
void reduce_sum_squares_cupar_jit_f32(benchmark::State& state) {
  fused_reduce_jit<float>(state, "reduce_sum_squares", op("x * x"));
}
void count_where_cupar_jit_f32(benchmark::State& state) {
  fused_reduce_jit<unsigned long long>(state, "count_where", op("x > 0.5f ? 1ull : 0ull"));
}
void reduce_sum_cupar_jit_i32(benchmark::State& state) {
  reduce_jit<std::int32_t>(state, "reduce_sum", op("a + b"), 0);
}
void reduce_sum_cupar_jit_named_f32(benchmark::State& state) {
  reduce_jit<float>(state, "reduce_sum", cupar::jit::plus, 0.0f);
}
void reduce_sum_cupar_jit_named_i32(benchmark::State& state) {
  reduce_jit<std::int32_t>(state, "reduce_sum", cupar::jit::plus, 0);
}

void reduce_max_cupar_jit_f32(benchmark::State& state) {
  reduce_jit<float>(state, "reduce_max", op("a < b ? b : a"), std::numeric_limits<float>::lowest());
}

void inclusive_scan_cupar_jit_f32(benchmark::State& state) {
  inclusive_scan_jit<float>(state);
}
void inclusive_scan_cupar_jit_i32(benchmark::State& state) {
  inclusive_scan_jit<std::int32_t>(state);
}

void transform_unary_cupar_jit_f32(benchmark::State& state) {
  const op f("2.0f * x + 1.0f");
  jit_row_guard guard(label("transform_unary", "f32", f));
  unary_runner<float, float>(
      state, jit_warmed(guard, [&](const float* in, float* out, std::size_t n, cudaStream_t s) {
        cupar::transform(in, out, n, f, s);
      }));
  guard.check(state);
}

// The "for_each" set: transform over expressions (here plain arrays as expressions), and a pair
// of types without a precompiled CUB transform set, which the pointer call routes there.
void transform_unary_cupar_jit_expr_f32(benchmark::State& state) {
  const op f("2.0f * x + 1.0f");
  jit_row_guard guard("transform_unary f32 for_each \"2.0f * x + 1.0f\"");
  unary_runner<float, float>(
      state, jit_warmed(guard, [&](const float* in, float* out, std::size_t n, cudaStream_t s) {
        cupar::transform(cupar::jit::iterator(in), cupar::jit::output(out), n, f, s);
      }));
  guard.check(state);
}

void transform_binary_cupar_jit_expr_i32(benchmark::State& state) {
  const op f("a + b");
  jit_row_guard guard("transform_binary i32 for_each \"a + b\"");
  binary_runner<std::int32_t, std::int32_t, std::int32_t>(
      state, jit_warmed(guard, [&](const std::int32_t* a, const std::int32_t* b, std::int32_t* out,
                                   std::size_t n, cudaStream_t s) {
        cupar::transform(cupar::jit::iterator(a), cupar::jit::iterator(b), cupar::jit::output(out),
                         n, f, s);
      }));
  guard.check(state);
}

void transform_mixed_cupar_jit_i32_f64(benchmark::State& state) {
  const op f("x * 0.5");
  jit_row_guard guard("transform_mixed i32 -> f64 \"x * 0.5\" (for_each)");
  unary_runner<std::int32_t, double>(
      state, jit_warmed(guard, [&](const std::int32_t* in, double* out, std::size_t n,
                                   cudaStream_t s) { cupar::transform(in, out, n, f, s); }));
  guard.check(state);
}

void transform_binary_cupar_jit_i32(benchmark::State& state) {
  const op f("a + b");
  jit_row_guard guard(label("transform_binary", "i32", f));
  binary_runner<std::int32_t, std::int32_t, std::int32_t>(
      state, jit_warmed(guard, [&](const std::int32_t* a, const std::int32_t* b, std::int32_t* out,
                                   std::size_t n,
                                   cudaStream_t s) { cupar::transform(a, b, out, n, f, s); }));
  guard.check(state);
}

void merge_sort_keys_cupar_jit_f32(benchmark::State& state) {
  merge_sort_keys_jit<float>(state);
}
void merge_sort_keys_cupar_jit_i32(benchmark::State& state) {
  merge_sort_keys_jit<std::int32_t>(state);
}

void merge_sort_pairs_cupar_jit_f32_u32(benchmark::State& state) {
  const op less("a < b");
  jit_row_guard guard(label("merge_sort_pairs", "f32_u32", less));
  sort_pairs_runner<float, std::uint32_t>(
      state, jit_warmed(guard, [&](const float* kin, float* kout, const std::uint32_t* vin,
                                   std::uint32_t* vout, std::size_t n, cudaStream_t s) {
        cupar::sort_pairs(kin, kout, vin, vout, n, less, s);
      }));
  guard.check(state);
}

void histogram_even_op_cupar_jit_f32(benchmark::State& state) {
  using setup = histogram_setup<float>;
  const op f("1.0f - x");
  jit_row_guard guard(label("histogram_even_op", "f32", f));
  histogram_runner<float>(state, jit_warmed(guard, [&](const float* samples, unsigned* hist,
                                                       std::size_t n, cudaStream_t s) {
                            cupar::histogram_even(samples, hist, setup::num_levels, setup::lower,
                                                  setup::upper, n, f, s);
                          }));
  guard.check(state);
}

}  // namespace cupar_bench
