// cupar tests: records and accumulators of the data-processing struct classes on the GPU
// (CUPAR_JIT_STRUCT_DP_CLASSES): 40- and 56-byte accumulators (five and seven 8-byte fields)
// through reduce_by_key, the scans by key and segmented_reduce; records searched by a comparator
// (lower_bound / upper_bound) and selected by flags (select_flagged, out of place and in place).
// Each result against a CPU reference at 0, 1, odd and large sizes; where the build precompiled
// the classes' sets, no kernel is compiled (only the operators: tens of milliseconds, not the
// seconds of a set compiled from source). Compiled by g++.
#include "../common/data.hpp"
#include "../common/gpu.hpp"
#include "../common/precompiled.hpp"
#include "../common/streams.hpp"

#include <cupar/cupar.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>

#include <cuda_runtime_api.h>
#include <string>
#include <vector>

// Five and seven 8-byte fields: a count and sums, the shapes of a query's aggregates.
CUPAR_JIT_STRUCT(acc40, long long count; double sum; double min; double max; double sumsq;)
CUPAR_JIT_STRUCT(acc56, long long count; double sum; double min; double max; double sumsq;
                 long long first; long long last;)
// A 16-byte record ordered by (day, id).
CUPAR_JIT_STRUCT(event16, unsigned day; unsigned id; double amount;)

namespace {

using cupar::jit::op;
using cupar::testing::owned_stream;

std::vector<std::size_t> sizes() {
  return {0, 1, 7, 4353, cupar::testing::scaled(std::size_t(300001))};
}

acc40 acc40_of(std::size_t i) {
  const double v = static_cast<double>((i * 37) % 101) - 50.0;
  return {1, v, v, v, v * v};
}
acc56 acc56_of(std::size_t i) {
  const double v = static_cast<double>((i * 37) % 101) - 50.0;
  const auto row = static_cast<long long>(i);
  return {1, v, v, v, v * v, row, row};
}

acc40 merge(const acc40& a, const acc40& b) {
  return {a.count + b.count, a.sum + b.sum, std::min(a.min, b.min), std::max(a.max, b.max),
          a.sumsq + b.sumsq};
}
acc56 merge(const acc56& a, const acc56& b) {
  return {a.count + b.count,       a.sum + b.sum,     std::min(a.min, b.min),
          std::max(a.max, b.max),  a.sumsq + b.sumsq, std::min(a.first, b.first),
          std::max(a.last, b.last)};
}

const char* const merge40 =
    "acc40{a.count + b.count, a.sum + b.sum, fmin(a.min, b.min), fmax(a.max, b.max), "
    "a.sumsq + b.sumsq}";
const char* const merge56 =
    "acc56{a.count + b.count, a.sum + b.sum, fmin(a.min, b.min), fmax(a.max, b.max), "
    "a.sumsq + b.sumsq, a.first < b.first ? a.first : b.first, "
    "a.last > b.last ? a.last : b.last}";

template <class A>
bool same_bytes(const A& x, const A& y) {
  return std::memcmp(&x, &y, sizeof(A)) == 0;
}

/// Keys in runs of 1 to 5 rows (small values, so that a run may repeat an earlier key).
std::vector<std::uint32_t> run_keys(std::size_t n) {
  std::vector<std::uint32_t> k(n);
  std::uint32_t key = 0;
  for (std::size_t i = 0; i < n;) {
    const std::size_t len = 1 + (i * 7) % 5;
    for (std::size_t j = 0; j < len && i < n; ++j, ++i)
      k[i] = key;
    key = (key * 13 + 5) % 11;
  }
  return k;
}

/// reduce_by_key, the inclusive and exclusive scans by key and segmented_reduce of accumulators
/// A, against the CPU. The sums are of integers held in doubles: exact in any order.
template <class A>
void check_accumulators(const char* merge_source, A (*of)(std::size_t), cupar::stream_ref s) {
  const op m(merge_source);
  for (std::size_t n : sizes()) {
    SCOPED_TRACE(std::to_string(sizeof(A)) + "-byte accumulators, n = " + std::to_string(n));
    const auto keys = run_keys(n);
    std::vector<A> values(n);
    for (std::size_t i = 0; i < n; ++i)
      values[i] = of(i);
    // CPU: the runs' keys and aggregates, the scans.
    std::vector<std::uint32_t> want_keys;
    std::vector<A> want_aggs, want_inclusive(n), want_exclusive(n);
    std::vector<std::int64_t> offsets{0};
    for (std::size_t i = 0; i < n; ++i) {
      const bool head = i == 0 || keys[i] != keys[i - 1];
      if (head) {
        if (i != 0) offsets.push_back(static_cast<std::int64_t>(i));
        want_keys.push_back(keys[i]);
        want_aggs.push_back(values[i]);
        want_inclusive[i] = values[i];
        want_exclusive[i] = A{};
      } else {
        want_aggs.back() = merge(want_aggs.back(), values[i]);
        want_inclusive[i] = merge(want_inclusive[i - 1], values[i]);
        want_exclusive[i] = merge(want_exclusive[i - 1], values[i - 1]);
      }
    }
    if (n != 0) offsets.push_back(static_cast<std::int64_t>(n));
    const std::size_t runs = want_keys.size();
    cupar::device_buffer<std::uint32_t> d_keys(keys, s), d_keys_out(n, s);
    cupar::device_buffer<A> d_values(values, s), d_out(n, s);
    cupar::device_buffer<std::size_t> d_count(1, s);
    cupar::reduce_by_key(d_keys.data(), d_values.data(), d_keys_out.data(), d_out.data(),
                         d_count.data(), n, m, cupar::jit::equal_to, s);
    ASSERT_EQ(d_count.to_host()[0], runs);
    EXPECT_EQ(d_keys_out.to_host(runs), want_keys);
    const auto aggs = d_out.to_host(runs);
    for (std::size_t r = 0; r < runs; ++r)
      ASSERT_TRUE(same_bytes(aggs[r], want_aggs[r])) << "reduce_by_key, run " << r;
    cupar::inclusive_scan_by_key(d_keys.data(), d_values.data(), d_out.data(), n, m,
                                 cupar::jit::equal_to, s);
    const auto inclusive = d_out.to_host();
    for (std::size_t i = 0; i < n; ++i)
      ASSERT_TRUE(same_bytes(inclusive[i], want_inclusive[i])) << "inclusive scan by key, " << i;
    cupar::exclusive_scan_by_key(d_keys.data(), d_values.data(), d_out.data(), n, m, A{},
                                 cupar::jit::equal_to, s);
    const auto exclusive = d_out.to_host();
    for (std::size_t i = 0; i < n; ++i)
      ASSERT_TRUE(same_bytes(exclusive[i], want_exclusive[i])) << "exclusive scan by key, " << i;
    // The runs as segments.
    cupar::device_buffer<std::int64_t> d_offsets(offsets, s);
    cupar::segmented_reduce(d_values.data(), d_out.data(), n, runs, d_offsets.data(),
                            d_offsets.data() + 1, m, A{}, s);
    const auto segments = d_out.to_host(runs);
    for (std::size_t r = 0; r < runs; ++r) {
      ASSERT_TRUE(same_bytes(segments[r], merge(A{}, want_aggs[r]))) << "segment " << r;
    }
  }
}

}  // namespace

