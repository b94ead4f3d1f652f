// cupar tests: stream compaction and partitioning conformance (select_if, select_flagged,
// partition, three_way_partition, unique), include after `using Ops = ...;`. The references are
// the C++ standard library's (copy_if, stable_partition, unique_copy) on the same data.
//
// What the families promise, and these tests check: selection keeps input order (stable); the
// count is written for every n, 0 included; nothing past the selected items is written (outputs
// are poisoned first); partition puts the rejected items after the selected ones in reverse input
// order; unique keeps the first of each run of equal consecutive items, with NaN != NaN (each NaN
// is its own run) and -0.0 == +0.0 (the first zero of a run is kept).
//
// Splitting: CUPAR_SUITE_TYPES / CUPAR_SUITE_UNTYPED as in scan_suite.hpp.
#pragma once

#include "common.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <stdexcept>
#include <vector>

namespace cupar::testing {

#if defined(CUPAR_SUITE_TYPES)
using select_types = CUPAR_SUITE_TYPES;
#else
using select_types = arithmetic_types;
#endif

namespace select_ref {

/// Values over a small range so that thresholds select predictable fractions and unique finds
/// runs: integers in [0, 99], floating point in [0, 100).
template <class T>
std::vector<T> values(std::size_t n, std::uint64_t seed) {
  return random_values<T>(n, seed, 0, 99);
}

/// Runs of equal values of random lengths (1 to max_run), for unique.
template <class T>
std::vector<T> runs(std::size_t n, std::uint64_t seed, int max_run) {
  std::vector<T> v(n);
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> len(1, max_run), val(0, 9);
  for (std::size_t i = 0; i < n;) {
    const T x = static_cast<T>(val(rng));
    for (int k = len(rng); k > 0 && i < n; --k)
      v[i++] = x;
  }
  return v;
}

template <class T>
std::vector<T> below(const std::vector<T>& in, T t) {
  std::vector<T> out;
  std::copy_if(in.begin(), in.end(), std::back_inserter(out), [&](T x) { return x < t; });
  return out;
}

/// Selected items in input order, then the rejected ones in reverse input order.
template <class T>
std::vector<T> partitioned(const std::vector<T>& in, T t) {
  std::vector<T> out = below(in, t);
  for (auto it = in.rbegin(); it != in.rend(); ++it) {
    if (!(*it < t)) out.push_back(*it);
  }
  return out;
}

/// Copies `got[0, count)` for comparison, after checking that the rest of the output still holds
/// the poison byte it was filled with.
template <class T>
::testing::AssertionResult untouched_after(const std::vector<T>& got, std::size_t count,
                                           unsigned char poison) {
  if (count > got.size()) {
    return ::testing::AssertionFailure()
           << "count " << count << " exceeds the output's " << got.size() << " items";
  }
  const auto* bytes = reinterpret_cast<const unsigned char*>(got.data());
  for (std::size_t i = count * sizeof(T); i < got.size() * sizeof(T); ++i) {
    if (bytes[i] != poison) {
      return ::testing::AssertionFailure()
             << "byte " << i << " after the " << count << " selected items was written";
    }
  }
  return ::testing::AssertionSuccess();
}

template <class T>
std::vector<T> head(const std::vector<T>& v, std::size_t count) {
  return std::vector<T>(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(count));
}

}  // namespace select_ref

template <class T>
class Select : public ::testing::Test {};
TYPED_TEST_SUITE(Select, select_types, type_names);

TYPED_TEST(Select, SelectIfKeepsInputOrderAtEverySizeAndSelectivity) {
  CUPAR_REQUIRE_GPU();
  using T = TypeParam;
  owned_stream stream;
  for (std::size_t n : standard_sizes()) {
    const auto h = select_ref::values<T>(n, 3 + n);
    device_buffer<T> in(h, stream), out(n, stream);
    device_buffer<std::size_t> count(1, stream);
    // Nothing, a tenth, half, everything (every value is below 100).
    for (T t : {T(0), T(10), T(50), T(100)}) {
      SCOPED_TRACE("n = " + std::to_string(n) + ", x < " + printable(t));
      out.fill_bytes(0xA5);
      count.fill_bytes(0xFF);
      cupar::select_if(in.data(), out.data(), count.data(), n, Ops::template less_than<T>(t),
                       stream);
      const std::size_t c = count.to_host()[0];
      const auto want = select_ref::below(h, t);
      ASSERT_EQ(c, want.size());
      const auto got = out.to_host();
      EXPECT_TRUE(bitwise_equal(select_ref::head(got, c), want));
      EXPECT_TRUE(select_ref::untouched_after(got, c, 0xA5));
    }
  }
}

TYPED_TEST(Select, CountFormsReturnTheCountToTheHost) {
  CUPAR_REQUIRE_GPU();
  using T = TypeParam;
  owned_stream stream;
  for (std::size_t n : scaled({std::size_t(0), std::size_t(1), std::size_t(4097), std::size_t(1) << 20})) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto h = select_ref::values<T>(n, 5 + n);
    device_buffer<T> in(h, stream), out(n, stream);
    const T t = T(30);
    const auto want = select_ref::below(h, t);
    EXPECT_EQ(
        cupar::select_if_count(in.data(), out.data(), n, Ops::template less_than<T>(t), stream),
        want.size());
    EXPECT_TRUE(bitwise_equal(out.to_host(want.size()), want));
    EXPECT_EQ(
        cupar::partition_count(in.data(), out.data(), n, Ops::template less_than<T>(t), stream),
        want.size());
    EXPECT_TRUE(bitwise_equal(out.to_host(), select_ref::partitioned(h, t)));
  }
}

