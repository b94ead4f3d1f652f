// cupar tests: the by-key families' conformance (reduce_by_key, inclusive_scan_by_key,
// exclusive_scan_by_key, unique_by_key, run_length_encode), include after `using Ops = ...;`.
// The references are sequential loops over the runs, which the equality finds the way CUB and
// Thrust do: a run starts at 0 and wherever eq(key[i - 1], key[i]) is false.
//
// What the families promise, and these tests check: runs of equal consecutive keys (not groups
// of equal keys); one output per run, in input order, whose key is the run's first key for
// unique_by_key and its last key for reduce_by_key and run_length_encode (CUB's reduce-by-key
// writes a run's key when it finds the next run's head; with a user equality, or -0.0 and +0.0
// in one run, the two differ); counts written for every n, 0 included, as full 64-bit words;
// nothing written past the runs (outputs are poisoned first); the exclusive scan's init seeds
// every run; NaN keys are each their own run and -0.0 == +0.0; operands keep their order (a
// non-commutative matrix product); scans in place over the values or the keys; bad arguments
// throw std::invalid_argument before anything runs. Sums are over values whose every partial sum
// is exact (integers wrap, floating point is integer-valued and small), so results compare
// bitwise.
//
// Splitting: CUPAR_SUITE_TYPES / CUPAR_SUITE_UNTYPED as in scan_suite.hpp, and
// CUPAR_SUITE_TYPED defined to 0 leaves out the typed tests (a unit of the untyped tests alone).
#pragma once

#include "../common/group_stats.hpp"
#include "common.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <utility>
#include <vector>

namespace cupar::testing {

#if defined(CUPAR_SUITE_TYPES)
using by_key_types = CUPAR_SUITE_TYPES;
#else
using by_key_types = arithmetic_types;
#endif

namespace by_key_ref {

/// Keys in runs of random lengths 1..max_run, each run's key drawn from [0, 9] (adjacent runs
/// may draw the same key and then form one run: the references see the same keys).
template <class K>
std::vector<K> run_keys(std::size_t n, std::uint64_t seed, int max_run) {
  std::vector<K> v(n);
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> len(1, max_run), val(0, 9);
  for (std::size_t i = 0; i < n;) {
    const K x = static_cast<K>(val(rng));
    for (int k = len(rng); k > 0 && i < n; --k)
      v[i++] = x;
  }
  return v;
}

/// Values whose sums are exact in any association order: integers over their whole range
/// (wrapping is exact), floating point integer-valued in [-3, 3] (for the sizes here every
/// partial sum stays far below 2^24).
template <class V>
std::vector<V> exact_values(std::size_t n, std::uint64_t seed) {
  if constexpr (std::is_floating_point_v<V>) {
    const auto ints = random_values<int>(n, seed, -3, 3);
    return std::vector<V>(ints.begin(), ints.end());
  } else {
    return full_range_values<V>(n, seed);
  }
}

template <class T>
T add(T a, T b) {
  return wrapping_add(a, b);
}
template <class T>
T max_of(T a, T b) {
  return a < b ? b : a;
}
template <class K>
bool equal(K a, K b) {
  return a == b;
}
template <class K>
bool same_div4(K a, K b) {
  return static_cast<long long>(a) / 4 == static_cast<long long>(b) / 4;
}

/// Where runs start: 0, and every i with !eq(keys[i - 1], keys[i]).
template <class K, class Eq>
std::vector<std::size_t> heads(const std::vector<K>& keys, Eq eq) {
  std::vector<std::size_t> h;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (i == 0 || !eq(keys[i - 1], keys[i])) h.push_back(i);
  }
  return h;
}

template <class K, class V>
struct runs_of {
  std::vector<K> keys;    // last key of each run (reduce), first key (unique)
  std::vector<V> values;  // aggregate (reduce), first value (unique)
  std::vector<std::size_t> lengths;
};

template <class K, class V, class Op, class Eq>
runs_of<K, V> reduce(const std::vector<K>& keys, const std::vector<V>& values, Op op, Eq eq) {
  runs_of<K, V> r;
  const auto h = heads(keys, eq);
  for (std::size_t j = 0; j < h.size(); ++j) {
    const std::size_t end = j + 1 < h.size() ? h[j + 1] : keys.size();
    V acc = values[h[j]];
    for (std::size_t i = h[j] + 1; i < end; ++i)
      acc = op(acc, values[i]);
    r.keys.push_back(keys[end - 1]);  // CUB writes a run's key when the next run starts
    r.values.push_back(acc);
    r.lengths.push_back(end - h[j]);
  }
  return r;
}

template <class K, class V, class Eq>
runs_of<K, V> unique(const std::vector<K>& keys, const std::vector<V>& values, Eq eq) {
  runs_of<K, V> r;
  for (std::size_t i : heads(keys, eq)) {
    r.keys.push_back(keys[i]);
    r.values.push_back(values[i]);
  }
  return r;
}

template <class K, class V, class Op, class Eq>
std::vector<V> inclusive(const std::vector<K>& keys, const std::vector<V>& values, Op op, Eq eq) {
  std::vector<V> out(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    out[i] = i == 0 || !eq(keys[i - 1], keys[i]) ? values[i] : op(out[i - 1], values[i]);
  }
  return out;
}

/// d_out[h] = init, d_out[i] = init op (v[h] op ... op v[i - 1]).
template <class K, class V, class Op, class Eq>
std::vector<V> exclusive(const std::vector<K>& keys, const std::vector<V>& values, Op op, V init,
                         Eq eq) {
  std::vector<V> out(values.size());
  V partial{};
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i == 0 || !eq(keys[i - 1], keys[i])) {
      out[i] = init;
      partial = values[i];
    } else {
      out[i] = op(init, partial);
      partial = op(partial, values[i]);
    }
  }
  return out;
}

