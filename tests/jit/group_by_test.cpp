// cupar tests: group_by with run-time combining operators (group_by.hpp) against a CPU reference
// (std::map): key types, group counts from one to every row, arithmetic and struct accumulators
// (16 and 48 bytes), sizes 0, 1, odd and large, each method, sorted and unsorted output, iterator
// expressions as values (read by the kernels on the routes that read rows in place), caller
// arrays, and the errors. Compiled by g++.
#include "../common/group_by_ref.hpp"
#include "../common/precompiled.hpp"
#include "../conformance/common.hpp"

#include <cupar/cupar.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <limits>
#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

CUPAR_JIT_STRUCT(gb_stats, unsigned int count; float sum; float min; float max;)
CUPAR_JIT_STRUCT(gb_q1, double qty; double base; double disc_price; double charge; double disc;
                 unsigned long long count;)

using cupar::group_by_method;
using cupar::group_by_options;
using cupar::jit::op;
using cupar::testing::group_keys;
using cupar::testing::key_less;
using cupar::testing::library_has;
using cupar::testing::method_name;
using cupar::testing::normalised;
using cupar::testing::owned_stream;
using cupar::testing::same_key;
using cupar::testing::scaled;
using cupar::testing::small_floats;

namespace {

const op& merge_stats() {
  static const op m(
      "gb_stats{a.count + b.count, a.sum + b.sum, fminf(a.min, b.min), fmaxf(a.max, b.max)}");
  return m;
}
const op& to_stats() {
  static const op t("gb_stats{1u, x, x, x}");
  return t;
}

gb_stats stats_of(float x) {
  return {1u, x, x, x};
}
gb_stats merge(const gb_stats& a, const gb_stats& b) {
  return {a.count + b.count, a.sum + b.sum, std::fmin(a.min, b.min), std::fmax(a.max, b.max)};
}

template <class K, class V>
using cpu_map = std::map<K, V, key_less<K>>;

/// GPU groups (sorted by key, or in table order) against the CPU's; `same` compares values.
template <class K, class V, class Same>
void expect_groups(const std::vector<K>& keys, const std::vector<V>& values, bool sorted,
                   const cpu_map<K, V>& want, Same same) {
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
    ASSERT_TRUE(same_key(keys[i], k))
        << "group " << j - 1 << ": key " << +keys[i] << ", want " << +k;
    EXPECT_TRUE(same(values[i], v)) << "key " << +k;
  }
}

bool same_stats(const gb_stats& a, const gb_stats& b) {
  return a.count == b.count && a.sum == b.sum && a.min == b.min && a.max == b.max;
}

const group_by_method methods[] = {group_by_method::automatic, group_by_method::hash,
                                   group_by_method::sort};

template <class K>
void check_key_type(const char* name, const std::vector<std::size_t>& sizes,
                    bool every_group_count = true) {
  SCOPED_TRACE(name);
  if (!library_has<K>()) {
    std::printf("keys %s: not in this build of the library (CUPAR_LIBRARY_TYPES), skipped\n", name);
    return;
  }
  owned_stream s;
  for (std::size_t n : sizes) {
    const std::vector<std::size_t> group_counts =
        every_group_count ? std::vector<std::size_t>{1, 100, 1000, 5000, n / 3 + 1, n}
                          : std::vector<std::size_t>{100, n / 256 + 1, n / 16 + 1};
    for (std::size_t groups : group_counts) {
      if (groups == 0 || groups > std::max<std::size_t>(n, 1)) continue;
      SCOPED_TRACE("n = " + std::to_string(n) + ", groups drawn from " + std::to_string(groups));
      const auto hk = group_keys<K>(n, groups, static_cast<unsigned>(n + groups));
      const auto hv = small_floats(n, static_cast<unsigned>(3 * n + groups));
      // The CPU's groups: the rows' positions sorted by key, one fold per run (a map of millions
      // of keys filled row by row would take seconds).
      std::vector<std::size_t> order(n);
      for (std::size_t i = 0; i < n; ++i)
        order[i] = i;
      std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return key_less<K>{}(normalised(hk[a]), normalised(hk[b]));
      });
      cpu_map<K, gb_stats> want;
      cpu_map<K, float> sums;
      for (std::size_t i : order) {
        const K k = normalised(hk[i]);
        if (!want.empty() && same_key(std::prev(want.end())->first, k)) {
          auto& w = std::prev(want.end())->second;
          w = merge(w, stats_of(hv[i]));
          std::prev(sums.end())->second += hv[i];
        } else {
          want.emplace_hint(want.end(), k, stats_of(hv[i]));
          sums.emplace_hint(sums.end(), k, hv[i]);
        }
      }
      cupar::device_buffer<K> dk(hk, s);
      cupar::device_buffer<float> dv(hv, s);
      std::vector<gb_stats> hs(n);
      for (std::size_t i = 0; i < n; ++i)
        hs[i] = stats_of(hv[i]);
      cupar::device_buffer<gb_stats> ds(hs, s);
      for (group_by_method method : methods) {
        for (bool sorted : {false, true}) {
          SCOPED_TRACE(std::string("method ") + method_name(method) + (sorted ? ", sorted" : ""));
          group_by_options o;
          o.sort_by_key = sorted;
          o.method = method;
          // A 16-byte struct accumulator, and a float one with the named plus.
          const auto g = cupar::group_by(dk.data(), ds.data(), n, merge_stats(), s, o);
          expect_groups(g.keys.to_host(), g.values.to_host(), sorted, want, same_stats);
          const auto f = cupar::group_by(dk.data(), dv.data(), n, cupar::jit::plus, s, o);
          expect_groups(f.keys.to_host(), f.values.to_host(), sorted, sums,
                        [](float a, float b) { return a == b; });
        }
      }
      // A caller's bound on the groups: no sketch, the same groups.
      group_by_options bounded;
      bounded.max_groups = want.size() + 7;
      bounded.sort_by_key = true;
      const auto g = cupar::group_by(dk.data(), ds.data(), n, merge_stats(), s, bounded);
      expect_groups(g.keys.to_host(), g.values.to_host(), true, want, same_stats);
    }
  }
}

}  // namespace

