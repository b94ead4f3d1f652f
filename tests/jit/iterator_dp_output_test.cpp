// cupar tests: the outputs of the data-processing families and the run-time sorts as output
// expressions (jit::output: an array of another type, jit::transform_output, jit::discard()),
// and the inputs that fix a type given as expressions (select_flagged's flags, the scans by
// key's keys, the searched range, segment offsets, sort values, histogram samples), on the GPU
// against CPU references; sizes 0, 1, odd and large, both tiers. Every output starts filled with a
// sentinel: what the call does not write (past its count) must keep it, so the store passes' bounds
// are checked. Compiled by g++.
#include "../common/gpu.hpp"
#include "../common/precompiled.hpp"
#include "../common/streams.hpp"
#include "iterator_helpers.hpp"

#include <cupar/cupar.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

// An order record (the data-processing class s8a4): selected rows projected through an output.
CUPAR_JIT_STRUCT(order_row, unsigned id; float price;)

namespace jit = cupar::jit;
using cupar::testing::owned_stream;
using jit::op;

namespace {

using cupar::testing::both_tiers;

const std::vector<std::size_t> output_sizes = {0, 1, 1001, (std::size_t{1} << 20) + 3};

std::vector<float> small_floats(std::size_t n, unsigned seed) {
  return cupar::testing::small_values<float>(n, seed);
}

constexpr double sentinel = -12345.0;

/// A device array of `cap` (at least 1) elements, all `sentinel`.
template <class T>
cupar::device_buffer<T> filled(std::size_t cap, cupar::stream_ref s) {
  return cupar::device_buffer<T>(
      std::vector<T>(std::max<std::size_t>(cap, 1), static_cast<T>(sentinel)), s);
}

/// Checks the first values of `d` against `expected` and that the rest of d[0, cap) still holds
/// the sentinel.
template <class T, class U>
void expect_prefix(const cupar::device_buffer<T>& d, const std::vector<U>& expected,
                   std::size_t cap, const char* what) {
  SCOPED_TRACE(what);
  const std::vector<T> h = d.to_host();
  ASSERT_GE(h.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i)
    ASSERT_EQ(h[i], static_cast<T>(expected[i])) << "at " << i;
  for (std::size_t i = expected.size(); i < cap; ++i)
    ASSERT_EQ(h[i], static_cast<T>(sentinel)) << "written past the count at " << i;
}

template <class T>
void reset(cupar::device_buffer<T>& d, cupar::stream_ref) {
  const std::vector<T> h(d.size(), static_cast<T>(sentinel));
  d.copy_from_host(h.data(), h.size());
}

TEST(JitIteratorDpOutput, CompactionsStoreOnlyWhatTheyWrite) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  for (std::size_t n : output_sizes) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto hx = small_floats(n, 11);
    cupar::device_buffer<float> x(hx, s);
    auto scaled = filled<float>(n, s);
    auto wide = filled<double>(n, s);
    auto o1 = filled<float>(n, s);
    auto o3 = filled<double>(n, s);
    cupar::device_buffer<std::size_t> d_count(2, s);
    // References.
    std::vector<float> positive_x10, partitioned_plus1, uniq_x10;
    std::vector<double> positive_wide;
    std::vector<float> low;
    std::vector<double> high;
    std::vector<float> rest;
    std::size_t mid = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (hx[i] > 0.0f) {
        positive_x10.push_back(hx[i] * 10.0f);
        positive_wide.push_back(hx[i]);
        partitioned_plus1.push_back(hx[i] + 1.0f);
      } else {
        rest.push_back(hx[i] + 1.0f);
      }
      if (i == 0 || hx[i] != hx[i - 1]) uniq_x10.push_back(hx[i] * 10.0f);
      if (hx[i] < -2.0f) {
        low.push_back(hx[i]);
      } else if (hx[i] < 2.0f) {
        ++mid;
      } else {
        high.push_back(hx[i]);
      }
    }
    std::reverse(rest.begin(), rest.end());
    partitioned_plus1.insert(partitioned_plus1.end(), rest.begin(), rest.end());
    both_tiers([&] {
      reset(scaled, s);
      reset(wide, s);
      reset(o1, s);
      reset(o3, s);
      // select_if through a transform output, the count left on the device.
      cupar::select_if<float>(x.data(), jit::transform_output(scaled.data(), op("x * 10.0f")),
                              d_count.data(), n, op("x > 0.0f"), s);
      EXPECT_EQ(d_count.to_host()[0], positive_x10.size());
      expect_prefix(scaled, positive_x10, n, "select_if -> transform_output");
      // select_if_count into an array of another type (converted), and into discard().
      std::size_t c = cupar::select_if_count<float>(jit::transform(x.data(), op("x")),
                                                    jit::output(wide.data()), n, op("x > 0.0f"), s);
      EXPECT_EQ(c, positive_wide.size());
      expect_prefix(wide, positive_wide, n, "select_if_count -> double array");
      c = cupar::select_if_count<float>(x.data(), jit::discard(), n, op("x > 0.0f"), s);
      EXPECT_EQ(c, positive_x10.size());
      // partition stores all n items (selected first, the rest reversed).
      reset(scaled, s);
      c = cupar::partition_count<float>(
          x.data(), jit::transform_output(scaled.data(), op("x + 1.0f")), n, op("x > 0.0f"), s);
      EXPECT_EQ(c, positive_x10.size());
      expect_prefix(scaled, partitioned_plus1, n, "partition -> transform_output");
      // unique through a transform output.
      reset(scaled, s);
      cupar::unique<float>(x.data(), jit::transform_output(scaled.data(), op("x * 10.0f")),
                           d_count.data(), n, s);
      EXPECT_EQ(d_count.to_host()[0], uniq_x10.size());
      expect_prefix(scaled, uniq_x10, n, "unique -> transform_output");
      // three_way_partition: an array, discard(), an array of another type; each part bounded
      // by its own count (the third: n - first - second).
      reset(o1, s);
      const cupar::partition_counts pc = cupar::three_way_partition_counts<float>(
          x.data(), o1.data(), jit::discard(), jit::output(o3.data()), n, op("x < -2.0f"),
          op("x < 2.0f"), s);
      EXPECT_EQ(pc.first, low.size());
      EXPECT_EQ(pc.second, mid);
      expect_prefix(o1, low, n, "three-way first part");
      expect_prefix(o3, high, n, "three-way unselected part");
      // The asynchronous form: counts on the device bound the stores.
      reset(o3, s);
      cupar::three_way_partition<float>(x.data(), jit::discard(), jit::discard(),
                                        jit::transform_output<float>(o3.data(), op("x")),
                                        d_count.data(), n, op("x < -2.0f"), op("x < 2.0f"), s);
      expect_prefix(o3, high, n, "three-way unselected part (device counts)");
    });
  }
}

