// cupar tests: the data-processing families and the run-time sorts over run-time iterator
// expressions (jit::input<T>) on the GPU, against CPU references: select_if, partition, unique,
// select_flagged's items and reduce_by_key's values read the expression in their kernels (the
// "+index" sets), the other families after one pass writing it to a temporary array; sorts of
// gathered and computed keys; sizes 0, 1, odd and large, both tiers, the argument checks. Compiled
// by g++.
#include "../common/data.hpp"
#include "../common/gpu.hpp"
#include "../common/precompiled.hpp"
#include "../common/streams.hpp"
#include "iterator_helpers.hpp"

#include <cupar/cupar.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace jit = cupar::jit;
using cupar::testing::owned_stream;
using jit::op;

// A zip of (counting index, value) selected into a record of the class s8a4.
CUPAR_JIT_STRUCT(tag_value, unsigned tag; float v;)
// An accumulator made from columns (count, sum, sum of squares, product sum: the class s16a4).
CUPAR_JIT_STRUCT(dp_sums, unsigned count; float sum; float squares; float dot;)

namespace {

using cupar::testing::both_tiers;
const std::vector<std::size_t>& sizes = cupar::testing::expression_sizes;

std::vector<float> small_floats(std::size_t n, unsigned seed) {
  return cupar::testing::small_values<float>(n, seed);
}

/// A permutation of [0, n) (the indices of a gather).
std::vector<unsigned> shuffled(std::size_t n, unsigned seed) {
  std::vector<unsigned> v(n);
  std::iota(v.begin(), v.end(), 0u);
  std::shuffle(v.begin(), v.end(), std::mt19937(seed));
  return v;
}

template <class T>
std::vector<T> first(const cupar::device_buffer<T>& d, std::size_t count) {
  std::vector<T> h = d.to_host();
  h.resize(count);
  return h;
}

TEST(JitIteratorDp, SelectPartitionAndUniqueReadExpressionsFused) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  for (std::size_t n : sizes) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto hx = small_floats(n, 1);
    const auto hidx = shuffled(n, 2);
    cupar::device_buffer<float> x(hx, s), out(std::max<std::size_t>(n, 1), s);
    cupar::device_buffer<unsigned> idx(hidx, s), uout(std::max<std::size_t>(n, 1), s);
    cupar::device_buffer<tag_value> rout(std::max<std::size_t>(n, 1), s);
    cupar::device_buffer<std::size_t> d_count(1, s);
    // CPU references.
    std::vector<float> doubled_above, gathered_first, gathered_rest, halves, flagged_sums;
    std::vector<unsigned> sevens;
    std::vector<tag_value> positive;
    for (std::size_t i = 0; i < n; ++i) {
      if (2.0f * hx[i] > 3.0f) doubled_above.push_back(2.0f * hx[i]);
      if (i % 7 == 3) sevens.push_back(static_cast<unsigned>(i));
      const float g = hx[hidx[i]];
      (g > 0.0f ? gathered_first : gathered_rest).push_back(g);
      const float h = static_cast<float>(static_cast<int>(hx[i]) / 2);
      if (halves.empty() || halves.back() != h) halves.push_back(h);
      if (hx[i] > 0.0f) positive.push_back({static_cast<unsigned>(i), hx[i]});
      if (i % 3 != 0) flagged_sums.push_back(hx[i] + g);
    }
    std::vector<unsigned char> hflags(n);
    for (std::size_t i = 0; i < n; ++i)
      hflags[i] = i % 3 != 0 ? 1 : 0;
    cupar::device_buffer<unsigned char> flags(hflags, s);
    std::reverse(gathered_rest.begin(), gathered_rest.end());  // partition's second part
    both_tiers([&] {
      // select_if of a transform, with a run-time parameter in the predicate.
      std::size_t c = cupar::select_if_count(jit::transform(x.data(), op("x * 2.0f")), out.data(),
                                             n, op("x > t").param("t", 3.0f), s);
      EXPECT_EQ(first(out, c), doubled_above);
      // select_if of a counting sequence (indices where a condition on the index holds), with
      // the count left on the device.
      cupar::select_if(jit::counting(0u), uout.data(), d_count.data(), n, op("x % 7u == 3u"), s);
      c = d_count.to_host()[0];
      EXPECT_EQ(first(uout, c), sevens);
      // partition of a gather.
      c = cupar::partition_count(jit::permutation(x.data(), idx.data()), out.data(), n,
                                 op("x > 0.0f"), s);
      std::vector<float> got = first(out, n);
      EXPECT_EQ(c, gathered_first.size());
      EXPECT_EQ(std::vector<float>(got.begin(), got.begin() + static_cast<long>(c)),
                gathered_first);
      EXPECT_EQ(std::vector<float>(got.begin() + static_cast<long>(c), got.end()), gathered_rest);
      // unique of a transform (the default equality).
      c = cupar::unique_count(jit::transform(x.data(), op("(float)((int)x / 2)")), out.data(), n,
                              s);
      EXPECT_EQ(first(out, c), halves);
      // select_flagged of a computed column (a zip of an array and a gather): flags an array,
      // then flags an expression (written as bytes first; the items still read by the kernels).
      c = cupar::select_flagged_count<float, unsigned char>(
          jit::transform<float>(jit::zip(x.data(), jit::permutation(x.data(), idx.data())),
                                op("x._0 + x._1")),
          flags.data(), out.data(), n, s);
      EXPECT_EQ(first(out, c), flagged_sums);
      c = cupar::select_flagged_count<float, unsigned>(
          jit::transform<float>(jit::zip(x.data(), jit::permutation(x.data(), idx.data())),
                                op("x._0 + x._1")),
          jit::transform<unsigned>(jit::counting(0u), op("x % 3u")), out.data(), n, s);
      EXPECT_EQ(first(out, c), flagged_sums);
      // A zip selected into a record (its fields initialise the record's members in order).
      c = cupar::select_if_count(jit::zip({{"tag", jit::counting(0u)}, {"v", x.data()}}),
                                 rout.data(), n, op("x.v > 0.0f"), s);
      const std::vector<tag_value> records = first(rout, c);
      ASSERT_EQ(records.size(), positive.size());
      for (std::size_t i = 0; i < records.size(); ++i) {
        ASSERT_EQ(records[i].tag, positive[i].tag) << i;
        ASSERT_EQ(records[i].v, positive[i].v) << i;
      }
    });
  }
}