template <class T>
std::vector<T> head(const std::vector<T>& v, std::size_t count) {
  return std::vector<T>(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(count));
}

/// Checks that the output past the first `count` items still holds the poison byte.
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
             << "byte " << i << " after the " << count << " runs was written";
    }
  }
  return ::testing::AssertionSuccess();
}

/// The (n, longest run) cases of the typed tests: every size of standard_sizes(), with runs of
/// at most 1 (every item its own run, mostly), 6 and 1000 items (about n / 500 runs). Sizes up to
/// 65537 take all three; the larger ones one each, in turn (their CPU references dominate the
/// suite's time).
inline std::vector<std::pair<std::size_t, int>> cases() {
  static const int max_runs[3] = {1, 6, 1000};
  std::vector<std::pair<std::size_t, int>> c;
  int next = 0;
  for (std::size_t n : standard_sizes()) {
    if (n <= 65537) {
      for (int r : max_runs)
        c.emplace_back(n, r);
    } else {
      c.emplace_back(n, max_runs[next++ % 3]);
    }
  }
  return c;
}

}  // namespace by_key_ref

#if !defined(CUPAR_SUITE_TYPED) || CUPAR_SUITE_TYPED

template <class T>
class ByKey : public ::testing::Test {};
TYPED_TEST_SUITE(ByKey, by_key_types, type_names);

TYPED_TEST(ByKey, ReduceByKeyReducesEachRunOfEqualKeys) {
  CUPAR_REQUIRE_GPU();
  using T = TypeParam;
  namespace ref = by_key_ref;
  owned_stream stream;
  for (const auto& [n, max_run] : ref::cases()) {
    SCOPED_TRACE("n = " + std::to_string(n) + ", runs up to " + std::to_string(max_run));
    const auto keys = ref::run_keys<T>(n, 3 + n, max_run);
    const auto values = ref::exact_values<T>(n, 4 + n);
    device_buffer<T> k(keys, stream), v(values, stream), ko(n, stream), ao(n, stream);
    device_buffer<std::size_t> count(1, stream);
    ko.fill_bytes(0xA5);
    ao.fill_bytes(0x5A);
    count.fill_bytes(0xFF);
    cupar::reduce_by_key(k.data(), v.data(), ko.data(), ao.data(), count.data(), n,
                         Ops::template plus<T>(), stream);
    const auto want = ref::reduce(keys, values, ref::add<T>, ref::equal<T>);
    const std::size_t c = count.to_host()[0];
    ASSERT_EQ(c, want.keys.size());
    const auto got_k = ko.to_host(), got_a = ao.to_host();
    EXPECT_TRUE(bitwise_equal(ref::head(got_k, c), want.keys));
    EXPECT_TRUE(bitwise_equal(ref::head(got_a, c), want.values));
    EXPECT_TRUE(ref::untouched_after(got_k, c, 0xA5));
    EXPECT_TRUE(ref::untouched_after(got_a, c, 0x5A));
    if (max_run != 6) continue;
    // The explicit equality, another operator, and the count returned to the host.
    const auto want_max = ref::reduce(keys, values, ref::max_of<T>, ref::equal<T>);
    EXPECT_EQ(
        cupar::reduce_by_key_count(k.data(), v.data(), ko.data(), ao.data(), n,
                                   Ops::template maximum<T>(), Ops::template equal_to<T>(), stream),
        want_max.keys.size());
    EXPECT_TRUE(bitwise_equal(ko.to_host(want_max.keys.size()), want_max.keys));
    EXPECT_TRUE(bitwise_equal(ao.to_host(want_max.keys.size()), want_max.values));
  }
}