// Accumulators of five and seven 8-byte fields (40 and 56 bytes): the classes s40a8 and s56a8
// serve reduce_by_key, the scans by key and segmented_reduce, only the operator compiled.
TEST(JitRecordClasses, FortyAndFiftySixByteAccumulatorsThroughTheByKeyAndSegmentedFamilies) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  const auto before = cupar::jit::get_stats();
  check_accumulators<acc40>(merge40, acc40_of, s);
  check_accumulators<acc56>(merge56, acc56_of, s);
  const auto after = cupar::jit::get_stats();
  bool classes = true;
  for (const char* c : {"s40a8", "s56a8"}) {
    for (const std::string set : {"reduce_by_key<u32,", "scan_by_key_inclusive<u32,",
                                  "scan_by_key_exclusive<u32,", "segmented_reduce<"}) {
      classes = classes && cupar::testing::precompiled_here(set + c + ">");
    }
  }
  if (classes) {
    EXPECT_EQ(after.kernel_compiles, before.kernel_compiles);
  }
  EXPECT_GT(after.operator_compiles, before.operator_compiles);
}

// Records searched by a comparator on their fields and selected by flags: the classes' sets
// (binary_search<s16a8,...>, select_flagged<s40a8,...>), nothing compiled but the comparator
// (select_flagged has no operator: nothing at all).
TEST(JitRecordClasses, RecordsAreSearchedByAComparatorAndSelectedByFlags) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  const auto before = cupar::jit::get_stats();
  const op by_day_then_id("a.day < b.day || (a.day == b.day && a.id < b.id)");
  auto less = [](const event16& a, const event16& b) {
    return a.day < b.day || (a.day == b.day && a.id < b.id);
  };
  for (std::size_t n : sizes()) {
    SCOPED_TRACE("n = " + std::to_string(n));
    // Sorted events with repeated (day, id) pairs; needles on, between and beyond them.
    std::vector<event16> sorted(n);
    for (std::size_t i = 0; i < n; ++i)
      sorted[i] = {static_cast<unsigned>(i / 40), static_cast<unsigned>((i / 3) % 7),
                   static_cast<double>(i)};
    std::sort(sorted.begin(), sorted.end(), less);
    const std::size_t m = n / 2 + 3;
    std::vector<event16> needles(m);
    for (std::size_t j = 0; j < m; ++j)
      needles[j] = {static_cast<unsigned>((j * 7919) % (n / 40 + 2)),
                    static_cast<unsigned>((j * 31) % 9), -1.0};
    cupar::device_buffer<event16> d_sorted(sorted, s), d_needles(needles, s);
    cupar::device_buffer<std::uint32_t> d_lower(m, s);
    cupar::device_buffer<std::uint64_t> d_upper(m, s);
    cupar::lower_bound(d_sorted.data(), n, d_needles.data(), m, d_lower.data(), by_day_then_id, s);
    cupar::upper_bound(d_sorted.data(), n, d_needles.data(), m, d_upper.data(), by_day_then_id, s);
    const auto lower = d_lower.to_host();
    const auto upper = d_upper.to_host();
    for (std::size_t j = 0; j < m; ++j) {
      const auto lo = std::lower_bound(sorted.begin(), sorted.end(), needles[j], less);
      const auto hi = std::upper_bound(sorted.begin(), sorted.end(), needles[j], less);
      ASSERT_EQ(lower[j], static_cast<std::uint32_t>(lo - sorted.begin())) << "needle " << j;
      ASSERT_EQ(upper[j], static_cast<std::uint64_t>(hi - sorted.begin())) << "needle " << j;
    }
    // select_flagged of 40-byte accumulators by byte and by 4-byte flags, then in place.
    std::vector<acc40> items(n);
    std::vector<std::uint8_t> flags(n);
    std::vector<std::uint32_t> wide_flags(n);
    std::vector<acc40> want;
    for (std::size_t i = 0; i < n; ++i) {
      items[i] = acc40_of(i);
      flags[i] = (i * 11) % 7 < 3 ? 1 : 0;
      wide_flags[i] = flags[i] ? 0x100u : 0u;  // non-zero, not 1
      if (flags[i]) want.push_back(items[i]);
    }
    cupar::device_buffer<acc40> d_items(items, s), d_out(n, s);
    cupar::device_buffer<std::uint8_t> d_flags(flags, s);
    cupar::device_buffer<std::uint32_t> d_wide(wide_flags, s);
    auto expect_selected = [&](const std::vector<acc40>& got, const char* what) {
      ASSERT_EQ(got.size(), want.size()) << what;
      for (std::size_t i = 0; i < want.size(); ++i)
        ASSERT_TRUE(same_bytes(got[i], want[i])) << what << ", item " << i;
    };
    ASSERT_EQ(cupar::select_flagged_count(d_items.data(), d_flags.data(), d_out.data(), n, s),
              want.size());
    expect_selected(d_out.to_host(want.size()), "byte flags");
    ASSERT_EQ(cupar::select_flagged_count(d_items.data(), d_wide.data(), d_out.data(), n, s),
              want.size());
    expect_selected(d_out.to_host(want.size()), "4-byte flags");
    ASSERT_EQ(cupar::select_flagged_count(d_items.data(), d_flags.data(), d_items.data(), n, s),
              want.size());
    expect_selected(d_items.to_host(want.size()), "in place");
  }
  const auto after = cupar::jit::get_stats();
  if (cupar::testing::precompiled_here("binary_search<s16a8,u32>") &&
      cupar::testing::precompiled_here("binary_search<s16a8,u64>") &&
      cupar::testing::precompiled_here("select_flagged<s40a8,u8>") &&
      cupar::testing::precompiled_here("select_flagged<s40a8,u32>") &&
      cupar::testing::precompiled_here("select_flagged<s40a8,u8>+inplace")) {
    EXPECT_EQ(after.kernel_compiles, before.kernel_compiles);
  }
}