TEST(JitIteratorDp, ByKeyFamiliesTakeExpressionsForKeysAndValues) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  for (std::size_t n :
       {std::size_t{0}, std::size_t{1}, std::size_t{1001}, (std::size_t{1} << 20) + 3}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto ha = small_floats(n, 3), hb = small_floats(n, 4);
    std::vector<unsigned> hkeys(n);
    for (std::size_t i = 0; i < n; ++i)
      hkeys[i] = static_cast<unsigned>(i / 5);  // runs of 5
    const std::size_t cap = std::max<std::size_t>(n, 1);
    cupar::device_buffer<float> a(ha, s), b(hb, s), vout(cap, s);
    cupar::device_buffer<unsigned> keys(hkeys, s), kout(cap, s), counts(cap, s);
    cupar::device_buffer<double> dout(cap, s);
    // References: by runs of i / 5.
    std::vector<unsigned> run_keys;
    std::vector<double> dots;
    std::vector<float> squares_scan(n), last_of_run;
    std::vector<unsigned> run_counts, first_tags;
    for (std::size_t i = 0; i < n; ++i) {
      const double p = static_cast<double>(ha[i]) * hb[i];
      if (i % 5 == 0) {
        run_keys.push_back(hkeys[i]);
        dots.push_back(p);
        run_counts.push_back(0);
        first_tags.push_back(static_cast<unsigned>(i));
      } else {
        dots.back() += p;
      }
      ++run_counts.back();
      squares_scan[i] = ha[i] * ha[i] + (i % 5 == 0 ? 0.0f : squares_scan[i - 1]);
    }
    both_tiers([&] {
      // reduce_by_key: keys an array, values a dot product's terms (a transform of a zip).
      std::size_t r = cupar::reduce_by_key_count(
          keys.data(), jit::transform<double>(jit::zip(a.data(), b.data()), op("x._0 * x._1")),
          kout.data(), dout.data(), n, jit::plus, s);
      EXPECT_EQ(first(kout, r), run_keys);
      EXPECT_EQ(first(dout, r), dots);
      // reduce_by_key with computed keys (i / 5 from a counting sequence).
      r = cupar::reduce_by_key_count(
          jit::transform<unsigned>(jit::counting(0u), op("x / 5u")),
          jit::transform<double>(jit::zip(a.data(), b.data()), op("x._0 * x._1")), kout.data(),
          dout.data(), n, jit::plus, s);
      EXPECT_EQ(first(kout, r), run_keys);
      EXPECT_EQ(first(dout, r), dots);
      // inclusive_scan_by_key of squares.
      cupar::inclusive_scan_by_key(keys.data(), jit::transform(a.data(), op("x * x")), vout.data(),
                                   n, jit::plus, s);
      EXPECT_EQ(first(vout, n), squares_scan);
      // unique_by_key: computed keys, values the first index of each run.
      r = cupar::unique_by_key_count(jit::transform<unsigned>(jit::counting(0u), op("x / 5u")),
                                     jit::counting(0u), kout.data(), counts.data(), n, s);
      EXPECT_EQ(first(kout, r), run_keys);
      EXPECT_EQ(first(counts, r), first_tags);
      // run_length_encode of computed keys.
      r = cupar::run_length_encode_count(jit::transform<unsigned>(jit::counting(0u), op("x / 5u")),
                                         kout.data(), counts.data(), n, s);
      EXPECT_EQ(first(kout, r), run_keys);
      EXPECT_EQ(first(counts, r), run_counts);
    });
  }
}

