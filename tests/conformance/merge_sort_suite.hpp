// cupar tests: comparison sorts (merge sort) conformance (include after `using Ops = ...;`).
//
// The reference is std::stable_sort with the same comparator. Stable variants must match it
// bitwise (equal keys, e.g. -0.0 and +0.0 or duplicate keys with payloads, keep their input
// order). Unstable variants must give the same sequence of keys (compared with ==) and keep each
// value with its key: the values are input positions, so they must form a permutation whose keys
// are the output keys bit for bit.
//
// Splitting: CUPAR_SUITE_TYPES / CUPAR_SUITE_UNTYPED as in scan_suite.hpp, and
// CUPAR_SUITE_TYPED defined to 0 leaves out the typed tests (a unit of the untyped tests alone).
#pragma once

#include "common.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <vector>

namespace cupar::testing {

#if defined(CUPAR_SUITE_TYPES)
using merge_sort_types = CUPAR_SUITE_TYPES;
#else
using merge_sort_types = arithmetic_types;
#endif

namespace merge_sort_ref {

/// Keys over the whole range of the type; floating point also gets -0.0, +0.0, infinities,
/// denormals and the extremes (never NaN: `<` is no strict weak ordering with NaN).
template <class T>
std::vector<T> keys(std::size_t n, std::uint64_t seed) {
  auto v = full_range_values<T>(n, seed);
  if constexpr (std::is_floating_point_v<T>) {
    using lim = std::numeric_limits<T>;
    const T specials[] = {T(-0.0),
                          T(0.0),
                          lim::infinity(),
                          -lim::infinity(),
                          lim::denorm_min(),
                          -lim::denorm_min(),
                          lim::max(),
                          lim::lowest(),
                          lim::min(),
                          T(1),
                          T(-1)};
    for (std::size_t i = 3; i < n; i += 7)
      v[i] = specials[(i / 7) % std::size(specials)];
  }
  return v;
}

/// Keys with many duplicates (16 distinct values; floating point has -0.0 and +0.0 among them).
template <class T>
std::vector<T> duplicate_keys(std::size_t n, std::uint64_t seed) {
  const auto small = random_values<int>(n, seed, 0, 15);
  std::vector<T> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    if constexpr (std::is_signed_v<T>) {
      v[i] = static_cast<T>(small[i] - 8);
    } else {
      v[i] = static_cast<T>(small[i]);
    }
    if constexpr (std::is_floating_point_v<T>) {
      if (small[i] == 8 && i % 2 == 1) v[i] = T(-0.0);
    }
  }
  return v;
}

struct cpu_less {
  template <class T>
  bool operator()(const T& a, const T& b) const {
    return a < b;
  }
};
struct cpu_greater {
  template <class T>
  bool operator()(const T& a, const T& b) const {
    return b < a;
  }
};

/// Input positions in the order a stable sort by `comp` puts them.
template <class T, class Comp>
std::vector<std::uint32_t> stable_order(const std::vector<T>& keys, Comp comp) {
  std::vector<std::uint32_t> order(keys.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return comp(keys[a], keys[b]); });
  return order;
}

template <class T>
std::vector<T> gather(const std::vector<T>& v, const std::vector<std::uint32_t>& order) {
  std::vector<T> out(order.size());
  for (std::size_t i = 0; i < order.size(); ++i)
    out[i] = v[order[i]];
  return out;
}

/// Checks an unstable pair sort: keys in sorted order, values (input positions) a permutation
/// whose keys are the output keys.
template <class K>
::testing::AssertionResult pairs_consistent(const std::vector<K>& keys_in,
                                            const std::vector<K>& keys_out,
                                            const std::vector<std::uint32_t>& values_out,
                                            const std::vector<K>& sorted_keys) {
  auto keys_ok = value_equal(keys_out, sorted_keys);
  if (!keys_ok) return keys_ok << " (keys)";
  std::vector<bool> seen(keys_in.size(), false);
  for (std::size_t i = 0; i < values_out.size(); ++i) {
    const std::uint32_t v = values_out[i];
    if (v >= keys_in.size() || seen[v]) {
      return ::testing::AssertionFailure()
             << "values are not a permutation of the input positions: [" << i << "] = " << v;
    }
    seen[v] = true;
    if (!same_bits(keys_in[v], keys_out[i])) {
      return ::testing::AssertionFailure()
             << "value " << v << " at [" << i << "] came with key " << printable(keys_out[i])
             << ", its key is " << printable(keys_in[v]);
    }
  }
  return ::testing::AssertionSuccess();
}