// Values are small integers, so every float sum is exact whatever the order the GPU combines them
// in. 4- and 8-byte keys take the precompiled sets (floating-point keys by their bits); 1-byte
// keys compile theirs from source once.
TEST(GroupByJit, EveryKeyTypeAndGroupCountMatchesTheCpu) {
  CUPAR_REQUIRE_GPU();
  const std::vector<std::size_t> sizes = {0, 1, 2, 1001, scaled((std::size_t(1) << 20) + 3)};
  check_key_type<std::uint32_t>("u32", sizes);
  check_key_type<std::int64_t>("i64", sizes);
  check_key_type<std::int32_t>("i32", sizes);
  check_key_type<float>("f32", sizes);
  check_key_type<double>("f64", sizes);
  check_key_type<std::uint8_t>("u8", {0, 1, 1001, scaled(std::size_t(100003))});
  // Large: 100 groups (the hash method), n / 256 and n / 16 (the table method, partitioned into
  // parts of one block), each by every method (the sort route among them).
  check_key_type<std::uint32_t>("u32", {scaled(std::size_t(1) << 24)}, false);
}

// Groups of three quarters of the rows to every row (the sort route, chosen or forced): counted
// in the sorted keys, then written by reduce_by_key into the result's exact-size buffers or the
// caller's arrays of exactly their room (too little room: std::length_error, nothing written); a
// 16-byte accumulator array, and a one-array expression of floats (the sort moves its array).
template <class K>
void check_many_groups(const char* name) {
  SCOPED_TRACE(name);
  if (!library_has<K>()) {
    std::printf("keys %s: not in this build of the library (CUPAR_LIBRARY_TYPES), skipped\n", name);
    return;
  }
  owned_stream s;
  cupar::testing::for_each_many_groups_case<K>(
      scaled(std::size_t(1) << 20) + 3,
      [&](std::size_t n, std::size_t groups, const std::vector<K>& hk,
          const std::vector<float>& hv) {
        cpu_map<K, gb_stats> want;
        for (std::size_t i = 0; i < n; ++i) {
          const auto [it, fresh] = want.try_emplace(normalised(hk[i]), stats_of(hv[i]));
          if (!fresh) it->second = merge(it->second, stats_of(hv[i]));
        }
        ASSERT_EQ(want.size(), groups);
        std::vector<gb_stats> hs(n);
        for (std::size_t i = 0; i < n; ++i)
          hs[i] = stats_of(hv[i]);
        cupar::device_buffer<K> dk(hk, s);
        cupar::device_buffer<float> dv(hv, s);
        cupar::device_buffer<gb_stats> ds(hs, s);
        const auto rows =
            cupar::jit::transform<gb_stats>(cupar::jit::iterator(dv.data()), to_stats());
        for (group_by_method method : {group_by_method::automatic, group_by_method::sort}) {
          for (bool sorted : {false, true}) {
            SCOPED_TRACE(std::string(method_name(method)) + (sorted ? ", sorted" : ""));
            group_by_options o;
            o.sort_by_key = sorted;
            o.method = method;
            const auto a = cupar::group_by(dk.data(), ds.data(), n, merge_stats(), s, o);
            EXPECT_EQ(a.size(), groups);
            EXPECT_EQ(a.values.size(), groups);
            expect_groups(a.keys.to_host(), a.values.to_host(), sorted, want, same_stats);
            const auto b = cupar::group_by<K, gb_stats>(dk.data(), rows, n, merge_stats(), s, o);
            EXPECT_EQ(b.size(), groups);
            expect_groups(b.keys.to_host(), b.values.to_host(), sorted, want, same_stats);
          }
        }
        // Caller arrays of exactly the groups' room, then one short (nothing written).
        for (bool expression : {false, true}) {
          SCOPED_TRACE(expression ? "values as an expression" : "values as an array");
          const auto run = [&](gb_stats* values_out, std::size_t room) {
            cupar::device_buffer<K> ko(groups, s);
            const std::size_t got =
                expression ? cupar::group_by<K, gb_stats>(dk.data(), rows, ko.data(), values_out,
                                                          room, n, merge_stats(), s)
                           : cupar::group_by(dk.data(), ds.data(), ko.data(), values_out, room, n,
                                             merge_stats(), s);
            return std::make_pair(got, ko.to_host());
          };
          cupar::device_buffer<gb_stats> vo(groups, s);
          const auto [got, keys] = run(vo.data(), groups);
          ASSERT_EQ(got, groups);
          expect_groups(keys, vo.to_host(), false, want, same_stats);
          cupar::device_buffer<gb_stats> short_room(groups, s);
          short_room.fill_bytes(0xAB);
          EXPECT_THROW((void)run(short_room.data(), groups - 1), std::length_error);
          for (const gb_stats& v : short_room.to_host())
            ASSERT_EQ(v.count, 0xABABABABu);
        }
      });
}

