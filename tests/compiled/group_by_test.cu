// cupar tests: hash aggregation (group_by) with C++ callables against a CPU reference
// (std::map): key types, group counts from one to every row, struct accumulators, sizes 0, 1,
// odd and large, the table sized by the sketch and by max_groups, sorted and unsorted output,
// iterators as inputs, and the errors.
#include "../common/counting_resource.hpp"
#include "../common/group_by_ref.hpp"
#include "../common/precompiled.hpp"
#include "../conformance/common.hpp"

#include <cupar/cupar.cuh>

#include <gtest/gtest.h>

#include <thrust/iterator/constant_iterator.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <cuda/std/functional>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace cupar::testing {
namespace {

/// The accumulator of the issue's group-by: count, sum, min and max of a group's values.
struct stats {
  unsigned int count;
  float sum, min, max;
};
struct to_stats {
  __host__ __device__ stats operator()(float x) const { return {1u, x, x, x}; }
};
struct merge_stats {
  __host__ __device__ stats operator()(const stats& a, const stats& b) const {
    return {a.count + b.count, a.sum + b.sum, b.min < a.min ? b.min : a.min,
            a.max < b.max ? b.max : a.max};
  }
};

struct mod997 {
  __host__ __device__ std::uint32_t operator()(std::uint64_t i) const {
    return static_cast<std::uint32_t>(i % 997);
  }
};

/// The CPU's groups in key order (NaN last): -0.0 folded into +0.0 and NaNs into one key. By a
/// sort of the rows' positions, then one fold per run.
template <class K>
std::vector<std::pair<K, stats>> cpu_groups(const std::vector<K>& keys,
                                            const std::vector<float>& values) {
  std::vector<K> norm(keys);
  if constexpr (std::is_floating_point_v<K>) {
    for (K& k : norm) {
      if (k == K(0)) k = K(0);
      if (k != k) k = std::numeric_limits<K>::quiet_NaN();
    }
  }
  std::vector<std::size_t> order(keys.size());
  for (std::size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return key_less<K>{}(norm[a], norm[b]); });
  std::vector<std::pair<K, stats>> out;
  for (std::size_t i : order) {
    const stats v = to_stats{}(values[i]);
    if (!out.empty() && !key_less<K>{}(out.back().first, norm[i]) &&
        !key_less<K>{}(norm[i], out.back().first)) {
      out.back().second = merge_stats{}(out.back().second, v);
    } else {
      out.emplace_back(norm[i], v);
    }
  }
  return out;
}