/// Every key-only variant for one comparator: unstable and stable, out of place and in place.
template <class T, class Comp, class CpuComp>
void check_sort_keys(const std::vector<T>& h, Comp comp, CpuComp cpu_comp, stream_ref stream) {
  const std::size_t n = h.size();
  const auto want = gather(h, stable_order(h, cpu_comp));
  device_buffer<T> in(h, stream), out(n, stream);
  for (bool stable : {false, true}) {
    SCOPED_TRACE(stable ? "stable_sort_keys" : "sort_keys");
    auto run = [&](const T* d_in, T* d_out) {
      if (stable) {
        cupar::stable_sort_keys(d_in, d_out, n, comp, stream);
      } else {
        cupar::sort_keys(d_in, d_out, n, comp, stream);
      }
    };
    out.fill_bytes(0xAB);
    run(in.data(), out.data());
    const auto got = out.to_host();
    EXPECT_TRUE(stable ? bitwise_equal(got, want) : value_equal(got, want)) << "out of place";
    EXPECT_TRUE(bitwise_equal(in.to_host(), h)) << "the input was modified";
    out.copy_from_host(h.data(), n);
    run(out.data(), out.data());
    const auto got_in_place = out.to_host();
    EXPECT_TRUE(stable ? bitwise_equal(got_in_place, want) : value_equal(got_in_place, want))
        << "in place";
  }
}

/// Every pair variant for one comparator: unstable and stable, with keys and values each in
/// place or not. Values are the input positions.
template <class T, class Comp, class CpuComp>
void check_sort_pairs(const std::vector<T>& h, Comp comp, CpuComp cpu_comp, stream_ref stream) {
  const std::size_t n = h.size();
  const auto order = stable_order(h, cpu_comp);
  const auto want_keys = gather(h, order);
  std::vector<std::uint32_t> positions(n);
  std::iota(positions.begin(), positions.end(), 0u);
  device_buffer<T> keys_in(h, stream), keys_out(n, stream);
  device_buffer<std::uint32_t> values_in(positions, stream), values_out(n, stream);
  for (bool stable : {false, true}) {
    for (int layout = 0; layout < 4; ++layout) {
      const bool keys_in_place = (layout & 1) != 0, values_in_place = (layout & 2) != 0;
      SCOPED_TRACE(std::string(stable ? "stable_sort_pairs" : "sort_pairs") +
                   (keys_in_place ? ", keys in place" : ", keys out of place") +
                   (values_in_place ? ", values in place" : ", values out of place"));
      keys_in.copy_from_host(h.data(), n);
      values_in.copy_from_host(positions.data(), n);
      keys_out.fill_bytes(0xAB);
      values_out.fill_bytes(0xAB);
      T* k_out = keys_in_place ? keys_in.data() : keys_out.data();
      std::uint32_t* v_out = values_in_place ? values_in.data() : values_out.data();
      if (stable) {
        cupar::stable_sort_pairs(keys_in.data(), k_out, values_in.data(), v_out, n, comp, stream);
      } else {
        cupar::sort_pairs(keys_in.data(), k_out, values_in.data(), v_out, n, comp, stream);
      }
      const auto got_keys = keys_in_place ? keys_in.to_host() : keys_out.to_host();
      const auto got_values = values_in_place ? values_in.to_host() : values_out.to_host();
      if (stable) {
        EXPECT_TRUE(bitwise_equal(got_keys, want_keys));
        EXPECT_TRUE(bitwise_equal(got_values, order));
      } else {
        EXPECT_TRUE(pairs_consistent(h, got_keys, got_values, want_keys));
      }
      if (!keys_in_place) {
        EXPECT_TRUE(bitwise_equal(keys_in.to_host(), h)) << "the input keys were modified";
      }
      if (!values_in_place) {
        EXPECT_TRUE(bitwise_equal(values_in.to_host(), positions))
            << "the input values were modified";
      }
    }
  }
}

}  // namespace merge_sort_ref

