// cupar tests: reduce over run-time iterator expressions on the GPU (jit_iterator.hpp), against
// CPU references: the fused cases of issue 10 (sum of squares, dot product, argmax / argmin with
// ties, count where, mean where), scans of expressions, transforms of expressions into output
// expressions (the "for_each" set), every builder (counting, constant, transform, zip,
// permutation, reverse) and their compositions, sizes 0, 1, odd and large (one above 2^31
// elements: a counting expression reads no memory), both tiers, the shape cache, argument
// checks. Compiled by g++.
#include "../common/data.hpp"
#include "../common/gpu.hpp"
#include "../common/precompiled.hpp"
#include "../common/streams.hpp"
#include "iterator_helpers.hpp"

#include <cupar/cupar.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace jit = cupar::jit;
using cupar::testing::owned_stream;
using jit::op;

CUPAR_JIT_STRUCT(arg_f32, long long i; float v;)
CUPAR_JIT_STRUCT(sum_count, double sum; unsigned long long count;)

// Nested zips' elements: structs whose members nest as the zips do (two and three levels), and a
// flat one of the same leaves.
struct pt2_f64 {
  double x, y;
};
struct nested_f64 {
  pt2_f64 p;
  double w;
};
CUPAR_JIT_TYPE(nested_f64, "nested_f64",
               "struct nested_pt2_f64 { double x, y; }; "
               "struct nested_f64 { nested_pt2_f64 p; double w; };")
struct deep_f64 {
  nested_f64 n;
  double z;
};
CUPAR_JIT_TYPE(deep_f64, "deep_f64",
               "struct deep_pt2_f64 { double x, y; }; struct deep_mid_f64 { deep_pt2_f64 p; "
               "double w; }; struct deep_f64 { deep_mid_f64 n; double z; };")
CUPAR_JIT_STRUCT(flat3_f64, double x; double y; double w;)

namespace {

using cupar::testing::both_tiers;
using cupar::testing::random_indices;
using cupar::testing::small_values;
const std::vector<std::size_t>& sizes = cupar::testing::expression_sizes;

TEST(JitIterator, SumOfSquaresDotAndCountWhereMatchTheCpu) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  for (std::size_t n : sizes) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto ha = small_values<double>(n, 1), hb = small_values<double>(n, 2);
    cupar::device_buffer<double> a(ha, s), b(hb, s);
    double squares = 0, dot = 0;
    unsigned long long above = 0;
    for (std::size_t i = 0; i < n; ++i) {
      squares += ha[i] * ha[i];
      dot += ha[i] * hb[i];
      above += ha[i] > 2.5 ? 1 : 0;
    }
    both_tiers([&] {
      EXPECT_EQ(cupar::reduce_value(jit::transform(a.data(), op("x * x")), n, jit::plus, 0.0, s),
                squares);
      EXPECT_EQ(cupar::reduce_value(
                    jit::transform<double>(jit::zip(a.data(), b.data()), op("x._0 * x._1")), n,
                    jit::plus, 0.0, s),
                dot);
      EXPECT_EQ(cupar::reduce_value(jit::transform<unsigned long long>(
                                        a.data(), op("x > t ? 1ull : 0ull").param("t", 2.5)),
                                    n, jit::plus, 0ull, s),
                above);
    });
  }
}

TEST(JitIterator, SumOfSquaresOfFloatsIntoADeviceResult) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  const std::size_t n = (1u << 22) + 17;
  const auto h = small_values<float>(n, 3);
  cupar::device_buffer<float> x(h, s), out(1, s);
  double expected = 0;
  for (float v : h)
    expected += static_cast<double>(v) * v;
  cupar::reduce(jit::transform(x.data(), op("x * x")), out.data(), n, jit::plus, 0.0f, s);
  // Float sums of 4M squares up to 64: exact below 2^24 per partial, close overall.
  EXPECT_NEAR(out.to_host()[0], expected, expected * 1e-5);
}

TEST(JitIterator, ArgmaxAndArgminTakeTheLowestIndexOnTies) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  const op argmax("b.v > a.v || (b.v == a.v && b.i < a.i) ? b : a");
  const op argmin("b.v < a.v || (b.v == a.v && b.i < a.i) ? b : a");
  for (std::size_t n : sizes) {
    SCOPED_TRACE("n = " + std::to_string(n));
    // Few distinct values: the extremes occur many times.
    const auto h = small_values<float>(n, 4, 0, 5);
    cupar::device_buffer<float> x(h, s);
    arg_f32 hi{-1, -INFINITY}, lo{-1, INFINITY};
    for (std::size_t i = 0; i < n; ++i) {
      if (h[i] > hi.v) hi = {static_cast<long long>(i), h[i]};
      if (h[i] < lo.v) lo = {static_cast<long long>(i), h[i]};
    }
    both_tiers([&] {
      const jit::iterator indexed = jit::zip({{"i", jit::counting(0ll)}, {"v", x.data()}});
      const arg_f32 got_hi = cupar::reduce_value(indexed, n, argmax, arg_f32{-1, -INFINITY}, s);
      const arg_f32 got_lo = cupar::reduce_value(indexed, n, argmin, arg_f32{-1, INFINITY}, s);
      EXPECT_EQ(got_hi.i, hi.i);
      EXPECT_EQ(got_hi.v, hi.v);
      EXPECT_EQ(got_lo.i, lo.i);
      EXPECT_EQ(got_lo.v, lo.v);
    });
  }
}