/// A suffix that makes an operator's text new (so a new build): " + 0.0f * k.0f", k counting.
std::string fresh_tag() {
  static int fresh = 0;
  return " + 0.0f * " + std::to_string(++fresh) + ".0f";
}

/// Binaries loaded while `run` ran, in fast mode (tier 1 only): one per build a call needed.
/// The optimised builds earlier calls queued are waited for first: the pool loads each finished
/// one in the background, which would count here.
template <class F>
std::uint64_t loads_of(F&& run) {
  const jit::mode before = jit::get_mode();
  jit::set_mode(jit::mode::fast);
  jit::wait_for_background_builds();
  const std::uint64_t loads = jit::get_stats().loads;
  run();
  const std::uint64_t made = jit::get_stats().loads - loads;
  jit::set_mode(before);
  return made;
}

// select_if, partition and unique store through an output expression as they compact (the "+io"
// sets: one build for the predicate, the input and the output together) when the output writes
// nothing they read; an output over their own input (in place) or over a gather's values takes
// the store pass (the compaction into a temporary, then one pass storing it: two builds), which
// reads everything before it writes. Both against the CPU, with new snippets each time (a new
// build each).
TEST(JitIteratorDpOutput, CompactionsStoreAsTheyCompactUnlessTheOutputOverlapsWhatTheyRead) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  const bool fused_here = cupar::testing::precompiled_here("select_if<u32>+io") &&
                          cupar::testing::precompiled_here("partition_if<u32>+io") &&
                          cupar::testing::precompiled_here("unique<u32>+io");
  for (std::size_t n : output_sizes) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto hx = small_floats(n, 23);
    std::vector<float> sel, part, rest, uniq;
    for (std::size_t i = 0; i < n; ++i) {
      (hx[i] > 1.0f ? sel : rest).push_back(hx[i] * 2.0f);
      if (i == 0 || hx[i] != hx[i - 1]) uniq.push_back(hx[i] * 2.0f);
    }
    part = sel;
    part.insert(part.end(), rest.rbegin(), rest.rend());
    cupar::device_buffer<std::size_t> d_count(1, s);
    // Fused: the output is another array.
    cupar::device_buffer<float> x(hx, s);
    auto out = filled<float>(n, s);
    std::uint64_t builds = loads_of([&] {
      cupar::select_if<float>(x.data(),
                              jit::transform_output(out.data(), op("x * 2.0f" + fresh_tag())),
                              d_count.data(), n, op("x > 1.0f" + fresh_tag()), s);
      cupar::stream_ref(s).synchronize();
    });
    if (n > 0 && fused_here) {
      EXPECT_EQ(builds, 1u) << "select_if: the +io set, one build";
    }
    EXPECT_EQ(d_count.to_host()[0], sel.size());
    expect_prefix(out, sel, n, "select_if, fused");
    reset(out, s);
    builds = loads_of([&] {
      const std::size_t c = cupar::partition_count<float>(
          jit::transform(x.data(), op("x" + fresh_tag())),
          jit::transform_output(out.data(), op("x * 2.0f" + fresh_tag())), n,
          op("x > 1.0f" + fresh_tag()), s);
      EXPECT_EQ(c, sel.size());
    });
    if (n > 0 && fused_here) {
      EXPECT_EQ(builds, 1u) << "partition: the +io set, one build";
    }
    expect_prefix(out, part, n, "partition, fused");
    reset(out, s);
    cupar::unique<float>(x.data(), jit::transform_output(out.data(), op("x * 2.0f" + fresh_tag())),
                         d_count.data(), n, s);
    EXPECT_EQ(d_count.to_host()[0], uniq.size());
    expect_prefix(out, uniq, n, "unique, fused");
    // In place: the output is the input itself; the store pass.
    builds = loads_of([&] {
      cupar::select_if<float>(x.data(),
                              jit::transform_output(x.data(), op("x * 2.0f" + fresh_tag())),
                              d_count.data(), n, op("x > 1.0f" + fresh_tag()), s);
      cupar::stream_ref(s).synchronize();
    });
    if (n > 0) {
      EXPECT_EQ(builds, 2u) << "select_if in place: the compaction and the store pass";
    }
    EXPECT_EQ(d_count.to_host()[0], sel.size());
    {
      const std::vector<float> h = x.to_host();
      for (std::size_t i = 0; i < sel.size(); ++i)
        ASSERT_EQ(h[i], sel[i]) << "select_if in place at " << i;
      for (std::size_t i = sel.size(); i < n; ++i)
        ASSERT_EQ(h[i], hx[i]) << "select_if in place: untouched past the count at " << i;
    }
    x.copy_from_host(hx.data(), n);
    const std::size_t c = cupar::partition_count<float>(
        x.data(), jit::transform_output(x.data(), op("x * 2.0f" + fresh_tag())), n,
        op("x > 1.0f" + fresh_tag()), s);
    EXPECT_EQ(c, sel.size());
    expect_prefix(x, part, n, "partition in place");
    x.copy_from_host(hx.data(), n);
    cupar::unique<float>(x.data(),
                         jit::transform_output(x.data() + (n > 1 ? 1 : 0), op("x * 2.0f")),
                         d_count.data(), n > 1 ? n - 1 : n, s);
    {
      // unique of x[0, m) stored from x[1] on (m = n - 1): overlapping, shifted by one.
      const std::size_t m = n > 1 ? n - 1 : n;
      std::vector<float> u;
      for (std::size_t i = 0; i < m; ++i)
        if (i == 0 || hx[i] != hx[i - 1]) u.push_back(hx[i] * 2.0f);
      EXPECT_EQ(d_count.to_host()[0], u.size());
      const std::vector<float> h = x.to_host();
      const std::size_t at = n > 1 ? 1 : 0;
      for (std::size_t i = 0; i < u.size(); ++i)
        ASSERT_EQ(h[at + i], u[i]) << "unique shifted by one at " << i;
    }
    // A gather whose values array is the output: the values may be anywhere in it.
    x.copy_from_host(hx.data(), n);
    std::vector<unsigned> hidx(n);
    for (std::size_t i = 0; i < n; ++i)
      hidx[i] = static_cast<unsigned>(n - 1 - i);
    cupar::device_buffer<unsigned> idx(hidx, s);
    std::vector<float> gsel;
    for (std::size_t i = 0; i < n; ++i)
      if (hx[n - 1 - i] > 1.0f) gsel.push_back(hx[n - 1 - i] * 2.0f);
    builds = loads_of([&] {
      cupar::select_if<float>(jit::permutation(x.data(), idx.data()),
                              jit::transform_output(x.data(), op("x * 2.0f" + fresh_tag())),
                              d_count.data(), n, op("x > 1.0f" + fresh_tag()), s);
      cupar::stream_ref(s).synchronize();
    });
    if (n > 0) {
      EXPECT_EQ(builds, 2u) << "a gather over the output: the store pass";
    }
    EXPECT_EQ(d_count.to_host()[0], gsel.size());
    {
      const std::vector<float> h = x.to_host();
      for (std::size_t i = 0; i < gsel.size(); ++i)
        ASSERT_EQ(h[i], gsel[i]) << "gather over the output at " << i;
    }
  }
}