TYPED_TEST(Select, SelectIfInPlaceCompactsTheInput) {
  CUPAR_REQUIRE_GPU();
  using T = TypeParam;
  owned_stream stream;
  for (std::size_t n : scaled({std::size_t(1), std::size_t(33), std::size_t(4353), std::size_t(65537),
                        (std::size_t(1) << 22) + 7})) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto h = select_ref::values<T>(n, 7 + n);
    device_buffer<T> data(h, stream);
    const T t = T(60);
    const std::size_t c =
        cupar::select_if_count(data.data(), data.data(), n, Ops::template less_than<T>(t), stream);
    const auto want = select_ref::below(h, t);
    ASSERT_EQ(c, want.size());
    EXPECT_TRUE(bitwise_equal(data.to_host(c), want));
  }
}

TYPED_TEST(Select, SelectFlaggedTakesByteIntAndBoolFlags) {
  CUPAR_REQUIRE_GPU();
  using T = TypeParam;
  owned_stream stream;
  for (std::size_t n : standard_sizes()) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto h = select_ref::values<T>(n, 9 + n);
    const auto f8 = random_values<std::uint8_t>(n, 10 + n, 0, 3);  // 0 rejects; 1..3 select
    std::vector<int> f32(f8.begin(), f8.end());
    for (auto& f : f32)
      f = f == 0 ? 0 : -f;  // non-zero, negative included, selects
    std::unique_ptr<bool[]> fb(new bool[n + 1]);
    for (std::size_t i = 0; i < n; ++i)
      fb[i] = f8[i] != 0;
    std::vector<T> want;
    for (std::size_t i = 0; i < n; ++i)
      if (f8[i] != 0) want.push_back(h[i]);
    device_buffer<T> in(h, stream), out(n, stream);
    device_buffer<std::uint8_t> d8(f8, stream);
    device_buffer<int> d32(f32, stream);
    device_buffer<bool> db(fb.get(), n, stream);
    device_buffer<std::size_t> count(1, stream);
    out.fill_bytes(0x5A);
    cupar::select_flagged(in.data(), d8.data(), out.data(), count.data(), n, stream);
    ASSERT_EQ(count.to_host()[0], want.size());
    auto got = out.to_host();
    EXPECT_TRUE(bitwise_equal(select_ref::head(got, want.size()), want));
    EXPECT_TRUE(select_ref::untouched_after(got, want.size(), 0x5A));
    out.fill_bytes(0x5A);
    EXPECT_EQ(cupar::select_flagged_count(in.data(), d32.data(), out.data(), n, stream),
              want.size());
    EXPECT_TRUE(bitwise_equal(out.to_host(want.size()), want));
    out.fill_bytes(0x5A);
    EXPECT_EQ(cupar::select_flagged_count(in.data(), db.data(), out.data(), n, stream),
              want.size());
    EXPECT_TRUE(bitwise_equal(out.to_host(want.size()), want));
    // In place.
    device_buffer<T> data(h, stream);
    EXPECT_EQ(cupar::select_flagged_count(data.data(), d8.data(), data.data(), n, stream),
              want.size());
    EXPECT_TRUE(bitwise_equal(data.to_host(want.size()), want));
  }
}