// Records of 4-byte fields whose size is a multiple of 8 (24 and 48 bytes: six and twelve
// floats): in 8-byte-aligned arrays (cudaMalloc's) they take the 8-byte-aligned class of their
// size (s24a8, s48a8; the bytes and strides are the same), so only the operators compile. In an
// array 4 bytes off that alignment the kernels are compiled for the struct itself: the same
// results.
CUPAR_JIT_STRUCT(six4, float count; float sum; float min; float max; float x; float y;)
CUPAR_JIT_STRUCT(twelve4, float v[12];)

namespace {

six4 six4_of(std::size_t i) {
  const float v = static_cast<float>((i * 37) % 101) - 50.0f;
  return {1.0f, v, v, v, static_cast<float>(i % 7), -v};
}

six4 merge_six(const six4& a, const six4& b) {
  return {a.count + b.count,      a.sum + b.sum, std::min(a.min, b.min),
          std::max(a.max, b.max), a.x + b.x,     a.y + b.y};
}

}  // namespace

TEST(JitRecordClasses, FourByteFieldRecordsInAlignedArraysTakeTheEightByteClass) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  const op merge(
      "six4{a.count + b.count, a.sum + b.sum, fminf(a.min, b.min), fmaxf(a.max, b.max), "
      "a.x + b.x, a.y + b.y}");
  const op below("x.sum < t");
  const auto before = cupar::jit::get_stats();
  for (std::size_t n : sizes()) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto keys = run_keys(n);
    std::vector<six4> values(n);
    for (std::size_t i = 0; i < n; ++i)
      values[i] = six4_of(i);
    std::vector<std::uint32_t> want_keys;
    std::vector<six4> want_aggs, want_selected;
    for (std::size_t i = 0; i < n; ++i) {
      if (i == 0 || keys[i] != keys[i - 1]) {
        want_keys.push_back(keys[i]);
        want_aggs.push_back(values[i]);
      } else {
        want_aggs.back() = merge_six(want_aggs.back(), values[i]);
      }
      if (values[i].sum < 10.0f) want_selected.push_back(values[i]);
    }
    const std::size_t runs = want_keys.size();
    cupar::device_buffer<std::uint32_t> d_keys(keys, s), d_keys_out(n, s);
    cupar::device_buffer<six4> d_values(values, s), d_out(n, s);
    cupar::device_buffer<std::size_t> d_count(1, s);
    cupar::reduce_by_key(d_keys.data(), d_values.data(), d_keys_out.data(), d_out.data(),
                         d_count.data(), n, merge, cupar::jit::equal_to, s);
    ASSERT_EQ(d_count.to_host()[0], runs);
    const auto aggs = d_out.to_host(runs);
    for (std::size_t r = 0; r < runs; ++r)
      ASSERT_TRUE(same_bytes(aggs[r], want_aggs[r])) << "run " << r;
    ASSERT_EQ(
        cupar::select_if_count(d_values.data(), d_out.data(), n, op(below).param("t", 10.0f), s),
        want_selected.size());
    const auto selected = d_out.to_host(want_selected.size());
    for (std::size_t i = 0; i < want_selected.size(); ++i)
      ASSERT_TRUE(same_bytes(selected[i], want_selected[i])) << "selected " << i;
    // reduce (the struct classes of reduce and the scans): twelve floats, 48 bytes.
    std::vector<twelve4> rows(n);
    twelve4 total{};
    for (std::size_t i = 0; i < n; ++i) {
      for (int f = 0; f < 12; ++f) {
        rows[i].v[f] = static_cast<float>((i + static_cast<std::size_t>(f)) % 5);
        total.v[f] += rows[i].v[f];
      }
    }
    cupar::device_buffer<twelve4> d_rows(rows, s);
    const twelve4 got =
        cupar::reduce_value(d_rows.data(), n,
                            op("[](twelve4 a, twelve4 b) { twelve4 r; for (int f = 0; f < 12; ++f) "
                               "r.v[f] = a.v[f] + b.v[f]; return r; }"),
                            twelve4{}, s);
    ASSERT_TRUE(same_bytes(got, total));
  }
  const auto after = cupar::jit::get_stats();
  if (cupar::testing::precompiled_here("reduce_by_key<u32,s24a8>") &&
      cupar::testing::precompiled_here("select_if<s24a8>") &&
      cupar::testing::precompiled_here("reduce<s48a8>")) {
    EXPECT_EQ(after.kernel_compiles, before.kernel_compiles);
  }
  // The same records 4 bytes off an 8-byte boundary: copied into an aligned temporary and back
  // (the padded route, entry.cpp), the same class's kernels, the same aggregates.
  const std::size_t n = 1001;
  const auto keys = run_keys(n);
  std::vector<six4> values(n);
  for (std::size_t i = 0; i < n; ++i)
    values[i] = six4_of(i);
  cupar::device_buffer<float> raw(6 * (n + 1) + 1, s), raw_out(6 * (n + 1) + 1, s);
  auto* off_values = reinterpret_cast<six4*>(raw.data() + 1);
  auto* off_out = reinterpret_cast<six4*>(raw_out.data() + 1);
  ASSERT_EQ(reinterpret_cast<std::uintptr_t>(off_values) % 8, 4u);
  ASSERT_EQ(
      cudaMemcpyAsync(off_values, values.data(), n * sizeof(six4), cudaMemcpyHostToDevice, s.get()),
      cudaSuccess);
  cupar::device_buffer<std::uint32_t> d_keys(keys, s), d_keys_out(n, s);
  cupar::device_buffer<std::size_t> d_count(1, s);
  cupar::reduce_by_key(d_keys.data(), off_values, d_keys_out.data(), off_out, d_count.data(), n,
                       merge, cupar::jit::equal_to, s);
  const std::size_t runs = d_count.to_host()[0];
  std::vector<six4> got(runs);
  ASSERT_EQ(
      cudaMemcpyAsync(got.data(), off_out, runs * sizeof(six4), cudaMemcpyDeviceToHost, s.get()),
      cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(s.get()), cudaSuccess);
  std::vector<six4> want;
  for (std::size_t i = 0; i < n; ++i) {
    if (i == 0 || keys[i] != keys[i - 1]) {
      want.push_back(values[i]);
    } else {
      want.back() = merge_six(want.back(), values[i]);
    }
  }
  ASSERT_EQ(runs, want.size());
  for (std::size_t r = 0; r < runs; ++r)
    ASSERT_TRUE(same_bytes(got[r], want[r])) << "misaligned, run " << r;
  // Counted from the start of the test: the sets of the aligned calls above as well (a filtered
  // build may leave them out and compile them from source).
  if (cupar::testing::precompiled_here("reduce_by_key<u32,s24a8>") &&
      cupar::testing::precompiled_here("select_if<s24a8>") &&
      cupar::testing::precompiled_here("reduce<s48a8>")) {
    EXPECT_EQ(cupar::jit::get_stats().kernel_compiles, before.kernel_compiles);
  }
}

