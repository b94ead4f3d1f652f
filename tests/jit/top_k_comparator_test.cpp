// cupar tests: top_k, top_k_pairs and top_k_positions with a run-time comparator (top_k.hpp),
// built by the host compiler: against the first k of std::stable_sort on the host for float
// keys by a snippet, 8-byte keys by a comparator with many ties, and struct records by one
// field (descending, ties in position order); sizes 0, 1, odd and large, k from 0 to n (the
// sampled threshold where k <= n / 16, every key sorted above); the named comparators on
// arithmetic keys; the argument checks.
#include "../common/data.hpp"
#include "../common/gpu.hpp"
#include "../common/precompiled.hpp"
#include "../common/streams.hpp"

#include <cupar/cupar.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

// An order's total and id: sorted by total, descending (ties keep their positions).
CUPAR_JIT_STRUCT(topk_order, float total; unsigned id;)

namespace {

using cupar::jit::op;
using cupar::testing::owned_stream;

/// The positions of the first k of a stable sort of h by `before`.
template <class K, class Before>
std::vector<std::uint32_t> first_k(const std::vector<K>& h, std::size_t k, Before before) {
  std::vector<std::uint32_t> p(h.size());
  std::iota(p.begin(), p.end(), 0u);
  std::stable_sort(p.begin(), p.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return before(h[a], h[b]); });
  p.resize(k);
  return p;
}

std::vector<std::size_t> ks_for(std::size_t n) {
  std::vector<std::size_t> ks = {0, 1, 7, 100, n / 64, n / 16, n / 3, n};
  ks.erase(std::remove_if(ks.begin(), ks.end(), [n](std::size_t k) { return k > n; }), ks.end());
  std::sort(ks.begin(), ks.end());
  ks.erase(std::unique(ks.begin(), ks.end()), ks.end());
  return ks;
}

const std::vector<std::size_t>& sizes() {
  static const std::vector<std::size_t> s =
      cupar::testing::scaled({0, 1, 1001, (std::size_t(1) << 16) + 3, (std::size_t(1) << 22) + 5});
  return s;
}

/// Keys, values (their positions, as 8-byte payloads) and positions of the three forms against
/// the host's first k.
template <class K, class Same>
void check_forms(const std::vector<K>& h, const op& comp,
                 const std::function<bool(const K&, const K&)>& before, Same same,
                 cupar::stream_ref s) {
  const std::size_t n = h.size();
  std::vector<std::uint64_t> values(n);
  for (std::size_t i = 0; i < n; ++i)
    values[i] = i * 0x9E3779B97F4A7C15ull;
  const std::size_t cap = std::max<std::size_t>(n, 1);
  cupar::device_buffer<K> keys(h, s), out(cap, s);
  cupar::device_buffer<std::uint64_t> d_values(values, s), values_out(cap, s);
  cupar::device_buffer<std::uint32_t> positions(cap, s);
  cupar::device_buffer<std::int64_t> positions64(cap, s);
  std::vector<std::uint32_t> all;
  if (n > 0) all = first_k(h, n, before);
  for (std::size_t k : ks_for(n)) {
    SCOPED_TRACE("n = " + std::to_string(n) + ", k = " + std::to_string(k));
    const std::vector<std::uint32_t> want(all.begin(), all.begin() + static_cast<long>(k));
    cupar::top_k(keys.data(), out.data(), n, k, comp, s);
    const auto got = out.to_host();
    for (std::size_t j = 0; j < k; ++j)
      ASSERT_TRUE(same(got[j], h[want[j]])) << "key " << j;
    cupar::top_k_positions(keys.data(), static_cast<K*>(nullptr), positions.data(), n, k, comp, s);
    auto pos = positions.to_host();
    pos.resize(k);
    EXPECT_EQ(pos, want);
    cupar::top_k_pairs(keys.data(), d_values.data(), out.data(), values_out.data(), n, k, comp, s);
    const auto got_values = values_out.to_host();
    for (std::size_t j = 0; j < k; ++j)
      ASSERT_EQ(got_values[j], values[want[j]]) << "value " << j;
    if (k > 0) {
      cupar::top_k_positions(keys.data(), out.data(), positions64.data(), n, k, comp, s);
      const auto p64 = positions64.to_host();
      for (std::size_t j = 0; j < k; ++j)
        ASSERT_EQ(p64[j], static_cast<std::int64_t>(want[j])) << "position " << j;
    }
  }
}

