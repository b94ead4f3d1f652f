// cupar tests: hash joins (inner_join, semi_join, anti_join) against a CPU reference (std::map
// of a key's build rows): key types, duplicates on both sides, sizes 0, 1, odd and large,
// 4- and 8-byte positions, caller arrays and their capacity, signed zeros and NaNs, iterators as
// inputs, and the errors.
#include "../common/join_ref.hpp"
#include "../common/precompiled.hpp"
#include "../conformance/common.hpp"

#include <cupar/cupar.cuh>

#include <gtest/gtest.h>

#include <thrust/device_ptr.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace cupar::testing {
namespace {

/// The keys as the call takes them: the array (the library's kernels, join.hpp) or a
/// thrust::device_ptr (the templates of join.cuh).
template <bool Arrays, class K>
auto keys_of(const K* p) {
  if constexpr (Arrays) {
    return p;
  } else {
    return thrust::device_pointer_cast(p);
  }
}

template <class K, class Index, bool Arrays>
void check_joins_by(const char* name) {
  SCOPED_TRACE(std::string(name) + (Arrays ? ", arrays (the library)" : ", iterators (join.cuh)"));
  owned_stream s;
  const std::size_t large = scaled((std::size_t(1) << 20) + 3);
  struct shape {
    std::size_t nb, np, distinct;
  };
  const std::vector<shape> shapes = {{0, 5, 1},
                                     {5, 0, 1},
                                     {1, 1, 1},
                                     {1001, 777, 50},
                                     {777, 1001, 5000},
                                     {large / 4, large, large / 8},
                                     {large, large / 3, large}};
  for (const shape& sh : shapes) {
    SCOPED_TRACE("nb = " + std::to_string(sh.nb) + ", np = " + std::to_string(sh.np) +
                 ", keys from " + std::to_string(sh.distinct));
    const auto hb = join_keys<K>(sh.nb, sh.distinct, static_cast<unsigned>(sh.nb + 1));
    // Probe keys from twice the range: about half match.
    const auto hp = join_keys<K>(sh.np, 2 * sh.distinct, static_cast<unsigned>(sh.np + 7));
    const auto want = cpu_matches(hb, hp);
    device_buffer<K> dbuf(hb, s), dpuf(hp, s);
    const auto db = keys_of<Arrays>(dbuf.data());
    const auto dp = keys_of<Arrays>(dpuf.data());
    const auto m = cupar::inner_join<Index>(db, sh.nb, dp, sh.np, s);
    expect_pairs(m.build_rows.to_host(), m.probe_rows.to_host(), want);
    // Caller arrays with exactly the room needed.
    const std::size_t total = m.size();
    device_buffer<Index> bo(total + 1, s), po(total + 1, s);
    ASSERT_EQ(cupar::inner_join(db, sh.nb, dp, sh.np, bo.data(), po.data(), total, s), total);
    auto hbo = bo.to_host();
    auto hpo = po.to_host();
    hbo.resize(total);
    hpo.resize(total);
    expect_pairs(hbo, hpo, want);
    // Semi and anti joins: the probe rows with and without a match, ascending.
    std::vector<Index> semi_want, anti_want;
    for (std::size_t i = 0; i < sh.np; ++i)
      (want[i].empty() ? anti_want : semi_want).push_back(static_cast<Index>(i));
    device_buffer<Index> rows(sh.np + 1, s);
    const std::size_t ns = cupar::semi_join(db, sh.nb, dp, sh.np, rows.data(), s);
    auto got = rows.to_host();
    got.resize(ns);
    EXPECT_EQ(got, semi_want);
    const std::size_t na = cupar::anti_join(db, sh.nb, dp, sh.np, rows.data(), s);
    got = rows.to_host();
    got.resize(na);
    EXPECT_EQ(got, anti_want);
  }
}

template <class K, class Index>
void check_joins(const char* name) {
  // The library's join serves the calls by key type.
  if (!cupar::testing::library_serves<K>(name)) return;
  check_joins_by<K, Index, true>(name);
  check_joins_by<K, Index, false>(name);
}

TEST(JoinCompiled, EveryKeyTypeMatchesTheCpu) {
  CUPAR_REQUIRE_GPU();
  check_joins<std::uint32_t, std::uint64_t>("u32 keys, u64 positions");
  check_joins<std::int64_t, std::uint32_t>("i64 keys, u32 positions");
  check_joins<float, std::int64_t>("f32 keys, i64 positions");
  check_joins<double, std::int32_t>("f64 keys, i32 positions");
  check_joins<std::int16_t, std::uint64_t>("i16 keys (many duplicates)");
}

// -0.0 equals +0.0 and NaN equals NaN (as group_by groups them); a key missing from the build
// table matches nothing.
TEST(JoinCompiled, SignedZerosAndNaNsMatch) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> hb = {-0.0f, nan, 1.0f, 1.0f};
  const std::vector<float> hp = {0.0f, -nan, 2.0f, 1.0f};
  device_buffer<float> db(hb, s), dp(hp, s);
  const auto m = cupar::inner_join(db.data(), hb.size(), dp.data(), hp.size(), s);
  expect_pairs(m.build_rows.to_host(), m.probe_rows.to_host(), {{0}, {1}, {}, {2, 3}});
}