TEST(JitIteratorDp, PartitionsSegmentsAndSearchesTakeExpressions) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  for (std::size_t n :
       {std::size_t{0}, std::size_t{1}, std::size_t{1001}, (std::size_t{1} << 20) + 3}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto hx = small_floats(n, 5);
    std::vector<unsigned char> hflags(n);
    for (std::size_t i = 0; i < n; ++i)
      hflags[i] = static_cast<unsigned char>(i % 3 == 0);
    // Segments of 7 (the last one shorter).
    const std::size_t segs = (n + 6) / 7;
    std::vector<std::int64_t> hbegin(segs), hend(segs);
    for (std::size_t k = 0; k < segs; ++k) {
      hbegin[k] = static_cast<std::int64_t>(7 * k);
      hend[k] = static_cast<std::int64_t>(std::min(n, 7 * k + 7));
    }
    const std::size_t cap = std::max<std::size_t>(n, 1);
    cupar::device_buffer<float> x(hx, s), o1(cap, s), o2(cap, s), o3(cap, s);
    cupar::device_buffer<unsigned char> flags(hflags, s);
    cupar::device_buffer<unsigned> uout(cap, s);
    cupar::device_buffer<std::int64_t> begin(hbegin, s), end(hend, s);
    cupar::device_buffer<long long> lout(cap, s);
    // A sorted range and needles computed from x.
    std::vector<float> hsorted(hx);
    std::sort(hsorted.begin(), hsorted.end());
    cupar::device_buffer<float> sorted(hsorted, s);
    cupar::device_buffer<std::uint32_t> pos(cap, s);
    std::vector<float> low, mid, high, squares_sum(segs, 0.0f);
    std::vector<unsigned> flagged;
    std::vector<long long> seg_scan(n);
    std::vector<std::uint32_t> positions(n);
    for (std::size_t i = 0; i < n; ++i) {
      const float y = hx[i] + 1.0f;
      (y < 0.0f ? low : y < 4.0f ? mid : high).push_back(y);
      if (hflags[i]) flagged.push_back(static_cast<unsigned>(i));
      squares_sum[i / 7] += hx[i] * hx[i];
      seg_scan[i] = static_cast<long long>(i) + 1 + (i % 7 == 0 ? 0 : seg_scan[i - 1]);
      positions[i] = static_cast<std::uint32_t>(
          std::lower_bound(hsorted.begin(), hsorted.end(), hx[i] + 0.5f) - hsorted.begin());
    }
    both_tiers([&] {
      const cupar::partition_counts pc = cupar::three_way_partition_counts(
          jit::transform(x.data(), op("x + 1.0f")), o1.data(), o2.data(), o3.data(), n,
          op("x < 0.0f"), op("x < 4.0f"), s);
      EXPECT_EQ(first(o1, pc.first), low);
      EXPECT_EQ(first(o2, pc.second), mid);
      EXPECT_EQ(first(o3, n - pc.first - pc.second), high);
      const std::size_t c =
          cupar::select_flagged_count(jit::counting(0u), flags.data(), uout.data(), n, s);
      EXPECT_EQ(first(uout, c), flagged);
      cupar::segmented_reduce(jit::transform(x.data(), op("x * x")), o1.data(), n, segs,
                              begin.data(), end.data(), jit::plus, 0.0f, s);
      EXPECT_EQ(first(o1, segs), squares_sum);
      cupar::segmented_inclusive_scan(jit::counting(1ll), lout.data(), n, segs, begin.data(),
                                      end.data(), jit::plus, s);
      EXPECT_EQ(first(lout, n), seg_scan);
      cupar::lower_bound(sorted.data(), n, jit::transform(x.data(), op("x + 0.5f")), n, pos.data(),
                         s);
      EXPECT_EQ(first(pos, n), positions);
    });
  }
}