// Records selected and partitioned into projections of a field (a struct class's "+io" sets
// where the build has them: one build a call), against the CPU.
TEST(JitIteratorDpOutput, RecordsSelectedIntoProjectionsStoreAsTheyCompact) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  const bool fused_here = cupar::testing::precompiled_here("select_if<s8a4>+io") &&
                          cupar::testing::precompiled_here("partition_if<s8a4>+io");
  for (std::size_t n : output_sizes) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto prices = small_floats(n, 31);
    std::vector<order_row> h(n);
    for (std::size_t i = 0; i < n; ++i)
      h[i] = {static_cast<unsigned>(i), prices[i]};
    std::vector<float> doubled;
    std::vector<double> ids, rest;
    for (std::size_t i = 0; i < n; ++i) {
      if (prices[i] > 1.0f) {
        doubled.push_back(prices[i] * 2.0f);
        ids.push_back(static_cast<double>(i));
      } else {
        rest.push_back(static_cast<double>(i));
      }
    }
    ids.insert(ids.end(), rest.rbegin(), rest.rend());
    cupar::device_buffer<order_row> rows(h, s);
    auto out = filled<float>(n, s);
    auto out_ids = filled<double>(n, s);
    cupar::device_buffer<std::size_t> d_count(1, s);
    std::uint64_t builds = loads_of([&] {
      cupar::select_if<order_row>(
          rows.data(),
          jit::transform_output<order_row>(out.data(), op("x.price * 2.0f" + fresh_tag())),
          d_count.data(), n, op("x.price > 1.0f" + fresh_tag()), s);
      cupar::stream_ref(s).synchronize();
    });
    if (n > 0 && fused_here) {
      EXPECT_EQ(builds, 1u) << "select_if of records: the +io set";
    }
    EXPECT_EQ(d_count.to_host()[0], doubled.size());
    expect_prefix(out, doubled, n, "select_if of records -> a field, doubled");
    builds = loads_of([&] {
      const std::size_t c = cupar::partition_count<order_row>(
          rows.data(), jit::transform_output<order_row>(out_ids.data(), op("double(x.id)")), n,
          op("x.price > 1.0f" + fresh_tag()), s);
      EXPECT_EQ(c, doubled.size());
    });
    if (n > 0 && fused_here) {
      EXPECT_EQ(builds, 1u) << "partition of records: the +io set";
    }
    expect_prefix(out_ids, ids, n, "partition of records -> ids");
  }
}