// reduce writing its result through an output expression (transform_output, zip_output of a
// struct result, reverse_output, a plain array), from a host and a device initial value; a store
// that does not compile throws before anything runs.
TEST(JitIterator, ReduceWritesThroughAnOutputExpression) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  const op argmax("b.v > a.v || (b.v == a.v && b.i < a.i) ? b : a");
  cupar::device_buffer<double> twice(1, s), plain(1, s);
  cupar::device_buffer<long long> where(1, s);
  cupar::device_buffer<float> best(1, s);
  cupar::device_buffer<double> seed(std::vector<double>{5.0}, s);
  for (std::size_t n : sizes) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto h = small_values<float>(n, 9, 0, 5);
    cupar::device_buffer<float> x(h, s);
    double sum = 0;
    arg_f32 hi{-1, -INFINITY};
    for (std::size_t i = 0; i < n; ++i) {
      sum += h[i];
      if (h[i] > hi.v) hi = {static_cast<long long>(i), h[i]};
    }
    both_tiers([&] {
      cupar::reduce(jit::iterator(x.data()),
                    jit::transform_output<double>(twice.data(), op("2.0 * x")), n, jit::plus, 1.0,
                    s);
      EXPECT_EQ(twice.to_host()[0], 2.0 * (1.0 + sum));
      cupar::reduce(jit::iterator(x.data()), jit::reverse_output(jit::output(plain.data())), n,
                    jit::plus, 0.0, s);
      EXPECT_EQ(plain.to_host()[0], sum);
      cupar::reduce(jit::iterator(x.data()), jit::output(plain.data()), n, jit::plus,
                    cupar::device_value{seed.data()}, s);
      EXPECT_EQ(plain.to_host()[0], 5.0 + sum);
      cupar::reduce(jit::zip({{"i", jit::counting(0ll)}, {"v", x.data()}}),
                    jit::zip_output(where.data(), best.data()), n, argmax, arg_f32{-1, -INFINITY},
                    s);
      EXPECT_EQ(where.to_host()[0], hi.i);
      EXPECT_EQ(best.to_host()[0], hi.v);
    });
  }
  plain.fill_bytes(0xAB);
  const std::vector<double> before = plain.to_host();
  const cupar::device_buffer<double> four(std::vector<double>{1, 2, 3, 4}, s);
  EXPECT_THROW(
      cupar::reduce(jit::iterator(four.data()),
                    jit::transform_output<double>(plain.data(), op("x +")), 4, jit::plus, 0.0, s),
      cupar::jit_error);
  EXPECT_EQ(plain.to_host(), before);
}

// cache_modified: every load modifier reads what the array holds (reduce of an arithmetic array,
// argmax over a zip of a counting index and a cache-modified array, select_if's fused read);
// counting from floating-point starts.
TEST(JitIterator, CacheModifiedArraysAndFloatingCountsMatchTheCpu) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  const op argmax("b.v > a.v || (b.v == a.v && b.i < a.i) ? b : a");
  for (std::size_t n : sizes) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto h = small_values<float>(n, 31, 0, 9);
    cupar::device_buffer<float> x(h, s), picked(n, s);
    cupar::device_buffer<std::size_t> count(1, s);
    double sum = 0;
    arg_f32 hi{-1, -INFINITY};
    std::vector<float> big;
    for (std::size_t i = 0; i < n; ++i) {
      sum += h[i];
      if (h[i] > hi.v) hi = {static_cast<long long>(i), h[i]};
      if (h[i] > 6.0f) big.push_back(h[i]);
    }
    for (jit::load m : {jit::load::ldg, jit::load::ca, jit::load::cg, jit::load::cs, jit::load::lu,
                        jit::load::cv}) {
      SCOPED_TRACE(std::string("modifier ") + static_cast<char>(m));
      const jit::iterator in = jit::cache_modified(x.data(), m);
      EXPECT_EQ(
          cupar::reduce_value(jit::transform<double>(in, op("double(x)")), n, jit::plus, 0.0, s),
          sum);
      const arg_f32 got = cupar::reduce_value(jit::zip({{"i", jit::counting(0ll)}, {"v", in}}), n,
                                              argmax, arg_f32{-1, -INFINITY}, s);
      EXPECT_EQ(got.i, hi.i);
      EXPECT_EQ(got.v, hi.v);
      cupar::select_if(jit::input_t<float>(in), picked.data(), count.data(), n, op("x > 6.0f"), s);
      const std::size_t c = count.to_host()[0];
      ASSERT_EQ(c, big.size());
      auto got_big = picked.to_host();
      got_big.resize(c);
      EXPECT_EQ(got_big, big);
    }
    // A struct array loaded in 8-byte words (arg_f32: 16 bytes aligned to 8).
    std::vector<arg_f32> hs(n);
    for (std::size_t i = 0; i < n; ++i)
      hs[i] = {static_cast<long long>(i) * 3, h[i]};
    cupar::device_buffer<arg_f32> xs(hs, s);
    const arg_f32 got_s = cupar::reduce_value(jit::cache_modified(xs.data(), jit::load::cs), n,
                                              argmax, arg_f32{-1, -INFINITY}, s);
    EXPECT_EQ(got_s.i, n == 0 ? -1 : hi.i * 3);  // n == 0: the initial value
    EXPECT_EQ(got_s.v, hi.v);
    // Floating-point counts: start + i in the start's type.
    cupar::device_buffer<float> counted(n, s);
    cupar::transform(jit::counting(0.5f), counted.data(), n, op("x"), s);
    std::vector<float> want(n);
    for (std::size_t i = 0; i < n; ++i)
      want[i] = 0.5f + static_cast<float>(i);
    EXPECT_EQ(counted.to_host(), want);
    double want_sum = 0;
    for (std::size_t i = 0; i < n; ++i)
      want_sum += -1.25 + static_cast<double>(i);
    EXPECT_EQ(cupar::reduce_value(jit::counting(-1.25), n, jit::plus, 0.0, s), want_sum);
  }
}