TYPED_TEST(ByKey, ReduceByKeyRunsFollowTheUserEquality) {
  CUPAR_REQUIRE_GPU();
  using T = TypeParam;
  namespace ref = by_key_ref;
  owned_stream stream;
  for (std::size_t n :
       {std::size_t(1), std::size_t(1000), std::size_t(65537), (std::size_t(1) << 20) + 3}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    // Keys 0..9 in short runs: keys of one quarter (0-3, 4-7, 8-9) merge into one run.
    const auto keys = ref::run_keys<T>(n, 5 + n, 3);
    const auto values = ref::exact_values<T>(n, 6 + n);
    device_buffer<T> k(keys, stream), v(values, stream), ko(n, stream), ao(n, stream);
    const auto want = ref::reduce(keys, values, ref::max_of<T>, ref::same_div4<T>);
    ASSERT_EQ(cupar::reduce_by_key_count(k.data(), v.data(), ko.data(), ao.data(), n,
                                         Ops::template maximum<T>(), Ops::template same_div4<T>(),
                                         stream),
              want.keys.size());
    EXPECT_TRUE(bitwise_equal(ko.to_host(want.keys.size()), want.keys));
    EXPECT_TRUE(bitwise_equal(ao.to_host(want.keys.size()), want.values));
    // The same runs for a scan and for unique_by_key.
    device_buffer<T> out(n, stream);
    cupar::inclusive_scan_by_key(k.data(), v.data(), out.data(), n, Ops::template plus<T>(),
                                 Ops::template same_div4<T>(), stream);
    EXPECT_TRUE(
        bitwise_equal(out.to_host(), ref::inclusive(keys, values, ref::add<T>, ref::same_div4<T>)));
    const auto first = ref::unique(keys, values, ref::same_div4<T>);
    ASSERT_EQ(cupar::unique_by_key_count(k.data(), v.data(), ko.data(), ao.data(), n,
                                         Ops::template same_div4<T>(), stream),
              first.keys.size());
    EXPECT_TRUE(bitwise_equal(ko.to_host(first.keys.size()), first.keys));
    EXPECT_TRUE(bitwise_equal(ao.to_host(first.keys.size()), first.values));
  }
}

TYPED_TEST(ByKey, UniqueByKeyKeepsTheFirstPairOfEachRun) {
  CUPAR_REQUIRE_GPU();
  using T = TypeParam;
  namespace ref = by_key_ref;
  owned_stream stream;
  for (const auto& [n, max_run] : ref::cases()) {
    SCOPED_TRACE("n = " + std::to_string(n) + ", runs up to " + std::to_string(max_run));
    const auto keys = ref::run_keys<T>(n, 7 + n, max_run);
    const auto values = full_range_values<T>(n, 8 + n);
    const auto want = ref::unique(keys, values, ref::equal<T>);
    device_buffer<T> k(keys, stream), v(values, stream), ko(n, stream), vo(n, stream);
    device_buffer<std::size_t> count(1, stream);
    ko.fill_bytes(0x77);
    vo.fill_bytes(0x66);
    count.fill_bytes(0xFF);
    cupar::unique_by_key(k.data(), v.data(), ko.data(), vo.data(), count.data(), n,
                         Ops::template equal_to<T>(), stream);
    const std::size_t c = count.to_host()[0];
    ASSERT_EQ(c, want.keys.size());
    const auto got_k = ko.to_host(), got_v = vo.to_host();
    EXPECT_TRUE(bitwise_equal(ref::head(got_k, c), want.keys));
    EXPECT_TRUE(bitwise_equal(ref::head(got_v, c), want.values));
    EXPECT_TRUE(ref::untouched_after(got_k, c, 0x77));
    EXPECT_TRUE(ref::untouched_after(got_v, c, 0x66));
    // The default equality (no operator given): served by the library.
    vo.fill_bytes(0x66);
    EXPECT_EQ(cupar::unique_by_key_count(k.data(), v.data(), ko.data(), vo.data(), n, stream),
              want.keys.size());
    EXPECT_TRUE(bitwise_equal(vo.to_host(c), want.values));
  }
}

TYPED_TEST(ByKey, RunLengthEncodeCountsEachRun) {
  CUPAR_REQUIRE_GPU();
  using T = TypeParam;
  namespace ref = by_key_ref;
  owned_stream stream;
  for (const auto& [n, max_run] : ref::cases()) {
    SCOPED_TRACE("n = " + std::to_string(n) + ", runs up to " + std::to_string(max_run));
    const auto keys = ref::run_keys<T>(n, 9 + n, max_run);
    const auto want = ref::reduce(keys, keys, ref::max_of<T>, ref::equal<T>);
    device_buffer<T> k(keys, stream), uo(n, stream);
    device_buffer<std::uint32_t> c32(n, stream);
    device_buffer<std::int64_t> c64(n, stream);
    device_buffer<std::size_t> count(1, stream);
    uo.fill_bytes(0x42);
    c32.fill_bytes(0x24);
    count.fill_bytes(0xFF);
    cupar::run_length_encode(k.data(), uo.data(), c32.data(), count.data(), n, stream);
    const std::size_t c = count.to_host()[0];
    ASSERT_EQ(c, want.keys.size());
    const auto got_u = uo.to_host();
    const auto got_c = c32.to_host();
    EXPECT_TRUE(bitwise_equal(ref::head(got_u, c), want.keys));
    EXPECT_TRUE(value_equal(ref::head(got_c, c),
                            std::vector<std::uint32_t>(want.lengths.begin(), want.lengths.end())));
    EXPECT_TRUE(ref::untouched_after(got_u, c, 0x42));
    EXPECT_TRUE(ref::untouched_after(got_c, c, 0x24));
    // 8-byte signed counts, returned to the host.
    c64.fill_bytes(0x24);
    ASSERT_EQ(cupar::run_length_encode_count(k.data(), uo.data(), c64.data(), n, stream), c);
    EXPECT_TRUE(value_equal(c64.to_host(c),
                            std::vector<std::int64_t>(want.lengths.begin(), want.lengths.end())));
  }
}