TEST(GroupByJit, ManyGroupsAreCountedThenWrittenWhereTheyGo) {
  CUPAR_REQUIRE_GPU();
  check_many_groups<std::uint32_t>("u32");
  check_many_groups<std::int64_t>("i64");
  check_many_groups<float>("f32");
  check_many_groups<double>("f64");
}

// group_by_method::automatic below group_by_sort_below_rows rows takes the sort route without the
// sketch (method_for_rows): 100 groups come in key order though sort_by_key is off, a max_groups
// of their count gives the same, one below throws std::length_error (the sorted keys' count). At
// that row count (full scale only) it chooses by the groups again: the hash method's table order.
TEST(GroupByJit, AutomaticTakesTheSortRouteBelowItsRowCount) {
  CUPAR_REQUIRE_GPU();
  if (!library_has<std::uint32_t>())
    GTEST_SKIP() << "u32 is not in this build of the library (CUPAR_LIBRARY_TYPES)";
  owned_stream s;
  cupar::testing::for_each_sort_below_case<std::uint32_t>([&](std::size_t n, bool below,
                                                              const std::vector<std::uint32_t>& hk,
                                                              const std::vector<float>& hv) {
    cpu_map<std::uint32_t, gb_stats> want;
    std::vector<gb_stats> hs(n);
    for (std::size_t i = 0; i < n; ++i) {
      hs[i] = stats_of(hv[i]);
      const auto [it, fresh] = want.try_emplace(hk[i], hs[i]);
      if (!fresh) it->second = merge(it->second, hs[i]);
    }
    cupar::device_buffer<std::uint32_t> dk(hk, s);
    cupar::device_buffer<gb_stats> ds(hs, s);
    // The values as an expression of the float column too (the sort route moves the column).
    cupar::device_buffer<float> dv(hv, s);
    const auto rows = cupar::jit::transform<gb_stats>(cupar::jit::iterator(dv.data()), to_stats());
    const auto g = cupar::group_by(dk.data(), ds.data(), n, merge_stats(), s);
    const auto keys = g.keys.to_host();
    expect_groups(keys, g.values.to_host(), below, want, same_stats);
    const auto e = cupar::group_by<std::uint32_t, gb_stats>(dk.data(), rows, n, merge_stats(), s);
    expect_groups(e.keys.to_host(), e.values.to_host(), below, want, same_stats);
    if (!below) {
      EXPECT_FALSE(std::is_sorted(keys.begin(), keys.end())) << "the hash method's order";
      return;
    }
    group_by_options bounded;
    bounded.max_groups = want.size();
    const auto b = cupar::group_by(dk.data(), ds.data(), n, merge_stats(), s, bounded);
    expect_groups(b.keys.to_host(), b.values.to_host(), true, want, same_stats);
    bounded.max_groups = want.size() - 1;
    CUPAR_EXPECT_THROW_WITH(
        (void)cupar::group_by(dk.data(), ds.data(), n, merge_stats(), s, bounded),
        std::length_error,
        "more than max_groups = " + std::to_string(want.size() - 1) + " distinct values");
  });
}

