// cupar tests: top-k selection (top_k.hpp), built by the host compiler from <cupar/cupar.hpp>
// alone. Reference: the first k of a stable sort by the radix order on the host
// (common/radix_ref.hpp, the radix sort tests' reference), positions included, for the ten key
// types, both orders, keys over the whole range with the floating-point specials and keys with
// many duplicates (ties cut by k, so the lowest positions must be the ones taken); and the
// library's own radix sort of (key, position) on the GPU for the large sizes.
#include "../common/precompiled.hpp"
#include "../common/radix_ref.hpp"
#include "../conformance/common.hpp"

#include <cupar/cupar.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

namespace cupar::testing {
namespace {

/// A 12-byte value of a position: checks that values follow their keys.
struct payload {
  std::uint32_t position;
  float half;
  std::uint32_t check;
};
payload payload_of(std::size_t i) {
  return {static_cast<std::uint32_t>(i), static_cast<float>(i) * 0.5f,
          static_cast<std::uint32_t>(i * 2654435761u)};
}

std::vector<std::size_t> ks_for(std::size_t n) {
  // The one-block route (2^12 to 2^16 keys): 512 and 513 are the most it orders by counting and
  // one more, 2,048 and 2,049 the most it takes and one more.
  std::vector<std::size_t> ks = {0, 1, 7, 100, 512, 513, 2048, 2049, n / 2, n};
  ks.erase(std::remove_if(ks.begin(), ks.end(), [n](std::size_t k) { return k > n; }), ks.end());
  std::sort(ks.begin(), ks.end());
  ks.erase(std::unique(ks.begin(), ks.end()), ks.end());
  return ks;
}

template <class K>
class TopK : public ::testing::Test {};
TYPED_TEST_SUITE(TopK, arithmetic_types, type_names);

// Keys, values and positions against the first k of the host's stable radix order.
TYPED_TEST(TopK, IsTheFirstKOfAStableSort) {
  CUPAR_REQUIRE_GPU();
  using K = TypeParam;
  if (!library_has<K>()) GTEST_SKIP() << "key type not in this build's CUPAR_LIBRARY_TYPES";
  owned_stream stream;
  for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(2), std::size_t(1001),
                        std::size_t(3001), std::size_t(40000), std::size_t(65535),
                        std::size_t(65537), scaled((std::size_t(1) << 20) + 3)}) {
    for (bool duplicates : {false, true}) {
      const auto h = duplicates ? duplicate_keys<K>(n, 40 + n) : radix_keys<K>(n, 30 + n);
      std::vector<payload> values(n);
      for (std::size_t i = 0; i < n; ++i)
        values[i] = payload_of(i);
      device_buffer<K> keys(h, stream), out(n, stream);
      device_buffer<payload> d_values(values, stream), values_out(n, stream);
      device_buffer<std::uint32_t> positions(n, stream);
      device_buffer<std::int64_t> positions64(n, stream);
      for (sort_order order : {sort_order::ascending, sort_order::descending}) {
        const auto want = radix_order(h, {order, 0, -1});
        for (std::size_t k : ks_for(n)) {
          SCOPED_TRACE("n = " + std::to_string(n) + ", k = " + std::to_string(k) +
                       (duplicates ? ", duplicates" : "") +
                       (order == sort_order::ascending ? ", ascending" : ", descending"));
          const std::vector<std::uint32_t> first(want.begin(),
                                                 want.begin() + static_cast<std::ptrdiff_t>(k));
          out.fill_bytes(0xAB);
          cupar::top_k(keys.data(), out.data(), n, k, order, stream);
          const auto got = out.to_host();
          EXPECT_TRUE(
              bitwise_equal(std::vector<K>(got.begin(), got.begin() + k), gather(h, first)));
          EXPECT_TRUE(std::all_of(got.begin() + static_cast<std::ptrdiff_t>(k), got.end(), [](K x) {
            unsigned char b[sizeof(K)];
            std::memcpy(b, &x, sizeof(K));
            return std::all_of(b, b + sizeof(K), [](unsigned char c) { return c == 0xAB; });
          })) << "written past k";
          cupar::top_k_positions(keys.data(), static_cast<K*>(nullptr), positions.data(), n, k,
                                 order, stream);
          auto pos = positions.to_host();
          pos.resize(k);
          EXPECT_EQ(pos, first);
          cupar::top_k_pairs(keys.data(), d_values.data(), out.data(), values_out.data(), n, k,
                             order, stream);
          const auto got_values = values_out.to_host();
          for (std::size_t j = 0; j < k; ++j) {
            ASSERT_EQ(got_values[j].position, first[j]) << "value " << j;
            ASSERT_EQ(got_values[j].check, values[first[j]].check) << "value " << j;
          }
        }
      }
      // 8-byte signed positions and the keys in one call.
      if (n > 0) {
        const std::size_t k = std::min<std::size_t>(n, 33);
        cupar::top_k_positions(keys.data(), out.data(), positions64.data(), n, k,
                               sort_order::descending, stream);
        const auto want = radix_order(h, cupar::descending);
        auto pos = positions64.to_host();
        for (std::size_t j = 0; j < k; ++j)
          ASSERT_EQ(pos[j], static_cast<std::int64_t>(want[j])) << j;
        const auto got = out.to_host();
        EXPECT_TRUE(bitwise_equal(
            std::vector<K>(got.begin(), got.begin() + k),
            gather(h, std::vector<std::uint32_t>(want.begin(),
                                                 want.begin() + static_cast<std::ptrdiff_t>(k)))));
      }
    }
  }
}