TYPED_TEST(ByKey, InclusiveScanByKeyScansEachRun) {
  CUPAR_REQUIRE_GPU();
  using T = TypeParam;
  namespace ref = by_key_ref;
  owned_stream stream;
  for (const auto& [n, max_run] : ref::cases()) {
    SCOPED_TRACE("n = " + std::to_string(n) + ", runs up to " + std::to_string(max_run));
    const auto keys = ref::run_keys<T>(n, 11 + n, max_run);
    const auto values = ref::exact_values<T>(n, 12 + n);
    device_buffer<T> k(keys, stream), v(values, stream), out(n, stream);
    out.fill_bytes(0x3C);
    cupar::inclusive_scan_by_key(k.data(), v.data(), out.data(), n, Ops::template plus<T>(),
                                 stream);
    EXPECT_TRUE(
        bitwise_equal(out.to_host(), ref::inclusive(keys, values, ref::add<T>, ref::equal<T>)));
    if (max_run != 6) continue;
    // In place (d_out == d_values), another operator, the explicit equality.
    cupar::inclusive_scan_by_key(k.data(), v.data(), v.data(), n, Ops::template maximum<T>(),
                                 Ops::template equal_to<T>(), stream);
    EXPECT_TRUE(
        bitwise_equal(v.to_host(), ref::inclusive(keys, values, ref::max_of<T>, ref::equal<T>)));
  }
}

TYPED_TEST(ByKey, ExclusiveScanByKeySeedsEveryRunWithInit) {
  CUPAR_REQUIRE_GPU();
  using T = TypeParam;
  namespace ref = by_key_ref;
  owned_stream stream;
  for (const auto& [n, max_run] : ref::cases()) {
    SCOPED_TRACE("n = " + std::to_string(n) + ", runs up to " + std::to_string(max_run));
    const auto keys = ref::run_keys<T>(n, 13 + n, max_run);
    const auto values = ref::exact_values<T>(n, 14 + n);
    device_buffer<T> k(keys, stream), v(values, stream), out(n, stream);
    out.fill_bytes(0xC3);
    const T init = T(2);
    cupar::exclusive_scan_by_key(k.data(), v.data(), out.data(), n, Ops::template plus<T>(), init,
                                 stream);
    EXPECT_TRUE(bitwise_equal(out.to_host(),
                              ref::exclusive(keys, values, ref::add<T>, init, ref::equal<T>)));
    if (max_run != 6) continue;
    // In place, another operator (init op partial: max with a floor), the explicit equality.
    const T floor = T(1);
    cupar::exclusive_scan_by_key(k.data(), v.data(), v.data(), n, Ops::template maximum<T>(), floor,
                                 Ops::template equal_to<T>(), stream);
    EXPECT_TRUE(bitwise_equal(v.to_host(),
                              ref::exclusive(keys, values, ref::max_of<T>, floor, ref::equal<T>)));
  }
}

TYPED_TEST(ByKey, AllKeysEqualMakeOneRunAndAllDistinctMakeOneRunEach) {
  CUPAR_REQUIRE_GPU();
  using T = TypeParam;
  namespace ref = by_key_ref;
  owned_stream stream;
  for (std::size_t n :
       {std::size_t(1), std::size_t(2), std::size_t(4097), (std::size_t(1) << 20) + 3}) {
    for (bool distinct : {false, true}) {
      SCOPED_TRACE("n = " + std::to_string(n) + (distinct ? ", all distinct" : ", all equal"));
      std::vector<T> keys(n);
      for (std::size_t i = 0; i < n; ++i)
        keys[i] = distinct ? T(i % 2) : T(5);  // adjacent keys differ, or are all the same
      // Values 0/1: a run of 2^20 sums to at most 2^20, exact in every type but the 1- and
      // 2-byte integers, which wrap exactly.
      const auto bits = random_values<int>(n, 15 + n, 0, 1);
      const std::vector<T> values(bits.begin(), bits.end());
      const std::size_t runs = distinct ? n : 1;
      device_buffer<T> k(keys, stream), v(values, stream), ko(n, stream), ao(n, stream),
          out(n, stream);
      device_buffer<std::uint32_t> counts(n, stream);
      const auto want = ref::reduce(keys, values, ref::add<T>, ref::equal<T>);
      ASSERT_EQ(want.keys.size(), runs);
      ASSERT_EQ(cupar::reduce_by_key_count(k.data(), v.data(), ko.data(), ao.data(), n,
                                           Ops::template plus<T>(), stream),
                runs);
      EXPECT_TRUE(bitwise_equal(ko.to_host(runs), want.keys));
      EXPECT_TRUE(bitwise_equal(ao.to_host(runs), want.values));
      ASSERT_EQ(cupar::unique_by_key_count(k.data(), v.data(), ko.data(), ao.data(), n, stream),
                runs);
      EXPECT_TRUE(bitwise_equal(ao.to_host(runs), ref::unique(keys, values, ref::equal<T>).values));
      ASSERT_EQ(cupar::run_length_encode_count(k.data(), ko.data(), counts.data(), n, stream),
                runs);
      EXPECT_TRUE(value_equal(counts.to_host(runs),
                              std::vector<std::uint32_t>(runs, distinct ? 1u : std::uint32_t(n))));
      cupar::inclusive_scan_by_key(k.data(), v.data(), out.data(), n, Ops::template plus<T>(),
                                   stream);
      EXPECT_TRUE(
          bitwise_equal(out.to_host(), ref::inclusive(keys, values, ref::add<T>, ref::equal<T>)));
      cupar::exclusive_scan_by_key(k.data(), v.data(), out.data(), n, Ops::template plus<T>(), T(3),
                                   stream);
      EXPECT_TRUE(bitwise_equal(out.to_host(),
                                ref::exclusive(keys, values, ref::add<T>, T(3), ref::equal<T>)));
    }
  }
}

