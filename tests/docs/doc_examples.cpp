// cupar tests: the code examples of the README and the public headers, compiled by the host
// compiler (the ones for nvcc: doc_examples_cuda.cu; cupar::dist's: tests/dist/unit_test.cpp).
// One translation unit per set of names an example defines at namespace scope (two examples
// define different structs named `arg`, two `point`); the files are compiled, not linked.
// Compile-only: nothing here runs, the build is the test. Each block between
// "// doc-example: <file>" and "// doc-example end" is the example's text as the file has it,
// line for line; check_doc_examples.py (test cupar_doc_examples_match) fails when a line of a
// block is no longer in its file, so an example that changes must change here too, and compile.
// Names an example takes from its context (d_in, n, stream, ...) are the functions' parameters.
#include <cupar/cupar.hpp>

// The examples keep the documents' layout: not reformatted.
// clang-format off

#include <cmath>
#include <cstddef>
#include <cstdint>

namespace readme {

struct order {
  float price;
  unsigned id;
};

}  // namespace readme
CUPAR_JIT_TYPE(readme::order, "order", "struct order { float price; unsigned id; };")

namespace readme {

[[maybe_unused]] void first_example(const float* d_in, float* d_out, std::size_t n,
                                    cupar::stream_ref stream, order* d_keys) {
  // doc-example: README.md
  cupar::jit::op scale("x * s + t");          // operators are text, e.g. from a query
  scale.param("s", 2.0f).param("t", 1.0f);    // run-time parameters: change them without recompiling
  cupar::transform(d_in, d_out, n, scale, stream);
  float sum = cupar::reduce_value(d_out, n, cupar::jit::op("a + b"), 0.0f, stream);
  cupar::sort_keys(d_keys, d_keys, n, cupar::jit::op("a.price < b.price"), stream);  // user structs too
  // doc-example end
  (void)sum;
}

}  // namespace readme

// The README's fused inputs and outputs.
namespace jit = cupar::jit;
// doc-example: README.md
CUPAR_JIT_STRUCT(arg, int i; float v;)   // at namespace scope
// doc-example end

namespace readme {

[[maybe_unused]] void fused(const float* d_a, const float* d_b, const float* d_x, float* d_out,
                            const unsigned* d_keys, const unsigned* d_rows, unsigned* d_sorted,
                            unsigned* d_perm, float* d_sums, std::size_t n, cupar::stream_ref s) {
  // doc-example: README.md
  // dot product
  float dot = cupar::reduce_value(jit::transform<float>(jit::zip(d_a, d_b), jit::op("x._0 * x._1")),
                                  n, jit::plus, 0.0f, s);
  arg best = cupar::reduce_value(jit::zip({{"i", jit::counting(0)}, {"v", d_x}}), n,
                                 jit::op("b.v > a.v || (b.v == a.v && b.i < a.i) ? b : a"),
                                 arg{-1, -INFINITY}, s);
  // count where x > t, with a run-time parameter
  auto count = cupar::reduce_value(
      jit::transform<unsigned long long>(d_x, jit::op("x > t ? 1ull : 0ull").param("t", 0.5f)), n,
      jit::plus, 0ull, s);
  // keep 2x where 2x > t: select_if reads the expression in its own kernels (one pass)
  std::size_t kept = cupar::select_if_count(jit::transform(d_x, jit::op("2.0f * x")), d_out, n,
                                            jit::op("x > t").param("t", 1.0f), s);
  // sort the keys gathered through a row index (written to d_sorted, then radix-sorted there)
  cupar::sort_keys(jit::permutation(d_keys, d_rows), d_sorted, n, jit::less, s);
  // the sorting permutation (argsort): values counting(0), the sorted keys not kept
  cupar::stable_sort_pairs<unsigned, unsigned>(d_keys, jit::discard(), jit::counting(0u), d_perm, n,
                                               jit::less, s);
  // sums of fixed-size segments of 64, from offsets computed on the fly
  cupar::segmented_reduce(d_x, d_sums, n, (n + 63) / 64,
                          jit::transform<std::int64_t>(jit::counting(0ll), jit::op("x * 64")),
                          jit::transform<std::int64_t>(jit::counting(1ll),
                              jit::op("x * 64 < n ? x * 64 : n").param("n", (long long)n)),
                          jit::plus, 0.0f, s);
  // doc-example end
  (void)dot, (void)best, (void)count, (void)kept;
}

}  // namespace readme