// Three 4-byte fields (12 bytes, class s12a4): a point reduced by key, selected and searched.
CUPAR_JIT_STRUCT(point3, float x; float y; float z;)

TEST(JitRecordClasses, TwelveByteRecordsReduceSelectAndSearchOnTheirClass) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  const op add("point3{a.x + b.x, a.y + b.y, a.z + b.z}");
  const op near("x.x * x.x + x.y * x.y < r");
  const op by_x_then_y("a.x < b.x || (a.x == b.x && a.y < b.y)");
  auto less = [](const point3& a, const point3& b) {
    return a.x < b.x || (a.x == b.x && a.y < b.y);
  };
  const auto before = cupar::jit::get_stats();
  for (std::size_t n : sizes()) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto keys = run_keys(n);
    std::vector<point3> pts(n);
    for (std::size_t i = 0; i < n; ++i)
      pts[i] = {static_cast<float>(i % 13), static_cast<float>((i * 7) % 11),
                static_cast<float>(i % 3)};
    std::vector<point3> want_sums, want_near;
    for (std::size_t i = 0; i < n; ++i) {
      const point3& p = pts[i];
      if (i == 0 || keys[i] != keys[i - 1]) {
        want_sums.push_back(p);
      } else {
        want_sums.back() = {want_sums.back().x + p.x, want_sums.back().y + p.y,
                            want_sums.back().z + p.z};
      }
      if (p.x * p.x + p.y * p.y < 50.0f) want_near.push_back(p);
    }
    cupar::device_buffer<std::uint32_t> d_keys(keys, s), d_keys_out(n, s);
    cupar::device_buffer<point3> d_pts(pts, s), d_out(n, s);
    cupar::device_buffer<std::size_t> d_count(1, s);
    cupar::reduce_by_key(d_keys.data(), d_pts.data(), d_keys_out.data(), d_out.data(),
                         d_count.data(), n, add, cupar::jit::equal_to, s);
    ASSERT_EQ(d_count.to_host()[0], want_sums.size());
    const auto sums = d_out.to_host(want_sums.size());
    for (std::size_t r = 0; r < sums.size(); ++r)
      ASSERT_TRUE(same_bytes(sums[r], want_sums[r])) << "run " << r;
    ASSERT_EQ(cupar::select_if_count(d_pts.data(), d_out.data(), n, op(near).param("r", 50.0f), s),
              want_near.size());
    const auto got_near = d_out.to_host(want_near.size());
    for (std::size_t i = 0; i < got_near.size(); ++i)
      ASSERT_TRUE(same_bytes(got_near[i], want_near[i])) << "selected " << i;
    auto sorted = pts;
    std::stable_sort(sorted.begin(), sorted.end(), less);
    cupar::device_buffer<point3> d_sorted(sorted, s);
    cupar::device_buffer<std::uint64_t> d_pos(n, s);
    cupar::lower_bound(d_sorted.data(), n, d_pts.data(), n, d_pos.data(), by_x_then_y, s);
    const auto pos = d_pos.to_host();
    for (std::size_t j = 0; j < n; ++j) {
      ASSERT_EQ(pos[j],
                static_cast<std::uint64_t>(
                    std::lower_bound(sorted.begin(), sorted.end(), pts[j], less) - sorted.begin()))
          << "needle " << j;
    }
  }
  const auto after = cupar::jit::get_stats();
  if (cupar::testing::precompiled_here("reduce_by_key<u32,s12a4>") &&
      cupar::testing::precompiled_here("select_if<s12a4>") &&
      cupar::testing::precompiled_here("binary_search<s12a4,u64>")) {
    EXPECT_EQ(after.kernel_compiles, before.kernel_compiles);
  }
}