// 2^24 keys of three values: k falls inside a run of ties far longer than k, so the positions'
// passes choose which ties are taken; beside the library's radix sort of (key, position).
TEST(TopKLarge, TiesLongerThanKTakeTheLowestPositions) {
  CUPAR_REQUIRE_GPU();
  if (!library_has<std::uint8_t>()) GTEST_SKIP() << "u8 not in this build's CUPAR_LIBRARY_TYPES";
  owned_stream stream;
  const std::size_t n = scaled(std::size_t(1) << 24);
  std::vector<std::uint8_t> h(n);
  for (std::size_t i = 0; i < n; ++i)
    h[i] = static_cast<std::uint8_t>((i * 7919u) % 3u);
  std::vector<std::uint32_t> iota(n);
  std::iota(iota.begin(), iota.end(), 0u);
  device_buffer<std::uint8_t> keys(h, stream), sorted(n, stream), out(n, stream);
  device_buffer<std::uint32_t> positions(iota, stream), sorted_positions(n, stream),
      got_positions(n, stream);
  for (sort_order order : {sort_order::ascending, sort_order::descending}) {
    cupar::sort_pairs(keys.data(), sorted.data(), positions.data(), sorted_positions.data(), n,
                      {order, 0, -1}, stream);
    const auto want_keys = sorted.to_host();
    const auto want_positions = sorted_positions.to_host();
    for (std::size_t k : {std::size_t(1), std::size_t(100), std::size_t(65536), n / 3 + 5, n - 1}) {
      SCOPED_TRACE("k = " + std::to_string(k));
      cupar::top_k_positions(keys.data(), out.data(), got_positions.data(), n, k, order, stream);
      const auto got_keys = out.to_host();
      const auto got = got_positions.to_host();
      for (std::size_t j = 0; j < k; ++j) {
        ASSERT_EQ(got_keys[j], want_keys[j]) << j;
        ASSERT_EQ(got[j], want_positions[j]) << j;
      }
    }
  }
}

// 2^20 keys whose evenly spaced ones (every 256th: the 4,096 the sampled threshold draws) are
// the smallest: ascending, the buffer up to the sampled threshold holds 10 keys (k = 1 and 10:
// kept, the second exactly k), 12 for k = 100 and 105 for k = n / 64 (fewer than k: the passes
// read every key); descending, it holds nearly every key and overflows (read every key too).
TEST(TopKLarge, AMisleadingSampleFallsBackToEveryKey) {
  CUPAR_REQUIRE_GPU();
  owned_stream stream;
  const std::size_t n = std::size_t(1) << 20;
  std::vector<std::uint32_t> h(n);
  for (std::size_t i = 0; i < n; ++i) {
    h[i] = i % 256 == 0 ? static_cast<std::uint32_t>(i / 256)
                        : 4096u + static_cast<std::uint32_t>((i * 2654435761u) % 4000000000u);
  }
  device_buffer<std::uint32_t> keys(h, stream), out(n, stream), positions(n, stream);
  for (sort_order order : {sort_order::ascending, sort_order::descending}) {
    std::vector<std::uint32_t> want(n);
    std::iota(want.begin(), want.end(), 0u);
    std::stable_sort(want.begin(), want.end(), [&](std::uint32_t a, std::uint32_t b) {
      return order == sort_order::ascending ? h[a] < h[b] : h[a] > h[b];
    });
    for (std::size_t k : {std::size_t(1), std::size_t(10), std::size_t(100), n / 64}) {
      SCOPED_TRACE("k = " + std::to_string(k) +
                   (order == sort_order::ascending ? ", ascending" : ", descending"));
      cupar::top_k_positions(keys.data(), out.data(), positions.data(), n, k, order, stream);
      const auto got_keys = out.to_host();
      const auto got = positions.to_host();
      for (std::size_t j = 0; j < k; ++j) {
        ASSERT_EQ(got[j], want[j]) << j;
        ASSERT_EQ(got_keys[j], h[want[j]]) << j;
      }
    }
  }
}