TEST(JitIterator, MeanWhereReducesAStructTheTransformBuilds) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  for (std::size_t n : sizes) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto h = small_values<double>(n, 5);
    cupar::device_buffer<double> x(h, s);
    sum_count expected{0, 0};
    for (double v : h) {
      if (v < 0) expected = {expected.sum + v, expected.count + 1};
    }
    both_tiers([&] {
      const sum_count got = cupar::reduce_value(
          jit::transform<sum_count>(
              x.data(), op("x < t ? sum_count{x, 1ull} : sum_count{0.0, 0ull}").param("t", 0.0)),
          n, op("sum_count{a.sum + b.sum, a.count + b.count}"), sum_count{0, 0}, s);
      EXPECT_EQ(got.sum, expected.sum);
      EXPECT_EQ(got.count, expected.count);
    });
  }
}

TEST(JitIterator, CountingConstantPermutationAndReverseMatchTheCpu) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  for (std::size_t n : sizes) {
    SCOPED_TRACE("n = " + std::to_string(n));
    std::mt19937 rng(6);
    std::vector<unsigned> hv(n), hidx(n);
    for (auto& v : hv)
      v = rng() % 1000;
    for (auto& i : hidx)
      i = static_cast<unsigned>(n == 0 ? 0 : rng() % n);
    cupar::device_buffer<unsigned> v(hv, s), idx(hidx, s);
    unsigned long long counting = 0, gathered = 0, weighted = 0, mixed = 0;
    for (std::size_t i = 0; i < n; ++i) {
      counting += 5 + i;
      gathered += hv[hidx[i]];
      weighted += static_cast<unsigned long long>(i) * hv[n - 1 - i];
      mixed += 3ull * hv[hidx[n - 1 - i]] + i;
    }
    both_tiers([&] {
      EXPECT_EQ(
          cupar::reduce_value(jit::transform<unsigned long long>(jit::counting(5ull), op("x")), n,
                              jit::plus, 0ull, s),
          counting);
      EXPECT_EQ(cupar::reduce_value(jit::transform<unsigned long long>(jit::constant(3u), op("x")),
                                    n, jit::plus, 0ull, s),
                3ull * n);
      EXPECT_EQ(cupar::reduce_value(jit::transform<unsigned long long>(
                                        jit::permutation(v.data(), idx.data()), op("x")),
                                    n, jit::plus, 0ull, s),
                gathered);
      EXPECT_EQ(cupar::reduce_value(
                    jit::transform<unsigned long long>(
                        jit::zip({{"i", jit::counting(0ull)}, {"v", jit::reverse(v.data())}}),
                        op("x.i * x.v")),
                    n, jit::plus, 0ull, s),
                weighted);
      // A gather through reversed indices, scaled by a constant, plus a counting index.
      EXPECT_EQ(cupar::reduce_value(
                    jit::transform<unsigned long long>(
                        jit::zip({{"g", jit::permutation(v.data(), jit::reverse(idx.data()))},
                                  {"k", jit::constant(3ull)},
                                  {"i", jit::counting(0ull)}}),
                        op("x.k * x.g + x.i")),
                    n, jit::plus, 0ull, s),
                mixed);
    });
  }
}

TEST(JitIterator, ScansOfExpressionsMatchTheCpu) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  for (std::size_t n : sizes) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto h = small_values<double>(n, 9);
    const std::vector<unsigned> hidx = random_indices(n, 10);
    cupar::device_buffer<double> x(h, s), out(n, s);
    cupar::device_buffer<unsigned> idx(hidx, s);
    cupar::device_buffer<unsigned long long> counts(n, s);
    std::vector<double> squares(n), gathered_max(n), prefix_max(n), sums_from(n);
    std::vector<unsigned long long> running(n);
    double acc = 0, mx = -1e300, own_max = -1e300, sum = 1.5;
    unsigned long long c = 0;
    for (std::size_t i = 0; i < n; ++i) {
      acc += h[i] * h[i];
      squares[i] = acc;
      mx = std::max(mx, h[hidx[i]]);
      gathered_max[i] = mx;
      running[i] = c;  // exclusive: the count before i
      c += h[i] > 0 ? 1 : 0;
      own_max = std::max(own_max, h[i]);
      prefix_max[i] = own_max;
      sums_from[i] = sum;  // exclusive, from 1.5
      sum += h[i];
    }
    both_tiers([&] {
      // A plain array given as an expression: scanned (and reduced) as the array itself.
      cupar::inclusive_scan(jit::iterator(x.data()), out.data(), n, op("a < b ? b : a"), s);
      EXPECT_EQ(out.to_host(), prefix_max);
      cupar::exclusive_scan(jit::iterator(x.data()), out.data(), n, jit::plus, 1.5, s);
      EXPECT_EQ(out.to_host(), sums_from);
      EXPECT_EQ(cupar::reduce_value(jit::iterator(x.data()), n, op("a < b ? b : a"), -1e300, s),
                own_max);
      EXPECT_EQ(cupar::reduce_value(jit::iterator(x.data()), n, jit::plus, 1.5, s), sum);
      cupar::inclusive_scan(jit::transform(x.data(), op("x * x")), out.data(), n, jit::plus, s);
      EXPECT_EQ(out.to_host(), squares);
      cupar::inclusive_scan(jit::permutation(x.data(), idx.data()), out.data(), n, jit::maximum, s);
      EXPECT_EQ(out.to_host(), gathered_max);
      cupar::exclusive_scan(jit::transform<unsigned long long>(x.data(), op("x > 0 ? 1ull : 0ull")),
                            counts.data(), n, jit::plus, 0ull, s);
      EXPECT_EQ(counts.to_host(), running);
    });
  }
}

