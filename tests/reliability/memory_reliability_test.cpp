// cupar tests: the default resource's kept blocks in long-running processes (issue 12): slots of
// destroyed streams are reclaimed, and kept blocks never cross streams or devices.
#include "common/gpu.hpp"
#include "common/streams.hpp"

#include <cupar/cupar.hpp>

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <vector>

namespace cupar::testing {
namespace {

// The default resource keeps blocks for 64 streams; when a new stream finds every slot taken,
// slots idle for 1,024 cache operations are freed, at most once per 4,096 operations
// (memory.hpp). A cache operation is a kept block or a block handed out again.
constexpr int slots = 64;
constexpr int eviction_interval = 4096;

TEST(KeptBlocks, SlotsOfDestroyedStreamsAreReclaimed) {
  CUPAR_REQUIRE_GPU();
  cupar::release_cached_memory();
  ASSERT_EQ(cupar::cached_memory_bytes(), 0u);
  cupar::memory_resource& mr = cupar::default_resource();
  constexpr std::size_t bytes = 1000;  // size class 1,024
  owned_stream live;
  void* p = mr.allocate(bytes, live);
  mr.deallocate(p, bytes, live);
  ASSERT_EQ(cupar::cached_memory_bytes(), 1024u);
  // 63 streams keep a block each and are destroyed: every slot is taken.
  for (int i = 1; i < slots; ++i) {
    owned_stream dead;
    void* q = mr.allocate(bytes, dead);
    mr.deallocate(q, bytes, dead);
    ASSERT_EQ(cudaStreamSynchronize(dead.get()), cudaSuccess);
  }
  EXPECT_EQ(cupar::cached_memory_bytes(), std::size_t(slots) * 1024);
  // The dead streams' slots were used a moment ago: a new stream finds no slot for its block.
  owned_stream late;
  void* r = mr.allocate(bytes, late);
  mr.deallocate(r, bytes, late);
  EXPECT_EQ(cupar::cached_memory_bytes(), std::size_t(slots) * 1024) << "no slot was free";
  // Many calls on the live stream later, the dead streams' slots are idle: the next new block
  // takes one of them, and the dead streams' blocks are freed.
  for (int i = 0; i < eviction_interval; ++i) {
    void* q = mr.allocate(bytes, live);
    ASSERT_EQ(q, p) << "the live stream reuses its own block";
    mr.deallocate(q, bytes, live);
  }
  r = mr.allocate(bytes, late);
  ASSERT_EQ(cudaMemsetAsync(r, 0x11, bytes, late.get()), cudaSuccess);
  mr.deallocate(r, bytes, late);
  EXPECT_EQ(cupar::cached_memory_bytes(), 2u * 1024) << "only the live streams' blocks are kept";
  void* again = mr.allocate(bytes, late);
  EXPECT_EQ(again, r) << "the new stream's block was kept";
  mr.deallocate(again, bytes, late);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  cupar::release_cached_memory();
  EXPECT_EQ(cupar::cached_memory_bytes(), 0u);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

// Streams created and destroyed one after another, as a server handling one request per stream
// would: the kept memory stays bounded and calls stay correct.
TEST(KeptBlocks, ThousandsOfShortLivedStreamsStayBounded) {
  CUPAR_REQUIRE_GPU();
  cupar::release_cached_memory();
  const std::vector<float> h(5000, 1.0f);
  std::size_t most = 0;
  for (int i = 0; i < 2000; ++i) {
    owned_stream s;
    device_buffer<float> in(h, s);
    ASSERT_EQ(cupar::reduce_value(in.data(), h.size(), cupar::jit::plus, 0.0f, s), 5000.0f);
    for (int k = 0; k < 3; ++k) {  // a few more temporaries per stream
      void* q = cupar::default_resource().allocate(100000, s);
      cupar::default_resource().deallocate(q, 100000, s);
    }
    most = std::max(most, cupar::cached_memory_bytes());
  }
  // At most 64 streams' blocks at any time: each stream here keeps at most two blocks of at
  // most 128 KiB (the reduce's temporaries and the 100,000-byte block).
  EXPECT_LE(most, std::size_t(slots) * 2 * 131072);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  cupar::release_cached_memory();
  EXPECT_EQ(cupar::cached_memory_bytes(), 0u);
}

}  // namespace
}  // namespace cupar::testing
