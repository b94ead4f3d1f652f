// cupar: the default stream-ordered memory resource.
#include <cupar/detail/cuda_check.hpp>
#include <cupar/detail/device_guard.hpp>
#include <cupar/memory.hpp>

#include <unistd.h>

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

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
// frees its slot. Streams being captured into a graph never use the cache.
//
// Giving the blocks back (issue 12: a leak checker saw every kept block as leaked at exit, and
// the slots of destroyed streams were never reused):
// - At normal exit: an exit handler, registered when the first block is kept. The CUDA runtime
//   is initialised by then (a block was allocated), so its own exit-time teardown was registered
//   earlier and runs later: the handler still has a working runtime. It synchronises each device
//   that has kept blocks and frees them; blocks given back after it (e.g. by the destructors of
//   static device_buffers) are freed at once instead of kept.
// - Slots of destroyed streams: a stream's id never comes back, so its slot would stay taken.
//   When a new stream finds all 64 slots taken, the slots idle for the last 1,024 cache
//   operations are freed (least recently used first in effect: the others stay), after one
//   device synchronisation (the stream of a slot may have been destroyed, so its blocks cannot be
//   freed in stream order). Streams in use are not idle that long unless more than about 250
//   take turns, and the synchronisation is rate-limited to one per 4,096 cache operations, so a
//   process cycling through hundreds of streams pays at most one per few thousand calls; the hot
//   path (a take or keep of a block) gains no CUDA call, only a counter.
// - cudaDeviceReset frees the memory of the device's context behind cupar's back: each slot
//   remembers the unique id of its stream's context, and blocks whose context is no longer the
//   device's primary context are dropped without a call (freeing them could free someone else's
//   new allocation at the same address).

constexpr std::size_t cache_block_limit = std::size_t(64) << 20;

/// CUPAR_KEEP_BLOCKS=0 in the environment: keep nothing, every block goes straight back to the
/// pool (a diagnostic switch, read once: docs/RELIABILITY.md, Open 0).
bool keeping_enabled() {
  static const bool on = [] {
    const char* e = std::getenv("CUPAR_KEEP_BLOCKS");
    return !(e != nullptr && std::string(e) == "0");
  }();
  return on;
}
constexpr std::size_t cache_total_limit = std::size_t(1) << 30;
constexpr int blocks_per_stream = 4;
constexpr int cached_streams = 64;
constexpr std::uint64_t idle_ticks = 1024;         // a slot idle this long may be evicted
constexpr std::uint64_t eviction_interval = 4096;  // at most one eviction per this many ticks

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
  std::uint64_t last_use = 0;              // tick of the last take or keep
  unsigned long long context = 0;          // unique id of the stream's context, 0: unknown
  cached_block blocks[blocks_per_stream];  // oldest first
};

struct block_cache {
  std::mutex m;
  stream_slot slots[cached_streams];
  std::size_t bytes = 0;
  std::uint64_t tick = 0;  // counts takes and keeps
  std::uint64_t last_eviction = 0;
  bool exit_handler = false;  // registered
  bool exiting = false;       // the exit handler ran: nothing is kept any more
};

block_cache& cache() {
  // Never destroyed: deallocations may still come from other static destructors at exit.
  static block_cache* c = new block_cache();
  return *c;
}

// ---- Context identities (driver API, through the runtime's entry point query) -----------------

struct context_api {
  CUresult (*stream_get_ctx)(CUstream, CUcontext*) = nullptr;
  CUresult (*ctx_get_id)(CUcontext, unsigned long long*) = nullptr;
  CUresult (*device_get)(CUdevice*, int) = nullptr;
  CUresult (*primary_state)(CUdevice, unsigned int*, int*) = nullptr;
  CUresult (*primary_retain)(CUcontext*, CUdevice) = nullptr;
  CUresult (*primary_release)(CUdevice) = nullptr;
  bool ok = false;
};

const context_api& context_functions() {
  static const context_api api = [] {
    context_api a;
    auto get = [](auto& fn, const char* symbol) {
      void* p = nullptr;
      cudaDriverEntryPointQueryResult status = cudaDriverEntryPointSymbolNotFound;
      if (cudaGetDriverEntryPointByVersion(symbol, &p, 12000, cudaEnableDefault, &status) !=
              cudaSuccess ||
          status != cudaDriverEntryPointSuccess) {
        (void)cudaGetLastError();
        p = nullptr;
      }
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(p);
      return p != nullptr;
    };
    a.ok = get(a.stream_get_ctx, "cuStreamGetCtx") && get(a.ctx_get_id, "cuCtxGetId") &&
           get(a.device_get, "cuDeviceGet") && get(a.primary_state, "cuDevicePrimaryCtxGetState") &&
           get(a.primary_retain, "cuDevicePrimaryCtxRetain") &&
           get(a.primary_release, "cuDevicePrimaryCtxRelease");
    return a;
  }();
  return api;
}