// The README's group-by with run-time operators.
struct group {
  unsigned key, count;
  float sum, min, max;
};
// doc-example: README.md
CUPAR_JIT_TYPE(group, "group", "struct group { unsigned int key; unsigned int count; float sum; float min; float max; };")
// doc-example end

namespace readme {

[[maybe_unused]] void group_by(const unsigned* d_keys, unsigned* d_sorted_keys,
                               const float* d_values, float* d_sorted_values, group* d_rows,
                               unsigned* d_group_keys, group* d_groups, group* d_kept,
                               std::size_t n, cupar::stream_ref stream) {
  // doc-example: README.md
  cupar::sort_pairs(d_keys, d_sorted_keys, d_values, d_sorted_values, n, stream);        // radix sort
  cupar::transform(d_sorted_keys, d_sorted_values, d_rows, n, cupar::jit::op("group{a, 1u, b, b, b}"), stream);
  const cupar::jit::op merge("group{a.key, a.count + b.count, a.sum + b.sum, fminf(a.min, b.min), fmaxf(a.max, b.max)}");
  std::size_t groups = cupar::reduce_by_key_count(d_sorted_keys, d_rows, d_group_keys, d_groups, n, merge, stream);
  cupar::jit::op having("x.sum > t * static_cast<float>(x.count)");
  having.param("t", 600.0f);
  std::size_t kept = cupar::select_if_count(d_groups, d_kept, groups, having, stream);
  // doc-example end
  (void)kept;
}

}  // namespace readme

// group_by.hpp: a group-by with run-time operators.
// doc-example: include/cupar/group_by.hpp
CUPAR_JIT_STRUCT(agg, unsigned count; float sum; float min; float max;)
// doc-example end

namespace header_group_by {

[[maybe_unused]] void group_by(const unsigned* d_keys, const float* d_x, std::size_t n,
                               cupar::stream_ref stream) {
  // doc-example: include/cupar/group_by.hpp
  const cupar::jit::op merge(
      "agg{a.count + b.count, a.sum + b.sum, fminf(a.min, b.min), fmaxf(a.max, b.max)}");
  auto g = cupar::group_by<unsigned, agg>(
      d_keys, cupar::jit::transform<agg>(d_x, cupar::jit::op("agg{1u, x, x, x}")), n,
      merge, stream);  // g.keys, g.values, g.size()
  // doc-example end
  (void)g;
}

// The README's one-call group-by (its struct is the one above).
[[maybe_unused]] void readme_group_by(const unsigned* d_keys, const float* d_x, std::size_t n,
                                      cupar::stream_ref stream) {
  // doc-example: README.md
  const cupar::jit::op merge(
      "agg{a.count + b.count, a.sum + b.sum, fminf(a.min, b.min), fmaxf(a.max, b.max)}");
  auto g = cupar::group_by<unsigned, agg>(
      d_keys, cupar::jit::transform<agg>(d_x, cupar::jit::op("agg{1u, x, x, x}")), n,
      merge, stream);  // g.keys, g.values, g.size()
  // doc-example end
  (void)g;
}

}  // namespace header_group_by

// join.hpp: orders and customers with the same customer id.
[[maybe_unused]] std::size_t join_arrays(const unsigned* d_cust_id, std::size_t n_cust,
                                         const unsigned* d_order_cust, std::size_t n_orders,
                                         cupar::stream_ref stream) {
  // doc-example: include/cupar/join.hpp
  auto m = cupar::inner_join(d_cust_id, n_cust, d_order_cust, n_orders, stream);
  // doc-example end
  return m.size();
}

// join.hpp: a join on a composite key with a run-time hash and equality.
// doc-example: include/cupar/join.hpp
CUPAR_JIT_STRUCT(day_store, unsigned day; unsigned store;)
// doc-example end