// Segment offsets of 32- and 64-bit integer types, signed or not, taken as they are (jit::offsets:
// any but int64 through the expression path), against the same call with int64 offsets.
TEST(JitIteratorDp, SegmentOffsetsOfEveryIntegerType) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  for (std::size_t n : sizes) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto hx = small_floats(n, 61);
    // Segments of 7 items (the last shorter), one array of offsets: begin = o, end = o + 1.
    const std::size_t segs = (n + 6) / 7;
    std::vector<std::int64_t> h64(segs + 1);
    for (std::size_t i = 0; i <= segs; ++i)
      h64[i] = static_cast<std::int64_t>(std::min(n, 7 * i));
    std::vector<float> want_sum(segs), want_scan(n);
    for (std::size_t i = 0; i < n; ++i) {
      want_sum[i / 7] += hx[i];
      want_scan[i] = hx[i] + (i % 7 == 0 ? 0.0f : want_scan[i - 1]);
    }
    cupar::device_buffer<float> x(hx, s), sums(segs, s), scan(n, s);
    const auto check = [&](const char* what, auto begin, auto end) {
      SCOPED_TRACE(what);
      cupar::segmented_reduce(x.data(), sums.data(), n, segs, begin, end, jit::plus, 0.0f, s);
      EXPECT_EQ(sums.to_host(), want_sum);
      cupar::segmented_inclusive_scan(x.data(), scan.data(), n, segs, begin, end, jit::plus, s);
      EXPECT_EQ(scan.to_host(), want_scan);
      cupar::segmented_exclusive_scan(x.data(), scan.data(), n, segs, begin, end, op("a + b"), 1.0f,
                                      s);
      const auto got = scan.to_host();
      for (std::size_t i = 0; i < n; ++i)
        ASSERT_EQ(got[i], 1.0f + want_scan[i] - hx[i]) << i;
    };
    const auto as = [&](auto zero) {
      using I = decltype(zero);
      std::vector<I> h(h64.begin(), h64.end());
      return cupar::device_buffer<I>(h, s);
    };
    auto o64 = as(std::int64_t{0});
    auto o32 = as(std::int32_t{0});
    auto u32 = as(std::uint32_t{0});
    auto u64 = as(std::uint64_t{0});
    auto ll = as(0ll);
    check("int64", o64.data(), o64.data() + 1);
    check("int32", o32.data(), o32.data() + 1);
    check("uint32", static_cast<const std::uint32_t*>(u32.data()),
          static_cast<const std::uint32_t*>(u32.data()) + 1);
    check("uint64", u64.data(), u64.data() + 1);
    check("long long", ll.data(), ll.data() + 1);
  }
}