TYPED_TEST(ByKey, BadArgumentsThrowBeforeAnyWorkAndTheNextCallWorks) {
  using T = TypeParam;
  cupar::stream_ref s = cupar::stream_ref::legacy_default();
  T a[8] = {}, b[8] = {}, c[8] = {}, d[8] = {};
  std::uint32_t lengths[8] = {};
  std::size_t count = 0;
  const T* null_in = nullptr;
  T* null_out = nullptr;
  std::size_t* null_count = nullptr;
  CUPAR_EXPECT_THROW_WITH(
      cupar::reduce_by_key(null_in, b, c, d, &count, 3, Ops::template plus<T>(), s),
      std::invalid_argument, "cupar::reduce_by_key: d_keys_in is null but n = 3");
  CUPAR_EXPECT_THROW_WITH(
      cupar::reduce_by_key(a, b, c, null_out, &count, 3, Ops::template plus<T>(), s),
      std::invalid_argument, "d_aggregates_out is null but n = 3");
  CUPAR_EXPECT_THROW_WITH(
      cupar::reduce_by_key(a, b, c, d, null_count, 3, Ops::template plus<T>(), s),
      std::invalid_argument, "d_num_runs is null");
  CUPAR_EXPECT_THROW_WITH(
      cupar::reduce_by_key(a, b, a + 2, d, &count, 3, Ops::template plus<T>(), s),
      std::invalid_argument, "d_keys_in and d_keys_out overlap");
  CUPAR_EXPECT_THROW_WITH(cupar::reduce_by_key(a, b, c, b, &count, 3, Ops::template plus<T>(),
                                               Ops::template equal_to<T>(), s),
                          std::invalid_argument, "d_values_in and d_aggregates_out overlap");
  CUPAR_EXPECT_THROW_WITH(
      cupar::unique_by_key(a, b, c, c, &count, 3, Ops::template equal_to<T>(), s),
      std::invalid_argument, "cupar::unique_by_key: d_keys_out and d_values_out overlap");
  CUPAR_EXPECT_THROW_WITH(cupar::unique_by_key_count(a, b, c, null_out, 2, s),
                          std::invalid_argument, "d_values_out is null but n = 2");
  CUPAR_EXPECT_THROW_WITH(cupar::run_length_encode(a, b, lengths, null_count, 3, s),
                          std::invalid_argument, "cupar::run_length_encode: d_num_runs is null");
  CUPAR_EXPECT_THROW_WITH(cupar::run_length_encode_count(a, a, lengths, 3, s),
                          std::invalid_argument, "d_in and d_unique_out overlap");
  CUPAR_EXPECT_THROW_WITH(cupar::inclusive_scan_by_key(a, b, b + 1, 3, Ops::template plus<T>(), s),
                          std::invalid_argument,
                          "cupar::inclusive_scan_by_key: d_values and d_out partially overlap");
  CUPAR_EXPECT_THROW_WITH(
      cupar::exclusive_scan_by_key(null_in, b, c, 2, Ops::template plus<T>(), T(0), s),
      std::invalid_argument, "cupar::exclusive_scan_by_key: d_keys is null but n = 2");
  CUPAR_EXPECT_THROW_WITH(cupar::exclusive_scan_by_key(a, b, a + 1, 3, Ops::template plus<T>(),
                                                       T(0), Ops::template equal_to<T>(), s),
                          std::invalid_argument, "d_keys and d_out partially overlap");
  if (!gpu_available()) return;
  owned_stream stream;
  const std::vector<T> hk = {T(1), T(1), T(2), T(2), T(2), T(1)};
  const std::vector<T> hv = {T(1), T(2), T(3), T(4), T(5), T(6)};
  device_buffer<T> k(hk, stream), v(hv, stream), ko(6, stream), ao(6, stream);
  ASSERT_EQ(cupar::reduce_by_key_count(k.data(), v.data(), ko.data(), ao.data(), 6,
                                       Ops::template plus<T>(), stream),
            3u);
  EXPECT_TRUE(bitwise_equal(ao.to_host(3), (std::vector<T>{T(3), T(12), T(6)})));
}

#endif  // CUPAR_SUITE_TYPED

#if !defined(CUPAR_SUITE_UNTYPED) || CUPAR_SUITE_UNTYPED

