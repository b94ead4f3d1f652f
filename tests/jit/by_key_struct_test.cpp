// cupar tests: the by-key families on struct keys that no precompiled set takes (12 bytes, the
// class s12a4), compared by a run-time equality, on the GPU against CPU references: each row's
// mark ((i << 1) | head) from the equality, the u32-keyed sets on the marks, the runs' keys
// gathered from the marks written out (src/jit/families/by_key.cu). reduce_by_key (host and
// device counts, values as an expression), unique_by_key, the inclusive and exclusive scans by
// key, sizes 0, 1, odd and large, both tiers; a new equality compiles operators only; an equality
// whose parameters and the keys' pointer exceed the kernels' parameter bytes (its state on the
// device), re-bound by set(). Compiled by g++.
#include "../common/gpu.hpp"
#include "../common/precompiled.hpp"
#include "../common/streams.hpp"

#include <cupar/cupar.hpp>

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace jit = cupar::jit;
using cupar::testing::owned_stream;
using jit::op;

// Two key columns and the row it came from (which the equality ignores, so the keys out show
// which row of a run they were taken from: unique_by_key its first, reduce_by_key its last, as
// CUB writes them).
CUPAR_JIT_STRUCT(key3, unsigned a; unsigned b; unsigned row;)

namespace {

using u64 = unsigned long long;

bool same(const key3& x, const key3& y) {
  return x.a == y.a && x.b == y.b;
}

/// Keys in runs of 1 to 9 rows, (a, b) drawn from a few values so that neighbouring runs may
/// share one column; values 1..100.
struct rows {
  std::vector<key3> keys;
  std::vector<u64> values;
  rows(std::size_t n, unsigned seed) : keys(n), values(n) {
    std::mt19937 rng(seed);
    std::size_t i = 0;
    while (i < n) {
      const key3 k{static_cast<unsigned>(rng() % 3), static_cast<unsigned>(rng() % 4), 0};
      const std::size_t len = 1 + rng() % 9;
      for (std::size_t r = 0; r < len && i < n; ++r, ++i) {
        keys[i] = k;
        keys[i].row = static_cast<unsigned>(i);
        values[i] = 1 + rng() % 100;
      }
    }
  }
};

/// The runs of equal neighbours (by `same`): each run's first row.
std::vector<std::size_t> run_heads(const std::vector<key3>& keys) {
  std::vector<std::size_t> heads;
  for (std::size_t i = 0; i < keys.size(); ++i)
    if (i == 0 || !same(keys[i - 1], keys[i])) heads.push_back(i);
  return heads;
}

/// The keys out: each run's first row's key, or (`last`) its last row's.
void expect_keys(const std::vector<key3>& got, const std::vector<key3>& keys,
                 const std::vector<std::size_t>& heads, bool last) {
  ASSERT_GE(got.size(), heads.size());
  for (std::size_t j = 0; j < heads.size(); ++j) {
    const std::size_t row = !last                  ? heads[j]
                            : j + 1 < heads.size() ? heads[j + 1] - 1
                                                   : keys.size() - 1;
    const key3& w = keys[row];
    ASSERT_TRUE(got[j].a == w.a && got[j].b == w.b && got[j].row == w.row)
        << "run " << j << ": key of row " << got[j].row << ", expected row " << w.row;
  }
}

template <class T>
std::vector<T> first(const cupar::device_buffer<T>& d, std::size_t count) {
  std::vector<T> h = d.to_host();
  h.resize(count);
  return h;
}

const op& equal_ab() {
  static const op eq("a.a == b.a && a.b == b.b");
  return eq;
}

TEST(JitByKeyStructKeys, ReduceUniqueAndScansByKeyMatchTheCpu) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  const op sum("a + b");
  for (std::size_t n :
       {std::size_t{0}, std::size_t{1}, std::size_t{1001}, (std::size_t{1} << 20) + 3}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const rows r(n, 7 + static_cast<unsigned>(n));
    const std::vector<std::size_t> heads = run_heads(r.keys);
    std::vector<u64> sums(heads.size(), 0), doubled(heads.size(), 0), firsts(heads.size());
    std::vector<u64> inclusive(n), exclusive(n);
    for (std::size_t j = 0; j < heads.size(); ++j) {
      const std::size_t end = j + 1 < heads.size() ? heads[j + 1] : n;
      u64 acc = 0;
      firsts[j] = r.values[heads[j]];
      for (std::size_t i = heads[j]; i < end; ++i) {
        exclusive[i] = 5 + acc;
        acc += r.values[i];
        inclusive[i] = acc;
      }
      sums[j] = acc;
      doubled[j] = 2 * acc;
    }
    cupar::device_buffer<key3> keys(r.keys, s), keys_out(n, s);
    cupar::device_buffer<u64> values(r.values, s), out(n, s);
    cupar::device_buffer<std::size_t> count(1, s);
    auto run = [&] {
      // reduce_by_key, its count to the host.
      ASSERT_EQ((cupar::reduce_by_key_count<key3, u64>(keys.data(), values.data(), keys_out.data(),
                                                       out.data(), n, sum, equal_ab(), s)),
                heads.size());
      expect_keys(first(keys_out, heads.size()), r.keys, heads, true);
      EXPECT_EQ(first(out, heads.size()), sums);
      // The values as an expression, the count to device memory.
      cupar::reduce_by_key<key3, u64>(keys.data(), jit::transform(values.data(), op("x * 2ull")),
                                      keys_out.data(), out.data(), count.data(), n, sum, equal_ab(),
                                      s);
      EXPECT_EQ(count.to_host()[0], heads.size());
      expect_keys(first(keys_out, heads.size()), r.keys, heads, true);
      EXPECT_EQ(first(out, heads.size()), doubled);
      // unique_by_key: each run's first key and value.
      ASSERT_EQ((cupar::unique_by_key_count<key3, u64>(keys.data(), values.data(), keys_out.data(),
                                                       out.data(), n, equal_ab(), s)),
                heads.size());
      expect_keys(first(keys_out, heads.size()), r.keys, heads, false);
      EXPECT_EQ(first(out, heads.size()), firsts);
      // The scans by key.
      cupar::inclusive_scan_by_key<key3, u64>(keys.data(), values.data(), out.data(), n, sum,
                                              equal_ab(), s);
      EXPECT_EQ(out.to_host(), inclusive);
      cupar::exclusive_scan_by_key<key3, u64>(keys.data(), values.data(), out.data(), n, sum, 5ull,
                                              equal_ab(), s);
      EXPECT_EQ(out.to_host(), exclusive);
    };
    run();  // the out-of-line (tier-1) operators
    jit::wait_for_background_builds();
    run();  // inlined
  }
}