/// Checks GPU groups (keys, values; sorted or in table order) against the CPU's.
template <class K>
void expect_groups(const std::vector<K>& keys, const std::vector<stats>& values, bool sorted,
                   const std::vector<std::pair<K, stats>>& want) {
  ASSERT_EQ(keys.size(), want.size());
  ASSERT_EQ(values.size(), want.size());
  std::vector<std::size_t> order(keys.size());
  for (std::size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  if (!sorted) {
    std::sort(order.begin(), order.end(),
              [&](std::size_t a, std::size_t b) { return key_less<K>{}(keys[a], keys[b]); });
  }
  std::size_t j = 0;
  for (const auto& [k, v] : want) {
    const std::size_t i = order[j++];
    ASSERT_TRUE(same_key(keys[i], k)) << "group " << j - 1 << ": key " << keys[i] << ", want " << k;
    EXPECT_EQ(values[i].count, v.count) << "key " << k;
    EXPECT_EQ(values[i].sum, v.sum) << "key " << k;
    EXPECT_EQ(values[i].min, v.min) << "key " << k;
    EXPECT_EQ(values[i].max, v.max) << "key " << k;
  }
}

template <class K>
void check_key_type(const char* name, const std::vector<std::size_t>& sizes) {
  // The sort route (automatic's below its row count, the sorted output) sorts with the library.
  if (!cupar::testing::library_serves<K>(name)) return;
  SCOPED_TRACE(name);
  owned_stream s;
  for (std::size_t n : sizes) {
    for (std::size_t groups :
         {std::size_t(1), std::size_t(100), std::size_t(1000), std::size_t(5000), n / 3 + 1, n}) {
      if (groups == 0 || groups > std::max<std::size_t>(n, 1)) continue;
      SCOPED_TRACE("n = " + std::to_string(n) + ", groups drawn from " + std::to_string(groups));
      const auto hk = group_keys<K>(n, groups, static_cast<unsigned>(n + groups));
      const auto hv = small_floats(n, static_cast<unsigned>(3 * n + groups));
      const auto want = cpu_groups(hk, hv);
      device_buffer<K> dk(hk, s);
      device_buffer<float> dv(hv, s);
      const auto values = thrust::make_transform_iterator(dv.data(), to_stats{});
      for (group_by_method method :
           {group_by_method::automatic, group_by_method::hash, group_by_method::sort}) {
        for (bool sorted : {false, true}) {
          SCOPED_TRACE(std::string("method ") + method_name(method) + (sorted ? ", sorted" : ""));
          group_by_options o;
          o.sort_by_key = sorted;
          o.method = method;
          const auto g = cupar::group_by(dk.data(), values, n, merge_stats{}, s, o);
          expect_groups(g.keys.to_host(), g.values.to_host(), sorted, want);
        }
      }
      // A caller's bound on the groups: no sketch, the same groups.
      group_by_options bounded;
      bounded.max_groups = want.size() + 7;
      bounded.sort_by_key = true;
      const auto g = cupar::group_by(dk.data(), values, n, merge_stats{}, s, bounded);
      expect_groups(g.keys.to_host(), g.values.to_host(), true, want);
    }
  }
}

// Values are small integers, so every float sum is exact whatever the order the GPU combines
// them in; the struct accumulator (count, sum, min, max) is 16 bytes (one 128-bit compare-and-swap
// on sm_90).
TEST(GroupByCompiled, EveryKeyTypeAndGroupCountMatchesTheCpu) {
  CUPAR_REQUIRE_GPU();
  const std::vector<std::size_t> sizes = {0, 1, 2, 1001, scaled((std::size_t(1) << 20) + 3)};
  check_key_type<std::uint32_t>("u32", sizes);
  check_key_type<std::int64_t>("i64", sizes);
  check_key_type<std::int32_t>("i32", sizes);
  check_key_type<float>("f32", sizes);
  check_key_type<double>("f64", sizes);
  check_key_type<std::uint8_t>("u8", sizes);
  // Large: 2^24 rows, from one group to one per row.
  check_key_type<std::uint32_t>("u32", {scaled(std::size_t(1) << 24)});
}

// -0.0 and +0.0 are one group, every NaN is one group (SQL's GROUP BY).
TEST(GroupByCompiled, SignedZerosAndNaNsAreOneKeyEach) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  const float nan1 = std::numeric_limits<float>::quiet_NaN();
  float nan2;
  const std::uint32_t other_nan = 0xffc00123u;
  std::memcpy(&nan2, &other_nan, sizeof(nan2));
  const std::vector<float> hk = {0.0f, -0.0f, nan1, nan2, 1.0f, -0.0f, nan1, 1.0f};
  const std::vector<float> hv = {1, 2, 3, 4, 5, 6, 7, 8};
  device_buffer<float> dk(hk, s), dv(hv, s);
  for (group_by_method method : {group_by_method::hash, group_by_method::sort}) {
    SCOPED_TRACE(method_name(method));
    group_by_options o;
    o.sort_by_key = true;
    o.method = method;
    const auto g =
        cupar::group_by(dk.data(), dv.data(), hk.size(), ::cuda::std::plus<float>{}, s, o);
    const auto keys = g.keys.to_host();
    const auto sums = g.values.to_host();
    ASSERT_EQ(keys.size(), 3u);
    EXPECT_EQ(keys[0], 0.0f);
    EXPECT_FALSE(std::signbit(keys[0]));
    EXPECT_EQ(sums[0], 1.0f + 2.0f + 6.0f);
    EXPECT_EQ(keys[1], 1.0f);
    EXPECT_EQ(sums[1], 13.0f);
    EXPECT_TRUE(keys[2] != keys[2]);
    EXPECT_EQ(sums[2], 3.0f + 4.0f + 7.0f);
  }
}

