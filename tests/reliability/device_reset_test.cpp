// cupar tests: cudaDeviceReset with blocks kept by the default resource (issue 12). The reset
// frees the context's memory behind cupar's back: the kept blocks must be forgotten, never handed
// out or freed again (their addresses may belong to new allocations by then). A binary of its
// own: the reset ends everything else the process had on the device.
#include "common/gpu.hpp"

#include <cupar/cupar.hpp>

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <vector>

namespace cupar::testing {
namespace {

bool is_device_memory(const void* p) {
  cudaPointerAttributes a{};
  if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return a.type == cudaMemoryTypeDevice;
}

TEST(DeviceReset, KeptBlocksOfTheOldContextAreForgotten) {
  CUPAR_REQUIRE_GPU();
  cupar::memory_resource& mr = cupar::default_resource();
  const cupar::stream_ref legacy = cupar::stream_ref::legacy_default();
  cudaStream_t own = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&own, cudaStreamNonBlocking), cudaSuccess);
  unsigned long long legacy_id_before = 0;
  ASSERT_EQ(cudaStreamGetId(cudaStreamLegacy, &legacy_id_before), cudaSuccess);
  // Blocks kept for the legacy stream and for an own stream, of three sizes each.
  std::vector<void*> old_blocks;
  for (std::size_t bytes : {std::size_t(1000), std::size_t(70000), std::size_t(3) << 20}) {
    for (cupar::stream_ref s : {legacy, cupar::stream_ref(own)}) {
      void* p = mr.allocate(bytes, s);
      old_blocks.push_back(p);
      mr.deallocate(p, bytes, s);
    }
  }
  ASSERT_GT(cupar::cached_memory_bytes(), 0u);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  ASSERT_EQ(cudaDeviceReset(), cudaSuccess);  // destroys `own` and every allocation
  unsigned long long legacy_id_after = 0;
  ASSERT_EQ(cudaStreamGetId(cudaStreamLegacy, &legacy_id_after), cudaSuccess);
  EXPECT_NE(legacy_id_after, legacy_id_before)
      << "the legacy stream of the new context has a new id, so blocks kept for the old one "
         "are never handed to it";

  // New allocations in the new context, likely at the old addresses.
  std::vector<void*> fresh;
  for (std::size_t bytes : {std::size_t(1000), std::size_t(70000), std::size_t(3) << 20}) {
    void* p = nullptr;
    ASSERT_EQ(cudaMalloc(&p, bytes), cudaSuccess);
    ASSERT_EQ(cudaMemset(p, 0x5A, bytes), cudaSuccess);
    fresh.push_back(p);
  }
  // Allocations through the resource on the legacy stream get memory of the new context.
  for (std::size_t bytes : {std::size_t(1000), std::size_t(70000), std::size_t(3) << 20}) {
    void* p = mr.allocate(bytes, legacy);
    EXPECT_TRUE(is_device_memory(p));
    ASSERT_EQ(cudaMemsetAsync(p, 0, bytes, cudaStreamLegacy), cudaSuccess);
    mr.deallocate(p, bytes, legacy);
  }
  // Releasing the kept blocks must neither fail on the old ones nor free the new allocations.
  EXPECT_NO_THROW(cupar::release_cached_memory());
  EXPECT_EQ(cupar::cached_memory_bytes(), 0u);
  for (void* p : fresh) {
    EXPECT_TRUE(is_device_memory(p)) << p << " was freed by cupar";
    unsigned char byte = 0;
    ASSERT_EQ(cudaMemcpy(&byte, p, 1, cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_EQ(byte, 0x5A);
    EXPECT_EQ(cudaFree(p), cudaSuccess);
  }
  // And the algorithms work in the new context.
  std::vector<int> h(100000, 2);
  device_buffer<int> in(h, legacy);
  EXPECT_EQ(cupar::reduce_value(in.data(), h.size(), cupar::jit::plus, 0, legacy), 200000);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

}  // namespace
}  // namespace cupar::testing
