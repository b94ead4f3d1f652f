// cupar: stream-ordered memory resources, the default pool resource and an adaptor for others.
#pragma once

#include <cupar/config.hpp>
#include <cupar/stream.hpp>

#include <cstddef>
#include <new>

namespace cupar {

/// Interface of a stream-ordered device memory resource: memory is allocated for use on a stream
/// and given back on a stream, without synchronising the host. cupar takes all temporary storage
/// from one, and always gives it back on the stream it was used on, also when the call throws.
///
/// Contract for implementers: `allocate` returns device memory usable by work queued on `stream`
/// after the call (aligned to at least 256 bytes), or throws (cupar::out_of_memory is preferred);
/// it never returns null for bytes > 0. `deallocate` must not throw.
class CUPAR_EXPORT memory_resource {
 public:
  virtual ~memory_resource() = default;

  /// Allocates `bytes` bytes usable in stream order on `stream`. Throws on failure.
  void* allocate(std::size_t bytes, stream_ref stream) { return do_allocate(bytes, stream); }
  /// Gives back `ptr` (from allocate with the same `bytes`) once the work queued on `stream` so
  /// far is done with it.
  void deallocate(void* ptr, std::size_t bytes, stream_ref stream) noexcept {
    do_deallocate(ptr, bytes, stream);
  }

 private:
  virtual void* do_allocate(std::size_t bytes, stream_ref stream) = 0;
  virtual void do_deallocate(void* ptr, std::size_t bytes, stream_ref stream) noexcept = 0;
};

namespace detail {
[[noreturn]] CUPAR_EXPORT void throw_out_of_memory(std::size_t bytes, const char* what);
}

/// The default resource: `cudaMallocAsync` from the current device's default memory pool, whose
/// release threshold is raised on first use so freed memory stays in the pool and is reused by
/// later calls instead of being returned to the driver at every synchronisation.
///
/// On top of the pool it keeps blocks given back on a stream (up to 64 MiB each, 4 per stream,
/// 64 streams, 1 GiB in all) and hands them out again to allocations on the same stream with no
/// CUDA call at all: a repeated cupar call on a stream then allocates nothing, which saves about
/// 0.6 us of host time and as much GPU time per call. Streams are told apart by
/// `cudaStreamGetId`, so a new stream never sees blocks of a destroyed one; streams being
/// captured into a CUDA graph bypass the cache. Allocations may be rounded up by at most 25%.
///
/// Kept blocks are given back:
/// - at normal program end (an exit handler synchronises each device that has kept blocks and
///   frees them, so a leak checker such as `compute-sanitizer --leak-check full` sees nothing
///   left; blocks given back after it are freed at once);
/// - when a new stream finds all 64 stream slots taken: slots unused for the last 1,024 kept or
///   reused blocks (typically those of destroyed streams) are freed after one device
///   synchronisation, at most once per 4,096 such operations, so blocks of destroyed streams do
///   not pile up in a long-running process;
/// - by release_cached_memory(), and for the calling stream when the pool runs out of memory.
/// After cudaDeviceReset the blocks kept for the old context are forgotten without being touched
/// (they died with it); call release_cached_memory() before cudaDeviceReset() so that a leak
/// checker reporting at the reset sees them freed.
///
/// With CUPAR_KEEP_BLOCKS=0 in the environment (read once) nothing is kept: every block goes back
/// to the pool at once (a diagnostic switch; the pool itself still reuses freed memory).
///
/// Throws cupar::out_of_memory (with the bytes asked) when the pool cannot grow (after giving
/// the blocks kept for the stream back to it), leaving no CUDA error pending.
class CUPAR_EXPORT async_pool_resource final : public memory_resource {
 private:
  void* do_allocate(std::size_t bytes, stream_ref stream) override;
  void do_deallocate(void* ptr, std::size_t bytes, stream_ref stream) noexcept override;
};

/// The process-wide default resource (an async_pool_resource). Thread-safe.
CUPAR_EXPORT memory_resource& default_resource() noexcept;

/// Gives every block the default resource keeps for reuse back to the CUDA pools. Synchronises
/// each device that has kept blocks (cudaDeviceSynchronize), so call it outside hot paths, e.g.
/// before handing the GPU memory to another library, before cudaDeviceReset, or after destroying
/// many streams. Blocks of a context destroyed by cudaDeviceReset are dropped without a call.
/// Thread-safe. The blocks are out of the cache even when it throws.
/// @throws cupar::cuda_error (call "cupar::release_cached_memory") if a synchronisation or free
///         fails, e.g. after a kernel fault left the context unusable
CUPAR_EXPORT void release_cached_memory();

/// Bytes the default resource currently keeps for reuse (blocks given back and not yet handed
/// out again). Thread-safe; does not synchronise.
CUPAR_EXPORT std::size_t cached_memory_bytes() noexcept;

/// Adapts any object with stream-ordered `allocate(bytes, S)` and `deallocate(ptr, bytes, S)`
/// members, where `S` can be built from a `cudaStream_t` (for example an RMM
/// `rmm::mr::device_memory_resource` with `rmm::cuda_stream_view`), to cupar's interface.
/// Holds a reference: the adapted object must outlive the adaptor. A std::bad_alloc from the
/// upstream (RMM's out_of_memory is one) becomes cupar::out_of_memory with the bytes asked.
///
///     rmm::mr::cuda_async_memory_resource rmm_mr;
///     cupar::resource_adaptor mr{rmm_mr};
///     cupar::reduce(d_in, d_out, n, op, 0.0f, stream, mr);
template <class Resource>
class resource_adaptor final : public memory_resource {
 public:
  explicit resource_adaptor(Resource& upstream) noexcept : upstream_(&upstream) {}
  Resource& upstream() const noexcept { return *upstream_; }

 private:
  void* do_allocate(std::size_t bytes, stream_ref stream) override {
    try {
      return upstream_->allocate(bytes, stream.get());
    } catch (const std::bad_alloc& e) {
      detail::throw_out_of_memory(bytes, e.what());
    }
  }
  void do_deallocate(void* ptr, std::size_t bytes, stream_ref stream) noexcept override {
    upstream_->deallocate(ptr, bytes, stream.get());
  }
  Resource* upstream_;
};

}  // namespace cupar