// Records of 4-byte fields of a size that is not a multiple of 8 (28 bytes: seven floats; 60:
// fifteen) have no class of their own: their arrays are copied into 8-byte-aligned temporaries
// of the next 8-byte size (zero-padded), the class of that size serves every data-processing
// family (s32a8, s64a8: only the operators compile), and the outputs are copied back, no further
// than the counts the family wrote (what lies beyond them in the caller's arrays is untouched).
CUPAR_JIT_STRUCT(seven4, float count; float sum; float min; float max; float day; float a; float b;)
CUPAR_JIT_STRUCT(fifteen4, float v[15];)

namespace {

seven4 seven4_of(std::size_t i) {
  const float v = static_cast<float>((i * 37) % 101) - 50.0f;
  return {1.0f, v, v, v, static_cast<float>((i / 3) % 17), static_cast<float>(i % 7), -v};
}
seven4 merge_seven(const seven4& a, const seven4& b) {
  return {a.count + b.count,
          a.sum + b.sum,
          std::min(a.min, b.min),
          std::max(a.max, b.max),
          std::max(a.day, b.day),
          a.a + b.a,
          a.b + b.b};
}
const char* const merge_seven_text =
    "seven4{a.count + b.count, a.sum + b.sum, fminf(a.min, b.min), fmaxf(a.max, b.max), "
    "fmaxf(a.day, b.day), a.a + b.a, a.b + b.b}";

/// The bytes of d[count, n) are all `byte` (nothing written past the count).
template <class T>
bool untouched_after(const cupar::device_buffer<T>& d, std::size_t count, unsigned char byte) {
  const auto h = d.to_host();
  const auto* p = reinterpret_cast<const unsigned char*>(h.data());
  for (std::size_t i = count * sizeof(T); i < h.size() * sizeof(T); ++i)
    if (p[i] != byte) return false;
  return true;
}

}  // namespace