// Outputs past the count are left as they were (the gathers are bounded by the count on the
// device), and a call on keys with an equality never seen compiles operators only where the
// u32-keyed sets are precompiled.
TEST(JitByKeyStructKeys, ANewEqualityCompilesNoKernelsAndWritesOnlyTheRuns) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  const std::size_t n = 4099;
  const rows r(n, 99);
  const std::vector<std::size_t> heads = run_heads(r.keys);
  cupar::device_buffer<key3> keys(r.keys, s), keys_out(std::vector<key3>(n, key3{7, 7, 7}), s);
  cupar::device_buffer<u64> values(r.values, s), out(std::vector<u64>(n, 42), s);
  const op eq("a.b == b.b && a.a == b.a /* new in process " + std::to_string(::getpid()) + " */");
  const auto before = jit::get_stats();
  ASSERT_EQ((cupar::reduce_by_key_count<key3, u64>(keys.data(), values.data(), keys_out.data(),
                                                   out.data(), n, jit::plus, eq, s)),
            heads.size());
  const auto after = jit::get_stats();
  const bool sets_here = cupar::testing::precompiled_here("reduce_by_key<u32,u64>") &&
                         cupar::testing::precompiled_here("reduce_by_key<u32,u64>+index") &&
                         cupar::testing::precompiled_here("for_each<u64>");
  if (sets_here) {
    EXPECT_EQ(after.kernel_compiles, before.kernel_compiles);
  }
  expect_keys(keys_out.to_host(), r.keys, heads, true);
  const std::vector<key3> k = keys_out.to_host();
  const std::vector<u64> v = out.to_host();
  for (std::size_t i = heads.size(); i < n; ++i) {
    ASSERT_EQ(k[i].row, 7u) << i;
    ASSERT_EQ(v[i], 42u) << i;
  }
  // A malformed equality: a jit_error, and the next call works.
  EXPECT_THROW(
      (cupar::reduce_by_key_count<key3, u64>(keys.data(), values.data(), keys_out.data(),
                                             out.data(), n, jit::plus, op("a.a == b.missing"), s)),
      cupar::jit_error);
  EXPECT_EQ((cupar::unique_by_key_count<key3, u64>(keys.data(), values.data(), keys_out.data(),
                                                   out.data(), n, eq, s)),
            heads.size());
}