namespace by_key_ref {

/// NaN keys and signed zeros: runs nan | nan | 1 | -0 +0 +0 -0 +0 | nan | 2 2, values 1..11. A
/// run's key is its first item's for unique_by_key, its last item's for reduce_by_key and
/// run_length_encode (CUB writes it when the next run starts): -0.0 and +0.0 here.
template <class F>
void check_nan_and_signed_zero_keys(const char* label) {
  SCOPED_TRACE(label);
  owned_stream stream;
  const F nan = std::numeric_limits<F>::quiet_NaN();
  const F nz = F(-0.0), pz = F(0);
  const std::vector<F> keys = {nan, nan, F(1), nz, pz, pz, nz, pz, nan, F(2), F(2)};
  std::vector<F> values(keys.size());
  for (std::size_t i = 0; i < values.size(); ++i)
    values[i] = F(i + 1);
  const std::size_t n = keys.size();
  const std::vector<F> first_keys = {nan, nan, F(1), nz, nan, F(2)};
  const std::vector<F> last_keys = {nan, nan, F(1), pz, nan, F(2)};
  device_buffer<F> k(keys, stream), v(values, stream), ko(n, stream), ao(n, stream), out(n, stream);
  device_buffer<std::uint32_t> counts(n, stream);
  for (bool explicit_eq : {false, true}) {
    SCOPED_TRACE(explicit_eq ? "equality given" : "default equality");
    const std::size_t runs =
        explicit_eq ? cupar::reduce_by_key_count(k.data(), v.data(), ko.data(), ao.data(), n,
                                                 Ops::template plus<F>(),
                                                 Ops::template equal_to<F>(), stream)
                    : cupar::reduce_by_key_count(k.data(), v.data(), ko.data(), ao.data(), n,
                                                 Ops::template plus<F>(), stream);
    ASSERT_EQ(runs, last_keys.size());
    EXPECT_TRUE(bitwise_equal(ko.to_host(runs), last_keys));
    EXPECT_TRUE(
        bitwise_equal(ao.to_host(runs), (std::vector<F>{F(1), F(2), F(3), F(30), F(9), F(21)})));
    ASSERT_EQ(explicit_eq
                  ? cupar::unique_by_key_count(k.data(), v.data(), ko.data(), ao.data(), n,
                                               Ops::template equal_to<F>(), stream)
                  : cupar::unique_by_key_count(k.data(), v.data(), ko.data(), ao.data(), n, stream),
              first_keys.size());
    EXPECT_TRUE(bitwise_equal(ko.to_host(runs), first_keys));
    EXPECT_TRUE(
        bitwise_equal(ao.to_host(runs), (std::vector<F>{F(1), F(2), F(3), F(4), F(9), F(10)})));
    if (explicit_eq) {
      cupar::inclusive_scan_by_key(k.data(), v.data(), out.data(), n, Ops::template plus<F>(),
                                   Ops::template equal_to<F>(), stream);
    } else {
      cupar::inclusive_scan_by_key(k.data(), v.data(), out.data(), n, Ops::template plus<F>(),
                                   stream);
    }
    EXPECT_TRUE(bitwise_equal(out.to_host(), (std::vector<F>{F(1), F(2), F(3), F(4), F(9), F(15),
                                                             F(22), F(30), F(9), F(10), F(21)})));
    if (explicit_eq) {
      cupar::exclusive_scan_by_key(k.data(), v.data(), out.data(), n, Ops::template plus<F>(),
                                   F(100), Ops::template equal_to<F>(), stream);
    } else {
      cupar::exclusive_scan_by_key(k.data(), v.data(), out.data(), n, Ops::template plus<F>(),
                                   F(100), stream);
    }
    EXPECT_TRUE(
        bitwise_equal(out.to_host(), (std::vector<F>{F(100), F(100), F(100), F(100), F(104), F(109),
                                                     F(115), F(122), F(100), F(100), F(110)})));
  }
  ASSERT_EQ(cupar::run_length_encode_count(k.data(), ko.data(), counts.data(), n, stream),
            last_keys.size());
  EXPECT_TRUE(bitwise_equal(ko.to_host(last_keys.size()), last_keys));
  EXPECT_TRUE(value_equal(counts.to_host(last_keys.size()),
                          (std::vector<std::uint32_t>{1, 1, 1, 5, 1, 2})));
}

/// Keys of one size class with values of another: every operation against the references.
template <class K, class V>
void check_mixed_sizes(const char* label) {
  SCOPED_TRACE(label);
  owned_stream stream;
  for (std::size_t n : scaled({std::size_t(1), std::size_t(4097), (std::size_t(1) << 20) + 5})) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto keys = run_keys<K>(n, 21 + n, 20);
    const auto values = exact_values<V>(n, 22 + n);
    device_buffer<K> k(keys, stream), ko(n, stream);
    device_buffer<V> v(values, stream), ao(n, stream), out(n, stream);
    const auto want = reduce(keys, values, add<V>, equal<K>);
    ASSERT_EQ(cupar::reduce_by_key_count(k.data(), v.data(), ko.data(), ao.data(), n,
                                         Ops::template plus<V>(), stream),
              want.keys.size());
    EXPECT_TRUE(bitwise_equal(ko.to_host(want.keys.size()), want.keys));
    EXPECT_TRUE(bitwise_equal(ao.to_host(want.keys.size()), want.values));
    const auto first = unique(keys, values, equal<K>);
    ASSERT_EQ(cupar::unique_by_key_count(k.data(), v.data(), ko.data(), ao.data(), n,
                                         Ops::template equal_to<K>(), stream),
              first.keys.size());
    EXPECT_TRUE(bitwise_equal(ao.to_host(first.keys.size()), first.values));
    cupar::inclusive_scan_by_key(k.data(), v.data(), out.data(), n, Ops::template plus<V>(),
                                 stream);
    EXPECT_TRUE(bitwise_equal(out.to_host(), inclusive(keys, values, add<V>, equal<K>)));
    cupar::exclusive_scan_by_key(k.data(), v.data(), out.data(), n, Ops::template plus<V>(), V(1),
                                 Ops::template equal_to<K>(), stream);
    EXPECT_TRUE(bitwise_equal(out.to_host(), exclusive(keys, values, add<V>, V(1), equal<K>)));
  }
}

}  // namespace by_key_ref