// Plain arithmetic accumulators (the 4- and 8-byte values the locks also serve), a lambda-free
// functor on doubles, iterators for both inputs, and the caller-array form.
TEST(GroupByCompiled, IteratorsAndCallerArrays) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  const std::size_t n = scaled((std::size_t(1) << 22) + 5);
  // key = i % 997 from a counting iterator, value 1 from a constant iterator: counts per key.
  const auto keys =
      thrust::make_transform_iterator(thrust::counting_iterator<std::uint64_t>(0), mod997{});
  const auto ones = thrust::constant_iterator<unsigned long long>(1);
  device_buffer<std::uint32_t> ko(997, s);
  device_buffer<unsigned long long> vo(997, s);
  group_by_options o;
  o.sort_by_key = true;
  ASSERT_EQ(cupar::group_by(keys, ones, ko.data(), vo.data(), 997, n,
                            ::cuda::std::plus<unsigned long long>{}, s, o),
            997u);
  const auto hk = ko.to_host();
  const auto hc = vo.to_host();
  for (std::size_t k = 0; k < 997; ++k) {
    ASSERT_EQ(hk[k], k);
    EXPECT_EQ(hc[k], n / 997 + (k < n % 997 ? 1 : 0)) << "key " << k;
  }
  // Too little room: std::length_error with the count, nothing written.
  vo.fill_bytes(0xAB);
  try {
    (void)cupar::group_by(keys, ones, ko.data(), vo.data(), 996, n,
                          ::cuda::std::plus<unsigned long long>{}, s, o);
    ADD_FAILURE() << "no exception";
  } catch (const std::length_error& e) {
    EXPECT_NE(std::string(e.what()).find("997 groups do not fit out_capacity = 996"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(vo.to_host()[0], 0xABABABABABABABABull);
  // A max_groups below the keys' count: std::length_error, by either method; the library keeps
  // working.
  group_by_options tight;
  tight.max_groups = 500;
  EXPECT_THROW(
      (void)cupar::group_by(keys, ones, n, ::cuda::std::plus<unsigned long long>{}, s, tight),
      std::length_error);
  tight.method = group_by_method::sort;
  EXPECT_THROW(
      (void)cupar::group_by(keys, ones, n, ::cuda::std::plus<unsigned long long>{}, s, tight),
      std::length_error);
  // n distinct keys in a table of 1,024 slots (the smallest): the table overflows, the rest of
  // the rows are skipped, std::length_error (the hash method; automatic the same at full scale,
  // the sort route's count of the sorted keys below group_by_sort_below_rows rows).
  tight.max_groups = 10;
  for (group_by_method method : {group_by_method::hash, group_by_method::automatic}) {
    SCOPED_TRACE(method_name(method));
    tight.method = method;
    CUPAR_EXPECT_THROW_WITH(
        (void)cupar::group_by(thrust::counting_iterator<std::uint32_t>(0), ones, n,
                              ::cuda::std::plus<unsigned long long>{}, s, tight),
        std::length_error, "more than max_groups = 10 distinct values");
  }
  const auto g = cupar::group_by(keys, ones, n, ::cuda::std::plus<unsigned long long>{}, s);
  EXPECT_EQ(g.size(), 997u);
}

/// A 48-byte accumulator (TPC-H Q1's shape: five sums and a count): above 16 bytes the hash
/// method combines under the slot's lock.
struct q1_acc {
  double qty, base, disc_price, charge, disc;
  unsigned long long count;
};
struct to_q1 {
  __host__ __device__ q1_acc operator()(float x) const {
    const double v = static_cast<double>(x);
    return {v, 2 * v, 3 * v, 4 * v, v * v, 1ull};
  }
};
struct merge_q1 {
  __host__ __device__ q1_acc operator()(const q1_acc& a, const q1_acc& b) const {
    return {a.qty + b.qty,       a.base + b.base, a.disc_price + b.disc_price,
            a.charge + b.charge, a.disc + b.disc, a.count + b.count};
  }
};

// Sums of small integers are exact in doubles whatever the order, so the GPU's groups equal the
// CPU's bit for bit, by both methods (hash: the locked path).
TEST(GroupByCompiled, AccumulatorsAboveSixteenBytesByEitherMethod) {
  CUPAR_REQUIRE_GPU();
  static_assert(sizeof(q1_acc) == 48);
  owned_stream s;
  for (std::size_t n : {std::size_t(1), std::size_t(1001), scaled((std::size_t(1) << 20) + 3)}) {
    for (std::size_t groups : {std::size_t(1), std::size_t(40), std::size_t(5000)}) {
      SCOPED_TRACE("n = " + std::to_string(n) + ", groups drawn from " + std::to_string(groups));
      const auto hk = group_keys<std::uint32_t>(n, groups, static_cast<unsigned>(n + groups));
      const auto hv = small_floats(n, static_cast<unsigned>(n * 3 + groups));
      std::map<std::uint32_t, q1_acc> want;
      for (std::size_t i = 0; i < n; ++i) {
        const q1_acc v = to_q1{}(hv[i]);
        const auto it = want.find(hk[i]);
        if (it == want.end()) {
          want.emplace(hk[i], v);
        } else {
          it->second = merge_q1{}(it->second, v);
        }
      }
      device_buffer<std::uint32_t> dk(hk, s);
      device_buffer<float> dv(hv, s);
      for (group_by_method method :
           {group_by_method::automatic, group_by_method::hash, group_by_method::sort}) {
        SCOPED_TRACE(method_name(method));
        group_by_options o;
        o.method = method;
        o.sort_by_key = true;
        const auto g = cupar::group_by(
            dk.data(), thrust::make_transform_iterator(dv.data(), to_q1{}), n, merge_q1{}, s, o);
        const auto keys = g.keys.to_host();
        const auto values = g.values.to_host();
        ASSERT_EQ(keys.size(), want.size());
        std::size_t i = 0;
        for (const auto& [k, v] : want) {
          ASSERT_EQ(keys[i], k) << "group " << i;
          EXPECT_EQ(std::memcmp(&values[i], &v, sizeof(q1_acc)), 0) << "key " << k;
          ++i;
        }
      }
    }
  }
}

struct index_to_stats {
  const float* x;
  __host__ __device__ stats operator()(std::uint32_t i) const { return to_stats{}(x[i]); }
};

// The sort route moves with the keys what it can: the values themselves (a 16-byte struct array:
// the rows' positions instead), a transform iterator's underlying values (an array, or an
// iterator it copies first), float keys normalised first; with room for every row the groups go
// straight to the caller's arrays, even in place over the keys.
TEST(GroupByCompiled, SortRouteCarriesEachKindOfValues) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  for (std::size_t n : {std::size_t(1), std::size_t(1001), scaled((std::size_t(1) << 20) + 3)}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto hk = group_keys<std::uint32_t>(n, 5000, static_cast<unsigned>(n));
    const auto hf = group_keys<float>(n, 5000, static_cast<unsigned>(n));
    const auto hv = small_floats(n, static_cast<unsigned>(n + 1));
    const auto want = cpu_groups(hk, hv);
    device_buffer<std::uint32_t> dk(hk, s);
    device_buffer<float> dfk(hf, s);
    device_buffer<float> dv(hv, s);
    std::vector<stats> hs(n);
    for (std::size_t i = 0; i < n; ++i)
      hs[i] = to_stats{}(hv[i]);
    device_buffer<stats> ds(hs, s);
    group_by_options o;
    o.method = group_by_method::sort;
    {
      SCOPED_TRACE("16-byte values: the rows' positions sorted");
      const auto g = cupar::group_by(dk.data(), ds.data(), n, merge_stats{}, s, o);
      expect_groups(g.keys.to_host(), g.values.to_host(), true, want);
    }
    {
      SCOPED_TRACE("a transform of an iterator: its values copied, then sorted");
      const auto values = thrust::make_transform_iterator(
          thrust::counting_iterator<std::uint32_t>(0), index_to_stats{dv.data()});
      const auto g = cupar::group_by(dk.data(), values, n, merge_stats{}, s, o);
      expect_groups(g.keys.to_host(), g.values.to_host(), true, want);
    }
    {
      SCOPED_TRACE("float keys normalised, the transform's array sorted as it is");
      const auto g =
          cupar::group_by(dfk.data(), thrust::make_transform_iterator(dv.data(), to_stats{}), n,
                          merge_stats{}, s, o);
      expect_groups(g.keys.to_host(), g.values.to_host(), true, cpu_groups(hf, hv));
    }
    {
      SCOPED_TRACE("caller arrays with room for n, in place over the keys");
      device_buffer<stats> vo(n, s);
      device_buffer<std::uint32_t> keys(hk, s);
      const std::size_t count =
          cupar::group_by(keys.data(), thrust::make_transform_iterator(dv.data(), to_stats{}),
                          keys.data(), vo.data(), n, n, merge_stats{}, s, o);
      ASSERT_EQ(count, want.size());
      auto k = keys.to_host();
      auto v = vo.to_host();
      k.resize(count);
      v.resize(count);
      expect_groups(k, v, true, want);
      // A max_groups below the count: nothing written, even with room for n.
      group_by_options tight = o;
      tight.max_groups = want.size() - 1;
      if (tight.max_groups > 0) {
        vo.fill_bytes(0xAB);
        EXPECT_THROW((void)cupar::group_by(dk.data(), ds.data(), keys.data(), vo.data(), n, n,
                                           merge_stats{}, s, tight),
                     std::length_error);
        EXPECT_THROW(
            (void)cupar::group_by(dk.data(), thrust::make_transform_iterator(dv.data(), to_stats{}),
                                  keys.data(), vo.data(), n, n, merge_stats{}, s, tight),
            std::length_error);
        EXPECT_EQ(vo.to_host()[0].count, 0xABABABABu);
      }
    }
  }
}

// The block tables keep 4-byte keys as their mixed words (hash::part_mix), two of which mark a
// slot empty or being claimed: the two keys that mix to them have extra slots. Those keys among
// others, by the block tables over the rows as given (4,096 groups) and partitioned (2^17 groups,
// 64 rows a group), u32 and i32 keys.
template <class K>
void check_marker_keys(const char* name) {
  SCOPED_TRACE(name);
  owned_stream s;
  const K markers[2] = {
      static_cast<K>(cupar::detail::hash::part_unmix(cupar::detail::hash::empty_key_word)),
      static_cast<K>(cupar::detail::hash::part_unmix(cupar::detail::hash::busy_key_word))};
  for (std::size_t groups : {std::size_t(4096), std::size_t(1) << 17}) {
    const std::size_t n = scaled(64 * groups);
    SCOPED_TRACE("groups " + std::to_string(groups) + ", n = " + std::to_string(n));
    // Group g < 2 is a marker's key, the others g - 2 (neither marker is below 2^17).
    std::vector<K> hk(n);
    std::mt19937_64 rng(groups);
    std::uniform_int_distribution<std::size_t> pick(0, groups - 1);
    for (K& k : hk) {
      const std::size_t g = pick(rng);
      k = g < 2 ? markers[g] : static_cast<K>(g - 2);
    }
    const auto hv = small_floats(n, 5u);
    const auto want = cpu_groups(hk, hv);
    ASSERT_EQ(want.size(), groups);
    device_buffer<K> dk(hk, s);
    device_buffer<float> dv(hv, s);
    const auto values = thrust::make_transform_iterator(dv.data(), to_stats{});
    const auto g = cupar::group_by(dk.data(), values, n, merge_stats{}, s);
    expect_groups(g.keys.to_host(), g.values.to_host(), false, want);
  }
}

TEST(GroupByCompiled, TheKeysOfTheBlockTablesMarkerWordsAreGroupsLikeAnyOther) {
  CUPAR_REQUIRE_GPU();
  check_marker_keys<std::uint32_t>("u32");
  check_marker_keys<std::int32_t>("i32");
}

// 8-byte keys in parts of one block each (300,000 groups of 32 rows: 256 parts of 4,096-slot
// tables), i64 and f64: the route where each block's groups are a part's alone.
template <class K>
void check_keys_in_parts(const char* name, unsigned seed) {
  SCOPED_TRACE(name);
  owned_stream s;
  const std::size_t groups = 300000;
  const std::size_t n = scaled(32 * groups);
  const auto hk = group_keys<K>(n, groups, seed);
  const auto hv = small_floats(n, seed + 1);
  const auto want = cpu_groups(hk, hv);
  device_buffer<K> dk(hk, s);
  device_buffer<float> dv(hv, s);
  const auto g = cupar::group_by(dk.data(), thrust::make_transform_iterator(dv.data(), to_stats{}),
                                 n, merge_stats{}, s);
  expect_groups(g.keys.to_host(), g.values.to_host(), false, want);
}

TEST(GroupByCompiled, EightByteKeysInPartsOfOneBlock) {
  CUPAR_REQUIRE_GPU();
  check_keys_in_parts<std::int64_t>("i64", 31u);
  check_keys_in_parts<double>("f64", 37u);
}

// Every row its own group, 2^22 rows from counting iterators, by each method (hash: the table at
// its largest, half full); the temporaries all given back, the result's two buffers from the
// caller's resource.
TEST(GroupByCompiled, EveryRowItsOwnGroup) {
  CUPAR_REQUIRE_GPU();
  if (!cupar::testing::library_has<std::int64_t>()) {
    GTEST_SKIP() << "i64 not in this build's CUPAR_LIBRARY_TYPES";
  }
  owned_stream s;
  counting_upstream upstream;
  cupar::resource_adaptor mr{upstream};
  const std::size_t n = scaled(std::size_t(1) << 22);
  const auto ids = thrust::counting_iterator<std::int64_t>(0);
  for (group_by_method method :
       {group_by_method::automatic, group_by_method::hash, group_by_method::sort}) {
    SCOPED_TRACE(method_name(method));
    group_by_options o;
    o.method = method;
    const auto g = cupar::group_by(ids, ids, n, ::cuda::std::plus<std::int64_t>{}, s, o, mr);
    ASSERT_EQ(g.size(), n);
    const auto k = g.keys.to_host();
    const auto v = g.values.to_host();
    for (std::size_t i = 0; i < n; ++i)
      ASSERT_EQ(k[i], v[i]);
    std::vector<std::int64_t> sorted = k;
    std::sort(sorted.begin(), sorted.end());
    for (std::size_t i = 0; i < n; ++i)
      ASSERT_EQ(sorted[i], static_cast<std::int64_t>(i));
    EXPECT_EQ(upstream.live_allocations(), 2u);  // the result's two buffers
  }
}

// group_by_method::automatic below group_by_sort_below_rows rows takes the sort route without the
// sketch (method_for_rows): 100 groups come in key order though sort_by_key is off, a max_groups
// of their count gives the same, one below throws std::length_error (the sorted keys' count). At
// that row count (full scale only) it chooses by the groups again: the hash method's table order.
TEST(GroupByCompiled, AutomaticTakesTheSortRouteBelowItsRowCount) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  cupar::testing::for_each_sort_below_case<std::uint32_t>([&](std::size_t n, bool below,
                                                              const std::vector<std::uint32_t>& hk,
                                                              const std::vector<float>& hv) {
    const auto want = cpu_groups(hk, hv);
    device_buffer<std::uint32_t> dk(hk, s);
    device_buffer<float> dv(hv, s);
    const auto values = thrust::make_transform_iterator(dv.data(), to_stats{});
    const auto g = cupar::group_by(dk.data(), values, n, merge_stats{}, s);
    const auto keys = g.keys.to_host();
    expect_groups(keys, g.values.to_host(), below, want);
    if (!below) {
      EXPECT_FALSE(std::is_sorted(keys.begin(), keys.end())) << "the hash method's order";
      return;
    }
    group_by_options bounded;
    bounded.max_groups = want.size();
    const auto b = cupar::group_by(dk.data(), values, n, merge_stats{}, s, bounded);
    expect_groups(b.keys.to_host(), b.values.to_host(), true, want);
    bounded.max_groups = want.size() - 1;
    CUPAR_EXPECT_THROW_WITH(
        (void)cupar::group_by(dk.data(), values, n, merge_stats{}, s, bounded), std::length_error,
        "more than max_groups = " + std::to_string(want.size() - 1) + " distinct values");
  });
}