/// Unique id of the context `s` belongs to, or 0 when it cannot be told.
unsigned long long context_of(cudaStream_t s) {
  const context_api& d = context_functions();
  if (!d.ok) return 0;
  CUcontext ctx = nullptr;
  unsigned long long id = 0;
  if (d.stream_get_ctx(reinterpret_cast<CUstream>(s), &ctx) != CUDA_SUCCESS || ctx == nullptr ||
      d.ctx_get_id(ctx, &id) != CUDA_SUCCESS) {
    return 0;
  }
  return id;
}

/// Whether memory allocated in the context `context` (an id from context_of) of `device` still
/// exists: false after cudaDeviceReset (the primary context was destroyed, and maybe created
/// again with another id). Unknown contexts are assumed alive. Makes no runtime call.
bool context_alive(int device, unsigned long long context) {
  const context_api& d = context_functions();
  if (context == 0 || !d.ok) return true;
  CUdevice dev = 0;
  unsigned int flags = 0;
  int active = 0;
  if (d.device_get(&dev, device) != CUDA_SUCCESS ||
      d.primary_state(dev, &flags, &active) != CUDA_SUCCESS || active == 0) {
    return false;
  }
  CUcontext ctx = nullptr;
  unsigned long long id = 0;
  if (d.primary_retain(&ctx, dev) != CUDA_SUCCESS) return false;
  const bool same = d.ctx_get_id(ctx, &id) == CUDA_SUCCESS && id == context;
  (void)d.primary_release(dev);
  return same;
}

// ---- Stream facts ----------------------------------------------------------------------------

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

/// Blocks taken out of the cache to be freed, with what freeing them needs.
struct doomed_block {
  void* ptr;
  int device;
  unsigned long long context;
};

/// Moves every block of `slot` to `out` and frees the slot. Caller holds the cache's mutex.
void empty_slot(block_cache& c, stream_slot& slot, std::vector<doomed_block>& out) {
  for (int i = 0; i < slot.count; ++i) {
    out.push_back({slot.blocks[i].ptr, slot.device, slot.context});
    c.bytes -= slot.blocks[i].bytes;
  }
  slot.count = 0;
}

/// Frees blocks whose streams may be gone: synchronises each device concerned once, then frees
/// with cudaFree (the device is idle, so no work can still use them). Blocks of a context that no
/// longer exists (cudaDeviceReset) are dropped without a call. Returns the first error, if any,
/// and leaves none pending. Called without the cache's mutex held.
cudaError_t free_blocks(const std::vector<doomed_block>& blocks) {
  if (blocks.empty()) return cudaSuccess;
  cudaError_t first = cudaSuccess;
  auto note = [&](cudaError_t e) {
    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      if (first == cudaSuccess) first = e;
    }
  };
  int current = -1;
  if (cudaGetDevice(&current) != cudaSuccess) {
    (void)cudaGetLastError();
    current = -1;
  }
  // The device synchronisation and cudaFree are not allowed while another thread captures a
  // graph in global mode: relaxed mode for this thread lets them run (they touch no capturing
  // stream).
  cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
  const bool mode_set = cudaThreadExchangeStreamCaptureMode(&mode) == cudaSuccess;
  if (!mode_set) (void)cudaGetLastError();
  std::vector<bool> done(blocks.size(), false);
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    if (done[i]) continue;
    const int device = blocks[i].device;
    const unsigned long long context = blocks[i].context;
    const bool alive = context_alive(device, context);
    cudaError_t status = cudaSuccess;
    if (alive) {
      status = cudaSetDevice(device);
      if (status == cudaSuccess) status = cudaDeviceSynchronize();
      note(status);
    }
    for (std::size_t j = i; j < blocks.size(); ++j) {
      if (done[j] || blocks[j].device != device || blocks[j].context != context) continue;
      done[j] = true;
      // Given back to the pool in stream order on the device's default stream (the device is
      // idle: nothing can still use the block). With cudaFree here, the exit leak test's trace
      // (H100, CUDA 13.0) showed every released block still counted as in use by the pool.
      if (alive && status == cudaSuccess) note(cudaFreeAsync(blocks[j].ptr, cudaStreamLegacy));
    }
    if (alive && status == cudaSuccess) note(cudaStreamSynchronize(cudaStreamLegacy));
  }
  if (current >= 0 && cudaSetDevice(current) != cudaSuccess) (void)cudaGetLastError();
  if (mode_set && cudaThreadExchangeStreamCaptureMode(&mode) != cudaSuccess) {
    (void)cudaGetLastError();
  }
  return first;
}

/// Gives the unused memory of every configured device's default pool back to the driver.
void trim_configured_pools() {
  for (int device = 0; device < max_devices; ++device) {
    if (!pool_configured[static_cast<std::size_t>(device)].load(std::memory_order_acquire)) {
      continue;
    }
    cudaMemPool_t pool = nullptr;
    if (cudaDeviceGetDefaultMemPool(&pool, device) != cudaSuccess ||
        cudaMemPoolTrimTo(pool, 0) != cudaSuccess) {
      (void)cudaGetLastError();
    }
  }
}