TEST(ByKeyFloat, NaNKeysAreEachTheirOwnRunAndSignedZerosAreOneRun) {
  CUPAR_REQUIRE_GPU();
  by_key_ref::check_nan_and_signed_zero_keys<float>("float keys and values");
  by_key_ref::check_nan_and_signed_zero_keys<double>("double keys and values");
}

TEST(ByKeyMixed, KeysAndValuesOfDifferentSizes) {
  CUPAR_REQUIRE_GPU();
  by_key_ref::check_mixed_sizes<std::uint8_t, double>("u8 keys, f64 values");
  by_key_ref::check_mixed_sizes<std::int64_t, std::int16_t>("i64 keys, i16 values");
  by_key_ref::check_mixed_sizes<float, std::uint64_t>("f32 keys, u64 values");
  by_key_ref::check_mixed_sizes<std::uint16_t, float>("u16 keys, f32 values");
}

TEST(ByKeyStruct, MatrixProductsByKeyKeepTheOperandOrder) {
  CUPAR_REQUIRE_GPU();
  namespace ref = by_key_ref;
  owned_stream stream;
  for (std::size_t n :
       scaled({std::size_t(0), std::size_t(1), std::size_t(1001), std::size_t(100003)})) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto keys = ref::run_keys<std::uint32_t>(n, 23 + n, 50);
    const auto entries = random_values<std::uint32_t>(4 * n, 24 + n, 0, 3);
    std::vector<mat2> values(n);
    for (std::size_t i = 0; i < n; ++i)
      values[i] = {entries[4 * i], entries[4 * i + 1], entries[4 * i + 2], entries[4 * i + 3]};
    device_buffer<std::uint32_t> k(keys, stream), ko(n, stream);
    device_buffer<mat2> v(values, stream), ao(n, stream), out(n, stream);
    const auto want = ref::reduce(keys, values, mat2_mul, ref::equal<std::uint32_t>);
    ASSERT_EQ(cupar::reduce_by_key_count(k.data(), v.data(), ko.data(), ao.data(), n,
                                         Ops::mat2_mul(), stream),
              want.keys.size());
    EXPECT_TRUE(value_equal(ko.to_host(want.keys.size()), want.keys));
    EXPECT_TRUE(value_equal(ao.to_host(want.keys.size()), want.values));
    cupar::inclusive_scan_by_key(k.data(), v.data(), out.data(), n, Ops::mat2_mul(), stream);
    EXPECT_TRUE(value_equal(out.to_host(),
                            ref::inclusive(keys, values, mat2_mul, ref::equal<std::uint32_t>)));
    cupar::exclusive_scan_by_key(k.data(), v.data(), out.data(), n, Ops::mat2_mul(),
                                 mat2{2, 1, 1, 1}, stream);
    EXPECT_TRUE(value_equal(out.to_host(), ref::exclusive(keys, values, mat2_mul, mat2{2, 1, 1, 1},
                                                          ref::equal<std::uint32_t>)));
  }
}

TEST(ByKeyStruct, GroupByStatisticsPerRun) {
  CUPAR_REQUIRE_GPU();
  namespace ref = by_key_ref;
  owned_stream stream;
  for (std::size_t n : scaled({std::size_t(1), std::size_t(6145), std::size_t(1) << 20})) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto keys = ref::run_keys<std::int32_t>(n, 25 + n, 300);
    const auto xs = random_values<int>(n, 26 + n, -50, 50);  // integer-valued: exact sums
    std::vector<group_stats> values(n);
    for (std::size_t i = 0; i < n; ++i)
      values[i] = group_stats_of(static_cast<float>(xs[i]));
    device_buffer<std::int32_t> k(keys, stream), ko(n, stream);
    device_buffer<group_stats> v(values, stream), ao(n, stream);
    const auto want = ref::reduce(keys, values, group_stats_merge, ref::equal<std::int32_t>);
    ASSERT_EQ(
        cupar::reduce_by_key_count(k.data(), v.data(), ko.data(), ao.data(), n, Ops::merge_stats(),
                                   Ops::template equal_to<std::int32_t>(), stream),
        want.keys.size());
    EXPECT_TRUE(value_equal(ko.to_host(want.keys.size()), want.keys));
    EXPECT_TRUE(value_equal(ao.to_host(want.keys.size()), want.values));
  }
}