[[maybe_unused]] std::size_t join_composite(const day_store* d_plan, std::size_t n_plan,
                                            const day_store* d_sales, std::size_t n_sales,
                                            cupar::stream_ref stream) {
  // doc-example: include/cupar/join.hpp
  const cupar::jit::op hash("(static_cast<unsigned long long>(x.day) << 32) | x.store");
  const cupar::jit::op same("a.day == b.day && a.store == b.store");
  auto m = cupar::inner_join(d_plan, n_plan, d_sales, n_sales, hash, same, stream);
  // doc-example end
  return m.size();
}

// group_by.hpp: a group-by on a composite key with a run-time hash and equality (day_store as
// declared above, as the header's example declares it).
[[maybe_unused]] std::size_t group_by_composite(const day_store* d_day_store, const float* d_sales,
                                                std::size_t n, cupar::stream_ref stream) {
  // doc-example: include/cupar/group_by.hpp
  const cupar::jit::op hash("(static_cast<unsigned long long>(x.day) << 32) | x.store");
  const cupar::jit::op same("a.day == b.day && a.store == b.store");
  auto g = cupar::group_by(d_day_store, d_sales, n, hash, same, cupar::jit::op("a + b"),
                           stream);  // g.keys: day_store, g.values: float
  // doc-example end
  return g.size();
}

// README.md: the same group-by in the README's group-by section.
[[maybe_unused]] std::size_t readme_group_by_composite(const day_store* d_day_store,
                                                       const float* d_sales, std::size_t n,
                                                       cupar::stream_ref stream) {
  // doc-example: README.md
  const cupar::jit::op hash("(static_cast<unsigned long long>(x.day) << 32) | x.store");
  const cupar::jit::op same("a.day == b.day && a.store == b.store");
  auto g = cupar::group_by(d_day_store, d_sales, n, hash, same, cupar::jit::op("a + b"),
                           stream);  // g.keys: day_store, g.values: float
  // doc-example end
  return g.size();
}

// group_by.hpp's inline example: keys kept as two columns, zipped into the key struct.
[[maybe_unused]] std::size_t group_by_columns(const unsigned* d_day, const unsigned* d_store,
                                              const float* d_sales, std::size_t n,
                                              cupar::stream_ref stream) {
  const cupar::jit::op hash("(static_cast<unsigned long long>(x.day) << 32) | x.store");
  const cupar::jit::op same("a.day == b.day && a.store == b.store");
  auto g = cupar::group_by<day_store, float>(
      cupar::jit::transform<day_store>(cupar::jit::zip(d_day, d_store),
                                       cupar::jit::op("day_store{x._0, x._1}")),
      d_sales, n, hash, same, cupar::jit::op("a + b"), stream);
  return g.size();
}

// The inline examples of the headers' comments, completed into calls (their "..." filled in).
namespace header_inline {

[[maybe_unused]] void examples(const float* d_x, float* d_y, float* d_out, std::size_t* d_count,
                               std::uint32_t* d_hist, const double* d_a, const double* d_b,
                               const unsigned* d_keys, unsigned* d_keys_out, double* d_sums,
                               std::size_t* d_runs, std::int64_t* d_offsets_end, std::size_t n,
                               cupar::stream_ref s) {
  // select.hpp: outputs through an expression, flags computed from another array
  cupar::select_if<float>(d_x, jit::transform_output<float>(d_y, jit::op("x * 2.0f")), d_count, n,
                          jit::op("x > 0.0f"), s);
  cupar::select_flagged<float, unsigned char>(d_x, jit::transform<unsigned char>(d_y,
                                              jit::op("x > 0")), d_out, d_count, n, s);
  // select.hpp, unique.hpp: an input read through an expression
  cupar::select_if(jit::transform(d_x, jit::op("x * 2.0f")), d_out, d_count, n, jit::op("x > 1"),
                   s);
  cupar::unique(jit::transform(d_x, jit::op("x * 2.0f")), d_out, d_count, n, s);
  // histogram.hpp: samples as an expression
  cupar::histogram_even<float>(jit::transform(d_x, jit::op("x * x")), d_hist, 11, 0.0f, 1.0f, n,
                               s);
  // by_key.hpp: values as an expression
  cupar::reduce_by_key<unsigned, double>(
      d_keys, jit::transform<double>(jit::zip(d_a, d_b), jit::op("x._0 * x._1")), d_keys_out,
      d_sums, d_runs, n, jit::plus, s);
  // segmented.hpp: fixed-size segments from offsets computed on the fly
  cupar::segmented_reduce(d_x, d_out, n, (n + 63) / 64,
                          jit::transform(jit::counting(0ll), jit::op("x * 64")), d_offsets_end,
                          jit::plus, 0.0f, s);
}

}  // namespace header_inline