// A zip of zips (through a permutation, and three levels deep) reduced, scanned and transformed
// into structs whose members nest as the zips do, or are flat: the members take the leaf fields
// in order (issue 30, the peer's nested-zip cases).
TEST(JitIterator, NestedZipsReduceScanAndTransformIntoNestedAndFlatStructs) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  const op add_nested("nested_f64{{a.p.x + b.p.x, a.p.y + b.p.y}, a.w + b.w}");
  const op add_flat("flat3_f64{a.x + b.x, a.y + b.y, a.w + b.w}");
  const op add_deep("deep_f64{{{a.n.p.x + b.n.p.x, a.n.p.y + b.n.p.y}, a.n.w + b.n.w}, a.z + b.z}");
  for (std::size_t n : sizes) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto ha = small_values<double>(n, 21), hb = small_values<double>(n, 22),
               hc = small_values<double>(n, 23);
    const std::vector<unsigned> hidx = random_indices(n, 24);
    cupar::device_buffer<double> a(ha, s), b(hb, s), c(hc, s);
    cupar::device_buffer<unsigned> idx(hidx, s);
    cupar::device_buffer<nested_f64> nested_out(n, s);
    // CPU: the sums of the leaves, of the gathered leaves, and the running sums.
    double sa = 0, sb = 0, sc = 0, ga = 0, gb = 0, gc = 0;
    std::vector<double> ra(n), rb(n), rc(n);
    for (std::size_t i = 0; i < n; ++i) {
      sa += ha[i];
      sb += hb[i];
      sc += hc[i];
      ra[i] = sa;
      rb[i] = sb;
      rc[i] = sc;
      ga += ha[hidx[i]];
      gb += hb[hidx[i]];
      gc += hc[hidx[i]];
    }
    const jit::iterator two = jit::zip(jit::zip(a.data(), b.data()), c.data());
    both_tiers([&] {
      const nested_f64 nested = cupar::reduce_value(two, n, add_nested, nested_f64{{0, 0}, 0}, s);
      EXPECT_EQ(nested.p.x, sa);
      EXPECT_EQ(nested.p.y, sb);
      EXPECT_EQ(nested.w, sc);
      const flat3_f64 flat = cupar::reduce_value(two, n, add_flat, flat3_f64{0, 0, 0}, s);
      EXPECT_EQ(flat.x, sa);
      EXPECT_EQ(flat.y, sb);
      EXPECT_EQ(flat.w, sc);
      const flat3_f64 gathered = cupar::reduce_value(jit::permutation(two, idx.data()), n, add_flat,
                                                     flat3_f64{0, 0, 0}, s);
      EXPECT_EQ(gathered.x, ga);
      EXPECT_EQ(gathered.y, gb);
      EXPECT_EQ(gathered.w, gc);
      // Three levels, some fields named, one a transform: z = 2a.
      const jit::iterator three =
          jit::zip({{"n", jit::zip({{"p", jit::zip(a.data(), b.data())}, {"w", c.data()}})},
                    {"z", jit::transform(a.data(), op("x * 2.0"))}});
      const deep_f64 deep = cupar::reduce_value(three, n, add_deep, deep_f64{{{0, 0}, 0}, 0}, s);
      EXPECT_EQ(deep.n.p.x, sa);
      EXPECT_EQ(deep.n.p.y, sb);
      EXPECT_EQ(deep.n.w, sc);
      EXPECT_EQ(deep.z, 2 * sa);
      // A running sum into an array of the nested struct.
      cupar::inclusive_scan(two, nested_out.data(), n, add_nested, s);
      const auto scanned = nested_out.to_host();
      for (std::size_t i = 0; i < n; ++i) {
        if (scanned[i].p.x != ra[i] || scanned[i].p.y != rb[i] || scanned[i].w != rc[i]) {
          ADD_FAILURE() << "scan differs at " << i;
          break;
        }
      }
      // A transform whose operator returns the zip's element as the user's struct.
      cupar::transform(two, nested_out.data(), n, op("x"), s);
      const auto copied = nested_out.to_host();
      for (std::size_t i = 0; i < n; ++i) {
        if (copied[i].p.x != ha[i] || copied[i].p.y != hb[i] || copied[i].w != hc[i]) {
          ADD_FAILURE() << "transform differs at " << i;
          break;
        }
      }
    });
  }
}

// Initial values of expressions' scans and reductions: an inclusive scan seeded with one (host or
// device memory; into an array, and through an output expression), an exclusive scan's and a
// reduction's read from device memory when the kernels run, written by a kernel just before.
TEST(JitIterator, SeededScansAndDeviceInitialValuesOfExpressions) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  const op merge("sum_count{a.sum + b.sum, a.count + b.count}");
  for (std::size_t n : sizes) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto ha = small_values<double>(n, 41);
    cupar::device_buffer<double> a(ha, s), out(n, s), total(1, s), scaled(n, s);
    const double init = 5;
    std::vector<double> seeded(n), twice(n), shifted(n), below(n);
    std::vector<unsigned long long> counted(n);
    double acc = init, excl = init, neg = init;
    unsigned long long negs = 1;
    for (std::size_t i = 0; i < n; ++i) {
      shifted[i] = excl;
      excl += ha[i] * ha[i];
      acc += ha[i] * ha[i];
      seeded[i] = acc;
      twice[i] = 2 * acc;
      if (ha[i] < 0) neg += ha[i], ++negs;
      below[i] = neg;
      counted[i] = negs;
    }
    double sum = init;
    for (double x : ha)
      sum += x;
    const jit::iterator squares = jit::transform(a.data(), op("x * x"));
    both_tiers([&] {
      // The initial value on the device: a one-element reduction of a constant writes it.
      cupar::reduce(jit::constant(init), total.data(), 1, jit::plus, 0.0, s);
      cupar::inclusive_scan(squares, out.data(), n, jit::plus, init, s);
      EXPECT_EQ(out.to_host(), seeded);
      cupar::inclusive_scan(squares, out.data(), n, jit::plus, cupar::device_value{total.data()},
                            s);
      EXPECT_EQ(out.to_host(), seeded);
      cupar::exclusive_scan(squares, out.data(), n, jit::plus, cupar::device_value{total.data()},
                            s);
      EXPECT_EQ(out.to_host(), shifted);
      // Through an output expression ("+io_init" and the exclusive "+io" sets).
      cupar::inclusive_scan(squares, jit::transform_output<double>(scaled.data(), op("2.0 * x")), n,
                            jit::plus, init, s);
      EXPECT_EQ(scaled.to_host(), twice);
      cupar::inclusive_scan(squares, jit::transform_output<double>(scaled.data(), op("2.0 * x")), n,
                            jit::plus, cupar::device_value{total.data()}, s);
      EXPECT_EQ(scaled.to_host(), twice);
      cupar::exclusive_scan(squares, jit::reverse_output(scaled.data()), n, jit::plus,
                            cupar::device_value{total.data()}, s);
      EXPECT_EQ(scaled.to_host(), std::vector<double>(shifted.rbegin(), shifted.rend()));
      // A struct accumulator seeded with (init, 1).
      cupar::device_buffer<sum_count> d_seed(std::vector<sum_count>{{init, 1ull}}, s);
      cupar::device_buffer<unsigned long long> counts(n, s);
      cupar::inclusive_scan<sum_count>(
          jit::transform<sum_count>(a.data(),
                                    op("x < 0.0 ? sum_count{x, 1ull} : sum_count{0.0, 0ull}")),
          jit::zip_output(out.data(), counts.data()), n, merge, cupar::device_value{d_seed.data()},
          s);
      EXPECT_EQ(out.to_host(), below);
      EXPECT_EQ(counts.to_host(), counted);
      // A reduction of an expression from a device initial value (n = 0: the value itself).
      cupar::device_buffer<double> r(1, s);
      cupar::reduce(jit::iterator(a.data()), r.data(), n, jit::plus,
                    cupar::device_value{total.data()}, s);
      EXPECT_EQ(r.to_host()[0], sum);
    });
  }
}