// An equality with 64 bytes of parameters: with the marks pass's two pointers its state no longer
// fits the kernels' parameters and is placed in device memory for the call. Parameters that change
// the answer show that the kernels read them: p2..p7 zero gives the runs of `same`; set("p2", 1)
// makes no two rows equal (every row its own run), without recompiling.
TEST(JitByKeyStructKeys, AnEqualityWithAWideStateReadsItsParameters) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  const std::size_t n = 100003;
  const rows r(n, 5);
  const std::vector<std::size_t> heads = run_heads(r.keys);
  std::vector<u64> sums(heads.size(), 0);
  for (std::size_t j = 0; j < heads.size(); ++j) {
    const std::size_t end = j + 1 < heads.size() ? heads[j + 1] : n;
    for (std::size_t i = heads[j]; i < end; ++i)
      sums[j] += r.values[i];
  }
  op eq("(a.a ^ p0) == (b.a ^ p0) && a.b + p1 == b.b + p1 && p2 + p3 + p4 + p5 + p6 + p7 == 0ull");
  eq.param("p0", 0x5a5aull).param("p1", 3ull);
  for (const char* p : {"p2", "p3", "p4", "p5", "p6", "p7"})
    eq.param(p, 0ull);
  cupar::device_buffer<key3> keys(r.keys, s), keys_out(n, s);
  cupar::device_buffer<u64> values(r.values, s), out(n, s);
  for (int tier = 0; tier < 2; ++tier) {
    SCOPED_TRACE(tier == 0 ? "first call" : "after the background builds");
    eq.set("p2", 0ull);
    ASSERT_EQ((cupar::reduce_by_key_count<key3, u64>(keys.data(), values.data(), keys_out.data(),
                                                     out.data(), n, jit::plus, eq, s)),
              heads.size());
    expect_keys(first(keys_out, heads.size()), r.keys, heads, true);
    EXPECT_EQ(first(out, heads.size()), sums);
    cupar::inclusive_scan_by_key<key3, u64>(keys.data(), values.data(), out.data(), n, jit::plus,
                                            eq, s);
    const std::vector<u64> scanned = out.to_host();
    for (std::size_t j = 0; j < heads.size(); ++j) {
      const std::size_t last = j + 1 < heads.size() ? heads[j + 1] - 1 : n - 1;
      ASSERT_EQ(scanned[last], sums[j]) << "run " << j;
    }
    eq.set("p2", 1ull);
    ASSERT_EQ((cupar::unique_by_key_count<key3, u64>(keys.data(), values.data(), keys_out.data(),
                                                     out.data(), n, eq, s)),
              n);
    EXPECT_EQ(out.to_host(), r.values);
    jit::wait_for_background_builds();
  }
}

}  // namespace
