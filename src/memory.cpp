// cupar: the default stream-ordered memory resource.
#include <cupar/detail/cuda_check.hpp>
#include <cupar/memory.hpp>

#include <cuda_runtime_api.h>

#include <algorithm>
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

// ---- Blocks kept for reuse on the stream that gave them back ---------------------------------
//
// cudaMallocAsync + cudaFreeAsync around every call cost about 0.6 us of host time and, measured
// with the stream held so that only GPU time counts, about 0.6 us of GPU time per call as well
// (docs/probes/midsize.cu): 7-10% of a 2^20-element reduce. So the default resource keeps blocks
// given back on a stream and hands them out again to allocations on the same stream, with no
// CUDA call: stream order alone makes that safe (the block's earlier work was queued on that
// stream before the new work). Streams are told apart by cudaStreamGetId, unique for the life
// of the process, so a new stream that reuses a destroyed one's handle never sees its blocks.
//
// Bounds: blocks of up to 64 MiB (larger allocations are rare and long enough not to care),
// rounded up to one of four size classes per power of two; at most 4 blocks per stream; at most
// 64 streams; at most 1 GiB kept in all. A stream whose blocks have all been handed out again
// frees its slot. Blocks of a destroyed stream stay until release_cached_memory() (or the end
// of the process), within the 1 GiB. Streams being captured into a graph never use the cache.

constexpr std::size_t cache_block_limit = std::size_t(64) << 20;
constexpr std::size_t cache_total_limit = std::size_t(1) << 30;
constexpr int blocks_per_stream = 4;
constexpr int cached_streams = 64;

/// The size actually allocated for `bytes` when the block may be cached: at most 25% more.
std::size_t size_class(std::size_t bytes) {
  std::size_t floor2 = 1;
  while (floor2 <= bytes / 2)
    floor2 *= 2;
  const std::size_t step = std::max<std::size_t>(1024, floor2 / 4);
  return (bytes + step - 1) / step * step;
}

struct cached_block {
  void* ptr;
  std::size_t bytes;
};

struct stream_slot {
  unsigned long long id = 0;
  int device = 0;
  int count = 0;                           // 0: the slot is free
  cached_block blocks[blocks_per_stream];  // oldest first
};

struct block_cache {
  std::mutex m;
  stream_slot slots[cached_streams];
  std::size_t bytes = 0;
};

block_cache& cache() {
  static block_cache c;
  return c;
}

/// What the cache needs to know about a stream: whether it is being captured into a graph
/// (then no block is kept or handed out, and no call capture forbids, such as
/// cudaStreamGetDevice, is made) and otherwise its process-unique id.
struct stream_facts {
  bool capturing = false;
  bool known = false;  // `id` is valid
  unsigned long long id = 0;
};

stream_facts facts_of(cudaStream_t s) {
  stream_facts f;
#if CUDART_VERSION >= 12000
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(s, &capture) != cudaSuccess) {
    // E.g. the legacy stream while another stream is captured globally: make no more calls.
    (void)cudaGetLastError();
    f.capturing = true;
    return f;
  }
  if (capture != cudaStreamCaptureStatusNone) {
    f.capturing = true;
    return f;
  }
  if (cudaStreamGetId(s, &f.id) != cudaSuccess) {
    (void)cudaGetLastError();
    return f;
  }
  f.known = true;
#else
  (void)s;
#endif
  return f;
}

/// The device of `s` (not queried on a capturing stream, where it is the current device).
cudaError_t device_of(cudaStream_t s, const stream_facts& f, int& device) {
#if CUDART_VERSION >= 12080
  if (!f.capturing) return cudaStreamGetDevice(s, &device);
#else
  (void)s;
#endif
  (void)f;
  return cudaGetDevice(&device);
}

stream_slot* find_slot(block_cache& c, unsigned long long id) {
  for (stream_slot& slot : c.slots) {
    if (slot.count > 0 && slot.id == id) return &slot;
  }
  return nullptr;
}

/// Takes a cached block of exactly `bytes` (a size class) for stream `id`, or returns null.
void* take_cached(unsigned long long id, std::size_t bytes) {
  block_cache& c = cache();
  std::lock_guard<std::mutex> lock(c.m);
  stream_slot* slot = find_slot(c, id);
  if (slot == nullptr) return nullptr;
  for (int i = slot->count - 1; i >= 0; --i) {
    if (slot->blocks[i].bytes != bytes) continue;
    void* ptr = slot->blocks[i].ptr;
    for (int j = i; j + 1 < slot->count; ++j)
      slot->blocks[j] = slot->blocks[j + 1];
    --slot->count;
    c.bytes -= bytes;
    return ptr;
  }
  return nullptr;
}

/// Keeps `ptr` (a size class of `bytes`) for reuse on stream `id`; false when it cannot be kept.
/// A block pushed out by it is freed in stream order on `stream` (its own stream).
bool keep_cached(unsigned long long id, int device, void* ptr, std::size_t bytes,
                 cudaStream_t stream) {
  block_cache& c = cache();
  void* evicted = nullptr;
  {
    std::lock_guard<std::mutex> lock(c.m);
    stream_slot* slot = find_slot(c, id);
    if (slot == nullptr) {
      for (stream_slot& s : c.slots) {
        if (s.count == 0) {
          slot = &s;
          slot->id = id;
          slot->device = device;
          break;
        }
      }
      if (slot == nullptr) return false;
    }
    const std::size_t pushed_out = slot->count == blocks_per_stream ? slot->blocks[0].bytes : 0;
    if (c.bytes - pushed_out + bytes > cache_total_limit) return false;
    if (slot->count == blocks_per_stream) {
      evicted = slot->blocks[0].ptr;
      c.bytes -= pushed_out;
      for (int j = 0; j + 1 < slot->count; ++j)
        slot->blocks[j] = slot->blocks[j + 1];
      --slot->count;
    }
    slot->blocks[slot->count++] = {ptr, bytes};
    c.bytes += bytes;
  }
  if (evicted != nullptr && cudaFreeAsync(evicted, stream) != cudaSuccess) {
    (void)cudaGetLastError();
  }
  return true;
}

