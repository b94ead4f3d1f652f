// cupar tests: the joins of two device arrays of keys (join.hpp), built by the host compiler from
// <cupar/cupar.hpp> alone (the library's kernels): inner join (exact buffers and caller arrays),
// semi and anti join against a CPU reference (a hash map of a key's build rows), key types the
// CI's library has, 4- and 8-byte positions, sizes 0, 1, odd and large, duplicates on both
// sides, and the errors. tests/compiled/join_test.cu runs the same kernels through join.cuh.
#include "../common/join_ref.hpp"
#include "../common/precompiled.hpp"
#include "../conformance/common.hpp"

#include <cupar/cupar.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

/// A composite key: two 32-bit columns (class s8a4: its join kernels are precompiled).
CUPAR_JIT_STRUCT(pair_key, unsigned hi; unsigned lo;)
/// Seven 32-bit columns (28 bytes: no class of their own; padded to the class s32a8).
CUPAR_JIT_STRUCT(seven_key, unsigned hi; unsigned lo; unsigned c2; unsigned c3; unsigned c4;
                 unsigned c5; unsigned c6;)

namespace cupar::testing {
namespace {

template <class K, class Index>
void check(const char* name) {
  SCOPED_TRACE(name);
  if (!library_has<K>()) {
    std::printf("%s: not in this build of the library (CUPAR_LIBRARY_TYPES), skipped\n", name);
    return;
  }
  owned_stream s;
  const std::size_t large = scaled((std::size_t(1) << 20) + 3);
  const std::size_t shapes[][3] = {{0, 5, 1},         {5, 0, 1},
                                   {1, 1, 1},         {1001, 777, 50},
                                   {777, 1001, 5000}, {large / 4, large, large / 8}};
  for (const auto& sh : shapes) {
    const std::size_t nb = sh[0], np = sh[1], distinct = sh[2];
    SCOPED_TRACE("nb = " + std::to_string(nb) + ", np = " + std::to_string(np));
    const auto hb = join_keys<K>(nb, distinct, static_cast<unsigned>(nb + 1));
    const auto hp = join_keys<K>(np, 2 * distinct, static_cast<unsigned>(np + 7));
    const auto want = cpu_matches(hb, hp);
    device_buffer<K> db(hb, s), dp(hp, s);
    const auto m = cupar::inner_join<Index>(db.data(), nb, dp.data(), np, s);
    expect_pairs(m.build_rows.to_host(), m.probe_rows.to_host(), want);
    const std::size_t total = m.size();
    device_buffer<Index> bo(total + 1, s), po(total + 1, s);
    ASSERT_EQ(cupar::inner_join(db.data(), nb, dp.data(), np, bo.data(), po.data(), total, s),
              total);
    auto hbo = bo.to_host();
    auto hpo = po.to_host();
    hbo.resize(total);
    hpo.resize(total);
    expect_pairs(hbo, hpo, want);
    std::vector<Index> semi_want, anti_want;
    for (std::size_t i = 0; i < np; ++i)
      (want[i].empty() ? anti_want : semi_want).push_back(static_cast<Index>(i));
    device_buffer<Index> rows(np + 1, s);
    const std::size_t ns = cupar::semi_join(db.data(), nb, dp.data(), np, rows.data(), s);
    auto got = rows.to_host();
    got.resize(ns);
    EXPECT_EQ(got, semi_want);
    const std::size_t na = cupar::anti_join(db.data(), nb, dp.data(), np, rows.data(), s);
    got = rows.to_host();
    got.resize(na);
    EXPECT_EQ(got, anti_want);
  }
}

/// semi_join and anti_join of composite keys under `hash` and `same`: the probe rows with and
/// without a match in `want` (cpu_matches).
template <class K>
void expect_semi_and_anti(const K* build, std::size_t nb, const K* probe, std::size_t np,
                          const jit::op& hash, const jit::op& same,
                          const std::vector<std::vector<std::uint64_t>>& want, stream_ref s) {
  std::vector<std::uint64_t> semi_want, anti_want;
  for (std::size_t i = 0; i < np; ++i)
    (want[i].empty() ? anti_want : semi_want).push_back(i);
  device_buffer<std::uint64_t> rows(np + 1, s);
  const std::size_t ns = cupar::semi_join(build, nb, probe, np, rows.data(), hash, same, s);
  auto got = rows.to_host();
  got.resize(ns);
  EXPECT_EQ(got, semi_want);
  const std::size_t na = cupar::anti_join(build, nb, probe, np, rows.data(), hash, same, s);
  got = rows.to_host();
  got.resize(na);
  EXPECT_EQ(got, anti_want);
}

/// The composite-key tests' tables: (build rows, probe rows, distinct keys) with an empty side,
/// one row each, odd sizes and large ones; `f(nb, np, build_keys, probe_keys, want)` with the
/// keys as 64-bit integers (seeds nb + build_seed, np + probe_seed) and the CPU's pairs.
template <class F>
void for_each_join_shape(unsigned build_seed, unsigned probe_seed, F&& f) {
  const std::size_t large = scaled((std::size_t(1) << 20) + 3);
  const std::size_t shapes[][3] = {
      {0, 5, 1}, {5, 0, 1}, {1, 1, 1}, {1001, 777, 50}, {large / 4, large, large / 8}};
  for (const auto& sh : shapes) {
    const std::size_t nb = sh[0], np = sh[1], distinct = sh[2];
    SCOPED_TRACE("nb = " + std::to_string(nb) + ", np = " + std::to_string(np));
    const auto hb = join_keys<std::uint64_t>(nb, distinct, static_cast<unsigned>(nb + build_seed));
    const auto hp =
        join_keys<std::uint64_t>(np, 2 * distinct, static_cast<unsigned>(np + probe_seed));
    f(nb, np, hb, hp, cpu_matches(hb, hp));
  }
}

TEST(JoinLibrary, KeyTypesAndPositionsMatchTheCpu) {
  CUPAR_REQUIRE_GPU();
  check<std::uint32_t, std::uint64_t>("u32 keys, u64 positions");
  check<std::int32_t, std::uint32_t>("i32 keys, u32 positions");
  check<std::uint64_t, std::int64_t>("u64 keys, i64 positions");
}

// Composite keys with a run-time hash and equality (the JIT's join family), against the CPU
// joining the same keys packed into 64-bit integers; a hash that ignores a column (correct, only
// slower: more keys share a slot) gives the same pairs.
TEST(JoinLibrary, CompositeKeysWithRunTimeOperatorsMatchTheCpu) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  const jit::op hash("(static_cast<unsigned long long>(x.hi) << 32) | x.lo");
  const jit::op weak_hash("static_cast<unsigned long long>(x.lo & 1023u)");
  const jit::op same("a.hi == b.hi && a.lo == b.lo");
  const auto split = [](const std::vector<std::uint64_t>& k) {
    std::vector<pair_key> out(k.size());
    for (std::size_t i = 0; i < k.size(); ++i)
      out[i] = {static_cast<unsigned>(k[i] >> 32), static_cast<unsigned>(k[i])};
    return out;
  };
  for_each_join_shape(
      3, 9, [&](std::size_t nb, std::size_t np, const auto& hb, const auto& hp, const auto& want) {
        device_buffer<pair_key> db(split(hb), s), dp(split(hp), s);
        for (const jit::op* h : {&hash, &weak_hash}) {
          const auto m =
              cupar::inner_join<std::uint32_t>(db.data(), nb, dp.data(), np, *h, same, s);
          expect_pairs(m.build_rows.to_host(), m.probe_rows.to_host(), want);
        }
        const std::size_t total =
            cupar::inner_join(db.data(), nb, dp.data(), np, hash, same, s).size();
        device_buffer<std::uint64_t> bo(total + 1, s), po(total + 1, s);
        ASSERT_EQ(cupar::inner_join(db.data(), nb, dp.data(), np, bo.data(), po.data(), total, hash,
                                    same, s),
                  total);
        expect_semi_and_anti(db.data(), nb, dp.data(), np, hash, same, want, s);
      });
  // Refused before anything runs: null keys; an operator that does not compile; then working.
  const pair_key* none = nullptr;
  EXPECT_THROW((void)cupar::inner_join(none, 3, none, 0, hash, same, s), std::invalid_argument);
  device_buffer<pair_key> one(std::vector<pair_key>{{1u, 2u}}, s);
  EXPECT_THROW(
      (void)cupar::inner_join(one.data(), 1, one.data(), 1, hash, jit::op("a.hi == b.nope"), s),
      cupar::jit_error);
  EXPECT_EQ(cupar::inner_join(one.data(), 1, one.data(), 1, hash, same, s).size(), 1u);
}

// Composite keys of seven columns (28 bytes, no class of their size): the keys are copied to
// 32-byte strides and the class s32a8's join kernels serve them (only the operators compile);
// the same pairs as the CPU's, by inner, semi and anti join.
TEST(JoinLibrary, CompositeKeysOfSevenColumnsTakeThePaddedClass) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  // Columns 2-6 are functions of (hi, lo), so equal keys are equal packed integers.
  const jit::op hash(
      "(static_cast<unsigned long long>(x.hi ^ x.c4) << 32) | (x.lo + x.c2 * 0u + x.c6 * 0u)");
  const jit::op same(
      "a.hi == b.hi && a.lo == b.lo && a.c2 == b.c2 && a.c3 == b.c3 && a.c4 == b.c4 && "
      "a.c5 == b.c5 && a.c6 == b.c6");
  const auto split = [](const std::vector<std::uint64_t>& k) {
    std::vector<seven_key> out(k.size());
    for (std::size_t i = 0; i < k.size(); ++i) {
      const auto hi = static_cast<unsigned>(k[i] >> 32), lo = static_cast<unsigned>(k[i]);
      out[i] = {hi, lo, hi ^ lo, hi + lo, lo * 3u, ~hi, lo >> 3};
    }
    return out;
  };
  const auto before = jit::get_stats();
  for_each_join_shape(
      5, 11, [&](std::size_t nb, std::size_t np, const auto& hb, const auto& hp, const auto& want) {
        device_buffer<seven_key> db(split(hb), s), dp(split(hp), s);
        const auto m =
            cupar::inner_join<std::uint64_t>(db.data(), nb, dp.data(), np, hash, same, s);
        expect_pairs(m.build_rows.to_host(), m.probe_rows.to_host(), want);
        expect_semi_and_anti(db.data(), nb, dp.data(), np, hash, same, want, s);
      });
  if (precompiled_here("join<s32a8>")) {
    EXPECT_EQ(jit::get_stats().kernel_compiles, before.kernel_compiles);
  }
}