TEST(JitIteratorDp, SortsOfGatheredAndComputedKeys) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  for (std::size_t n :
       {std::size_t{0}, std::size_t{1}, std::size_t{1001}, (std::size_t{1} << 20) + 3}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    std::mt19937 rng(7);
    std::vector<unsigned> hv(n);
    for (auto& v : hv)
      v = rng() % 100000;
    const auto hidx = shuffled(n, 8);
    const std::size_t cap = std::max<std::size_t>(n, 1);
    cupar::device_buffer<unsigned> v(hv, s), idx(hidx, s), out(cap, s), vals_out(cap, s);
    cupar::device_buffer<unsigned> rows(cap, s);
    std::vector<unsigned> gathered(n), computed(n);
    for (std::size_t i = 0; i < n; ++i) {
      gathered[i] = hv[hidx[i]];
      computed[i] = (hv[i] * 7u) % 1000u;
    }
    std::vector<unsigned> asc(gathered), desc(computed);
    std::sort(asc.begin(), asc.end());
    std::sort(desc.begin(), desc.end(), std::greater<>());
    // Pairs: computed keys with their row numbers, stable.
    std::vector<unsigned> order(n);
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(),
                     [&](unsigned p, unsigned q) { return computed[p] < computed[q]; });
    std::vector<unsigned> pair_keys(n);
    for (std::size_t i = 0; i < n; ++i)
      pair_keys[i] = computed[order[i]];
    std::vector<unsigned> row_numbers(n);
    std::iota(row_numbers.begin(), row_numbers.end(), 0u);
    cupar::device_buffer<unsigned> row_ids(row_numbers, s);
    both_tiers([&] {
      // A gather sorted by the library's radix sort (jit::less on arithmetic keys).
      cupar::sort_keys(jit::permutation(v.data(), idx.data()), out.data(), n, jit::less, s);
      EXPECT_EQ(first(out, n), asc);
      // Computed keys sorted by a snippet comparator (merge sort).
      cupar::sort_keys(jit::transform(v.data(), op("(x * 7u) % 1000u")), out.data(), n, op("a > b"),
                       s);
      EXPECT_EQ(first(out, n), desc);
      // Computed keys with row numbers as payload, stable.
      cupar::stable_sort_pairs(jit::transform(v.data(), op("(x * 7u) % 1000u")), out.data(),
                               row_ids.data(), vals_out.data(), n, op("a < b"), s);
      EXPECT_EQ(first(out, n), pair_keys);
      EXPECT_EQ(first(vals_out, n), order);
    });
  }
}