/// Frees, in stream order on `stream`, the blocks kept for that stream (to make room when the
/// pool is out of memory).
void release_stream_blocks(unsigned long long id, cudaStream_t stream) {
  block_cache& c = cache();
  std::lock_guard<std::mutex> lock(c.m);
  stream_slot* slot = find_slot(c, id);
  if (slot == nullptr) return;
  for (int i = 0; i < slot->count; ++i) {
    if (cudaFreeAsync(slot->blocks[i].ptr, stream) != cudaSuccess) (void)cudaGetLastError();
    c.bytes -= slot->blocks[i].bytes;
  }
  slot->count = 0;
}

/// Gives the unused memory of the device's default pool back to the driver.
void trim_pool(int device) {
  cudaMemPool_t pool = nullptr;
  if (cudaDeviceGetDefaultMemPool(&pool, device) != cudaSuccess ||
      cudaMemPoolTrimTo(pool, 0) != cudaSuccess) {
    (void)cudaGetLastError();
  }
}

}  // namespace

void* async_pool_resource::do_allocate(std::size_t bytes, stream_ref stream) {
  if (bytes == 0) return nullptr;
  const bool small = bytes <= cache_block_limit;
  const std::size_t size = small ? size_class(bytes) : bytes;
  const stream_facts facts = facts_of(stream.get());
  const bool cacheable = small && facts.known;
  const unsigned long long id = facts.id;
  if (cacheable) {
    if (void* ptr = take_cached(id, size)) return ptr;
  }
  // The allocation comes from the pool of the stream's device.
  int device = 0;
  detail::check_cuda(device_of(stream.get(), facts, device), "cudaStreamGetDevice");
  configure_pool(device);
  void* ptr = nullptr;
  cudaError_t status = cudaMallocAsync(&ptr, size, stream.get());
  if (status == cudaErrorMemoryAllocation) {
    // A failed cudaMallocAsync leaves the pool holding the physical memory it mapped while
    // trying, and with the release threshold raised it keeps it: measured on the H200, a failed
    // request for twice the device's memory left 0 of 150 GB free for anything else (even CUDA
    // graphs' allocations failed after it). So trim the pool, give back this stream's kept
    // blocks, and try once more; trim again if that fails too.
    (void)cudaGetLastError();
    if (cacheable) release_stream_blocks(id, stream.get());
    trim_pool(device);
    status = cudaMallocAsync(&ptr, size, stream.get());
    if (status == cudaErrorMemoryAllocation) {
      (void)cudaGetLastError();
      trim_pool(device);
    }
  }
  if (status == cudaErrorMemoryAllocation) {
    detail::throw_out_of_memory(bytes, "cudaMallocAsync");
  }
  detail::check_cuda(status, "cudaMallocAsync");
  return ptr;
}

void async_pool_resource::do_deallocate(void* ptr, std::size_t bytes, stream_ref stream) noexcept {
  if (ptr == nullptr) return;
  if (bytes <= cache_block_limit) {
    const stream_facts facts = facts_of(stream.get());
    int device = 0;
    if (facts.known) {
      if (device_of(stream.get(), facts, device) != cudaSuccess) {
        (void)cudaGetLastError();
      } else if (keep_cached(facts.id, device, ptr, size_class(bytes), stream.get())) {
        return;
      }
    }
  }
  // A failure here (e.g. a context already destroyed at exit) cannot be reported from a
  // destructor path; clear it so it does not surface in an unrelated call.
  if (cudaFreeAsync(ptr, stream.get()) != cudaSuccess) (void)cudaGetLastError();
}

void release_cached_memory() {
  block_cache& c = cache();
  std::lock_guard<std::mutex> lock(c.m);
  int current = 0;
  detail::check_cuda(cudaGetDevice(&current), "cudaGetDevice");
  bool synced[max_devices] = {};
  for (stream_slot& slot : c.slots) {
    if (slot.count == 0) continue;
    if (slot.device < 0 || slot.device >= max_devices) continue;
    if (!synced[slot.device]) {
      if (slot.device != current) detail::check_cuda(cudaSetDevice(slot.device), "cudaSetDevice");
      const cudaError_t e = cudaDeviceSynchronize();
      if (slot.device != current) (void)cudaSetDevice(current);
      detail::check_cuda(e, "cudaDeviceSynchronize");
      synced[slot.device] = true;
    }
    // The device is idle, so nothing can still use the blocks: cudaFree (which does not
    // synchronise for stream-ordered allocations) is safe.
    while (slot.count > 0) {
      const cached_block b = slot.blocks[--slot.count];
      c.bytes -= b.bytes;
      detail::check_cuda(cudaFree(b.ptr), "cudaFree");
    }
  }
}

std::size_t cached_memory_bytes() noexcept {
  block_cache& c = cache();
  std::lock_guard<std::mutex> lock(c.m);
  return c.bytes;
}

memory_resource& default_resource() noexcept {
  static async_pool_resource resource;
  return resource;
}

}  // namespace cupar