TEST(TopKComparator, FloatsBySnippetMatchAStableSort) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  for (std::size_t n : sizes()) {
    std::vector<float> h(n);
    std::mt19937 rng(static_cast<unsigned>(n));
    std::uniform_real_distribution<float> d(-1000.0f, 1000.0f);
    for (auto& x : h)
      x = d(rng);
    // Descending by a snippet (not the named greater: the comparator path).
    check_forms<float>(
        h, op("a > b"), [](float a, float b) { return a > b; },
        [](float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }, s);
  }
}

TEST(TopKComparator, ManyTiesKeepTheirPositions) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  for (std::size_t n : sizes()) {
    std::vector<std::uint64_t> h(n);
    for (std::size_t i = 0; i < n; ++i)
      h[i] = (i * 2654435761ull) % 100003ull;
    // Ordered by the last three digits: about n / 1000 keys tie in each class, and the threshold's
    // class is selected whole.
    check_forms<std::uint64_t>(
        h, op("a % m < b % m").param("m", std::uint64_t{1000}),
        [](std::uint64_t a, std::uint64_t b) { return a % 1000 < b % 1000; },
        [](std::uint64_t a, std::uint64_t b) { return a == b; }, s);
  }
}

TEST(TopKComparator, RecordsByOneFieldDescending) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  for (std::size_t n : sizes()) {
    std::vector<topk_order> h(n);
    for (std::size_t i = 0; i < n; ++i)
      h[i] = {static_cast<float>((i * 7919u) % 5003u) * 0.25f, static_cast<unsigned>(i)};
    check_forms<topk_order>(
        h, op("a.total > b.total"),
        [](const topk_order& a, const topk_order& b) { return a.total > b.total; },
        [](const topk_order& a, const topk_order& b) { return a.total == b.total && a.id == b.id; },
        s);
  }
}

TEST(TopKComparator, NamedComparatorsOnArithmeticKeys) {
  CUPAR_REQUIRE_GPU();
  // cupar::jit::less and greater on arithmetic keys take the library's radix select.
  if (!cupar::testing::library_has<std::int32_t>()) {
    GTEST_SKIP() << "i32 not in this build's CUPAR_LIBRARY_TYPES";
  }
  owned_stream s;
  const std::size_t n = cupar::testing::scaled((std::size_t(1) << 20) + 1);
  std::vector<std::int32_t> h(n);
  for (std::size_t i = 0; i < n; ++i)
    h[i] = static_cast<std::int32_t>((i * 2654435761u) % 200003u) - 100000;
  cupar::device_buffer<std::int32_t> keys(h, s), out(n, s);
  for (const bool ascending : {true, false}) {
    const auto before = [ascending](std::int32_t a, std::int32_t b) {
      return ascending ? a < b : b < a;
    };
    const std::size_t k = 1000;
    const auto want = first_k(h, k, before);
    cupar::top_k(keys.data(), out.data(), n, k, ascending ? cupar::jit::less : cupar::jit::greater,
                 s);
    const auto got = out.to_host();
    for (std::size_t j = 0; j < k; ++j)
      ASSERT_EQ(got[j], h[want[j]]) << j;
  }
}

TEST(TopKComparator, ArgumentsAreCheckedBeforeAnythingRuns) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  const std::size_t n = 1000;
  std::vector<float> h(n, 1.0f);
  cupar::device_buffer<float> keys(h, s), out(n, s);
  const op comp("a < b");
  EXPECT_THROW(cupar::top_k(keys.data(), out.data(), n, n + 1, comp, s), std::invalid_argument);
  EXPECT_THROW(cupar::top_k(keys.data(), static_cast<float*>(nullptr), n, 10, comp, s),
               std::invalid_argument);
  EXPECT_THROW(cupar::top_k(static_cast<const float*>(nullptr), out.data(), n, 10, comp, s),
               std::invalid_argument);
  EXPECT_THROW(cupar::top_k(keys.data(), keys.data() + 10, n, 10, comp, s),
               std::invalid_argument);  // the output overlaps the keys
  EXPECT_THROW(cupar::top_k(keys.data(), out.data(), n, 10, op("a <* b"), s), cupar::jit_error);
  // Still working; k == 0 writes nothing.
  cupar::top_k(keys.data(), out.data(), n, 0, comp, s);
  cupar::top_k(keys.data(), out.data(), n, 10, comp, s);
  const auto got = out.to_host();
  EXPECT_EQ(got[9], 1.0f);
}

}  // namespace