// -0.0 and +0.0 are one group, every NaN is one group (SQL's GROUP BY), by both methods.
TEST(GroupByJit, SignedZerosAndNaNsAreOneKeyEach) {
  CUPAR_REQUIRE_GPU();
  if (!library_has<float>())
    GTEST_SKIP() << "f32 is not in this build of the library (CUPAR_LIBRARY_TYPES)";
  owned_stream s;
  const float nan1 = std::numeric_limits<float>::quiet_NaN();
  float nan2;
  const std::uint32_t other_nan = 0xffc00123u;
  std::memcpy(&nan2, &other_nan, sizeof(nan2));
  const std::vector<float> hk = {0.0f, -0.0f, nan1, nan2, 1.0f, -0.0f, nan1, 1.0f};
  const std::vector<float> hv = {1, 2, 3, 4, 5, 6, 7, 8};
  cupar::device_buffer<float> dk(hk, s), dv(hv, s);
  for (group_by_method method : {group_by_method::hash, group_by_method::sort}) {
    SCOPED_TRACE(method_name(method));
    group_by_options o;
    o.sort_by_key = true;
    o.method = method;
    const auto g = cupar::group_by(dk.data(), dv.data(), hk.size(), op("a + b"), s, o);
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

// The values as an iterator expression (the rows' statistics computed from a float column: a
// query engine's shape), the caller-array form, its capacity check, max_groups, and the
// arguments refused before anything runs; the library keeps working after each error.
TEST(GroupByJit, ExpressionValuesCallerArraysAndErrors) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  const std::size_t n = scaled((std::size_t(1) << 22) + 5);
  std::vector<std::uint32_t> hk(n);
  std::vector<float> hx(n);
  for (std::size_t i = 0; i < n; ++i) {
    hk[i] = static_cast<std::uint32_t>((i * 7919) % 997);
    hx[i] = static_cast<float>(static_cast<int>(i % 13) - 6);
  }
  cpu_map<std::uint32_t, gb_stats> want;
  for (std::size_t i = 0; i < n; ++i) {
    const auto it = want.find(hk[i]);
    if (it == want.end()) {
      want.emplace(hk[i], stats_of(hx[i]));
    } else {
      it->second = merge(it->second, stats_of(hx[i]));
    }
  }
  cupar::device_buffer<std::uint32_t> dk(hk, s);
  cupar::device_buffer<float> dx(hx, s);
  const auto rows = cupar::jit::transform<gb_stats>(cupar::jit::iterator(dx.data()), to_stats());
  for (group_by_method method : methods) {
    SCOPED_TRACE(method_name(method));
    group_by_options o;
    o.method = method;
    o.sort_by_key = true;
    const auto g =
        cupar::group_by<std::uint32_t, gb_stats>(dk.data(), rows, n, merge_stats(), s, o);
    expect_groups(g.keys.to_host(), g.values.to_host(), true, want, same_stats);
    // Caller arrays: exactly the room, then room for every row (the sort route writes them in
    // place), then too little room (std::length_error with the count, nothing written).
    for (std::size_t room : {want.size(), n}) {
      cupar::device_buffer<std::uint32_t> ko(room, s);
      cupar::device_buffer<gb_stats> vo(room, s);
      ASSERT_EQ(
          cupar::group_by(dk.data(), rows, ko.data(), vo.data(), room, n, merge_stats(), s, o),
          want.size());
      auto keys = ko.to_host();
      auto values = vo.to_host();
      keys.resize(want.size());
      values.resize(want.size());
      expect_groups(keys, values, true, want, same_stats);
    }
    cupar::device_buffer<std::uint32_t> ko(want.size() - 1, s);
    cupar::device_buffer<gb_stats> vo(want.size() - 1, s);
    vo.fill_bytes(0xAB);
    CUPAR_EXPECT_THROW_WITH((void)cupar::group_by(dk.data(), rows, ko.data(), vo.data(),
                                                  want.size() - 1, n, merge_stats(), s, o),
                            std::length_error, "997 groups do not fit out_capacity = 996");
    const auto untouched = vo.to_host();
    EXPECT_EQ(untouched[0].count, 0xABABABABu);
    // max_groups below the keys' count.
    group_by_options tight = o;
    tight.max_groups = 500;
    CUPAR_EXPECT_THROW_WITH(
        (void)cupar::group_by(dk.data(), dx.data(), n, cupar::jit::plus, s, tight),
        std::length_error, "more than max_groups = 500 distinct values");
  }
  // n distinct keys, max_groups 10: std::length_error. The hash method: the table (1,024 slots)
  // overflows; automatic: the same at full scale, the sort route's count of the sorted keys
  // below group_by_sort_below_rows rows (CUPAR_TEST_SCALE=small).
  for (group_by_method method : {group_by_method::hash, group_by_method::automatic}) {
    SCOPED_TRACE(method_name(method));
    group_by_options tight;
    tight.max_groups = 10;
    tight.method = method;
    CUPAR_EXPECT_THROW_WITH(
        ((void)cupar::group_by<std::uint32_t, float>(cupar::jit::counting(0u), dx.data(), n,
                                                     cupar::jit::plus, s, tight)),
        std::length_error, "more than max_groups = 10 distinct values");
  }
  // Refused before anything runs.
  EXPECT_THROW((void)cupar::group_by(static_cast<const std::uint32_t*>(nullptr), dx.data(), n,
                                     cupar::jit::plus, s),
               std::invalid_argument);
  EXPECT_THROW((void)cupar::group_by(dk.data(), dx.data(), static_cast<std::uint32_t*>(nullptr),
                                     static_cast<float*>(nullptr), 10, n, cupar::jit::plus, s),
               std::invalid_argument);
  cupar::device_buffer<std::uint32_t> both(2 * want.size(), s);
  CUPAR_EXPECT_THROW_WITH((void)cupar::group_by(dk.data(), dk.data(), both.data(), both.data() + 1,
                                                want.size(), n, cupar::jit::plus, s),
                          std::invalid_argument, "overlap");
  EXPECT_THROW((void)cupar::group_by(dk.data(), dx.data(), n, op("a +* b"), s), cupar::jit_error);
  // Still working.
  const auto g = cupar::group_by(dk.data(), dx.data(), n, cupar::jit::plus, s);
  EXPECT_EQ(g.size(), 997u);
  const auto none = cupar::group_by(dk.data(), dx.data(), 0, cupar::jit::plus, s);
  EXPECT_EQ(none.size(), 0u);
}

namespace {
/// Records the largest block a call takes from it (from the default resource).
class largest_resource final : public cupar::memory_resource {
 private:
  void* do_allocate(std::size_t bytes, cupar::stream_ref s) override {
    largest = std::max(largest, bytes);
    return cupar::default_resource().allocate(bytes, s);
  }
  void do_deallocate(void* p, std::size_t bytes, cupar::stream_ref s) noexcept override {
    cupar::default_resource().deallocate(p, bytes, s);
  }

 public:
  std::size_t largest = 0;
};
}  // namespace

// Values computed from two columns (an accumulator made by an expression, Q1's shape) on every
// route: the hash method's first pass and the block tables over the rows as given read the
// expression in their kernels (the "+index" sets: no temporary of n accumulators); partitioned
// rows and the sort route write it to a temporary first. Sums of small integers: exact.
TEST(GroupByJit, ExpressionValuesOnEveryRoute) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  const std::size_t n = scaled((std::size_t(1) << 23) + 3);
  std::vector<float> hx(n), hy(n);
  for (std::size_t i = 0; i < n; ++i) {
    hx[i] = static_cast<float>(static_cast<int>(i % 13) - 6);
    hy[i] = static_cast<float>(static_cast<int>(i % 5));
  }
  cupar::device_buffer<float> dx(hx, s), dy(hy, s);
  const op make("gb_stats{1u, x._0 + x._1, x._0 - x._1, x._0 * x._1}");
  const auto rows = cupar::jit::transform<gb_stats>(cupar::jit::zip(dx.data(), dy.data()), make);
  // The routes' memory is checked at the full size: at CUPAR_TEST_SCALE=small the tables and the
  // second pass's partials, sized by the groups and the grid, outweigh a quarter of n
  // accumulators (65,540 rows: 262 KB).
  const bool fused = cupar::testing::precompiled_here("group_by<u32,s16a4>+index") &&
                     n == (std::size_t(1) << 23) + 3;
  struct route {
    const char* what;
    std::size_t groups;
    group_by_method method;
    bool reads_expression;  // no temporary of the values (where the "+index" set is built)
  };
  // Below 128 groups the hash method; 4,096 one block table each (rows as given); 2^17 the
  // partitioned tables (64 rows a group); the sort route. Named, not automatic: below
  // group_by_sort_below_rows rows (CUPAR_TEST_SCALE=small) automatic takes the sort route.
  const route routes[] = {
      {"hash", 100, group_by_method::hash, true},
      {"block tables", 4096, group_by_method::hash, true},
      {"partitioned tables", std::size_t(1) << 17, group_by_method::hash, false},
      {"sort", 4096, group_by_method::sort, false}};
  for (const route& r : routes) {
    SCOPED_TRACE(r.what);
    std::vector<std::uint32_t> hk(n);
    for (std::size_t i = 0; i < n; ++i)
      hk[i] = static_cast<std::uint32_t>((i * 2654435761u) % r.groups);
    cpu_map<std::uint32_t, gb_stats> want;
    for (std::size_t i = 0; i < n; ++i) {
      const gb_stats v{1u, hx[i] + hy[i], hx[i] - hy[i], hx[i] * hy[i]};
      const auto it = want.find(hk[i]);
      if (it == want.end()) {
        want.emplace(hk[i], gb_stats{1u, v.sum, v.min, v.max});
      } else {
        gb_stats& w = it->second;
        w = {w.count + 1, w.sum + v.sum, w.min + v.min, w.max + v.max};
      }
    }
    cupar::device_buffer<std::uint32_t> dk(hk, s);
    group_by_options o;
    o.method = r.method;
    largest_resource mr;
    const op sums("gb_stats{a.count + b.count, a.sum + b.sum, a.min + b.min, a.max + b.max}");
    const auto g = cupar::group_by<std::uint32_t, gb_stats>(dk.data(), rows, n, sums, s, o, mr);
    expect_groups(g.keys.to_host(), g.values.to_host(), false, want, same_stats);
    if (fused && r.reads_expression) {
      EXPECT_LT(mr.largest, n * sizeof(gb_stats) / 4)
          << "the values' expression is read by the kernels, not written to a temporary";
    }
  }
}