TEST(JitRecordClasses, RecordsOfAnyFourByteMultipleTakeThePaddedClass) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  const op merge(merge_seven_text);
  const op below("x.sum < t");
  const op negative("x.sum < 0.0f");
  const op small_a("x.a < 3.0f");
  const op same_day("a.day == b.day");
  const op by_day_then_a("a.day < b.day || (a.day == b.day && a.a < b.a)");
  auto less = [](const seven4& a, const seven4& b) {
    return a.day < b.day || (a.day == b.day && a.a < b.a);
  };
  bool classes = true;
  for (const char* set : {"reduce_by_key<u32,s32a8>", "scan_by_key_inclusive<u32,s32a8>",
                          "scan_by_key_exclusive<u32,s32a8>", "unique_by_key<u32,s32a8>",
                          "segmented_reduce<s32a8>", "select_if<s32a8>", "select_flagged<s32a8,u8>",
                          "three_way_partition<s32a8>", "unique<s32a8>", "binary_search<s32a8,u64>",
                          "reduce_by_key<u32,s64a8>", "select_if<s64a8>"}) {
    classes = classes && cupar::testing::precompiled_here(set);
  }
  const auto before = cupar::jit::get_stats();
  // Where the classes' sets are in this build, no call compiles kernels (the first of each
  // family is named).
  const auto compiled_nothing = [&](const char* what) {
    if (classes) {
      EXPECT_EQ(cupar::jit::get_stats().kernel_compiles, before.kernel_compiles) << what;
    }
  };
  for (std::size_t n : sizes()) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto keys = run_keys(n);
    std::vector<seven4> values(n);
    for (std::size_t i = 0; i < n; ++i)
      values[i] = seven4_of(i);
    // CPU: runs of keys, scans by key, segments (the runs), selections, partitions, day runs.
    std::vector<std::uint32_t> want_keys;
    std::vector<seven4> want_aggs, want_inclusive(n), want_exclusive(n), want_selected;
    std::vector<seven4> want_first, want_second, want_rest, want_unique;
    std::vector<std::int64_t> offsets{0};
    std::vector<std::uint8_t> flags(n);
    for (std::size_t i = 0; i < n; ++i) {
      const seven4& v = values[i];
      if (i == 0 || keys[i] != keys[i - 1]) {
        if (i != 0) offsets.push_back(static_cast<std::int64_t>(i));
        want_keys.push_back(keys[i]);
        want_aggs.push_back(v);
        want_inclusive[i] = v;
        want_exclusive[i] = seven4{};
      } else {
        want_aggs.back() = merge_seven(want_aggs.back(), v);
        want_inclusive[i] = merge_seven(want_inclusive[i - 1], v);
        want_exclusive[i] = merge_seven(want_exclusive[i - 1], values[i - 1]);
      }
      if (v.sum < 10.0f) want_selected.push_back(v);
      flags[i] = (i * 11) % 7 < 3 ? 1 : 0;
      if (v.sum < 0.0f) {
        want_first.push_back(v);
      } else if (v.a < 3.0f) {
        want_second.push_back(v);
      } else {
        want_rest.push_back(v);
      }
      if (i == 0 || v.day != values[i - 1].day) want_unique.push_back(v);
    }
    if (n != 0) offsets.push_back(static_cast<std::int64_t>(n));
    const std::size_t runs = want_keys.size();
    cupar::device_buffer<std::uint32_t> d_keys(keys, s), d_keys_out(n, s);
    cupar::device_buffer<seven4> d_values(values, s), d_out(n, s), d_second(n, s), d_rest(n, s);
    cupar::device_buffer<std::size_t> d_count(2, s);
    auto expect_records = [](const std::vector<seven4>& got, const std::vector<seven4>& want,
                             const char* what) {
      ASSERT_EQ(got.size(), want.size()) << what;
      for (std::size_t i = 0; i < want.size(); ++i)
        ASSERT_TRUE(same_bytes(got[i], want[i])) << what << ", record " << i;
    };
    // The by-key families: values of the record.
    d_out.fill_bytes(0x5A);
    cupar::reduce_by_key(d_keys.data(), d_values.data(), d_keys_out.data(), d_out.data(),
                         d_count.data(), n, merge, cupar::jit::equal_to, s);
    ASSERT_EQ(d_count.to_host()[0], runs);
    EXPECT_EQ(d_keys_out.to_host(runs), want_keys);
    expect_records(d_out.to_host(runs), want_aggs, "reduce_by_key");
    EXPECT_TRUE(untouched_after(d_out, runs, 0x5A)) << "reduce_by_key wrote past its runs";
    compiled_nothing("reduce_by_key");
    cupar::inclusive_scan_by_key(d_keys.data(), d_values.data(), d_out.data(), n, merge,
                                 cupar::jit::equal_to, s);
    expect_records(d_out.to_host(), want_inclusive, "inclusive scan by key");
    compiled_nothing("inclusive_scan_by_key");
    cupar::exclusive_scan_by_key(d_keys.data(), d_values.data(), d_out.data(), n, merge, seven4{},
                                 cupar::jit::equal_to, s);
    expect_records(d_out.to_host(), want_exclusive, "exclusive scan by key");
    compiled_nothing("exclusive_scan_by_key");
    std::vector<seven4> want_first_of_runs;
    for (std::size_t i = 0; i < n; ++i)
      if (i == 0 || keys[i] != keys[i - 1]) want_first_of_runs.push_back(values[i]);
    ASSERT_EQ(cupar::unique_by_key_count(d_keys.data(), d_values.data(), d_keys_out.data(),
                                         d_out.data(), n, cupar::jit::equal_to, s),
              runs);
    expect_records(d_out.to_host(runs), want_first_of_runs, "unique_by_key");
    compiled_nothing("unique_by_key");
    // The runs as segments, from an initial value.
    cupar::device_buffer<std::int64_t> d_offsets(offsets, s);
    cupar::segmented_reduce(d_values.data(), d_out.data(), n, runs, d_offsets.data(),
                            d_offsets.data() + 1, merge, seven4{}, s);
    std::vector<seven4> want_segments(runs);
    for (std::size_t r = 0; r < runs; ++r)
      want_segments[r] = merge_seven(seven4{}, want_aggs[r]);
    expect_records(d_out.to_host(runs), want_segments, "segmented_reduce");
    compiled_nothing("segmented_reduce");
    // Selections: by a predicate (untouched past the count), by flags in place, a three-way
    // partition into three arrays, unique by an equality on a field.
    d_out.fill_bytes(0x5A);
    ASSERT_EQ(
        cupar::select_if_count(d_values.data(), d_out.data(), n, op(below).param("t", 10.0f), s),
        want_selected.size());
    expect_records(d_out.to_host(want_selected.size()), want_selected, "select_if");
    EXPECT_TRUE(untouched_after(d_out, want_selected.size(), 0x5A)) << "select_if";
    compiled_nothing("select_if");
    std::vector<seven4> want_flagged;
    for (std::size_t i = 0; i < n; ++i)
      if (flags[i]) want_flagged.push_back(values[i]);
    cupar::device_buffer<std::uint8_t> d_flags(flags, s);
    cupar::device_buffer<seven4> d_work(values, s);
    ASSERT_EQ(cupar::select_flagged_count(d_work.data(), d_flags.data(), d_work.data(), n, s),
              want_flagged.size());
    expect_records(d_work.to_host(want_flagged.size()), want_flagged, "select_flagged in place");
    compiled_nothing("select_flagged");
    d_out.fill_bytes(0x11);
    d_second.fill_bytes(0x22);
    d_rest.fill_bytes(0x33);
    cupar::three_way_partition(d_values.data(), d_out.data(), d_second.data(), d_rest.data(),
                               d_count.data(), n, negative, small_a, s);
    const auto counts = d_count.to_host();
    ASSERT_EQ(counts[0], want_first.size());
    ASSERT_EQ(counts[1], want_second.size());
    expect_records(d_out.to_host(counts[0]), want_first, "three-way, first");
    expect_records(d_second.to_host(counts[1]), want_second, "three-way, second");
    expect_records(d_rest.to_host(want_rest.size()), want_rest, "three-way, rest");
    EXPECT_TRUE(untouched_after(d_out, counts[0], 0x11));
    EXPECT_TRUE(untouched_after(d_second, counts[1], 0x22));
    EXPECT_TRUE(untouched_after(d_rest, want_rest.size(), 0x33));
    compiled_nothing("three_way_partition");
    ASSERT_EQ(cupar::unique_count(d_values.data(), d_out.data(), n, same_day, s),
              want_unique.size());
    expect_records(d_out.to_host(want_unique.size()), want_unique, "unique");
    compiled_nothing("unique");
    // Searched by a comparator: the haystack and the needles are records.
    auto sorted = values;
    std::stable_sort(sorted.begin(), sorted.end(), less);
    cupar::device_buffer<seven4> d_sorted(sorted, s);
    cupar::device_buffer<std::uint64_t> d_pos(n, s);
    cupar::upper_bound(d_sorted.data(), n, d_values.data(), n, d_pos.data(), by_day_then_a, s);
    const auto pos = d_pos.to_host();
    for (std::size_t j = 0; j < n; ++j) {
      ASSERT_EQ(pos[j], static_cast<std::uint64_t>(
                            std::upper_bound(sorted.begin(), sorted.end(), values[j], less) -
                            sorted.begin()))
          << "needle " << j;
    }
    compiled_nothing("upper_bound");
    // Fifteen floats (60 bytes, class s64a8): reduced by key and selected.
    std::vector<fifteen4> rows(n);
    std::vector<fifteen4> want_rows, want_kept;
    for (std::size_t i = 0; i < n; ++i) {
      for (int f = 0; f < 15; ++f)
        rows[i].v[f] = static_cast<float>((i + static_cast<std::size_t>(f) * 3) % 9);
      if (i == 0 || keys[i] != keys[i - 1]) {
        want_rows.push_back(rows[i]);
      } else {
        for (int f = 0; f < 15; ++f)
          want_rows.back().v[f] += rows[i].v[f];
      }
      if (rows[i].v[14] < 4.0f) want_kept.push_back(rows[i]);
    }
    cupar::device_buffer<fifteen4> d_rows(rows, s), d_rows_out(n, s);
    cupar::reduce_by_key(
        d_keys.data(), d_rows.data(), d_keys_out.data(), d_rows_out.data(), d_count.data(), n,
        op("[](fifteen4 a, fifteen4 b) { for (int f = 0; f < 15; ++f) a.v[f] += b.v[f]; "
           "return a; }"),
        cupar::jit::equal_to, s);
    ASSERT_EQ(d_count.to_host()[0], runs);
    const auto got_rows = d_rows_out.to_host(runs);
    for (std::size_t r = 0; r < runs; ++r)
      ASSERT_TRUE(same_bytes(got_rows[r], want_rows[r])) << "fifteen floats, run " << r;
    compiled_nothing("reduce_by_key, fifteen floats");
    ASSERT_EQ(cupar::select_if_count(d_rows.data(), d_rows_out.data(), n, op("x.v[14] < 4.0f"), s),
              want_kept.size());
    const auto kept = d_rows_out.to_host(want_kept.size());
    for (std::size_t i = 0; i < kept.size(); ++i)
      ASSERT_TRUE(same_bytes(kept[i], want_kept[i])) << "fifteen floats, kept " << i;
    compiled_nothing("select_if, fifteen floats");
  }
  EXPECT_GT(cupar::jit::get_stats().operator_compiles, before.operator_compiles);
}

