// cupar tests: vectorised binary search conformance (lower_bound, upper_bound), include after
// `using Ops = ...;`. The reference is std::lower_bound / std::upper_bound per needle.
//
// What the functions promise, and these tests check: every needle's position in the sorted range
// under the comparator (default `<`, or a given one: descending ranges with `greater`, structs by
// a key), needles below, above, between and equal to every element, duplicates (lower_bound finds
// the first of equal elements, upper_bound one past the last), empty ranges and no needles, 4- and
// 8-byte signed and unsigned positions, and the documented floating-point rules: -0.0 == +0.0,
// a NaN needle gets 0 from lower_bound and n from upper_bound under `<`, and a comparator that
// orders NaN last searches ranges holding NaNs.
#pragma once

#include "common.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

namespace cupar::testing {

namespace search_ref {

/// A sorted range with duplicates: values over a small range (integers 0..k-1 in steps, floats
/// with repeated values), then sorted by `<`.
template <class T>
std::vector<T> sorted_range(std::size_t n, std::uint64_t seed) {
  std::vector<T> v;
  if constexpr (std::is_floating_point_v<T>) {
    v = random_values<T>(n, seed, -50.0, 50.0);
    for (std::size_t i = 0; i < n; i += 3)
      v[i] = std::round(v[i]);
  } else if constexpr (std::is_signed_v<T>) {
    v = random_values<T>(n, seed, -60, 60);
  } else {
    v = random_values<T>(n, seed, 2, 120);
  }
  std::sort(v.begin(), v.end());
  return v;
}

/// Needles: the range's own elements, values between and beside them, below the smallest and
/// above the largest, the type's extremes.
template <class T>
std::vector<T> needles(const std::vector<T>& sorted, std::size_t m, std::uint64_t seed) {
  std::vector<T> v;
  if constexpr (std::is_floating_point_v<T>) {
    v = random_values<T>(m, seed, -70.0, 70.0);
  } else if constexpr (std::is_signed_v<T>) {
    v = random_values<T>(m, seed, -80, 80);
  } else {
    v = random_values<T>(m, seed, 0, 130);
  }
  const auto pick = random_values<std::size_t>(m, seed + 1, 0, 1000000);
  for (std::size_t j = 0; j < m; ++j) {
    if (!sorted.empty() && pick[j] % 3 == 0) v[j] = sorted[pick[j] % sorted.size()];
    if (pick[j] % 97 == 1) v[j] = std::numeric_limits<T>::lowest();
    if (pick[j] % 97 == 2) v[j] = std::numeric_limits<T>::max();
  }
  return v;
}

template <class Index, class T, class Comp>
std::vector<Index> bounds(const std::vector<T>& sorted, const std::vector<T>& needles, bool upper,
                          Comp comp) {
  std::vector<Index> out(needles.size());
  for (std::size_t j = 0; j < needles.size(); ++j) {
    const auto it = upper ? std::upper_bound(sorted.begin(), sorted.end(), needles[j], comp)
                          : std::lower_bound(sorted.begin(), sorted.end(), needles[j], comp);
    out[j] = static_cast<Index>(it - sorted.begin());
  }
  return out;
}

template <class T>
struct less_ref {
  bool operator()(const T& a, const T& b) const { return a < b; }
};
template <class T>
struct greater_ref {
  bool operator()(const T& a, const T& b) const { return b < a; }
};

}  // namespace search_ref

#if defined(CUPAR_SUITE_TYPES)
using search_types = CUPAR_SUITE_TYPES;
#else
using search_types = arithmetic_types;
#endif

template <class T>
class Search : public ::testing::Test {};
TYPED_TEST_SUITE(Search, search_types, type_names);

TYPED_TEST(Search, BoundsMatchTheStandardLibrary) {
  CUPAR_REQUIRE_GPU();
  using T = TypeParam;
  owned_stream stream;
  for (std::size_t n :
       scaled({std::size_t(0), std::size_t(1), std::size_t(2), std::size_t(33), std::size_t(1000),
               std::size_t(65537), (std::size_t(1) << 20) + 5})) {
    for (std::size_t m :
         scaled({std::size_t(0), std::size_t(1), std::size_t(1000), std::size_t(100003)})) {
      SCOPED_TRACE("n = " + std::to_string(n) + ", m = " + std::to_string(m));
      const auto sorted = search_ref::sorted_range<T>(n, 11 + n);
      const auto needles = search_ref::needles<T>(sorted, m, 12 + m + n);
      device_buffer<T> d_sorted(sorted, stream), d_needles(needles, stream);
      device_buffer<std::uint32_t> out(m, stream);
      const auto less = search_ref::less_ref<T>{};
      const auto want_lower = search_ref::bounds<std::uint32_t>(sorted, needles, false, less);
      const auto want_upper = search_ref::bounds<std::uint32_t>(sorted, needles, true, less);
      // The default comparator (served by the library) and a given one.
      out.fill_bytes(0xEE);
      cupar::lower_bound(d_sorted.data(), n, d_needles.data(), m, out.data(), stream);
      EXPECT_EQ(out.to_host(), want_lower);
      out.fill_bytes(0xEE);
      cupar::upper_bound(d_sorted.data(), n, d_needles.data(), m, out.data(), stream);
      EXPECT_EQ(out.to_host(), want_upper);
      out.fill_bytes(0xEE);
      cupar::lower_bound(d_sorted.data(), n, d_needles.data(), m, out.data(),
                         Ops::template less<T>(), stream);
      EXPECT_EQ(out.to_host(), want_lower);
      out.fill_bytes(0xEE);
      cupar::upper_bound(d_sorted.data(), n, d_needles.data(), m, out.data(),
                         Ops::template less<T>(), stream);
      EXPECT_EQ(out.to_host(), want_upper);
    }
  }
}

TYPED_TEST(Search, EqualRangeIsLowerAndUpperBound) {
  CUPAR_REQUIRE_GPU();
  using T = TypeParam;
  owned_stream stream;
  for (std::size_t n :
       scaled({std::size_t(0), std::size_t(1), std::size_t(4097), (std::size_t(1) << 20) + 5})) {
    for (std::size_t m :
         scaled({std::size_t(0), std::size_t(1), std::size_t(33), std::size_t(100003)})) {
      SCOPED_TRACE("n = " + std::to_string(n) + ", m = " + std::to_string(m));
      const auto sorted = search_ref::sorted_range<T>(n, 31 + n);
      const auto needles = search_ref::needles<T>(sorted, m, 32 + m + n);
      device_buffer<T> d_sorted(sorted, stream), d_needles(needles, stream);
      device_buffer<std::int64_t> lower(m, stream), upper(m, stream);
      const auto less = search_ref::less_ref<T>{};
      const auto want_lower = search_ref::bounds<std::int64_t>(sorted, needles, false, less);
      const auto want_upper = search_ref::bounds<std::int64_t>(sorted, needles, true, less);
      lower.fill_bytes(0xEE);
      upper.fill_bytes(0xEE);
      cupar::equal_range(d_sorted.data(), n, d_needles.data(), m, lower.data(), upper.data(),
                         stream);
      EXPECT_EQ(lower.to_host(), want_lower);
      EXPECT_EQ(upper.to_host(), want_upper);
      lower.fill_bytes(0xEE);
      upper.fill_bytes(0xEE);
      cupar::equal_range(d_sorted.data(), n, d_needles.data(), m, lower.data(), upper.data(),
                         Ops::template less<T>(), stream);
      EXPECT_EQ(lower.to_host(), want_lower);
      EXPECT_EQ(upper.to_host(), want_upper);
    }
  }
  // Outputs that overlap each other are refused before anything is written.
  device_buffer<T> d_sorted(std::vector<T>{T(1), T(2)}, stream);
  device_buffer<std::int64_t> out(3, stream);
  out.fill_bytes(0x11);
  EXPECT_THROW(cupar::equal_range(d_sorted.data(), 2, d_sorted.data(), 2, out.data(),
                                  out.data() + 1, Ops::template less<T>(), stream),
               std::invalid_argument);
  EXPECT_THROW(cupar::equal_range(d_sorted.data(), 2, d_sorted.data(), 2, out.data(),
                                  static_cast<std::int64_t*>(nullptr), stream),
               std::invalid_argument);
  EXPECT_EQ(out.to_host(), std::vector<std::int64_t>(3, 0x1111111111111111ll));
}

TYPED_TEST(Search, DescendingRangesWithGreater) {
  CUPAR_REQUIRE_GPU();
  using T = TypeParam;
  owned_stream stream;
  const std::size_t n = 50001, m = 30001;
  auto sorted = search_ref::sorted_range<T>(n, 21);
  std::reverse(sorted.begin(), sorted.end());
  const auto needles = search_ref::needles<T>(sorted, m, 22);
  device_buffer<T> d_sorted(sorted, stream), d_needles(needles, stream);
  device_buffer<std::uint64_t> out(m, stream);
  const auto greater = search_ref::greater_ref<T>{};
  cupar::lower_bound(d_sorted.data(), n, d_needles.data(), m, out.data(),
                     Ops::template greater<T>(), stream);
  EXPECT_EQ(out.to_host(), search_ref::bounds<std::uint64_t>(sorted, needles, false, greater));
  cupar::upper_bound(d_sorted.data(), n, d_needles.data(), m, out.data(),
                     Ops::template greater<T>(), stream);
  EXPECT_EQ(out.to_host(), search_ref::bounds<std::uint64_t>(sorted, needles, true, greater));
}

TYPED_TEST(Search, DuplicatesAndNeedlesOutsideTheRange) {
  CUPAR_REQUIRE_GPU();
  using T = TypeParam;
  owned_stream stream;
  // 1 1 1 5 5 9: below, each value, between, above.
  const std::vector<T> sorted = {T(1), T(1), T(1), T(5), T(5), T(9)};
  const std::vector<T> needles = {T(0), T(1), T(3), T(5), T(7), T(9), T(10), T(1)};
  device_buffer<T> d_sorted(sorted, stream), d_needles(needles, stream);
  device_buffer<std::int32_t> out(needles.size(), stream);
  cupar::lower_bound(d_sorted.data(), sorted.size(), d_needles.data(), needles.size(), out.data(),
                     stream);
  EXPECT_EQ(out.to_host(), (std::vector<std::int32_t>{0, 0, 3, 3, 5, 5, 6, 0}));
  cupar::upper_bound(d_sorted.data(), sorted.size(), d_needles.data(), needles.size(), out.data(),
                     stream);
  EXPECT_EQ(out.to_host(), (std::vector<std::int32_t>{0, 3, 3, 5, 5, 6, 6, 3}));
}

TYPED_TEST(Search, EveryPositionType) {
  CUPAR_REQUIRE_GPU();
  using T = TypeParam;
  owned_stream stream;
  const std::size_t n = 4097, m = 999;
  const auto sorted = search_ref::sorted_range<T>(n, 31);
  const auto needles = search_ref::needles<T>(sorted, m, 32);
  device_buffer<T> d_sorted(sorted, stream), d_needles(needles, stream);
  const auto less = search_ref::less_ref<T>{};
  {
    device_buffer<std::int32_t> out(m, stream);
    cupar::upper_bound(d_sorted.data(), n, d_needles.data(), m, out.data(), stream);
    EXPECT_EQ(out.to_host(), search_ref::bounds<std::int32_t>(sorted, needles, true, less));
  }
  {
    device_buffer<std::int64_t> out(m, stream);
    cupar::lower_bound(d_sorted.data(), n, d_needles.data(), m, out.data(), Ops::template less<T>(),
                       stream);
    EXPECT_EQ(out.to_host(), search_ref::bounds<std::int64_t>(sorted, needles, false, less));
  }
  {
    device_buffer<std::size_t> out(m, stream);
    cupar::lower_bound(d_sorted.data(), n, d_needles.data(), m, out.data(), stream);
    EXPECT_EQ(out.to_host(), search_ref::bounds<std::size_t>(sorted, needles, false, less));
  }
}

TYPED_TEST(Search, BadArgumentsThrowBeforeAnyWorkAndTheNextCallWorks) {
  using T = TypeParam;
  const cupar::stream_ref s = cupar::stream_ref::legacy_default();
  T a[8] = {};
  std::uint32_t out[8] = {};
  const T* null_t = nullptr;
  CUPAR_EXPECT_THROW_WITH(cupar::lower_bound(null_t, 3, a, 2, out, s), std::invalid_argument,
                          "cupar::lower_bound: d_sorted is null but n = 3");
  CUPAR_EXPECT_THROW_WITH(cupar::upper_bound(a, 3, null_t, 2, out, Ops::template less<T>(), s),
                          std::invalid_argument, "cupar::upper_bound: d_needles is null but m = 2");
  CUPAR_EXPECT_THROW_WITH(cupar::lower_bound(a, 3, a, 2, static_cast<std::uint32_t*>(nullptr), s),
                          std::invalid_argument, "d_out is null but m = 2");
  CUPAR_EXPECT_THROW_WITH(cupar::lower_bound(a, 8, a, 2, reinterpret_cast<std::uint32_t*>(a), s),
                          std::invalid_argument, "overlap");
  // Positions up to n must fit the index type (checked before the arrays are touched).
  std::int32_t small[2] = {};
  CUPAR_EXPECT_THROW_WITH(
      cupar::upper_bound(a, std::size_t(1) << 31, a, 2, small, Ops::template less<T>(), s),
      std::invalid_argument, "do not fit the index type");
  if (!gpu_available()) return;
  owned_stream stream;
  const std::vector<T> h = {T(1), T(2), T(3)};
  device_buffer<T> d(h, stream);
  device_buffer<std::uint32_t> o(3, stream);
  cupar::upper_bound(d.data(), 3, d.data(), 3, o.data(), stream);
  EXPECT_EQ(o.to_host(), (std::vector<std::uint32_t>{1, 2, 3}));
}

#if !defined(CUPAR_SUITE_UNTYPED) || CUPAR_SUITE_UNTYPED

TEST(SearchFloat, ZerosAreEqualAndNaNFollowsTheDocumentedRules) {
  CUPAR_REQUIRE_GPU();
  owned_stream stream;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> sorted = {-inf, -2.0f, -0.0f, 0.0f, -0.0f, 3.0f, inf};
  const std::vector<float> needles = {0.0f, -0.0f, nan, -nan, inf, -inf};
  device_buffer<float> d_sorted(sorted, stream), d_needles(needles, stream);
  device_buffer<std::uint32_t> out(needles.size(), stream);
  cupar::lower_bound(d_sorted.data(), sorted.size(), d_needles.data(), needles.size(), out.data(),
                     stream);
  // Zeros: the first zero whatever its sign; NaN: 0 from lower_bound, n from upper_bound.
  EXPECT_EQ(out.to_host(), (std::vector<std::uint32_t>{2, 2, 0, 0, 6, 0}));
  cupar::upper_bound(d_sorted.data(), sorted.size(), d_needles.data(), needles.size(), out.data(),
                     Ops::template less<float>(), stream);
  EXPECT_EQ(out.to_host(), (std::vector<std::uint32_t>{5, 5, 7, 7, 7, 1}));
  // A comparator ordering NaN after everything searches a range with NaNs at its end.
  const std::vector<float> with_nan = {-1.0f, 0.0f, 2.0f, 2.0f, nan, nan};
  const std::vector<float> probes = {nan, 2.0f, 5.0f, -3.0f};
  device_buffer<float> d_with_nan(with_nan, stream), d_probes(probes, stream);
  device_buffer<std::uint32_t> o(probes.size(), stream);
  cupar::lower_bound(d_with_nan.data(), with_nan.size(), d_probes.data(), probes.size(), o.data(),
                     Ops::template nan_last_less<float>(), stream);
  EXPECT_EQ(o.to_host(), (std::vector<std::uint32_t>{4, 2, 4, 0}));
  cupar::upper_bound(d_with_nan.data(), with_nan.size(), d_probes.data(), probes.size(), o.data(),
                     Ops::template nan_last_less<float>(), stream);
  EXPECT_EQ(o.to_host(), (std::vector<std::uint32_t>{6, 4, 4, 0}));
}

TEST(SearchStruct, RecordsByKey) {
  CUPAR_REQUIRE_GPU();
  owned_stream stream;
  const std::size_t n = 20011, m = 7001;
  const auto keys = search_ref::sorted_range<float>(n, 41);
  std::vector<record> sorted(n), needles(m);
  for (std::size_t i = 0; i < n; ++i)
    sorted[i] = {keys[i], static_cast<std::uint32_t>(i)};
  const auto probe_keys = search_ref::needles<float>(keys, m, 42);
  for (std::size_t j = 0; j < m; ++j)
    needles[j] = {probe_keys[j], 0u};
  const auto by_key = [](const record& a, const record& b) { return a.key < b.key; };
  device_buffer<record> d_sorted(sorted, stream), d_needles(needles, stream);
  device_buffer<std::uint32_t> out(m, stream);
  cupar::lower_bound(d_sorted.data(), n, d_needles.data(), m, out.data(), Ops::record_less(),
                     stream);
  EXPECT_EQ(out.to_host(), search_ref::bounds<std::uint32_t>(sorted, needles, false, by_key));
  cupar::upper_bound(d_sorted.data(), n, d_needles.data(), m, out.data(), Ops::record_less(),
                     stream);
  EXPECT_EQ(out.to_host(), search_ref::bounds<std::uint32_t>(sorted, needles, true, by_key));
}

#endif  // CUPAR_SUITE_UNTYPED

}  // namespace cupar::testing