// Groups of three quarters of the rows to every row (the sort route, chosen or forced): counted
// in the sorted keys, then written by reduce_by_key into the result's exact-size buffers or the
// caller's arrays of exactly their room (too little room: std::length_error, nothing written);
// the values moved by the sort (a transform of floats) and read through the sorted positions (a
// 16-byte array: into caller arrays through a temporary).
template <class K>
void check_many_groups(const char* name) {
  if (!cupar::testing::library_serves<K>(name)) return;
  SCOPED_TRACE(name);
  owned_stream s;
  counting_upstream upstream;
  cupar::resource_adaptor mr{upstream};
  cupar::testing::for_each_many_groups_case<K>(
      scaled(std::size_t(1) << 20) + 3,
      [&](std::size_t n, std::size_t groups, const std::vector<K>& hk,
          const std::vector<float>& hv) {
        const auto want = cpu_groups(hk, hv);
        ASSERT_EQ(want.size(), groups);
        std::vector<stats> hs(n);
        for (std::size_t i = 0; i < n; ++i)
          hs[i] = to_stats{}(hv[i]);
        device_buffer<K> dk(hk, s);
        device_buffer<float> dv(hv, s);
        device_buffer<stats> ds(hs, s);
        const auto moved = thrust::make_transform_iterator(dv.data(), to_stats{});
        for (group_by_method method : {group_by_method::automatic, group_by_method::sort}) {
          for (bool sorted : {false, true}) {
            SCOPED_TRACE(std::string(method_name(method)) + (sorted ? ", sorted" : ""));
            group_by_options o;
            o.sort_by_key = sorted;
            o.method = method;
            const auto a = cupar::group_by(dk.data(), moved, n, merge_stats{}, s, o, mr);
            EXPECT_EQ(a.size(), groups);
            EXPECT_EQ(a.values.size(), groups);
            expect_groups(a.keys.to_host(), a.values.to_host(), sorted, want);
            const auto b = cupar::group_by(dk.data(), ds.data(), n, merge_stats{}, s, o, mr);
            EXPECT_EQ(b.size(), groups);
            expect_groups(b.keys.to_host(), b.values.to_host(), sorted, want);
            EXPECT_EQ(upstream.live_allocations(), 4u);  // a's and b's buffers, no temporary
          }
        }
        // Caller arrays of exactly the groups' room, then one short (nothing written).
        const stats marker{0xdeadbeefu, -1.0f, -2.0f, -3.0f};
        for (bool positions : {false, true}) {
          SCOPED_TRACE(positions ? "values through positions" : "values moved");
          device_buffer<K> ko(groups, s);
          device_buffer<stats> vo(std::vector<stats>(groups, marker), s);
          const std::size_t got = positions
                                      ? cupar::group_by(dk.data(), ds.data(), ko.data(), vo.data(),
                                                        groups, n, merge_stats{}, s, {}, mr)
                                      : cupar::group_by(dk.data(), moved, ko.data(), vo.data(),
                                                        groups, n, merge_stats{}, s, {}, mr);
          ASSERT_EQ(got, groups);
          expect_groups(ko.to_host(), vo.to_host(), false, want);
          device_buffer<stats> short_room(std::vector<stats>(groups, marker), s);
          EXPECT_THROW(positions
                           ? cupar::group_by(dk.data(), ds.data(), ko.data(), short_room.data(),
                                             groups - 1, n, merge_stats{}, s, {}, mr)
                           : cupar::group_by(dk.data(), moved, ko.data(), short_room.data(),
                                             groups - 1, n, merge_stats{}, s, {}, mr),
                       std::length_error);
          for (const stats& v : short_room.to_host())
            ASSERT_EQ(v.count, marker.count);
        }
      });
}