TYPED_TEST(Select, PartitionPutsRejectedItemsAfterInReverseOrder) {
  CUPAR_REQUIRE_GPU();
  using T = TypeParam;
  owned_stream stream;
  for (std::size_t n : standard_sizes()) {
    const auto h = select_ref::values<T>(n, 11 + n);
    device_buffer<T> in(h, stream), out(n, stream);
    device_buffer<std::size_t> count(1, stream);
    for (T t : {T(0), T(25), T(100)}) {
      SCOPED_TRACE("n = " + std::to_string(n) + ", x < " + printable(t));
      out.fill_bytes(0x3C);
      cupar::partition(in.data(), out.data(), count.data(), n, Ops::template less_than<T>(t),
                       stream);
      EXPECT_EQ(count.to_host()[0], select_ref::below(h, t).size());
      EXPECT_TRUE(bitwise_equal(out.to_host(), select_ref::partitioned(h, t)));
    }
  }
}

TYPED_TEST(Select, ThreeWayPartitionKeepsEachPartInInputOrder) {
  CUPAR_REQUIRE_GPU();
  using T = TypeParam;
  owned_stream stream;
  for (std::size_t n : standard_sizes()) {
    const auto h = select_ref::values<T>(n, 13 + n);
    device_buffer<T> in(h, stream), first(n, stream), second(n, stream), rest(n, stream);
    device_buffer<std::size_t> counts(2, stream);
    // (first: x < t1, second: x < t2), the second test applying to what the first rejects.
    for (auto [t1, t2] : {std::pair<T, T>{T(20), T(70)}, std::pair<T, T>{T(0), T(0)},
                          std::pair<T, T>{T(100), T(100)}, std::pair<T, T>{T(50), T(10)}}) {
      SCOPED_TRACE("n = " + std::to_string(n) + ", t1 = " + printable(t1) +
                   ", t2 = " + printable(t2));
      std::vector<T> w1, w2, w3;
      for (T x : h) {
        if (x < t1) {
          w1.push_back(x);
        } else if (x < t2) {
          w2.push_back(x);
        } else {
          w3.push_back(x);
        }
      }
      first.fill_bytes(0x11);
      second.fill_bytes(0x22);
      rest.fill_bytes(0x33);
      cupar::three_way_partition(in.data(), first.data(), second.data(), rest.data(), counts.data(),
                                 n, Ops::template less_than<T>(t1), Ops::template less_than<T>(t2),
                                 stream);
      const auto c = counts.to_host();
      ASSERT_EQ(c[0], w1.size());
      ASSERT_EQ(c[1], w2.size());
      const auto g1 = first.to_host(), g2 = second.to_host(), g3 = rest.to_host();
      EXPECT_TRUE(bitwise_equal(select_ref::head(g1, w1.size()), w1));
      EXPECT_TRUE(bitwise_equal(select_ref::head(g2, w2.size()), w2));
      EXPECT_TRUE(bitwise_equal(select_ref::head(g3, w3.size()), w3));
      EXPECT_TRUE(select_ref::untouched_after(g1, w1.size(), 0x11));
      EXPECT_TRUE(select_ref::untouched_after(g2, w2.size(), 0x22));
      EXPECT_TRUE(select_ref::untouched_after(g3, w3.size(), 0x33));
    }
    const auto pc = cupar::three_way_partition_counts(
        in.data(), first.data(), second.data(), rest.data(), n, Ops::template less_than<T>(T(40)),
        Ops::template less_than<T>(T(60)), stream);
    EXPECT_EQ(pc.first, select_ref::below(h, T(40)).size());
    EXPECT_EQ(pc.first + pc.second, select_ref::below(h, T(60)).size());
  }
}