// zip_output: a value's fields through their own outputs (a zip's element, a user struct the
// operator returns, a scan's struct accumulator); reverse_output: element i at n - 1 - i, for
// transforms and scans (in place, a scan takes the unfused route; a transform is refused).
TEST(JitIterator, ZipAndReverseOutputsMatchTheCpu) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  const op merge("sum_count{a.sum + b.sum, a.count + b.count}");
  for (std::size_t n : sizes) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto ha = small_values<double>(n, 31), hb = small_values<double>(n, 32),
               hc = small_values<double>(n, 33);
    cupar::device_buffer<double> a(ha, s), b(hb, s), c(hc, s), oa(n, s), ob(n, s), oc(n, s);
    cupar::device_buffer<unsigned long long> counts(n, s);
    std::vector<double> doubled(n), plus_one_reversed(n), prefix_reversed(n), neg_sums(n);
    std::vector<unsigned long long> ones(n, 1ull), neg_counts(n);
    double acc = 0, neg = 0;
    unsigned long long negs = 0;
    for (std::size_t i = 0; i < n; ++i) {
      doubled[i] = 2 * ha[i];
      plus_one_reversed[n - 1 - i] = ha[i] + 1;
      acc += ha[i];
      prefix_reversed[n - 1 - i] = acc;
      if (ha[i] < 0) {
        neg += ha[i];
        ++negs;
      }
      neg_sums[i] = neg;
      neg_counts[i] = negs;
    }
    both_tiers([&] {
      // A zip of zips, field by field (the inner zip into a zip output of its own).
      cupar::transform(jit::zip(jit::zip(a.data(), b.data()), c.data()),
                       jit::zip_output(jit::zip_output(oa.data(), ob.data()), oc.data()), n,
                       op("x"), s);
      EXPECT_EQ(oa.to_host(), ha);
      EXPECT_EQ(ob.to_host(), hb);
      EXPECT_EQ(oc.to_host(), hc);
      // A struct the operator returns, one field through a transform output.
      cupar::transform(jit::iterator(a.data()),
                       jit::zip_output<sum_count>(
                           jit::transform_output<double>(oa.data(), op("x * 2.0")), counts.data()),
                       n, op("sum_count{x, 1ull}"), s);
      EXPECT_EQ(oa.to_host(), doubled);
      EXPECT_EQ(counts.to_host(), ones);
      // A scan of a struct accumulator into its fields' arrays.
      cupar::inclusive_scan<sum_count>(
          jit::transform<sum_count>(a.data(),
                                    op("x < 0.0 ? sum_count{x, 1ull} : sum_count{0.0, 0ull}")),
          jit::zip_output(ob.data(), counts.data()), n, merge, s);
      EXPECT_EQ(ob.to_host(), neg_sums);
      EXPECT_EQ(counts.to_host(), neg_counts);
      // Reversed outputs of a transform and of a scan.
      cupar::transform(jit::iterator(a.data()), jit::reverse_output(oc.data()), n, op("x + 1.0"),
                       s);
      EXPECT_EQ(oc.to_host(), plus_one_reversed);
      cupar::inclusive_scan<double>(jit::transform(a.data(), op("x")),
                                    jit::reverse_output(oc.data()), n, jit::plus, s);
      EXPECT_EQ(oc.to_host(), prefix_reversed);
    });
    // A scan writing, reversed, the array it reads: the unfused route (scan, then store).
    cupar::device_buffer<double> x(ha, s);
    cupar::inclusive_scan<double>(jit::transform(x.data(), op("x")), jit::reverse_output(x.data()),
                                  n, jit::plus, s);
    EXPECT_EQ(x.to_host(), prefix_reversed);
    if (n > 1) {
      // A transform may not: refused before anything runs.
      EXPECT_THROW(cupar::transform(jit::iterator(a.data()), jit::reverse_output(a.data()), n,
                                    op("x + 1.0"), s),
                   std::invalid_argument);
      EXPECT_EQ(a.to_host(), ha);
    }
  }
}