struct mod7 {
  __host__ __device__ std::uint32_t operator()(std::uint64_t i) const {
    return static_cast<std::uint32_t>(i % 7);
  }
};

// Keys from iterators (computed on the fly), and many build rows of one key.
TEST(JoinCompiled, IteratorsAndHeavyDuplicates) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  const std::size_t nb = 7000, np = 20;
  const auto build =
      thrust::make_transform_iterator(thrust::counting_iterator<std::uint64_t>(0), mod7{});
  const auto probe = thrust::counting_iterator<std::uint32_t>(0);  // keys 0..19: 0..6 match
  std::vector<std::uint32_t> hb(nb), hp(np);
  for (std::size_t i = 0; i < nb; ++i)
    hb[i] = static_cast<std::uint32_t>(i % 7);
  for (std::size_t i = 0; i < np; ++i)
    hp[i] = static_cast<std::uint32_t>(i);
  const auto m = cupar::inner_join(build, nb, probe, np, s);
  expect_pairs(m.build_rows.to_host(), m.probe_rows.to_host(), cpu_matches(hb, hp));
}

TEST(JoinCompiled, BadArgumentsThrowBeforeAnyWork) {
  owned_stream s;
  const std::uint32_t* none = nullptr;
  std::uint64_t* out = nullptr;
  CUPAR_EXPECT_THROW_WITH((void)cupar::inner_join(none, 3, none, 0, s), std::invalid_argument,
                          "d_build_keys");
  CUPAR_EXPECT_THROW_WITH(
      (void)cupar::semi_join(thrust::counting_iterator<std::uint32_t>(0), 3, none, 4, out, s),
      std::invalid_argument, "d_probe_keys");
  CUPAR_EXPECT_THROW_WITH(
      (void)cupar::anti_join(thrust::counting_iterator<std::uint32_t>(0), 3,
                             thrust::counting_iterator<std::uint32_t>(0), 4, out, s),
      std::invalid_argument, "d_probe_rows");
  // More rows than 32-bit signed positions count: refused before any memory is touched.
  std::int32_t* pos = nullptr;
  CUPAR_EXPECT_THROW_WITH(
      (void)cupar::semi_join(thrust::counting_iterator<std::uint32_t>(0),
                             (std::size_t(1) << 31) + 1,
                             thrust::counting_iterator<std::uint32_t>(0), 4, pos, s),
      std::length_error, "do not fit the position type");
  // Empty tables: nothing runs, nothing is written.
  const auto m = cupar::inner_join(none, 0, none, 0, s);
  EXPECT_EQ(m.size(), 0u);
  EXPECT_EQ(cupar::anti_join(none, 0, none, 0, out, s), 0u);
}

// Caller arrays one pair short, keys through join.cuh's templates (tests/library/join_test.cpp
// has the arrays' form): std::length_error with the count, nothing written.
TEST(JoinCompiled, CallerArraysTooSmallAreRefused) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  const std::vector<std::uint32_t> hb = {1, 1, 2}, hp = {1, 2, 3};
  device_buffer<std::uint32_t> db(hb, s), dp(hp, s);
  device_buffer<std::uint32_t> bo(2, s), po(2, s);
  po.fill_bytes(0xAB);
  CUPAR_EXPECT_THROW_WITH(
      (void)cupar::inner_join(keys_of<false>(db.data()), 3, keys_of<false>(dp.data()), 3, bo.data(),
                              po.data(), 2, s),
      std::length_error, "3 pairs do not fit out_capacity = 2");
  EXPECT_EQ(po.to_host()[0], 0xABABABABu);
  // The library keeps working: the probe rows with a match.
  device_buffer<std::uint32_t> rows(3, s);
  ASSERT_EQ(
      cupar::semi_join(keys_of<false>(db.data()), 3, keys_of<false>(dp.data()), 3, rows.data(), s),
      2u);
  const auto h = rows.to_host();
  EXPECT_EQ(h[0], 0u);
  EXPECT_EQ(h[1], 1u);
}

}  // namespace
}  // namespace cupar::testing