TYPED_TEST(Select, UniqueKeepsTheFirstOfEachRun) {
  CUPAR_REQUIRE_GPU();
  using T = TypeParam;
  owned_stream stream;
  for (std::size_t n : standard_sizes()) {
    for (int max_run : {1, 4, 1000}) {
      SCOPED_TRACE("n = " + std::to_string(n) + ", runs up to " + std::to_string(max_run));
      const auto h = select_ref::runs<T>(n, 17 + n, max_run);
      std::vector<T> want;
      std::unique_copy(h.begin(), h.end(), std::back_inserter(want));
      device_buffer<T> in(h, stream), out(n, stream);
      device_buffer<std::size_t> count(1, stream);
      out.fill_bytes(0x77);
      cupar::unique(in.data(), out.data(), count.data(), n, Ops::template equal_to<T>(), stream);
      ASSERT_EQ(count.to_host()[0], want.size());
      auto got = out.to_host();
      EXPECT_TRUE(bitwise_equal(select_ref::head(got, want.size()), want));
      EXPECT_TRUE(select_ref::untouched_after(got, want.size(), 0x77));
      // The default equality (no operator given): served by the library.
      out.fill_bytes(0x77);
      EXPECT_EQ(cupar::unique_count(in.data(), out.data(), n, stream), want.size());
      EXPECT_TRUE(bitwise_equal(out.to_host(want.size()), want));
    }
  }
}

TYPED_TEST(Select, BadArgumentsThrowBeforeAnyWorkAndTheNextCallWorks) {
  using T = TypeParam;
  cupar::stream_ref s = cupar::stream_ref::legacy_default();
  T a[4] = {}, b[4] = {};
  std::size_t count = 0;
  const T* null_in = nullptr;
  T* null_out = nullptr;
  CUPAR_EXPECT_THROW_WITH(
      cupar::select_if(null_in, b, &count, 3, Ops::template less_than<T>(T(1)), s),
      std::invalid_argument, "cupar::select_if: d_in is null but n = 3");
  CUPAR_EXPECT_THROW_WITH(
      cupar::select_if(a, null_out, &count, 3, Ops::template less_than<T>(T(1)), s),
      std::invalid_argument, "d_out is null but n = 3");
  CUPAR_EXPECT_THROW_WITH(cupar::select_if(a, b, static_cast<std::size_t*>(nullptr), 3,
                                           Ops::template less_than<T>(T(1)), s),
                          std::invalid_argument, "d_num_selected is null");
  CUPAR_EXPECT_THROW_WITH(
      cupar::select_if(a, a + 1, &count, 3, Ops::template less_than<T>(T(1)), s),
      std::invalid_argument, "partially overlap");
  CUPAR_EXPECT_THROW_WITH(cupar::partition(a, a, &count, 3, Ops::template less_than<T>(T(1)), s),
                          std::invalid_argument, "cupar::partition: d_in and d_out overlap");
  CUPAR_EXPECT_THROW_WITH(
      cupar::three_way_partition(a, b, b, a + 2, &count, 1, Ops::template less_than<T>(T(1)),
                                 Ops::template less_than<T>(T(2)), s),
      std::invalid_argument, "same array");
  CUPAR_EXPECT_THROW_WITH(cupar::unique(a, a, &count, 3, Ops::template equal_to<T>(), s),
                          std::invalid_argument, "cupar::unique: d_in and d_out overlap");
  const std::uint8_t* null_flags = nullptr;
  CUPAR_EXPECT_THROW_WITH(cupar::select_flagged(a, null_flags, b, &count, 2, s),
                          std::invalid_argument, "d_flags is null but n = 2");
  if (!gpu_available()) return;
  owned_stream stream;
  const std::vector<T> h = {T(5), T(1), T(7), T(0)};
  device_buffer<T> in(h, stream), out(4, stream);
  EXPECT_EQ(
      cupar::select_if_count(in.data(), out.data(), 4, Ops::template less_than<T>(T(6)), stream),
      3u);
}