namespace header_gather {

[[maybe_unused]] void examples(const double* d_price, std::size_t n_right, const int* d_match,
                               std::size_t n_left, double* d_joined_price, const float* d_sorted,
                               std::size_t n, const float* d_needles, std::size_t m,
                               std::int64_t* d_lower, std::int64_t* d_upper, cupar::stream_ref stream) {
  // doc-example: include/cupar/gather.hpp
  // rows of a join's right table, -1 where the left row found no match: a null of 0
  cupar::gather(d_price, n_right, d_match, n_left, d_joined_price, cupar::bounds::fill, 0.0,
                stream);
  // doc-example end
  // README: equal_range, the default comparator and a run-time one
  cupar::equal_range(d_sorted, n, d_needles, m, d_lower, d_upper, stream);
  cupar::equal_range(d_sorted, n, d_needles, m, d_lower, d_upper, jit::op("a < b"), stream);
}

}  // namespace header_gather

namespace header_top_k {

[[maybe_unused]] void examples(const double* d_price, double* d_top_price, std::uint32_t* d_rows,
                               std::size_t n, cupar::stream_ref stream) {
  // doc-example: include/cupar/top_k.hpp
  // the 100 largest prices and their rows
  cupar::top_k_positions(d_price, d_top_price, d_rows, n, 100, cupar::sort_order::descending,
                         stream);
  // doc-example end
}

struct order {
  float total;
  unsigned id;
};

}  // namespace header_top_k
CUPAR_JIT_TYPE(header_top_k::order, "order", "struct order { float total; unsigned id; };")

namespace header_top_k {

[[maybe_unused]] void comparator_examples(const order* d_orders, order* d_top,
                                          std::uint32_t* d_rows, std::size_t n,
                                          cupar::stream_ref stream) {
  // doc-example: include/cupar/top_k.hpp
  // the 10 orders with the largest totals (a struct of CUPAR_JIT_TYPE), and their rows
  cupar::top_k_positions(d_orders, d_top, d_rows, n, 10,
                         cupar::jit::op("a.total > b.total"), stream);
  // doc-example end
}

}  // namespace header_top_k
// clang-format on

namespace headers {

// reduce.hpp: a reduce's result through an output expression.
[[maybe_unused]] void reduce_mean(const float* d_x, float* d_mean, std::size_t n,
                                  cupar::stream_ref s) {
  namespace jit = cupar::jit;
  // doc-example: include/cupar/reduce.hpp
  // the mean in one call: the sum written divided by n
  jit::op mean("x / n");
  mean.param("n", static_cast<float>(n));
  cupar::reduce(jit::iterator(d_x), jit::transform_output(d_mean, mean), n, jit::plus, 0.0f, s);
  // doc-example end
}

}  // namespace headers

namespace headers {

// types.hpp: an initial value in device memory.
[[maybe_unused]] void device_value(const float* d_a, const float* d_b, float* d_total, float* d_out,
                                   std::size_t n, std::size_t m, cupar::stream_ref stream) {
  // doc-example: include/cupar/types.hpp
  cupar::reduce(d_a, d_total, n, cupar::jit::plus, 0.0f, stream);  // the total of a
  // b's running sums, starting from that total:
  cupar::exclusive_scan(d_b, d_out, m, cupar::jit::plus, cupar::device_value{d_total}, stream);
  // doc-example end
}

}  // namespace headers

namespace headers {

// half.hpp: a sum of halves accumulated in float.
[[maybe_unused]] float half_sum(const __half* d_h, std::size_t n, cupar::stream_ref stream) {
  // doc-example: include/cupar/half.hpp
  float sum = cupar::reduce_value(cupar::jit::transform<float>(d_h, cupar::jit::op("x")), n,
                                  cupar::jit::plus, 0.0f, stream);
  // doc-example end
  return sum;
}

}  // namespace headers
