// cupar: the default stream-ordered memory resource.
#include <cupar/detail/cuda_check.hpp>
#include <cupar/memory.hpp>

#include <cuda_runtime_api.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>

namespace cupar {
namespace {

// Raises the release threshold of each device's default pool once, so memory freed with
// cudaFreeAsync stays in the pool across synchronisations and later calls reuse it.
constexpr int max_devices = 64;
std::array<std::atomic<bool>, max_devices> pool_configured{};
std::mutex pool_mutex;

void configure_pool(int device) {
  if (device < 0 || device >= max_devices) return;
  if (pool_configured[static_cast<std::size_t>(device)].load(std::memory_order_acquire)) return;
  std::lock_guard<std::mutex> lock(pool_mutex);
  if (pool_configured[static_cast<std::size_t>(device)].load(std::memory_order_relaxed)) return;
  cudaMemPool_t pool = nullptr;
  detail::check_cuda(cudaDeviceGetDefaultMemPool(&pool, device), "cudaDeviceGetDefaultMemPool");
  std::uint64_t threshold = UINT64_MAX;
  detail::check_cuda(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold),
                     "cudaMemPoolSetAttribute");
  pool_configured[static_cast<std::size_t>(device)].store(true, std::memory_order_release);
}

}  // namespace

void* async_pool_resource::do_allocate(std::size_t bytes, stream_ref stream) {
  if (bytes == 0) return nullptr;
  int device = 0;
  // The allocation comes from the pool of the stream's device.
#if CUDART_VERSION >= 12080
  detail::check_cuda(cudaStreamGetDevice(stream.get(), &device), "cudaStreamGetDevice");
#else
  detail::check_cuda(cudaGetDevice(&device), "cudaGetDevice");
#endif
  configure_pool(device);
  void* ptr = nullptr;
  const cudaError_t status = cudaMallocAsync(&ptr, bytes, stream.get());
  if (status == cudaErrorMemoryAllocation) {
    detail::throw_out_of_memory(bytes, "cudaMallocAsync");
  }
  detail::check_cuda(status, "cudaMallocAsync");
  return ptr;
}

void async_pool_resource::do_deallocate(void* ptr, std::size_t, stream_ref stream) noexcept {
  if (ptr == nullptr) return;
  // A failure here (e.g. a context already destroyed at exit) cannot be reported from a
  // destructor path; clear it so it does not surface in an unrelated call.
  if (cudaFreeAsync(ptr, stream.get()) != cudaSuccess) (void)cudaGetLastError();
}

memory_resource& default_resource() noexcept {
  static async_pool_resource resource;
  return resource;
}

}  // namespace cupar