// group_by's accumulators of seven floats (28 bytes): padded to the class s32a8 in group_by's own
// routes (the hash method, the table method, the sort route through reduce_by_key), written
// back to exact-size buffers or the caller's arrays; the same groups as the CPU's.
TEST(JitRecordClasses, GroupByAccumulatorsOfSevenFloatsTakeThePaddedClass) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  const op merge(merge_seven_text);
  const bool classes = cupar::testing::precompiled_here("group_by<u32,s32a8>") &&
                       cupar::testing::precompiled_here("reduce_by_key<u32,s32a8>");
  const auto before = cupar::jit::get_stats();
  for (std::size_t n : sizes()) {
    for (std::size_t groups : {std::size_t(100), n / 40 + 1, n / 2 + 1}) {
      SCOPED_TRACE("n = " + std::to_string(n) + ", groups drawn from " + std::to_string(groups));
      std::vector<std::uint32_t> keys(n);
      std::vector<seven4> values(n);
      std::map<std::uint32_t, seven4> want;
      for (std::size_t i = 0; i < n; ++i) {
        keys[i] = static_cast<std::uint32_t>((i * 2654435761u) % groups);
        values[i] = seven4_of(i);
        auto [it, fresh] = want.emplace(keys[i], values[i]);
        if (!fresh) it->second = merge_seven(it->second, values[i]);
      }
      cupar::device_buffer<std::uint32_t> d_keys(keys, s), d_keys_out(n, s);
      cupar::device_buffer<seven4> d_values(values, s), d_values_out(n, s);
      for (auto method : {cupar::group_by_method::automatic, cupar::group_by_method::hash,
                          cupar::group_by_method::sort}) {
        SCOPED_TRACE("method " + std::to_string(static_cast<int>(method)));
        cupar::group_by_options o;
        o.method = method;
        o.sort_by_key = true;
        const auto g = cupar::group_by(d_keys.data(), d_values.data(), n, merge, s, o);
        ASSERT_EQ(g.size(), want.size());
        const auto got_keys = g.keys.to_host();
        const auto got = g.values.to_host();
        std::size_t r = 0;
        for (const auto& [k, w] : want) {
          ASSERT_EQ(got_keys[r], k);
          ASSERT_TRUE(same_bytes(got[r], w)) << "group " << k;
          ++r;
        }
        // The caller's arrays, unsorted: the groups in any order, nothing past them written.
        o.sort_by_key = false;
        d_values_out.fill_bytes(0x5A);
        const std::size_t count = cupar::group_by(d_keys.data(), d_values.data(), d_keys_out.data(),
                                                  d_values_out.data(), n, n, merge, s, o);
        ASSERT_EQ(count, want.size());
        const auto out_keys = d_keys_out.to_host(count);
        const auto out = d_values_out.to_host(count);
        for (std::size_t i = 0; i < count; ++i) {
          const auto it = want.find(out_keys[i]);
          ASSERT_NE(it, want.end());
          ASSERT_TRUE(same_bytes(out[i], it->second)) << "group " << out_keys[i];
        }
        EXPECT_TRUE(untouched_after(d_values_out, count, 0x5A));
      }
    }
  }
  if (classes) {
    EXPECT_EQ(cupar::jit::get_stats().kernel_compiles, before.kernel_compiles);
  }
}

// group_by on struct keys of seven 4-byte columns (28 bytes, no join set of their own) under a
// run-time hash and equality: the keys' rows are copied to 32-byte strides for the class
// s32a8's join kernels, and the groups' keys copied back; with seven-float accumulators (padded
// too) and with float sums. The same groups as the CPU's.
CUPAR_JIT_STRUCT(seven_cols, unsigned a; unsigned b; unsigned c; unsigned d; unsigned e; unsigned f;
                 unsigned g;)