TEST(JitIteratorDp, ArraysGivenAsExpressionsAndArgumentChecks) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  const std::size_t n = 1000;
  std::vector<float> h(n);
  for (std::size_t i = 0; i < n; ++i)
    h[i] = static_cast<float>(i % 10);
  cupar::device_buffer<float> x(h, s), out(n, s);
  cupar::device_buffer<double> wide(n, s);
  // A plain array given as an expression is the array: in place works as for a pointer.
  std::size_t c = cupar::select_if_count(jit::iterator(x.data()), x.data(), n, op("x > 4.5f"), s);
  EXPECT_EQ(c, 500u);
  // An array of another type is an expression converted to the call's type.
  cupar::device_buffer<float> y(h, s);
  c = cupar::select_if_count(jit::iterator(y.data()), wide.data(), n, op("x > 4.5"), s);
  ASSERT_EQ(c, 500u);
  for (double v : first(wide, c))
    ASSERT_GT(v, 4.5);
  const float* null_floats = nullptr;
  // A null array inside an expression with n > 0.
  EXPECT_THROW(cupar::select_if_count(jit::transform(null_floats, op("x")), out.data(), n,
                                      op("x > 0.0f"), s),
               std::invalid_argument);
  cupar::device_buffer<unsigned> keys_out(n, s);
  EXPECT_THROW(cupar::reduce_by_key_count(jit::counting(0u), jit::transform(null_floats, op("x")),
                                          keys_out.data(), out.data(), n, jit::plus, s),
               std::invalid_argument);
  // A null output with an expression input.
  EXPECT_THROW(cupar::select_if_count(jit::counting(0u), static_cast<unsigned*>(nullptr), n,
                                      op("x > 0u"), s),
               std::invalid_argument);
  // A zip selected into an arithmetic type.
  EXPECT_THROW(
      cupar::select_if_count(jit::zip(x.data(), y.data()), out.data(), n, op("x._0 > 0.0f"), s),
      std::invalid_argument);
  // Bad arguments of a family that writes an expression to a temporary array first are refused
  // before the expression is compiled or written (a transform no other call compiled).
  jit::wait_for_background_builds();
  const jit::stats before = jit::get_stats();
  EXPECT_THROW(cupar::reduce_by_key_count(
                   jit::transform<unsigned>(jit::counting(0u), op("x / 3u + 17u")), y.data(),
                   static_cast<unsigned*>(nullptr), out.data(), n, jit::plus, s),
               std::invalid_argument);
  EXPECT_THROW(cupar::lower_bound(y.data(), n, jit::transform(y.data(), op("x + 0.25f")), n,
                                  static_cast<unsigned*>(nullptr), s),
               std::invalid_argument);
  EXPECT_EQ(jit::get_stats().operator_compiles, before.operator_compiles);
  // The library keeps working after the errors (y: x was compacted in place above).
  c = cupar::select_if_count(jit::transform(y.data(), op("x + 1.0f")), out.data(), n,
                             op("x > 5.5f"), s);
  EXPECT_EQ(c, 500u);
}

}  // namespace

namespace {
/// Counts what a call takes from the default resource through it.
class counting_resource final : public cupar::memory_resource {
 private:
  void* do_allocate(std::size_t bytes, cupar::stream_ref s) override {
    ++allocations;
    note(bytes);
    return cupar::default_resource().allocate(bytes, s);
  }
  void do_deallocate(void* p, std::size_t bytes, cupar::stream_ref s) noexcept override {
    ++frees;
    cupar::default_resource().deallocate(p, bytes, s);
  }

 public:
  std::size_t allocations = 0, frees = 0;
  std::size_t largest = 0;  // the largest block taken

 private:
  void note(std::size_t bytes) { largest = std::max(largest, bytes); }
};
}  // namespace

// lower_bound and upper_bound take their temporaries (an expression's needles or sorted range
// written to an array) from the caller's resource, like every other call.
TEST(JitIteratorDp, SearchesTakeTheCallersResource) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{777}, std::size_t{1} << 18}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    std::vector<int> hsorted(n);
    for (std::size_t i = 0; i < n; ++i)
      hsorted[i] = static_cast<int>(2 * i);
    std::vector<std::uint64_t> lower(n), upper(n);
    for (std::size_t i = 0; i < n; ++i) {
      const int needle = static_cast<int>(i) + 1;  // the needles: counting(1) + 0
      lower[i] = static_cast<std::uint64_t>(
          std::lower_bound(hsorted.begin(), hsorted.end(), needle) - hsorted.begin());
      upper[i] = static_cast<std::uint64_t>(
          std::upper_bound(hsorted.begin(), hsorted.end(), needle) - hsorted.begin());
    }
    const std::size_t cap = std::max<std::size_t>(n, 1);
    cupar::device_buffer<int> sorted(hsorted, s);
    cupar::device_buffer<std::uint64_t> pos(cap, s);
    counting_resource mr;
    cupar::lower_bound<int, std::uint64_t>(sorted.data(), n, jit::counting(1), n, pos.data(), s,
                                           mr);
    EXPECT_EQ(first(pos, n), lower);
    cupar::upper_bound<int, std::uint64_t>(sorted.data(), n,
                                           jit::transform(jit::counting(1), op("x + 0")), n,
                                           pos.data(), op("a < b"), s, mr);
    EXPECT_EQ(first(pos, n), upper);
    ASSERT_EQ(cudaStreamSynchronize(s.get()), cudaSuccess);
    EXPECT_EQ(mr.frees, mr.allocations);
    if (n > 0) {
      EXPECT_GE(mr.allocations, 2u) << "the needles' temporaries come from the resource";
    }
  }
}