TEST(GroupByCompiled, ManyGroupsAreCountedThenWrittenWhereTheyGo) {
  CUPAR_REQUIRE_GPU();
  check_many_groups<std::uint32_t>("u32");
  check_many_groups<std::int64_t>("i64");
  check_many_groups<float>("f32");
  check_many_groups<double>("f64");
}

TEST(GroupByCompiled, BadArgumentsThrowBeforeAnyWork) {
  cupar::stream_ref s = cupar::stream_ref::legacy_default();
  const float* none = nullptr;
  float dummy = 0;
  CUPAR_EXPECT_THROW_WITH((void)cupar::group_by(static_cast<const std::uint32_t*>(nullptr), &dummy,
                                                4, ::cuda::std::plus<float>{}, s),
                          std::invalid_argument, "d_keys is null but n = 4");
  const std::uint32_t key = 0;
  CUPAR_EXPECT_THROW_WITH((void)cupar::group_by(&key, none, 4, ::cuda::std::plus<float>{}, s),
                          std::invalid_argument, "d_values is null but n = 4");
  CUPAR_EXPECT_THROW_WITH((void)cupar::group_by(&key, &dummy, static_cast<std::uint32_t*>(nullptr),
                                                &dummy, 4, 1, ::cuda::std::plus<float>{}, s),
                          std::invalid_argument, "d_keys_out is null");
  // n == 0 needs no data and runs nothing.
  const auto g = cupar::group_by(static_cast<const std::uint32_t*>(nullptr), none, 0,
                                 ::cuda::std::plus<float>{}, s);
  EXPECT_EQ(g.size(), 0u);
}