#if !defined(CUPAR_SUITE_TYPED) || CUPAR_SUITE_TYPED

template <class T>
class MergeSort : public ::testing::Test {};
TYPED_TEST_SUITE(MergeSort, merge_sort_types, type_names);

TYPED_TEST(MergeSort, KeysAscendingAndDescending) {
  CUPAR_REQUIRE_GPU();
  using T = TypeParam;
  owned_stream stream;
  for (std::size_t n : quick_sizes()) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto h = merge_sort_ref::keys<T>(n, 10 + n);
    {
      SCOPED_TRACE("less");
      merge_sort_ref::check_sort_keys(h, Ops::template less<T>(), merge_sort_ref::cpu_less{},
                                      stream);
    }
    {
      SCOPED_TRACE("greater");
      merge_sort_ref::check_sort_keys(h, Ops::template greater<T>(), merge_sort_ref::cpu_greater{},
                                      stream);
    }
  }
}

TYPED_TEST(MergeSort, KeysWithManyDuplicates) {
  CUPAR_REQUIRE_GPU();
  using T = TypeParam;
  owned_stream stream;
  for (std::size_t n : {std::size_t(33), std::size_t(4353), std::size_t(65537)}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto h = merge_sort_ref::duplicate_keys<T>(n, 20 + n);
    merge_sort_ref::check_sort_keys(h, Ops::template less<T>(), merge_sort_ref::cpu_less{}, stream);
  }
}

TYPED_TEST(MergeSort, PairsKeepValuesWithTheirKeysAndStableOnesKeepInputOrder) {
  CUPAR_REQUIRE_GPU();
  using T = TypeParam;
  owned_stream stream;
  for (std::size_t n : quick_sizes()) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto h = merge_sort_ref::duplicate_keys<T>(n, 30 + n);
    {
      SCOPED_TRACE("less");
      merge_sort_ref::check_sort_pairs(h, Ops::template less<T>(), merge_sort_ref::cpu_less{},
                                       stream);
    }
    {
      SCOPED_TRACE("greater");
      merge_sort_ref::check_sort_pairs(h, Ops::template greater<T>(), merge_sort_ref::cpu_greater{},
                                       stream);
    }
  }
}

TYPED_TEST(MergeSort, PairsWithDistinctKeys) {
  CUPAR_REQUIRE_GPU();
  using T = TypeParam;
  owned_stream stream;
  for (std::size_t n : {std::size_t(1), std::size_t(4353), std::size_t(100003)}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto h = merge_sort_ref::keys<T>(n, 40 + n);
    merge_sort_ref::check_sort_pairs(h, Ops::template less<T>(), merge_sort_ref::cpu_less{},
                                     stream);
  }
}