TEST(JoinLibrary, BadArgumentsThrowBeforeAnyWork) {
  owned_stream s;
  const std::uint32_t* none = nullptr;
  std::uint64_t* out = nullptr;
  CUPAR_EXPECT_THROW_WITH((void)cupar::inner_join(none, 3, none, 0, s), std::invalid_argument,
                          "d_build_keys");
  CUPAR_EXPECT_THROW_WITH((void)cupar::inner_join(none, 0, none, 4, s), std::invalid_argument,
                          "d_probe_keys");
  std::uint32_t* pos = nullptr;
  CUPAR_EXPECT_THROW_WITH((void)cupar::inner_join(none, 0, none, 0, pos, pos, 5, s),
                          std::invalid_argument, "d_build_rows");
  std::int32_t* narrow = nullptr;
  CUPAR_EXPECT_THROW_WITH(
      (void)cupar::semi_join(none, (std::size_t(1) << 31) + 1, none, 0, narrow, s),
      std::length_error, "do not fit the position type");
  // Empty tables: nothing runs, nothing is written.
  EXPECT_EQ(cupar::inner_join(none, 0, none, 0, s).size(), 0u);
  EXPECT_EQ(cupar::anti_join(none, 0, none, 0, out, s), 0u);
}

// Caller arrays one pair short: std::length_error with the count, nothing written; the library
// keeps working.
TEST(JoinLibrary, CallerArraysTooSmallAreRefused) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  const std::vector<std::uint32_t> hb = {1, 1, 2}, hp = {1, 2, 3};
  device_buffer<std::uint32_t> db(hb, s), dp(hp, s);
  device_buffer<std::uint32_t> bo(2, s), po(2, s);
  po.fill_bytes(0xAB);
  CUPAR_EXPECT_THROW_WITH(
      (void)cupar::inner_join(db.data(), 3, dp.data(), 3, bo.data(), po.data(), 2, s),
      std::length_error, "3 pairs do not fit out_capacity = 2");
  EXPECT_EQ(po.to_host()[0], 0xABABABABu);
  device_buffer<std::uint32_t> rows(3, s);
  ASSERT_EQ(cupar::anti_join(db.data(), 3, dp.data(), 3, rows.data(), s), 1u);
  EXPECT_EQ(rows.to_host()[0], 2u);
}

}  // namespace
}  // namespace cupar::testing