// A call captured into a CUDA graph records the passes as a chain of kernels (a direct call runs
// them in one cooperative launch): both give the first k of the stable order, sampled (k = 100,
// with duplicates: the position passes run) and not (k = n / 8), and the graph runs again.
TEST(TopKLarge, CapturedIntoAGraphMatchesTheDirectCall) {
  CUPAR_REQUIRE_GPU();
  if (!library_has<std::uint32_t>()) GTEST_SKIP() << "u32 not in this build's CUPAR_LIBRARY_TYPES";
  owned_stream stream;
  const std::size_t n = (std::size_t(1) << 20) + 5;
  const auto h = duplicate_keys<std::uint32_t>(n, 77);
  device_buffer<std::uint32_t> keys(h, stream), direct(n, stream), captured(n, stream);
  device_buffer<std::uint32_t> direct_positions(n, stream), captured_positions(n, stream);
  for (std::size_t k : {std::size_t(100), n / 8}) {
    SCOPED_TRACE("k = " + std::to_string(k));
    const auto want = radix_order(h, cupar::descending);
    cupar::top_k_positions(keys.data(), direct.data(), direct_positions.data(), n, k,
                           sort_order::descending, stream);
    ASSERT_EQ(cudaStreamBeginCapture(stream.get(), cudaStreamCaptureModeThreadLocal), cudaSuccess);
    cupar::top_k_positions(keys.data(), captured.data(), captured_positions.data(), n, k,
                           sort_order::descending, stream);
    cudaGraph_t graph = nullptr;
    ASSERT_EQ(cudaStreamEndCapture(stream.get(), &graph), cudaSuccess);
    cudaGraphExec_t exec = nullptr;
    ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
    for (int launch = 0; launch < 2; ++launch) {
      captured_positions.fill_bytes(0xFF);
      ASSERT_EQ(cudaGraphLaunch(exec, stream.get()), cudaSuccess);
      const auto got = captured_positions.to_host();
      const auto direct_got = direct_positions.to_host();
      for (std::size_t j = 0; j < k; ++j) {
        ASSERT_EQ(got[j], want[j]) << "captured, launch " << launch << ", " << j;
        ASSERT_EQ(direct_got[j], want[j]) << "direct, " << j;
      }
      const auto got_keys = captured.to_host();
      for (std::size_t j = 0; j < k; ++j)
        ASSERT_EQ(got_keys[j], h[want[j]]) << "captured key " << j;
    }
    EXPECT_EQ(cudaGraphExecDestroy(exec), cudaSuccess);
    EXPECT_EQ(cudaGraphDestroy(graph), cudaSuccess);
  }
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

TEST(TopKArguments, AreCheckedBeforeAnythingRuns) {
  const float* none = nullptr;
  float* out_none = nullptr;
  const stream_ref s = stream_ref::legacy_default();
  // k > n, null arrays that would be read or written, an unknown order.
  CUPAR_EXPECT_THROW_WITH(cupar::top_k(none, out_none, 0, 1, sort_order::ascending, s),
                          std::invalid_argument, "cupar::top_k: k = 1 is more than n = 0");
  CUPAR_EXPECT_THROW_WITH(cupar::top_k(none, out_none, 5, 2, sort_order::ascending, s),
                          std::invalid_argument, "d_keys is null but n = 5");
  CUPAR_EXPECT_THROW_WITH(cupar::top_k(none, out_none, 5, 2, static_cast<sort_order>(7), s),
                          std::invalid_argument, "unknown order 7");
  // Positions that cannot hold n - 1 are refused before anything is read.
  std::int32_t* pos32 = nullptr;
  CUPAR_EXPECT_THROW_WITH(cupar::top_k_positions(none, out_none, pos32, (std::size_t(1) << 31) + 2,
                                                 1, sort_order::ascending, s),
                          std::invalid_argument, "cannot hold n - 1 = 2147483649");
  // k == 0 and n == 0 run nothing and take null arrays.
  EXPECT_NO_THROW(cupar::top_k(none, out_none, 0, 0, sort_order::ascending, s));
  EXPECT_NO_THROW(cupar::top_k(none, out_none, 9, 0, sort_order::descending, s));
  if (!gpu_available()) return;
  owned_stream stream;
  device_buffer<float> keys(std::vector<float>{3, 1, 2, 5, 4}, stream), out(5, stream);
  device_buffer<std::uint32_t> pos(5, stream);
  // An output over the input, outputs over each other.
  CUPAR_EXPECT_THROW_WITH(
      cupar::top_k(keys.data(), keys.data() + 1, 5, 2, sort_order::ascending, stream),
      std::invalid_argument, "d_keys and d_keys_out overlap");
  CUPAR_EXPECT_THROW_WITH(
      cupar::top_k_positions(keys.data(), out.data(), reinterpret_cast<std::uint32_t*>(out.data()),
                             5, 2, sort_order::ascending, stream),
      std::invalid_argument, "d_keys_out and d_positions overlap");
  CUPAR_EXPECT_THROW_WITH(
      cupar::top_k_positions(keys.data(), out.data(), static_cast<std::uint32_t*>(nullptr), 5, 2,
                             sort_order::ascending, stream),
      std::invalid_argument, "d_positions is null");
  // The library keeps working.
  cupar::top_k_positions(keys.data(), out.data(), pos.data(), 5, 3, sort_order::descending, stream);
  const auto got = out.to_host();
  const auto got_pos = pos.to_host();
  EXPECT_EQ(std::vector<float>(got.begin(), got.begin() + 3), (std::vector<float>{5, 4, 3}));
  EXPECT_EQ(std::vector<std::uint32_t>(got_pos.begin(), got_pos.begin() + 3),
            (std::vector<std::uint32_t>{3, 4, 0}));
}

}  // namespace
}  // namespace cupar::testing