TYPED_TEST(MergeSort, OverlapsAndNullPointersAreRejected) {
  using T = TypeParam;
  const cupar::stream_ref s = cupar::stream_ref::legacy_default();
  const auto less = Ops::template less<T>();
  alignas(16) T keys[32] = {};
  alignas(16) std::uint32_t values[32] = {};
  CUPAR_EXPECT_THROW_WITH(cupar::sort_keys(keys, keys + 1, 8, less, s), std::invalid_argument,
                          "cupar::sort_keys: d_keys_in and d_keys_out partially overlap");
  CUPAR_EXPECT_THROW_WITH(cupar::stable_sort_keys(keys + 3, keys, 8, less, s),
                          std::invalid_argument,
                          "cupar::stable_sort_keys: d_keys_in and d_keys_out partially overlap");
  CUPAR_EXPECT_THROW_WITH(cupar::sort_pairs(keys, keys + 2, values, values + 8, 4, less, s),
                          std::invalid_argument,
                          "cupar::sort_pairs: d_keys_in and d_keys_out partially overlap");
  CUPAR_EXPECT_THROW_WITH(
      cupar::stable_sort_pairs(keys, keys + 8, values, values + 2, 4, less, s),
      std::invalid_argument,
      "cupar::stable_sort_pairs: d_values_in and d_values_out partially overlap");
  // Keys and values must not share memory at all (even when each is in place).
  auto* values_over_keys = reinterpret_cast<std::uint32_t*>(keys);
  auto* values_over_keys_16 = reinterpret_cast<std::uint32_t*>(keys + 16);
  CUPAR_EXPECT_THROW_WITH(
      cupar::sort_pairs(keys, keys, values_over_keys, values_over_keys, 4, less, s),
      std::invalid_argument, "cupar::sort_pairs: d_keys_out and d_values_out overlap");
  CUPAR_EXPECT_THROW_WITH(
      cupar::stable_sort_pairs(keys, keys + 16, values_over_keys_16, values, 4, less, s),
      std::invalid_argument, "cupar::stable_sort_pairs: d_keys_out and d_values_in overlap");
  CUPAR_EXPECT_THROW_WITH(cupar::sort_pairs(keys, keys + 16, values, values_over_keys, 4, less, s),
                          std::invalid_argument,
                          "cupar::sort_pairs: d_keys_in and d_values_out overlap");
  CUPAR_EXPECT_THROW_WITH(cupar::sort_keys(static_cast<const T*>(nullptr), keys, 5, less, s),
                          std::invalid_argument, "cupar::sort_keys: d_keys_in is null but n = 5");
  CUPAR_EXPECT_THROW_WITH(cupar::stable_sort_keys(keys, static_cast<T*>(nullptr), 5, less, s),
                          std::invalid_argument,
                          "cupar::stable_sort_keys: d_keys_out is null but n = 5");
  CUPAR_EXPECT_THROW_WITH(
      cupar::sort_pairs(keys, keys + 8, static_cast<const std::uint32_t*>(nullptr), values, 5, less,
                        s),
      std::invalid_argument, "d_values_in is null but n = 5");
  CUPAR_EXPECT_THROW_WITH(
      cupar::stable_sort_pairs(keys, keys + 8, values, static_cast<std::uint32_t*>(nullptr), 5,
                               less, s),
      std::invalid_argument, "d_values_out is null but n = 5");
  if (!gpu_available()) return;
  owned_stream stream;
  const std::vector<T> h = {T(3), T(1), T(2)};
  device_buffer<T> in(h, stream), out(3, stream);
  cupar::sort_keys(in.data(), out.data(), 3, less, stream);
  EXPECT_EQ(out.to_host(), (std::vector<T>{T(1), T(2), T(3)}));
}

TYPED_TEST(MergeSort, EmptyInputWritesNothing) {
  CUPAR_REQUIRE_GPU();
  using T = TypeParam;
  owned_stream stream;
  const auto less = Ops::template less<T>();
  device_buffer<T> keys(4, stream);
  device_buffer<std::uint32_t> values(4, stream);
  keys.fill_bytes(0xAB);
  values.fill_bytes(0xCD);
  const auto poisoned_keys = keys.to_host();
  const auto poisoned_values = values.to_host();
  const T* no_keys = nullptr;
  const std::uint32_t* no_values = nullptr;
  cupar::sort_keys(no_keys, keys.data(), 0, less, stream);
  cupar::stable_sort_keys(no_keys, static_cast<T*>(nullptr), 0, less, stream);
  cupar::sort_pairs(no_keys, keys.data(), no_values, values.data(), 0, less, stream);
  cupar::stable_sort_pairs(keys.data(), keys.data(), values.data(), values.data(), 0, less, stream);
  EXPECT_TRUE(bitwise_equal(keys.to_host(), poisoned_keys));
  EXPECT_TRUE(bitwise_equal(values.to_host(), poisoned_values));
}

#endif  // CUPAR_SUITE_TYPED

#if !defined(CUPAR_SUITE_UNTYPED) || CUPAR_SUITE_UNTYPED