TEST(JitRecordClasses, GroupByStructKeysOfSevenColumnsTakeThePaddedClass) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  const op hash("(static_cast<unsigned long long>(x.a) << 32) ^ (x.b * 2654435761u) ^ x.g");
  const op same(
      "a.a == b.a && a.b == b.b && a.c == b.c && a.d == b.d && a.e == b.e && a.f == b.f && "
      "a.g == b.g");
  const op merge(merge_seven_text);
  const auto before = cupar::jit::get_stats();
  auto less = [](const seven_cols& x, const seven_cols& y) {
    return std::memcmp(&x, &y, sizeof(seven_cols)) < 0;
  };
  for (std::size_t n : sizes()) {
    for (std::size_t groups : {std::size_t(3), n / 5 + 1}) {
      SCOPED_TRACE("n = " + std::to_string(n) + ", groups drawn from " + std::to_string(groups));
      std::vector<seven_cols> keys(n);
      std::vector<seven4> values(n);
      std::vector<float> sums(n);
      std::map<seven_cols, std::pair<seven4, float>, decltype(less)> want(less);
      for (std::size_t i = 0; i < n; ++i) {
        const auto g = static_cast<unsigned>((i * 7919u) % groups);
        keys[i] = {g, g / 3, g ^ 0x55u, g * 7u, ~g, g + 11u, g >> 2};
        values[i] = seven4_of(i);
        sums[i] = static_cast<float>(i % 9);
        auto [it, fresh] = want.emplace(keys[i], std::make_pair(values[i], sums[i]));
        if (!fresh) {
          it->second.first = merge_seven(it->second.first, values[i]);
          it->second.second += sums[i];
        }
      }
      cupar::device_buffer<seven_cols> d_keys(keys, s);
      cupar::device_buffer<seven4> d_values(values, s);
      cupar::device_buffer<float> d_sums(sums, s);
      const auto g = cupar::group_by(d_keys.data(), d_values.data(), n, hash, same, merge, s);
      ASSERT_EQ(g.size(), want.size());
      const auto got_keys = g.keys.to_host();
      const auto got = g.values.to_host();
      for (std::size_t i = 0; i < got_keys.size(); ++i) {
        const auto it = want.find(got_keys[i]);
        ASSERT_NE(it, want.end()) << "group " << i << " has a key of no row";
        ASSERT_TRUE(same_bytes(got[i], it->second.first)) << "group " << i;
      }
      const auto f =
          cupar::group_by(d_keys.data(), d_sums.data(), n, hash, same, cupar::jit::plus, s);
      ASSERT_EQ(f.size(), want.size());
      const auto f_keys = f.keys.to_host();
      const auto f_sums = f.values.to_host();
      for (std::size_t i = 0; i < f_keys.size(); ++i) {
        const auto it = want.find(f_keys[i]);
        ASSERT_NE(it, want.end());
        ASSERT_EQ(f_sums[i], it->second.second) << "group " << i;
      }
    }
  }
  if (cupar::testing::precompiled_here("join<s32a8>") &&
      cupar::testing::precompiled_here("group_by<u32,s32a8>")) {
    EXPECT_EQ(cupar::jit::get_stats().kernel_compiles, before.kernel_compiles);
  }
}

// Records of 64, 96 and 128 bytes (the classes s64a8, s96a8, s128a8) through a transform's quick
// (out-of-line) build: the 64-byte records walk a block's tiles through two shared-memory buffers,
// the 96- and 128-byte ones, two tiles of which do not fit in a block's 48 KB, take a tile a
// block (families/transform.cu). Sizes of one tile, of several tiles a block, odd.
CUPAR_JIT_STRUCT(rec64, double v[8];)
CUPAR_JIT_STRUCT(rec96, double v[12];)
CUPAR_JIT_STRUCT(rec128, double v[16];)

namespace {

template <class R>
void check_reversed_records(const char* text, owned_stream& s) {
  constexpr int k = sizeof(R) / sizeof(double);
  for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(257), std::size_t(4353),
                        cupar::testing::scaled(std::size_t(300001)),
                        cupar::testing::scaled(std::size_t(1) << 21)}) {
    SCOPED_TRACE("record of " + std::to_string(sizeof(R)) + " bytes, n = " + std::to_string(n));
    std::vector<R> h(n), want(n);
    for (std::size_t i = 0; i < n; ++i) {
      for (int j = 0; j < k; ++j) {
        h[i].v[j] = static_cast<double>((i * 31 + static_cast<std::size_t>(j) * 7) % 1009) - 500.0;
      }
      for (int j = 0; j < k; ++j)
        want[i].v[j] = h[i].v[k - 1 - j] * 2.0 + j;
    }
    cupar::device_buffer<R> in(h, s), out(n, s);
    out.fill_bytes(0xAB);
    cupar::transform(in.data(), out.data(), n, op(text), s);
    const std::vector<R> got = out.to_host();
    for (std::size_t i = 0; i < n; ++i)
      ASSERT_TRUE(same_bytes(got[i], want[i])) << "record " << i;
  }
}

}  // namespace

TEST(JitRecordClasses, LargeRecordsThroughTheQuickTransform) {
  CUPAR_REQUIRE_GPU();
  struct restore_mode {
    cupar::jit::mode m = cupar::jit::get_mode();
    ~restore_mode() { cupar::jit::set_mode(m); }
  } restore;
  cupar::jit::set_mode(cupar::jit::mode::fast);  // the out-of-line kernels, not the inlined ones
  owned_stream s;
  check_reversed_records<rec64>(
      "[](rec64 x) { rec64 r; for (int j = 0; j < 8; ++j) r.v[j] = x.v[7 - j] * 2.0 + j; "
      "return r; }",
      s);
  check_reversed_records<rec96>(
      "[](rec96 x) { rec96 r; for (int j = 0; j < 12; ++j) r.v[j] = x.v[11 - j] * 2.0 + j; "
      "return r; }",
      s);
  check_reversed_records<rec128>(
      "[](rec128 x) { rec128 r; for (int j = 0; j < 16; ++j) r.v[j] = x.v[15 - j] * 2.0 + j; "
      "return r; }",
      s);
}