#if !defined(CUPAR_SUITE_UNTYPED) || CUPAR_SUITE_UNTYPED

TEST(SelectFloat, NaNIsNeverSelectedByAComparisonAndEachNaNIsItsOwnRun) {
  CUPAR_REQUIRE_GPU();
  owned_stream stream;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> h = {nan, nan, 1.0f, -0.0f, 0.0f, 0.0f, -0.0f, nan, 2.0f, 2.0f};
  device_buffer<float> in(h, stream), out(h.size(), stream);
  // x < 1.5: NaN compares false.
  EXPECT_EQ(cupar::select_if_count(in.data(), out.data(), h.size(),
                                   Ops::template less_than<float>(1.5f), stream),
            5u);
  // Runs: nan | nan | 1 | -0 +0 +0 -0 | nan | 2 2: the first zero of the run (-0.0) is kept.
  const std::vector<float> want = {nan, nan, 1.0f, -0.0f, nan, 2.0f};
  ASSERT_EQ(cupar::unique_count(in.data(), out.data(), h.size(), stream), want.size());
  EXPECT_TRUE(bitwise_equal(out.to_host(want.size()), want));
  ASSERT_EQ(
      cupar::unique_count(in.data(), out.data(), h.size(), Ops::template equal_to<float>(), stream),
      want.size());
  EXPECT_TRUE(bitwise_equal(out.to_host(want.size()), want));
}

TEST(SelectStruct, RecordsAreSelectedPartitionedAndDeduplicatedByTheirKey) {
  CUPAR_REQUIRE_GPU();
  owned_stream stream;
  for (std::size_t n : scaled({std::size_t(0), std::size_t(1), std::size_t(1001), std::size_t(100003)})) {
    SCOPED_TRACE("n = " + std::to_string(n));
    std::vector<record> h(n);
    const auto keys = select_ref::runs<float>(n, 19 + n, 3);
    for (std::size_t i = 0; i < n; ++i)
      h[i] = {keys[i], static_cast<std::uint32_t>(i)};
    std::vector<record> sel, part, uniq;
    for (const auto& r : h)
      if (r.key < 4.0f) sel.push_back(r);
    part = sel;
    for (auto it = h.rbegin(); it != h.rend(); ++it)
      if (!(it->key < 4.0f)) part.push_back(*it);
    std::unique_copy(h.begin(), h.end(), std::back_inserter(uniq),
                     [](const record& a, const record& b) { return a.key == b.key; });
    device_buffer<record> in(h, stream), out(n, stream);
    ASSERT_EQ(cupar::select_if_count(in.data(), out.data(), n, Ops::record_key_below(4.0f), stream),
              sel.size());
    EXPECT_TRUE(value_equal(out.to_host(sel.size()), sel));
    ASSERT_EQ(cupar::partition_count(in.data(), out.data(), n, Ops::record_key_below(4.0f), stream),
              sel.size());
    EXPECT_TRUE(value_equal(out.to_host(), part));
    ASSERT_EQ(cupar::unique_count(in.data(), out.data(), n, Ops::record_same_key(), stream),
              uniq.size());
    EXPECT_TRUE(value_equal(out.to_host(uniq.size()), uniq));
  }
}

TEST(SelectLargeCounts, CountsAreSixtyFourBitEvenForSmallInputs) {
  CUPAR_REQUIRE_GPU();
  owned_stream stream;
  // The count slot is a full 64-bit word: its high half is overwritten too.
  device_buffer<std::int32_t> in(std::vector<std::int32_t>{1, 2, 3}, stream), out(3, stream);
  device_buffer<std::size_t> count(1, stream);
  count.fill_bytes(0xFF);
  cupar::select_if(in.data(), out.data(), count.data(), 3, Ops::template less_than<std::int32_t>(3),
                   stream);
  EXPECT_EQ(count.to_host()[0], 2u);
}

#endif  // CUPAR_SUITE_UNTYPED

}  // namespace cupar::testing