TEST(JitIteratorDpOutput, FlagsAndKeysGivenAsExpressions) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  for (std::size_t n : output_sizes) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto hx = small_floats(n, 12);
    std::vector<int> hk(n);
    for (std::size_t i = 0; i < n; ++i)
      hk[i] = static_cast<int>(i / 6);  // runs of 6 after dividing by 2: runs of 12 below
    cupar::device_buffer<float> x(hx, s);
    cupar::device_buffer<int> k(hk, s);
    auto out = filled<float>(n, s);
    auto wide = filled<double>(n, s);
    cupar::device_buffer<std::size_t> d_count(1, s);
    std::vector<float> flagged_bool, flagged_int, scan(n), ex_scan(n);
    for (std::size_t i = 0; i < n; ++i) {
      if (hx[i] > 1.0f) flagged_bool.push_back(hx[i]);
      if (i % 256 == 3) flagged_int.push_back(hx[i]);  // int flags 256 apart: bool flags true
      const bool head = i % 12 == 0;
      scan[i] = hx[i] + (head ? 0.0f : scan[i - 1]);
      ex_scan[i] = head ? 100.0f : ex_scan[i - 1] + hx[i - 1];
    }
    both_tiers([&] {
      reset(out, s);
      // bool flags from an expression of floats: its values tested for non-zero.
      std::size_t c = cupar::select_flagged_count<float, bool>(
          x.data(), jit::transform(x.data(), op("x > 1.0f ? 2.0f : 0.0f")), out.data(), n, s);
      EXPECT_EQ(c, flagged_bool.size());
      expect_prefix(out, flagged_bool, n, "select_flagged, bool flags from floats");
      // int flags whose values are multiples of 256 (truncated to a byte they would be 0).
      reset(out, s);
      cupar::select_flagged<float, int>(
          x.data(), jit::transform<int>(jit::counting(0), op("x % 256 == 3 ? 512 : 0")), out.data(),
          d_count.data(), n, s);
      EXPECT_EQ(d_count.to_host()[0], flagged_int.size());
      expect_prefix(out, flagged_int, n, "select_flagged, int flags");
      // Scans by key over computed keys (k / 2: runs of 12), through output expressions.
      cupar::inclusive_scan_by_key<int, float>(jit::transform(k.data(), op("x / 2")), x.data(),
                                               jit::output(wide.data()), n, jit::plus, s);
      expect_prefix(wide, scan, n, "inclusive_scan_by_key -> double");
      cupar::exclusive_scan_by_key<int, float>(jit::transform(k.data(), op("x / 2")), x.data(),
                                               jit::transform_output(out.data(), op("x")), n,
                                               jit::plus, 100.0f, op("a == b"), s);
      expect_prefix(out, ex_scan, n, "exclusive_scan_by_key -> transform_output");
    });
  }
}