// The families that compact position their outputs by what they select: a reversed output is
// refused before anything runs, and the library keeps working.
TEST(JitIterator, ReverseOutputsOfCompactingFamiliesAreRefused) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  const std::size_t n = 1001;
  const auto h = small_values<float>(n, 34);
  cupar::device_buffer<float> in(h, s), out(n, s);
  cupar::device_buffer<std::size_t> count(1, s);
  EXPECT_THROW(cupar::select_if<float>(in.data(), jit::reverse_output(out.data()), count.data(), n,
                                       op("x > 0.0f"), s),
               std::invalid_argument);
  cupar::select_if<float>(in.data(), out.data(), count.data(), n, op("x > 0.0f"), s);
  std::size_t want = 0;
  for (float v : h)
    want += v > 0.0f ? 1 : 0;
  EXPECT_EQ(count.to_host()[0], want);
}

TEST(JitIterator, TheSameShapeOverOtherArraysAndValuesCompilesNothing) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  const std::size_t n = 4099;
  const auto h1 = small_values<float>(n, 7), h2 = small_values<float>(n, 8);
  cupar::device_buffer<float> x1(h1, s), x2(h2, s);
  auto sum_above = [&](const std::vector<float>& h, float t) {
    double r = 0;
    for (float v : h)
      r += v > t ? v * 2.0 : 0.0;
    return r;
  };
  // A unique snippet, so that no earlier test built this shape.
  op above("x > t ? x * 2.0 : 0.0 /* shape cache test */");
  above.param("t", 0.0f);
  auto run = [&](const float* d, float t) {
    above.set("t", t);
    return cupar::reduce_value(jit::transform<double>(d, above), n, jit::plus, 0.0, s);
  };
  EXPECT_EQ(run(x1.data(), 0.0f), sum_above(h1, 0.0f));
  jit::wait_for_background_builds();
  const auto before = jit::get_stats();
  EXPECT_EQ(run(x2.data(), 1.0f), sum_above(h2, 1.0f));
  EXPECT_EQ(run(x1.data(), -3.0f), sum_above(h1, -3.0f));
  const auto after = jit::get_stats();
  EXPECT_EQ(after.operator_compiles, before.operator_compiles);
  EXPECT_EQ(after.kernel_compiles, before.kernel_compiles);
  EXPECT_EQ(after.links, before.links);
}

// The prepared-statement pattern: a query's expressions built once, their parameters set before
// each run (iterator::set, output::set), nothing compiled again.
TEST(JitIterator, APreparedExpressionRunsWithTheValuesSetBeforeEachCall) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{4097}, std::size_t{1} << 20}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto price = small_values<double>(n, 21), disc = small_values<double>(n, 22);
    cupar::device_buffer<double> d_price(price, s), d_disc(disc, s);
    // Q6's shape: sum(price * disc) where lo <= disc <= hi; a second transform also reads `lo`.
    jit::iterator revenue = jit::transform<double>(
        jit::zip(jit::transform(d_price.data(), op("x > lo ? x : 0.0").param("lo", 0.0)),
                 d_disc.data()),
        op("x._1 >= lo && x._1 <= hi ? x._0 * x._1 : 0.0").param("lo", 1.0).param("hi", 3.0));
    const auto cpu = [&](double lo, double hi) {
      double r = 0;
      for (std::size_t i = 0; i < n; ++i) {
        const double p = price[i] > lo ? price[i] : 0.0;
        r += disc[i] >= lo && disc[i] <= hi ? p * disc[i] : 0.0;
      }
      return r;
    };
    const auto run = [&] { return cupar::reduce_value(revenue, n, jit::plus, 0.0, s); };
    const jit::iterator first = revenue;  // a copy keeps the values it had
    revenue.set("lo", 1.0).set("hi", 3.0);
    EXPECT_EQ(run(), cpu(1.0, 3.0));
    jit::wait_for_background_builds();
    const auto before = jit::get_stats();
    for (double lo : {0.0, 2.0, 2.5, 4.0}) {
      revenue.set("lo", lo).set("hi", lo + 1.0);
      EXPECT_EQ(run(), cpu(lo, lo + 1.0)) << "lo = " << lo;
    }
    // The parameters of a select's input expression and of a transform's output expression.
    cupar::device_buffer<double> picked(n, s), scaled(n, s);
    cupar::device_buffer<std::size_t> count(1, s);
    jit::iterator above = jit::transform(d_price.data(), op("x * f").param("f", 1.0));
    jit::output out = jit::transform_output(scaled.data(), op("x + add").param("add", 0.0));
    for (double f : {1.0, -2.0}) {
      above.set("f", f);
      out.set("add", f);
      cupar::select_if(jit::input_t<double>(above), picked.data(), count.data(), n,
                       op("x > lim").param("lim", 2.0), s);
      cupar::transform(jit::iterator(d_disc.data()), out, n, op("x * 2.0"), s);
      std::vector<double> want_picked, want_scaled(n);
      for (std::size_t i = 0; i < n; ++i) {
        if (price[i] * f > 2.0) want_picked.push_back(price[i] * f);
        want_scaled[i] = disc[i] * 2.0 + f;
      }
      const std::size_t got_count = count.to_host()[0];
      ASSERT_EQ(got_count, want_picked.size()) << "f = " << f;
      auto got = picked.to_host();
      got.resize(got_count);
      EXPECT_EQ(got, want_picked) << "f = " << f;
      EXPECT_EQ(scaled.to_host(), want_scaled) << "f = " << f;
    }
    const auto after = jit::get_stats();
    // Set values reach the kernels without compiling or linking anything (the first values of
    // the select and the transform were built before `before` in an earlier size's round).
    if (n != 0 && n != 1) {
      EXPECT_EQ(after.operator_compiles, before.operator_compiles);
      EXPECT_EQ(after.kernel_compiles, before.kernel_compiles);
      EXPECT_EQ(after.links, before.links);
    }
    // The copy taken before still has lo = 0, hi = 3 (the values it was built with: lo of the
    // inner transform 0, of the outer 1).
    double want_first = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const double p = price[i] > 0.0 ? price[i] : 0.0;
      want_first += disc[i] >= 1.0 && disc[i] <= 3.0 ? p * disc[i] : 0.0;
    }
    EXPECT_EQ(cupar::reduce_value(first, n, jit::plus, 0.0, s), want_first);
  }
}