TEST(ByKeyStruct, RecordKeysWithAUserEquality) {
  CUPAR_REQUIRE_GPU();
  namespace ref = by_key_ref;
  owned_stream stream;
  for (std::size_t n : scaled({std::size_t(1), std::size_t(1001), std::size_t(100003)})) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto key_of = ref::run_keys<float>(n, 27 + n, 4);
    std::vector<record> keys(n);
    std::vector<std::uint32_t> values(n);
    for (std::size_t i = 0; i < n; ++i) {
      keys[i] = {key_of[i], static_cast<std::uint32_t>(i)};  // payload: the position
      values[i] = static_cast<std::uint32_t>(3 * i + 1);
    }
    const auto same_key = [](const record& a, const record& b) { return a.key == b.key; };
    device_buffer<record> k(keys, stream), ko(n, stream);
    device_buffer<std::uint32_t> v(values, stream), ao(n, stream);
    const auto first = ref::unique(keys, values, same_key);
    ASSERT_EQ(cupar::unique_by_key_count(k.data(), v.data(), ko.data(), ao.data(), n,
                                         Ops::record_same_key(), stream),
              first.keys.size());
    EXPECT_TRUE(value_equal(ko.to_host(first.keys.size()), first.keys));
    EXPECT_TRUE(value_equal(ao.to_host(first.keys.size()), first.values));
    const auto sums = ref::reduce(keys, values, ref::add<std::uint32_t>, same_key);
    ASSERT_EQ(cupar::reduce_by_key_count(k.data(), v.data(), ko.data(), ao.data(), n,
                                         Ops::template plus<std::uint32_t>(),
                                         Ops::record_same_key(), stream),
              sums.keys.size());
    EXPECT_TRUE(value_equal(ko.to_host(sums.keys.size()), sums.keys));
    EXPECT_TRUE(value_equal(ao.to_host(sums.keys.size()), sums.values));
  }
}

TEST(ByKeyInPlace, ScansMayOverwriteTheKeys) {
  CUPAR_REQUIRE_GPU();
  namespace ref = by_key_ref;
  owned_stream stream;
  for (std::size_t n : scaled({std::size_t(1), std::size_t(4097), (std::size_t(1) << 22) + 1})) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto keys = ref::run_keys<std::int32_t>(n, 29 + n, 100);
    const auto values = ref::exact_values<std::int32_t>(n, 30 + n);
    device_buffer<std::int32_t> v(values, stream);
    device_buffer<std::int32_t> k(keys, stream);
    cupar::inclusive_scan_by_key(k.data(), v.data(), k.data(), n,
                                 Ops::template plus<std::int32_t>(), stream);
    EXPECT_TRUE(bitwise_equal(k.to_host(), ref::inclusive(keys, values, ref::add<std::int32_t>,
                                                          ref::equal<std::int32_t>)));
    device_buffer<std::int32_t> k2(keys, stream);
    cupar::exclusive_scan_by_key(k2.data(), v.data(), k2.data(), n,
                                 Ops::template plus<std::int32_t>(), 7, stream);
    EXPECT_TRUE(
        bitwise_equal(k2.to_host(), ref::exclusive(keys, values, ref::add<std::int32_t>,
                                                   std::int32_t(7), ref::equal<std::int32_t>)));
  }
  // Keys and values of different sizes cannot share the bytes.
  std::int32_t keys[4] = {};
  double values[4] = {};
  CUPAR_EXPECT_THROW_WITH(
      cupar::inclusive_scan_by_key(keys, values, reinterpret_cast<double*>(keys), 2,
                                   Ops::template plus<double>(), stream),
      std::invalid_argument, "d_keys and d_out partially overlap");
}

TEST(ByKeyCounts, EmptyInputsWriteAZeroCountAndNothingElse) {
  CUPAR_REQUIRE_GPU();
  owned_stream stream;
  device_buffer<std::size_t> count(1, stream);
  const float* no_keys = nullptr;
  const double* no_values = nullptr;
  float* no_keys_out = nullptr;
  double* no_values_out = nullptr;
  count.fill_bytes(0xFF);
  cupar::reduce_by_key(no_keys, no_values, no_keys_out, no_values_out, count.data(), 0,
                       Ops::template plus<double>(), stream);
  EXPECT_EQ(count.to_host()[0], 0u);
  count.fill_bytes(0xFF);
  cupar::unique_by_key(no_keys, no_values, no_keys_out, no_values_out, count.data(), 0,
                       Ops::template equal_to<float>(), stream);
  EXPECT_EQ(count.to_host()[0], 0u);
  count.fill_bytes(0xFF);
  cupar::run_length_encode(no_keys, no_keys_out, static_cast<std::uint64_t*>(nullptr), count.data(),
                           0, stream);
  EXPECT_EQ(count.to_host()[0], 0u);
  cupar::inclusive_scan_by_key(no_keys, no_values, no_values_out, 0, Ops::template plus<double>(),
                               stream);
  cupar::exclusive_scan_by_key(no_keys, no_values, no_values_out, 0, Ops::template plus<double>(),
                               1.0, stream);
  // The count is a full 64-bit word: its high half is overwritten for small inputs too.
  device_buffer<std::int32_t> in(std::vector<std::int32_t>{4, 4, 5}, stream), out(3, stream),
      lengths(3, stream);
  count.fill_bytes(0xFF);
  cupar::run_length_encode(in.data(), out.data(), lengths.data(), count.data(), 3, stream);
  EXPECT_EQ(count.to_host()[0], 2u);
  EXPECT_EQ(lengths.to_host(2), (std::vector<std::int32_t>{2, 1}));
}

#endif  // CUPAR_SUITE_UNTYPED

}  // namespace cupar::testing
