// cupar tests: code examples of include/cupar/jit_iterator.hpp, compiled (see doc_examples.cpp).
#include <cupar/cupar.hpp>

// The examples keep the documents' layout: not reformatted.
// clang-format off

#include <cmath>
#include <cstddef>
#include <utility>
#include <vector>

namespace jit = cupar::jit;

// include/cupar/jit_iterator.hpp, the top of the file.
// doc-example: include/cupar/jit_iterator.hpp
CUPAR_JIT_STRUCT(arg, long long i; float v;)
// doc-example end

namespace header_iterator {

[[maybe_unused]] void examples(const float* d_a, const float* d_b, const float* d_x,
                               std::size_t n, cupar::stream_ref s) {
  // doc-example: include/cupar/jit_iterator.hpp
  // dot product: one pass over a and b
  float dot = cupar::reduce_value(
      jit::transform<float>(jit::zip(d_a, d_b), jit::op("x._0 * x._1")), n, jit::plus, 0.0f, s);
  // index of the largest value, lowest index on ties
  arg best = cupar::reduce_value(
      jit::zip({{"i", jit::counting(0ll)}, {"v", d_x}}), n,
      jit::op("b.v > a.v || (b.v == a.v && b.i < a.i) ? b : a"), arg{-1, -INFINITY}, s);
  // doc-example end
  (void)dot, (void)best;
}

}  // namespace header_iterator

// include/cupar/jit_iterator.hpp, zip: nested zips into a flat struct.
// doc-example: include/cupar/jit_iterator.hpp
CUPAR_JIT_STRUCT(xyw, float x; float y; float w;)
// doc-example end

namespace header_nested_zip {

[[maybe_unused]] void examples(const float* d_x, const float* d_y, const float* d_w, xyw* d_out,
                               std::size_t n, cupar::stream_ref s) {
  // doc-example: include/cupar/jit_iterator.hpp
  cupar::transform(jit::zip(jit::zip(d_x, d_y), d_w), d_out, n, jit::op("x"), s);  // xyw*
  // doc-example end
}

}  // namespace header_nested_zip

// include/cupar/jit_iterator.hpp, zip_output: a struct scan into its fields' arrays.
// doc-example: include/cupar/jit_iterator.hpp
CUPAR_JIT_STRUCT(sum_count, float sum; unsigned count;)
// doc-example end

namespace header_zip_output {

[[maybe_unused]] void examples(const jit::iterator& in, float* d_sums, unsigned* d_counts,
                               const jit::op& merge, std::size_t n, cupar::stream_ref s) {
  // doc-example: include/cupar/jit_iterator.hpp
  cupar::inclusive_scan<sum_count>(in, jit::zip_output(d_sums, d_counts), n, merge, s);
  // doc-example end
}

}  // namespace header_zip_output

namespace jit_md_prepared {

[[maybe_unused]] void examples(const double* d_price, const double* d_discount, std::size_t n,
                               const std::vector<std::pair<double, double>>& ranges,
                               std::vector<double>& totals, cupar::stream_ref stream) {
  // doc-example: docs/JIT.md
  jit::iterator revenue = jit::transform<double>(
      jit::zip(d_price, d_discount),
      jit::op("x._1 >= lo && x._1 <= hi ? x._0 * x._1 : 0.0").param("lo", 0.0).param("hi", 0.0));
  for (const auto& [lo, hi] : ranges) {
    revenue.set("lo", lo).set("hi", hi);
    totals.push_back(cupar::reduce_value(revenue, n, jit::plus, 0.0, stream));
  }
  // doc-example end
}

}  // namespace jit_md_prepared

// clang-format on