// reduce_by_key's values and select_flagged's items given as expressions are read by the kernels
// (the "+index" sets, where the build made them): no temporary of n values. Q1's shape: an
// accumulator made from columns, reduced by runs of keys; the CPU's sums are exact (small
// integers).
TEST(JitIteratorDp, ByKeyValuesAndFlaggedItemsAreReadByTheKernels) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  const bool fused_values = cupar::testing::precompiled_here("reduce_by_key<u32,s16a4>+index");
  const bool fused_items = cupar::testing::precompiled_here("select_flagged<u32,u8>+index");
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{4097},
                        cupar::testing::scaled((std::size_t{1} << 22) + 7)}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    std::vector<float> ha(n), hb(n);
    std::vector<unsigned> hkeys(n);
    std::vector<unsigned char> hflags(n);
    for (std::size_t i = 0; i < n; ++i) {
      ha[i] = static_cast<float>(static_cast<int>(i % 11) - 5);
      hb[i] = static_cast<float>(i % 4);
      hkeys[i] = static_cast<unsigned>(i / 37);
      hflags[i] = (i % 5 == 1 || i % 7 == 0) ? 1 : 0;
    }
    std::vector<unsigned> run_keys;
    std::vector<dp_sums> sums;
    std::vector<float> picked;
    for (std::size_t i = 0; i < n; ++i) {
      if (i % 37 == 0) {
        run_keys.push_back(hkeys[i]);
        sums.push_back({0u, 0.0f, 0.0f, 0.0f});
      }
      dp_sums& r = sums.back();
      r = {r.count + 1, r.sum + ha[i], r.squares + ha[i] * ha[i], r.dot + ha[i] * hb[i]};
      if (hflags[i] != 0) picked.push_back(ha[i] * hb[i] + 1.0f);
    }
    const std::size_t cap = std::max<std::size_t>(n, 1);
    cupar::device_buffer<float> a(ha, s), b(hb, s), fout(cap, s);
    cupar::device_buffer<unsigned> keys(hkeys, s), kout(cap, s);
    cupar::device_buffer<unsigned char> flags(hflags, s);
    cupar::device_buffer<dp_sums> vout(cap, s);
    const auto values = jit::transform<dp_sums>(jit::zip(a.data(), b.data()),
                                                op("dp_sums{1u, x._0, x._0 * x._0, x._0 * x._1}"));
    const op add("dp_sums{a.count + b.count, a.sum + b.sum, a.squares + b.squares, a.dot + b.dot}");
    both_tiers([&] {
      counting_resource mr;
      const std::size_t r =
          cupar::reduce_by_key_count(keys.data(), values, kout.data(), vout.data(), n, add, s, mr);
      ASSERT_EQ(r, run_keys.size());
      EXPECT_EQ(first(kout, r), run_keys);
      const std::vector<dp_sums> got = first(vout, r);
      for (std::size_t i = 0; i < r; ++i) {
        ASSERT_EQ(got[i].count, sums[i].count) << i;
        ASSERT_EQ(got[i].sum, sums[i].sum) << i;
        ASSERT_EQ(got[i].squares, sums[i].squares) << i;
        ASSERT_EQ(got[i].dot, sums[i].dot) << i;
      }
      if (fused_values && n > 1000) {
        EXPECT_LT(mr.largest, n * sizeof(dp_sums) / 4) << "no temporary of the values";
      }
      counting_resource mr2;
      const std::size_t c = cupar::select_flagged_count<float, unsigned char>(
          jit::transform<float>(jit::zip(a.data(), b.data()), op("x._0 * x._1 + 1.0f")),
          flags.data(), fout.data(), n, s, mr2);
      EXPECT_EQ(first(fout, c), picked);
      if (fused_items && n > 1000) {
        EXPECT_LT(mr2.largest, n * sizeof(float) / 4) << "no temporary of the items";
      }
    });
  }
}