TEST(JitIterator, ResultsIntoDeviceMemoryAndEmptyInputs) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  cupar::device_buffer<long long> out(1, s);
  const long long* none = nullptr;
  // n == 0: the initial value, arrays unread (null allowed).
  cupar::reduce(jit::transform(none, op("x * 2")), out.data(), 0, jit::plus, 42ll, s);
  EXPECT_EQ(out.to_host()[0], 42);
  // A null array with elements to read is refused before anything runs, and the library keeps
  // working.
  EXPECT_THROW(cupar::reduce(jit::transform(none, op("x * 2")), out.data(), 5, jit::plus, 0ll, s),
               std::invalid_argument);
  EXPECT_THROW(cupar::reduce_value(jit::zip(none, none), 5, jit::plus, 0ll, s),
               std::invalid_argument);
  EXPECT_THROW(
      cupar::reduce(jit::counting(0ll), static_cast<long long*>(nullptr), 5, jit::plus, 0ll, s),
      std::invalid_argument);
  cupar::reduce(jit::counting(-2ll), out.data(), 5, jit::plus, 0ll, s);
  EXPECT_EQ(out.to_host()[0], -2 - 1 + 0 + 1 + 2);
}

TEST(JitIterator, CountsPast2To31WithSixtyFourBitIndices) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  // No memory read: element i is computed from i alone.
  const std::size_t n = (std::size_t(1) << 31) + 5;
  const unsigned long long sum = cupar::reduce_value(jit::counting(0ull), n, jit::plus, 0ull, s);
  EXPECT_EQ(sum, static_cast<unsigned long long>(n) * (n - 1) / 2);
  const unsigned long long thirds = cupar::reduce_value(
      jit::transform<unsigned long long>(jit::counting(0ull), op("x % 3 == 0 ? 1ull : 0ull")), n,
      jit::plus, 0ull, s);
  EXPECT_EQ(thirds, (n + 2) / 3);
}

// transform over expressions into output expressions (the "for_each" set), both tiers.
TEST(JitIterator, TransformsOfExpressionsMatchTheCpu) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  for (std::size_t n : sizes) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto ha = small_values<float>(n, 11), hb = small_values<float>(n, 12);
    const std::vector<unsigned> hidx = random_indices(n, 13);
    cupar::device_buffer<float> a(ha, s), b(hb, s), f(n, s);
    cupar::device_buffer<unsigned> idx(hidx, s);
    cupar::device_buffer<double> d(n, s);
    cupar::device_buffer<long long> l(n, s);
    cupar::device_buffer<arg_f32> args(n, s);
    std::vector<float> scaled(n), inplace(n);
    std::vector<double> dot_out(n);
    std::vector<long long> diff(n), ramp(n);
    std::vector<arg_f32> pairs(n);
    for (std::size_t i = 0; i < n; ++i) {
      scaled[i] = 2.0f * ha[i] + 1.0f;
      inplace[i] = scaled[i] * scaled[i];
      dot_out[i] = (double(ha[i]) * hb[i]) * 3.0;
      diff[i] = static_cast<long long>(ha[hidx[i]]) - static_cast<long long>(ha[n - 1 - i]);
      ramp[i] = 7 + 3 * static_cast<long long>(i);  // a + b * (a - 7), a = 7 + i, b = 2
      pairs[i] = {static_cast<long long>(i), hb[i]};
    }
    both_tiers([&] {
      cupar::transform(a.data(), jit::output(f.data()), n, op("2.0f * x + 1.0f"), s);
      EXPECT_EQ(f.to_host(), scaled);
      // In place: the output is the input.
      cupar::transform(jit::iterator(f.data()), f.data(), n, op("x * x"), s);
      EXPECT_EQ(f.to_host(), inplace);
      // A zip of two arrays into a transform output with a run-time parameter.
      cupar::transform(jit::zip(a.data(), b.data()),
                       jit::transform_output<double>(d.data(), op("x * k").param("k", 3.0)), n,
                       op("double(x._0) * x._1"), s);
      EXPECT_EQ(d.to_host(), dot_out);
      // Binary: a gather and a reversed array.
      cupar::transform(jit::permutation(a.data(), idx.data()), jit::reverse(a.data()), l.data(), n,
                       op("(long long)a - (long long)b"), s);
      EXPECT_EQ(l.to_host(), diff);
      // No memory read: a counting index and a constant.
      cupar::transform(jit::counting(7ll), jit::constant(2ll), l.data(), n, op("a + b * (a - 7)"),
                       s);
      EXPECT_EQ(l.to_host(), ramp);
      // A struct out of a zip.
      cupar::transform(jit::zip({{"i", jit::counting(0ll)}, {"v", b.data()}}), args.data(), n,
                       op("arg_f32{x.i, x.v}"), s);
      const auto got = args.to_host();
      for (std::size_t i = 0; i < n; ++i) {
        ASSERT_EQ(got[i].i, pairs[i].i) << i;
        ASSERT_EQ(got[i].v, pairs[i].v) << i;
      }
      // discard(): runs, stores nothing.
      cupar::transform(a.data(), jit::discard(), n, op("x * 2"), s);
      EXPECT_EQ(a.to_host(), ha);
    });
  }
}