// Partitioned rows (2^17 groups, 64 rows a group) with values an expression of one array: the
// partition moves that array (4 bytes a row) with the keys and the "+index" set's kernels read the
// expression over the moved copy, so no temporary holds n accumulators (16 bytes a row); the same
// array read twice (a zip of it with itself, a constant beside it) moves alike. An expression of
// a counting sequence (its value depends on the row's index) is written to an array first.
TEST(GroupByJit, PartitionedRowsMoveTheArrayOfAOneArrayExpression) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  const std::size_t n = scaled((std::size_t(1) << 23) + 3);
  const std::size_t groups = std::size_t(1) << 17;
  std::vector<std::uint32_t> hk(n);
  std::vector<float> hx(n);
  for (std::size_t i = 0; i < n; ++i) {
    hk[i] = static_cast<std::uint32_t>((i * 2654435761u) % groups);
    hx[i] = static_cast<float>(static_cast<int>(i % 13) - 6);
  }
  cupar::device_buffer<std::uint32_t> dk(hk, s);
  cupar::device_buffer<float> dx(hx, s);
  // The routes' memory is checked at the full size (a scaled-down run may not partition).
  const bool fused = cupar::testing::precompiled_here("group_by<u32,s16a4>+index") &&
                     n == (std::size_t(1) << 23) + 3;
  namespace j = cupar::jit;
  struct shape {
    const char* what;
    j::iterator rows;
    bool moves;  // the array moved, not the accumulators
    float (*value)(std::size_t, float);
  };
  const shape shapes[] = {
      {"transform of one array", j::transform<gb_stats>(j::iterator(dx.data()), to_stats()), true,
       [](std::size_t, float x) { return x; }},
      {"zip of the array with itself and a constant",
       j::transform<gb_stats>(j::zip(dx.data(), dx.data(), j::constant(2.0f)),
                              op("gb_stats{1u, x._0 * x._2, x._1 * x._2, x._0 + x._1}")),
       true, nullptr},
      {"counting sequence",
       j::transform<gb_stats>(j::counting(0u), op("gb_stats{1u, float(x % 7u), float(x % 7u), "
                                                  "float(x % 7u)}")),
       false, [](std::size_t i, float) { return static_cast<float>(i % 7); }}};
  for (const shape& sh : shapes) {
    SCOPED_TRACE(sh.what);
    cpu_map<std::uint32_t, gb_stats> want;
    for (std::size_t i = 0; i < n; ++i) {
      const gb_stats v = sh.value != nullptr
                             ? stats_of(sh.value(i, hx[i]))
                             : gb_stats{1u, hx[i] * 2.0f, hx[i] * 2.0f, hx[i] + hx[i]};
      const auto it = want.find(hk[i]);
      if (it == want.end()) {
        want.emplace(hk[i], v);
      } else if (sh.value != nullptr) {
        it->second = merge(it->second, v);
      } else {
        gb_stats& w = it->second;
        w = {w.count + 1, w.sum + v.sum, w.min + v.min, w.max + v.max};
      }
    }
    largest_resource mr;
    const op& combine =
        sh.value != nullptr
            ? merge_stats()
            : op("gb_stats{a.count + b.count, a.sum + b.sum, a.min + b.min, a.max + b.max}");
    const auto g = cupar::group_by<std::uint32_t, gb_stats>(dk.data(), sh.rows, n, combine, s,
                                                            group_by_options{}, mr);
    expect_groups(g.keys.to_host(), g.values.to_host(), false, want, same_stats);
    if (fused && sh.moves) {
      EXPECT_LT(mr.largest, n * sizeof(gb_stats))
          << "the partition moves the expression's array, not n accumulators";
    } else if (fused) {
      EXPECT_GE(mr.largest, n * sizeof(gb_stats)) << "the expression written to an array first";
    }
  }
}