TEST(JitIteratorDpOutput, ByKeyCompactionsThroughOutputs) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  for (std::size_t n : output_sizes) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto hv = small_floats(n, 13);
    std::vector<unsigned> hk(n);
    for (std::size_t i = 0; i < n; ++i)
      hk[i] = static_cast<unsigned>((i / 5) * 3);  // runs of 5
    cupar::device_buffer<unsigned> k(hk, s);
    cupar::device_buffer<float> v(hv, s);
    auto sums = filled<double>(n, s);
    auto keys = filled<unsigned>(n, s);
    auto counts = filled<std::uint64_t>(n, s);
    auto firsts = filled<float>(n, s);
    cupar::device_buffer<std::size_t> d_count(1, s);
    std::vector<double> half_sums;
    std::vector<unsigned> run_keys;
    std::vector<std::uint64_t> run_lengths;
    std::vector<float> first_values;
    for (std::size_t i = 0; i < n; ++i) {
      if (i % 5 == 0) {
        half_sums.push_back(0.0);
        run_keys.push_back(hk[i] + 1);
        run_lengths.push_back(0);
        first_values.push_back(hv[i]);
      }
      half_sums.back() += 0.5 * hv[i];
      ++run_lengths.back();
    }
    both_tiers([&] {
      reset(sums, s);
      reset(keys, s);
      reset(counts, s);
      reset(firsts, s);
      // reduce_by_key: keys discarded, the sums stored halved into doubles.
      cupar::reduce_by_key<unsigned, float>(
          k.data(), v.data(), jit::discard(),
          jit::transform_output<float>(jit::output(sums.data()), op("x * 0.5f")), d_count.data(), n,
          jit::plus, s);
      EXPECT_EQ(d_count.to_host()[0], half_sums.size());
      expect_prefix(sums, half_sums, n, "reduce_by_key -> transform_output");
      // run_length_encode: the lengths alone (the items discarded), 8-byte counts.
      std::size_t r = cupar::run_length_encode_count<unsigned, std::uint64_t>(
          k.data(), jit::discard(), counts.data(), n, s);
      EXPECT_EQ(r, run_lengths.size());
      expect_prefix(counts, run_lengths, n, "run_length_encode lengths");
      // unique_by_key: keys through a transform output, values an array.
      r = cupar::unique_by_key_count<unsigned, float>(
          k.data(), v.data(), jit::transform_output(keys.data(), op("x + 1u")), firsts.data(), n,
          op("a == b"), s);
      EXPECT_EQ(r, run_keys.size());
      expect_prefix(keys, run_keys, n, "unique_by_key keys");
      expect_prefix(firsts, first_values, n, "unique_by_key values");
    });
  }
}