namespace merge_sort_ref {
inline std::vector<record> records(std::size_t n, std::uint64_t seed) {
  const auto k = random_values<int>(n, seed, -20, 20);
  std::vector<record> r(n);
  for (std::size_t i = 0; i < n; ++i) {
    r[i] = {static_cast<float>(k[i]) * 0.5f, static_cast<std::uint32_t>(i)};
    if (k[i] == 0 && i % 2 == 1) r[i].key = -0.0f;
  }
  return r;
}
struct record_less_cpu {
  bool operator()(const record& a, const record& b) const { return a.key < b.key; }
};
}  // namespace merge_sort_ref

TEST(MergeSortStruct, RecordsByKey) {
  CUPAR_REQUIRE_GPU();
  owned_stream stream;
  for (std::size_t n : quick_sizes()) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto h = merge_sort_ref::records(n, 50 + n);
    const auto want = merge_sort_ref::gather(
        h, merge_sort_ref::stable_order(h, merge_sort_ref::record_less_cpu{}));
    device_buffer<record> in(h, stream), out(n, stream);
    out.fill_bytes(0xAB);
    cupar::stable_sort_keys(in.data(), out.data(), n, Ops::record_less(), stream);
    EXPECT_TRUE(bitwise_equal(out.to_host(), want)) << "stable, out of place";
    out.copy_from_host(h.data(), n);
    cupar::stable_sort_keys(out.data(), out.data(), n, Ops::record_less(), stream);
    EXPECT_TRUE(bitwise_equal(out.to_host(), want)) << "stable, in place";
    // Unstable: the same keys in order, and every record (its payload is its input position)
    // intact and present once.
    out.fill_bytes(0xAB);
    cupar::sort_keys(in.data(), out.data(), n, Ops::record_less(), stream);
    auto got = out.to_host();
    std::vector<float> got_keys(n), want_keys(n);
    std::vector<std::uint32_t> positions(n);
    for (std::size_t i = 0; i < n; ++i) {
      got_keys[i] = got[i].key;
      want_keys[i] = want[i].key;
      positions[i] = got[i].payload;
    }
    std::vector<float> input_keys(n);
    for (std::size_t i = 0; i < n; ++i)
      input_keys[i] = h[i].key;
    EXPECT_TRUE(merge_sort_ref::pairs_consistent(input_keys, got_keys, positions, want_keys));
  }
}

TEST(MergeSortStruct, ValuesOfOtherTypesAndSizes) {
  CUPAR_REQUIRE_GPU();
  owned_stream stream;
  const std::size_t n = 70001;
  const auto keys = merge_sort_ref::duplicate_keys<std::int32_t>(n, 60);
  const auto order = merge_sort_ref::stable_order(keys, merge_sort_ref::cpu_greater{});
  std::vector<mat2> mats(n);
  std::vector<record> recs(n);
  for (std::size_t i = 0; i < n; ++i) {
    const auto u = static_cast<std::uint32_t>(i);
    mats[i] = {u, u * 3u, u ^ 0x5555u, ~u};
    recs[i] = {static_cast<float>(i), u};
  }
  device_buffer<std::int32_t> k_in(keys, stream), k_out(n, stream);
  device_buffer<mat2> m_in(mats, stream), m_out(n, stream);
  cupar::stable_sort_pairs(k_in.data(), k_out.data(), m_in.data(), m_out.data(), n,
                           Ops::template greater<std::int32_t>(), stream);
  EXPECT_TRUE(bitwise_equal(k_out.to_host(), merge_sort_ref::gather(keys, order)));
  EXPECT_TRUE(value_equal(m_out.to_host(), merge_sort_ref::gather(mats, order)));
  device_buffer<record> r_io(recs, stream);
  k_out.copy_from_host(keys.data(), n);
  cupar::stable_sort_pairs(k_out.data(), k_out.data(), r_io.data(), r_io.data(), n,
                           Ops::template greater<std::int32_t>(), stream);
  EXPECT_TRUE(bitwise_equal(k_out.to_host(), merge_sort_ref::gather(keys, order)));
  EXPECT_TRUE(value_equal(r_io.to_host(), merge_sort_ref::gather(recs, order)));
}

#endif  // CUPAR_SUITE_UNTYPED

}  // namespace cupar::testing