// A 48-byte accumulator (TPC-H Q1's shape: five sums and a count): above 16 bytes the hash method
// combines under the slot's lock. Sums of small integers are exact in doubles, so the groups equal
// the CPU's bit for bit by every method.
TEST(GroupByJit, AccumulatorsAboveSixteenBytesByEveryMethod) {
  CUPAR_REQUIRE_GPU();
  if (!library_has<std::uint64_t>())
    GTEST_SKIP() << "u64 is not in this build of the library (CUPAR_LIBRARY_TYPES)";
  static_assert(sizeof(gb_q1) == 48);
  owned_stream s;
  const op merge_q1(
      "gb_q1{a.qty + b.qty, a.base + b.base, a.disc_price + b.disc_price, a.charge + b.charge, "
      "a.disc + b.disc, a.count + b.count}");
  for (std::size_t n : {std::size_t(1), std::size_t(1001), scaled((std::size_t(1) << 20) + 3)}) {
    for (std::size_t groups : {std::size_t(1), std::size_t(40), std::size_t(5000)}) {
      SCOPED_TRACE("n = " + std::to_string(n) + ", groups drawn from " + std::to_string(groups));
      const auto hk = group_keys<std::uint64_t>(n, groups, static_cast<unsigned>(n + groups));
      const auto hv = small_floats(n, static_cast<unsigned>(n * 3 + groups));
      std::vector<gb_q1> rows(n);
      cpu_map<std::uint64_t, gb_q1> want;
      for (std::size_t i = 0; i < n; ++i) {
        const double v = hv[i];
        rows[i] = {v, 2 * v, 3 * v, 4 * v, v * v, 1ull};
        const auto it = want.find(hk[i]);
        if (it == want.end()) {
          want.emplace(hk[i], rows[i]);
        } else {
          gb_q1& a = it->second;
          a = {a.qty + v,        a.base + 2 * v, a.disc_price + 3 * v,
               a.charge + 4 * v, a.disc + v * v, a.count + 1};
        }
      }
      cupar::device_buffer<std::uint64_t> dk(hk, s);
      cupar::device_buffer<gb_q1> dv(rows, s);
      for (group_by_method method : methods) {
        SCOPED_TRACE(method_name(method));
        group_by_options o;
        o.method = method;
        o.sort_by_key = true;
        const auto g = cupar::group_by(dk.data(), dv.data(), n, merge_q1, s, o);
        expect_groups(
            g.keys.to_host(), g.values.to_host(), true, want,
            [](const gb_q1& a, const gb_q1& b) { return std::memcmp(&a, &b, sizeof(gb_q1)) == 0; });
      }
    }
  }
}