TEST(JitIteratorDpOutput, SegmentsWithOffsetExpressionsAndSearches) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  for (std::size_t n : output_sizes) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto hx = small_floats(n, 14);
    const std::size_t seg = 64;
    const std::size_t m = (n + seg - 1) / seg;
    cupar::device_buffer<float> x(hx, s);
    auto sums = filled<double>(m, s);
    auto scan = filled<float>(n, s);
    std::vector<double> seg_sums(m, 0.0);
    std::vector<float> seg_scan(n), every_other(n);
    for (std::size_t i = 0; i < n; ++i) {
      seg_sums[i / seg] += hx[i];
      seg_scan[i] = hx[i] + (i % seg == 0 ? 0.0f : seg_scan[i - 1]);
    }
    // Segments [2j, 2j + 1): only even items are scanned, odd ones keep the input (stored
    // through the expression too: the scan runs in place in a copy of the input).
    for (std::size_t i = 0; i < n; ++i)
      every_other[i] = 2.0f * hx[i];
    std::vector<float> hsorted(hx);
    std::sort(hsorted.begin(), hsorted.end());
    std::vector<std::int64_t> below(n);
    for (std::size_t i = 0; i < n; ++i)
      below[i] = 2 * static_cast<std::int64_t>(
                         std::upper_bound(hsorted.begin(), hsorted.end(), hx[i]) - hsorted.begin());
    cupar::device_buffer<float> sorted(hsorted, s);
    auto pos = filled<std::int64_t>(n, s);
    // Fixed-size segments as expressions of the segment index.
    const jit::iterator begin = jit::transform<std::int64_t>(jit::counting(0ll), op("x * 64"));
    const jit::iterator end = jit::transform<std::int64_t>(
        jit::counting(1ll), op("x * 64 < n ? x * 64 : n").param("n", static_cast<long long>(n)));
    both_tiers([&] {
      reset(sums, s);
      reset(scan, s);
      reset(pos, s);
      cupar::segmented_reduce<float>(x.data(), jit::output(sums.data()), n, m, begin, end,
                                     jit::plus, 0.0f, s);
      expect_prefix(sums, seg_sums, m, "segmented_reduce over offset expressions");
      cupar::segmented_inclusive_scan(x.data(), scan.data(), n, m, begin, end, jit::plus, s);
      expect_prefix(scan, seg_scan, n, "segmented_inclusive_scan over offset expressions");
      // One-item segments at even positions, through a transform output: every item is stored.
      reset(scan, s);
      const std::size_t halves = (n + 1) / 2;
      cupar::segmented_inclusive_scan<float>(
          x.data(), jit::transform_output(scan.data(), op("x * 2.0f")), n, halves,
          jit::transform<std::int64_t>(jit::counting(0ll), op("2 * x")),
          jit::transform<std::int64_t>(jit::counting(0ll), op("2 * x + 1")), jit::plus, s);
      expect_prefix(scan, every_other, n, "segmented scan -> transform_output, gaps");
      // upper_bound: the sorted range an expression (written to a temporary array first),
      // positions stored doubled into int64.
      cupar::upper_bound<float, std::uint32_t>(
          jit::transform(sorted.data(), op("x")), n, x.data(), n,
          jit::transform_output<std::uint32_t>(pos.data(), op("2ll * x")), s);
      expect_prefix(pos, below, n, "upper_bound -> transform_output");
    });
  }
}