/// The process that registered the exit handler: a child made by fork() inherits the handler
/// but not a usable CUDA context, so it leaves the blocks alone.
std::atomic<long> exit_handler_pid{0};

/// Exit handler: gives every kept block back (see the top of this section).
void release_at_exit() noexcept {
  if (exit_handler_pid.load() != static_cast<long>(::getpid())) return;
  block_cache& c = cache();
  std::vector<doomed_block> doomed;
  {
    std::lock_guard<std::mutex> lock(c.m);
    c.exiting = true;
    for (stream_slot& slot : c.slots)
      empty_slot(c, slot, doomed);
  }
  (void)free_blocks(doomed);
  trim_configured_pools();
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
    slot->last_use = ++c.tick;
    return ptr;
  }
  return nullptr;
}

/// A free slot, or null. Caller holds the cache's mutex.
stream_slot* free_slot(block_cache& c) {
  for (stream_slot& s : c.slots) {
    if (s.count == 0) return &s;
  }
  return nullptr;
}

/// With every slot taken: frees the slots idle for `idle_ticks` (at most once per
/// `eviction_interval`), their blocks moved to `out`. Caller holds the cache's mutex.
void evict_idle_slots(block_cache& c, std::vector<doomed_block>& out) {
  if (c.tick - c.last_eviction < eviction_interval) return;
  c.last_eviction = c.tick;
  for (stream_slot& s : c.slots) {
    if (s.count > 0 && c.tick - s.last_use >= idle_ticks) empty_slot(c, s, out);
  }
}

/// Keeps `ptr` (a size class of `bytes`) for reuse on stream `id`; false when it cannot be kept.
/// A block pushed out by it is freed in stream order on `stream` (its own stream).
bool keep_cached(unsigned long long id, int device, void* ptr, std::size_t bytes,
                 cudaStream_t stream) {
  block_cache& c = cache();
  void* evicted = nullptr;
  std::vector<doomed_block> idle;  // blocks of evicted slots, freed after the lock
  bool kept = false;
  {
    std::lock_guard<std::mutex> lock(c.m);
    if (c.exiting) return false;
    ++c.tick;
    stream_slot* slot = find_slot(c, id);
    if (slot == nullptr) {
      slot = free_slot(c);
      if (slot == nullptr) {
        evict_idle_slots(c, idle);
        slot = free_slot(c);
      }
      if (slot != nullptr) {
        slot->id = id;
        slot->device = device;
        slot->context = context_of(stream);  // once per stream: not the hot path
      }
    }
    if (slot != nullptr) {
      const std::size_t pushed_out = slot->count == blocks_per_stream ? slot->blocks[0].bytes : 0;
      if (c.bytes - pushed_out + bytes <= cache_total_limit) {
        if (slot->count == blocks_per_stream) {
          evicted = slot->blocks[0].ptr;
          c.bytes -= pushed_out;
          for (int j = 0; j + 1 < slot->count; ++j)
            slot->blocks[j] = slot->blocks[j + 1];
          --slot->count;
        }
        slot->blocks[slot->count++] = {ptr, bytes};
        slot->last_use = c.tick;
        c.bytes += bytes;
        kept = true;
        if (!c.exit_handler) {
          // Registered now, after the CUDA runtime registered its own teardown: runs before it.
          exit_handler_pid.store(static_cast<long>(::getpid()));
          c.exit_handler = std::atexit(release_at_exit) == 0;
        }
      }
    }
  }
  (void)free_blocks(idle);
  if (evicted != nullptr && cudaFreeAsync(evicted, stream) != cudaSuccess) {
    (void)cudaGetLastError();
  }
  return kept;
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
  // The allocation comes from the pool of the stream's device; the trims and frees below are
  // that device's too (a kept block, above, needs no CUDA call and no device).
  const detail::device_guard on_device(stream);
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
  if (bytes <= cache_block_limit && keeping_enabled()) {
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
  const detail::device_guard on_device(stream);
  if (cudaFreeAsync(ptr, stream.get()) != cudaSuccess) (void)cudaGetLastError();
}

void release_cached_memory() {
  block_cache& c = cache();
  std::vector<doomed_block> doomed;
  {
    std::lock_guard<std::mutex> lock(c.m);
    for (stream_slot& slot : c.slots)
      empty_slot(c, slot, doomed);
  }
  const cudaError_t e = free_blocks(doomed);
  detail::check_cuda(e, "cupar::release_cached_memory");
}

std::size_t cached_memory_bytes() noexcept {
  block_cache& c = cache();
  std::lock_guard<std::mutex> lock(c.m);
  return c.bytes;
}

memory_resource& default_resource() noexcept {
  // Never destroyed: static destructors that run after this one may still give memory back.
  static async_pool_resource* resource = new async_pool_resource();
  return *resource;
}

}  // namespace cupar