CUPAR_JIT_STRUCT(gb_day_store, unsigned day; unsigned store;)
CUPAR_JIT_STRUCT(gb_wide_key, unsigned long long id; int region; int pad;)

namespace {
unsigned long long packed(const gb_day_store& k) {
  return (static_cast<unsigned long long>(k.day) << 32) | k.store;
}
gb_day_store day_store_key(std::size_t i, std::size_t groups) {
  const auto g = static_cast<unsigned>((i * 2654435761u) % groups);
  return {g / 7, g % 7 + 100};
}
}  // namespace

// Struct keys under a run-time hash and equality (the join family's sets encode the rows, the
// arithmetic sets group their representatives) against the CPU's map of the packed keys: 8- and
// 16-byte keys of the precompiled struct classes, sizes 0, 1, odd and large, one group to every
// row its own, each method, a weak hash, values as an expression, keys as an expression of two
// columns, caller arrays, max_groups, and the errors.
TEST(GroupByJit, StructKeysUnderARunTimeHashAndEquality) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  const op hash("(static_cast<unsigned long long>(x.day) << 32) | x.store");
  // 64 values, each shared by many keys: the equality decides (used up to 5,000 keys: a hash
  // with fewer values than keys has runs of its keys in the table, probes growing with them).
  const op weak_hash("static_cast<unsigned long long>(x.day & 63u)");
  const op same("a.day == b.day && a.store == b.store");
  const std::size_t large = scaled((std::size_t(1) << 22) + 3);
  for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(1001), large}) {
    for (std::size_t groups : {std::size_t(1), std::size_t(100), std::size_t(5000), n}) {
      if (groups == 0 || groups > std::max<std::size_t>(n, 1)) continue;
      SCOPED_TRACE("n = " + std::to_string(n) + ", groups " + std::to_string(groups));
      std::vector<gb_day_store> hk(n);
      std::vector<float> hx(n);
      std::map<unsigned long long, gb_stats> want;
      for (std::size_t i = 0; i < n; ++i) {
        hk[i] = day_store_key(i, groups);
        hx[i] = static_cast<float>(static_cast<int>(i % 101) - 50);
        const auto [it, fresh] = want.emplace(packed(hk[i]), stats_of(hx[i]));
        if (!fresh) it->second = merge(it->second, stats_of(hx[i]));
      }
      cupar::device_buffer<gb_day_store> dk(hk, s);
      cupar::device_buffer<float> dx(hx, s);
      const auto rows =
          cupar::jit::transform<gb_stats>(cupar::jit::iterator(dx.data()), to_stats());
      const auto check = [&](const std::vector<gb_day_store>& keys,
                             const std::vector<gb_stats>& values, std::size_t count) {
        cupar::testing::expect_keyed_groups(
            keys, values, count, want, packed,
            [](const gb_stats& g, const gb_stats& v, unsigned long long k) {
              EXPECT_TRUE(same_stats(g, v)) << "key " << k;
            });
      };
      for (group_by_method method : methods) {
        SCOPED_TRACE(method_name(method));
        group_by_options o;
        o.method = method;
        const auto g = cupar::group_by<gb_day_store, gb_stats>(dk.data(), rows, n, hash, same,
                                                               merge_stats(), s, o);
        check(g.keys.to_host(), g.values.to_host(), g.size());
      }
      if (groups <= 5000) {
        const auto w = cupar::group_by<gb_day_store, gb_stats>(dk.data(), rows, n, weak_hash, same,
                                                               merge_stats(), s);
        check(w.keys.to_host(), w.values.to_host(), w.size());
      }
      // Float values combined by the named plus, the table sized by a bound.
      group_by_options bounded;
      bounded.max_groups = want.size() + 3;
      const auto f =
          cupar::group_by(dk.data(), dx.data(), n, hash, same, cupar::jit::plus, s, bounded);
      ASSERT_EQ(f.size(), want.size());
      {
        const auto fk = f.keys.to_host();
        const auto fv = f.values.to_host();
        for (std::size_t i = 0; i < f.size(); ++i)
          EXPECT_EQ(fv[i], want.at(packed(fk[i])).sum);
      }
      if (n == 0) continue;
      cupar::device_buffer<gb_day_store> ko(want.size(), s);
      cupar::device_buffer<gb_stats> vo(want.size(), s);
      const std::size_t count = cupar::group_by<gb_day_store, gb_stats>(
          dk.data(), rows, ko.data(), vo.data(), want.size(), n, hash, same, merge_stats(), s);
      check(ko.to_host(), vo.to_host(), count);
      if (want.size() < 2) continue;
      vo.fill_bytes(0xAB);
      CUPAR_EXPECT_THROW_WITH(((void)cupar::group_by<gb_day_store, gb_stats>(
                                  dk.data(), rows, ko.data(), vo.data(), want.size() - 1, n, hash,
                                  same, merge_stats(), s)),
                              std::length_error, "groups do not fit out_capacity");
      EXPECT_EQ(vo.to_host()[0].count, 0xABABABABu);
      group_by_options tight;
      tight.max_groups = want.size() - 1;
      CUPAR_EXPECT_THROW_WITH(
          (void)cupar::group_by(dk.data(), dx.data(), n, hash, same, cupar::jit::plus, s, tight),
          std::length_error, "distinct values");
    }
  }
  // A 16-byte key (the s16a8 class): every row its own group but pairs of rows sharing an id.
  {
    const std::size_t n = 100003;
    std::vector<gb_wide_key> hk(n);
    std::vector<std::uint64_t> hv(n, 1);
    for (std::size_t i = 0; i < n; ++i)
      hk[i] = {(i / 2) * 0x9E3779B97F4A7C15ull, static_cast<int>(i % 3), 0};
    std::map<std::pair<unsigned long long, int>, std::uint64_t> want;
    for (const auto& k : hk)
      ++want[{k.id, k.region}];
    cupar::device_buffer<gb_wide_key> dk(hk, s);
    cupar::device_buffer<std::uint64_t> dv(hv, s);
    const auto g = cupar::group_by(dk.data(), dv.data(), n, op("x.id ^ x.region"),
                                   op("a.id == b.id && a.region == b.region"), cupar::jit::plus, s);
    ASSERT_EQ(g.size(), want.size());
    const auto k = g.keys.to_host();
    const auto v = g.values.to_host();
    for (std::size_t i = 0; i < g.size(); ++i)
      EXPECT_EQ(v[i], want.at({k[i].id, k[i].region}));
  }
  // Keys kept as two columns: an expression of the key struct (written to a temporary first).
  {
    const std::size_t n = 100003;
    std::vector<unsigned> day(n), store(n);
    std::vector<float> hx(n);
    std::map<unsigned long long, float> want;
    for (std::size_t i = 0; i < n; ++i) {
      const gb_day_store k = day_store_key(i, 777);
      day[i] = k.day;
      store[i] = k.store;
      hx[i] = static_cast<float>(i % 5);
      want[packed(k)] += hx[i];
    }
    cupar::device_buffer<unsigned> dd(day, s), ds(store, s);
    cupar::device_buffer<float> dx(hx, s);
    const auto keys = cupar::jit::transform<gb_day_store>(cupar::jit::zip(dd.data(), ds.data()),
                                                          op("gb_day_store{x._0, x._1}"));
    const auto g =
        cupar::group_by<gb_day_store, float>(keys, dx.data(), n, hash, same, cupar::jit::plus, s);
    ASSERT_EQ(g.size(), want.size());
    const auto k = g.keys.to_host();
    const auto v = g.values.to_host();
    for (std::size_t i = 0; i < g.size(); ++i)
      EXPECT_EQ(v[i], want.at(packed(k[i])));
  }
  // Refused before anything runs: null keys, a sorted output, outputs over the keys, an operator
  // that does not compile; then still working.
  const float one = 1;
  CUPAR_EXPECT_THROW_WITH((void)cupar::group_by(static_cast<const gb_day_store*>(nullptr), &one, 4,
                                                hash, same, cupar::jit::plus, s),
                          std::invalid_argument, "d_keys is null but n = 4");
  cupar::device_buffer<gb_day_store> dk(std::vector<gb_day_store>{{1, 2}, {1, 2}, {3, 4}}, s);
  cupar::device_buffer<float> dx(std::vector<float>{1, 2, 5}, s);
  group_by_options sorted;
  sorted.sort_by_key = true;
  CUPAR_EXPECT_THROW_WITH(
      (void)cupar::group_by(dk.data(), dx.data(), 3, hash, same, cupar::jit::plus, s, sorted),
      std::invalid_argument, "sort_by_key");
  cupar::device_buffer<float> vo(3, s);
  CUPAR_EXPECT_THROW_WITH(
      ((void)cupar::group_by<gb_day_store, float>(dk.data(), dx.data(), dk.data(), vo.data(), 3, 3,
                                                  hash, same, cupar::jit::plus, s)),
      std::invalid_argument, "overlap");
  EXPECT_THROW((void)cupar::group_by(dk.data(), dx.data(), 3, hash, op("a.day == b.nope"),
                                     cupar::jit::plus, s),
               cupar::jit_error);
  const auto g = cupar::group_by(dk.data(), dx.data(), 3, hash, same, cupar::jit::plus, s);
  ASSERT_EQ(g.size(), 2u);
  const auto k = g.keys.to_host();
  const auto v = g.values.to_host();
  for (std::size_t i = 0; i < 2; ++i)
    EXPECT_EQ(v[i], k[i].day == 1 ? 3.0f : 5.0f);
}