// Scans written through output expressions (the "+io" scan sets), both tiers.
TEST(JitIterator, ScansIntoOutputExpressionsMatchTheCpu) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  for (std::size_t n : sizes) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto h = small_values<float>(n, 16);
    cupar::device_buffer<float> x(h, s), out(n, s);
    cupar::device_buffer<double> d(n, s);
    std::vector<float> twice(n);
    std::vector<double> running_max(n);
    float acc = 0;
    double mx = -1e30;
    for (std::size_t i = 0; i < n; ++i) {
      acc += h[i];
      twice[i] = 2.0f * acc;
      running_max[i] = mx * 0.5;  // exclusive: the max before i
      mx = std::max(mx, double(h[i]) * h[i]);
    }
    both_tiers([&] {
      cupar::inclusive_scan<float>(x.data(), jit::transform_output(out.data(), op("2.0f * x")), n,
                                   jit::plus, s);
      EXPECT_EQ(out.to_host(), twice);
      cupar::exclusive_scan(jit::transform<double>(x.data(), op("double(x) * x")),
                            jit::transform_output<double>(d.data(), op("x * k").param("k", 0.5)), n,
                            jit::maximum, -1e30, s);
      EXPECT_EQ(d.to_host(), running_max);
      cupar::inclusive_scan<float>(x.data(), jit::discard(), n, jit::plus, s);
    });
  }
}

// Pointer transforms of types without precompiled CUB transform kernels (mixed arithmetic types,
// structs of no class, binary struct transforms) run the "for_each" set: no kernel is compiled.
TEST(JitIterator, MixedAndStructTransformsCompileNoKernels) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  const std::size_t n = (1u << 20) + 7;
  const auto hi = small_values<int>(n, 14);
  const auto hd = small_values<double>(n, 15);
  std::vector<sum_count> hs(n);
  for (std::size_t i = 0; i < n; ++i)
    hs[i] = {hd[i], static_cast<unsigned long long>(i % 5 + 1)};
  cupar::device_buffer<int> in(hi, s);
  cupar::device_buffer<double> dd(hd, s), out(n, s);
  cupar::device_buffer<sum_count> sc(hs, s), sc_out(n, s);
  // Unique snippets, so that nothing earlier built them.
  const op half("x * 0.5 /* mixed types, for_each */");
  const op mean("a.sum / double(a.count) + b /* struct and double */");
  const op merge("sum_count{x.sum * 2.0, x.count + 1ull} /* struct to struct */");
  const auto before = jit::get_stats();
  both_tiers([&] {
    cupar::transform(in.data(), out.data(), n, half, s);
    auto got = out.to_host();
    for (std::size_t i = 0; i < n; ++i)
      ASSERT_EQ(got[i], hi[i] * 0.5) << i;
    cupar::transform(sc.data(), dd.data(), out.data(), n, mean, s);
    got = out.to_host();
    for (std::size_t i = 0; i < n; ++i)
      ASSERT_EQ(got[i], hs[i].sum / double(hs[i].count) + hd[i]) << i;
    cupar::transform(sc.data(), sc_out.data(), n, merge, s);
    const auto merged = sc_out.to_host();
    for (std::size_t i = 0; i < n; ++i) {
      ASSERT_EQ(merged[i].sum, hs[i].sum * 2.0) << i;
      ASSERT_EQ(merged[i].count, hs[i].count + 1) << i;
    }
  });
  // A build whose selection left the set out (a filtered development build) compiles it here.
  if (cupar::testing::precompiled_here("for_each<u64>")) {
    EXPECT_EQ(jit::get_stats().kernel_compiles, before.kernel_compiles);
  }
}

TEST(JitIterator, TransformsCheckTheirArgumentsAndKeepWorking) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  cupar::device_buffer<float> x(std::vector<float>(100, 1.0f), s), y(100, s);
  float* none = nullptr;
  // n == 0: nothing runs, null arrays allowed.
  EXPECT_NO_THROW(cupar::transform(jit::iterator(none), none, 0, op("x"), s));
  EXPECT_THROW(cupar::transform(jit::iterator(none), y.data(), 5, op("x"), s),
               std::invalid_argument);
  EXPECT_THROW(cupar::transform(jit::iterator(x.data()), none, 5, op("x"), s),
               std::invalid_argument);
  EXPECT_THROW(cupar::transform(jit::counting(0), jit::transform_output(none, op("x")), 5,
                                op("float(x)"), s),
               std::invalid_argument);
  // Overlapping but not the same range.
  EXPECT_THROW(cupar::transform(jit::iterator(x.data()), x.data() + 1, 50, op("x"), s),
               std::invalid_argument);
  cupar::transform(jit::counting(0), y.data(), 100, op("float(x) * 0.5f"), s);
  const auto got = y.to_host();
  for (int i = 0; i < 100; ++i)
    ASSERT_EQ(got[i], i * 0.5f);
}

// More than 2^31 indices: 64-bit indices in the generated code and the kernel's tiles.
TEST(JitIterator, TransformsPast2To31Elements) {
  CUPAR_REQUIRE_GPU();
  const std::size_t n = (std::size_t(1) << 31) + 5;
  if (cupar::testing::test_size_limit() < n) {
    GTEST_SKIP() << "CUPAR_TEST_SCALE limits the sizes below 2^31";
  }
  owned_stream s;
  cupar::device_buffer<unsigned char> out(n, s);
  cupar::transform(jit::counting(0ull), out.data(), n, op("(unsigned char)(x % 251)"), s);
  // Read back through an expression: the sum of the bytes, and the last one.
  const unsigned long long sum = cupar::reduce_value(
      jit::transform<unsigned long long>(out.data(), op("x")), n, jit::plus, 0ull, s);
  const unsigned long long full = n / 251, rest = n % 251;
  EXPECT_EQ(sum, full * (250ull * 251 / 2) + rest * (rest - 1) / 2);
  unsigned char last = 0;
  out.copy_to_host(&last, 1, n - 1);
  EXPECT_EQ(last, static_cast<unsigned char>((n - 1) % 251));
}

}  // namespace