TEST(JitIteratorDpOutput, SortsWithValueExpressionsAndOutputs) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  for (std::size_t n : output_sizes) {
    SCOPED_TRACE("n = " + std::to_string(n));
    std::mt19937 rng(15);
    std::vector<unsigned> hk(n);
    for (auto& k : hk)
      k = rng() % 1000;
    cupar::device_buffer<unsigned> k(hk, s);
    auto perm = filled<unsigned>(n, s);
    auto sorted_wide = filled<double>(n, s);
    auto keys_out = filled<unsigned>(n, s);
    std::vector<unsigned> order(n);
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(),
                     [&](unsigned a, unsigned b) { return hk[a] < hk[b]; });
    std::vector<double> sorted_half(n);
    std::vector<unsigned> sorted_keys(n);
    for (std::size_t i = 0; i < n; ++i) {
      sorted_keys[i] = hk[order[i]];
      sorted_half[i] = 0.5 * sorted_keys[i];
    }
    both_tiers([&] {
      reset(perm, s);
      reset(sorted_wide, s);
      reset(keys_out, s);
      // The sorting permutation: values counting(0), the sorted keys discarded (radix sort).
      cupar::stable_sort_pairs<unsigned, unsigned>(k.data(), jit::discard(), jit::counting(0u),
                                                   perm.data(), n, jit::less, s);
      expect_prefix(perm, order, n, "argsort (radix)");
      // The same with a snippet comparator (merge sort), keys stored too.
      reset(perm, s);
      cupar::stable_sort_pairs<unsigned, unsigned>(k.data(), keys_out.data(), jit::counting(0u),
                                                   perm.data(), n, op("a < b"), s);
      expect_prefix(perm, order, n, "argsort (merge sort)");
      expect_prefix(keys_out, sorted_keys, n, "argsort keys");
      // Keys sorted into a transform output of another type.
      cupar::sort_keys<unsigned>(k.data(),
                                 jit::transform_output<unsigned>(sorted_wide.data(), op("x * 0.5")),
                                 n, op("a < b"), s);
      expect_prefix(sorted_wide, sorted_half, n, "sort_keys -> transform_output");
    });
  }
}