/// A composite key of two columns, grouped under a hash and an equality (group_by's overloads
/// taking them).
struct day_store {
  std::uint32_t day, store;
};
struct day_store_hash {
  __host__ __device__ unsigned long long operator()(const day_store& k) const {
    return (static_cast<unsigned long long>(k.day) << 32) | k.store;
  }
};
/// A weak hash (correct: equal keys hash equal), so that distinct keys share the table's probes
/// and the equality decides: 64 values, each shared by up to 7 stores of many days. (A hash with
/// fewer values than keys has runs of its keys in the table: probes grow with the keys a value
/// stands for, so the tests use it up to a few thousand keys.)
struct day_store_weak_hash {
  __host__ __device__ unsigned long long operator()(const day_store& k) const {
    return k.day & 63u;
  }
};
struct day_store_eq {
  __host__ __device__ bool operator()(const day_store& a, const day_store& b) const {
    return a.day == b.day && a.store == b.store;
  }
};
struct day_store_of {
  std::uint32_t groups;
  __host__ __device__ day_store operator()(std::uint64_t i) const {
    const auto g = static_cast<std::uint32_t>((i * 2654435761u) % groups);
    return {g / 7, g % 7 + 100};
  }
};

unsigned long long packed(const day_store& k) {
  return (static_cast<unsigned long long>(k.day) << 32) | k.store;
}