TEST(JitIteratorDpOutput, HistogramsOfSampleExpressions) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  for (std::size_t n : output_sizes) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto hx = small_floats(n, 16);
    cupar::device_buffer<float> x(hx, s);
    cupar::device_buffer<std::uint32_t> h10(10, s), h4(4, s), h9(9, s);
    std::vector<std::uint32_t> squares(10, 0), magnitudes(4, 0), shifted(9, 0);
    for (std::size_t i = 0; i < n; ++i) {
      ++squares[static_cast<std::size_t>(hx[i] * hx[i]) / 10];  // x * x in [0, 64]
      const std::size_t v = i;
      ++magnitudes[v < 10 ? 0 : v < 100 ? 1 : v < 1000 ? 2 : 3];
      ++shifted[static_cast<std::size_t>((hx[i] + 9.0f) / 2.0f)];  // x + 1 in [-7, 9]
    }
    const int levels[5] = {0, 10, 100, 1000, 1 << 30};
    both_tiers([&] {
      // Squares binned without an operator (the library's histogram over a temporary array).
      cupar::histogram_even<float>(jit::transform(x.data(), op("x * x")), h10.data(), 11, 0.0f,
                                   100.0f, n, s);
      EXPECT_EQ(h10.to_host(), squares);
      // A counting sequence binned by levels.
      cupar::histogram_range<int>(jit::counting(0), h4.data(), 5, levels, n, s);
      EXPECT_EQ(h4.to_host(), magnitudes);
      // A transform with a sample operator.
      cupar::histogram_even<float>(jit::transform(x.data(), op("x")), h9.data(), 10, -8.0f, 10.0f,
                                   n, op("x + 1.0f"), s);
      EXPECT_EQ(h9.to_host(), shifted);
    });
  }
}

TEST(JitIteratorDpOutput, ArgumentChecksComeFirst) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  const std::size_t n = 1000;
  std::vector<float> h(n);
  for (std::size_t i = 0; i < n; ++i)
    h[i] = static_cast<float>(i % 10);
  cupar::device_buffer<float> x(h, s), out(n, s);
  // A null array inside an output expression with n > 0.
  EXPECT_THROW(cupar::select_if_count<float>(
                   x.data(), jit::transform_output(static_cast<float*>(nullptr), op("x")), n,
                   op("x > 1.0f"), s),
               std::invalid_argument);
  // A null device count with an output expression.
  EXPECT_THROW(cupar::select_if<float>(x.data(), jit::discard(), nullptr, n, op("x > 1.0f"), s),
               std::invalid_argument);
  // A malformed output snippet: a jit_error naming the transform output, before the family runs.
  cupar::device_buffer<std::size_t> d_count(1, s);
  const std::size_t seventy_seven = 77;
  d_count.copy_from_host(&seventy_seven, 1);
  EXPECT_THROW(cupar::select_if<float>(x.data(), jit::transform_output(out.data(), op("x +* 2")),
                                       d_count.data(), n, op("x > 1.0f"), s),
               cupar::jit_error);
  EXPECT_EQ(d_count.to_host()[0], 77u);  // nothing ran
  // Values through an output expression need a JIT type.
  struct opaque {
    int a;
    short b;
  };
  cupar::device_buffer<opaque> ov(n, s);
  cupar::device_buffer<unsigned> kk(n, s);
  EXPECT_THROW((cupar::sort_pairs<unsigned, opaque>(
                   kk.data(), jit::discard(), ov.data(),
                   jit::transform_output<int>(jit::discard(), op("x")), n, op("a < b"), s)),
               std::invalid_argument);
  // The library keeps working.
  const std::size_t c =
      cupar::select_if_count<float>(x.data(), jit::discard(), n, op("x > 4.5f"), s);
  EXPECT_EQ(c, 500u);
}

}  // namespace