// Struct keys under a hash and an equality against the CPU's map of the packed keys: sizes 0, 1,
// odd and large, one group to every row its own, each method of the representatives' grouping, a
// weak hash, keys from an iterator, caller arrays, max_groups, and the errors.
TEST(GroupByCompiled, StructKeysUnderAHashAndAnEquality) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  const std::size_t large = scaled((std::size_t(1) << 22) + 3);
  for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(1001), large}) {
    for (std::size_t groups : {std::size_t(1), std::size_t(100), std::size_t(5000), n}) {
      if (groups == 0 || groups > std::max<std::size_t>(n, 1)) continue;
      SCOPED_TRACE("n = " + std::to_string(n) + ", groups " + std::to_string(groups));
      std::vector<day_store> hk(n);
      std::vector<float> hx(n);
      const day_store_of key_of{static_cast<std::uint32_t>(groups)};
      std::map<unsigned long long, stats> want;
      for (std::size_t i = 0; i < n; ++i) {
        hk[i] = key_of(i);
        hx[i] = static_cast<float>(static_cast<int>(i % 101) - 50);
        const stats one = to_stats{}(hx[i]);
        const auto [it, fresh] = want.emplace(packed(hk[i]), one);
        if (!fresh) it->second = merge_stats{}(it->second, one);
      }
      device_buffer<day_store> dk(hk, s);
      device_buffer<float> dx(hx, s);
      const auto rows = thrust::make_transform_iterator(dx.data(), to_stats{});
      const auto check = [&](const std::vector<day_store>& keys, const std::vector<stats>& values,
                             std::size_t count) {
        expect_keyed_groups(keys, values, count, want, packed,
                            [](const stats& g, const stats& v, unsigned long long) {
                              EXPECT_EQ(g.count, v.count);
                              EXPECT_EQ(g.sum, v.sum);
                              EXPECT_EQ(g.min, v.min);
                              EXPECT_EQ(g.max, v.max);
                            });
      };
      for (group_by_method method :
           {group_by_method::automatic, group_by_method::hash, group_by_method::sort}) {
        SCOPED_TRACE(method_name(method));
        group_by_options o;
        o.method = method;
        const auto g = cupar::group_by(dk.data(), rows, n, day_store_hash{}, day_store_eq{},
                                       merge_stats{}, s, o);
        check(g.keys.to_host(), g.values.to_host(), g.size());
      }
      // A weak hash (up to 5,000 keys); keys from an iterator; a bound on the groups.
      if (groups <= 5000) {
        const auto w = cupar::group_by(dk.data(), rows, n, day_store_weak_hash{}, day_store_eq{},
                                       merge_stats{}, s);
        check(w.keys.to_host(), w.values.to_host(), w.size());
      }
      group_by_options bounded;
      bounded.max_groups = want.size() + 3;
      const auto it = cupar::group_by(
          thrust::make_transform_iterator(thrust::counting_iterator<std::uint64_t>(0), key_of),
          rows, n, day_store_hash{}, day_store_eq{}, merge_stats{}, s, bounded);
      check(it.keys.to_host(), it.values.to_host(), it.size());
      // Caller arrays: exactly the room, then too little (std::length_error, nothing written).
      if (n == 0) continue;
      device_buffer<day_store> ko(want.size(), s);
      device_buffer<stats> vo(want.size(), s);
      const std::size_t count =
          cupar::group_by(dk.data(), rows, ko.data(), vo.data(), want.size(), n, day_store_hash{},
                          day_store_eq{}, merge_stats{}, s);
      check(ko.to_host(), vo.to_host(), count);
      if (want.size() < 2) continue;
      vo.fill_bytes(0xAB);
      CUPAR_EXPECT_THROW_WITH(
          (void)cupar::group_by(dk.data(), rows, ko.data(), vo.data(), want.size() - 1, n,
                                day_store_hash{}, day_store_eq{}, merge_stats{}, s),
          std::length_error, "groups do not fit out_capacity");
      EXPECT_EQ(vo.to_host()[0].count, 0xABABABABu);
      group_by_options tight;
      tight.max_groups = want.size() - 1;
      CUPAR_EXPECT_THROW_WITH((void)cupar::group_by(dk.data(), rows, n, day_store_hash{},
                                                    day_store_eq{}, merge_stats{}, s, tight),
                              std::length_error, "distinct values");
    }
  }
  // Refused before anything runs: null keys, a sorted output, outputs over the keys.
  const float one = 1;
  CUPAR_EXPECT_THROW_WITH(
      (void)cupar::group_by(static_cast<const day_store*>(nullptr), &one, 4, day_store_hash{},
                            day_store_eq{}, ::cuda::std::plus<float>{}, s),
      std::invalid_argument, "d_keys is null but n = 4");
  device_buffer<day_store> dk(std::vector<day_store>{{1, 2}, {1, 2}, {3, 4}}, s);
  device_buffer<float> dx(std::vector<float>{1, 2, 5}, s);
  group_by_options sorted;
  sorted.sort_by_key = true;
  CUPAR_EXPECT_THROW_WITH(
      (void)cupar::group_by(dk.data(), dx.data(), 3, day_store_hash{}, day_store_eq{},
                            ::cuda::std::plus<float>{}, s, sorted),
      std::invalid_argument, "sort_by_key");
  device_buffer<float> vo(3, s);
  CUPAR_EXPECT_THROW_WITH(
      (void)cupar::group_by(dk.data(), dx.data(), dk.data(), vo.data(), 3, 3, day_store_hash{},
                            day_store_eq{}, ::cuda::std::plus<float>{}, s),
      std::invalid_argument, "overlap");
  // Still working.
  const auto g = cupar::group_by(dk.data(), dx.data(), 3, day_store_hash{}, day_store_eq{},
                                 ::cuda::std::plus<float>{}, s);
  ASSERT_EQ(g.size(), 2u);
  const auto k = g.keys.to_host();
  const auto v = g.values.to_host();
  for (std::size_t i = 0; i < 2; ++i)
    EXPECT_EQ(v[i], k[i].day == 1 ? 3.0f : 5.0f);
}

}  // namespace
}  // namespace cupar::testing
