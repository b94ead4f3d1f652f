// cupar internal: running each call on the device of its stream.
#pragma once

#include <cupar/config.hpp>
#include <cupar/stream.hpp>

#include <cuda_runtime_api.h>

#include <atomic>
#include <cstddef>

namespace cupar::detail {

/// An attribute of the current device, asked once per device and kept in `known` (one slot a
/// device; zero: not asked yet); 0 when it cannot be asked (no error is left pending).
inline int current_device_attribute(cudaDeviceAttr attribute,
                                    std::atomic<int> (&known)[64]) noexcept {
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  std::atomic<int>& slot = known[device & 63];
  int value = slot.load(std::memory_order_relaxed);
  if (value != 0) return value;
  if (cudaDeviceGetAttribute(&value, attribute, device) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  slot.store(value, std::memory_order_relaxed);
  return value;
}

/// How many blocks of `kernel` (`threads` threads, no dynamic shared memory) one multiprocessor
/// of the current device holds at once, asked once per device and kept in `known` (one table a
/// kernel, one slot a device; a kernel's occupancy is a property of the device's model). Returns
/// the error of the question, if any (`per_sm` is then 0).
inline cudaError_t current_occupancy(const void* kernel, int threads, std::atomic<int> (&known)[64],
                                     int& per_sm) noexcept {
  per_sm = 0;
  int device = 0;
  cudaError_t e = cudaGetDevice(&device);
  if (e != cudaSuccess) return e;
  per_sm = known[device & 63].load(std::memory_order_relaxed);
  if (per_sm != 0) return cudaSuccess;
  e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, 0);
  if (e != cudaSuccess) return e;
  known[device & 63].store(per_sm, std::memory_order_relaxed);
  return cudaSuccess;
}

/// Blocks of `threads` for n rows that keep every SM busy (per_sm blocks on each of sms) without
/// more blocks than the rows need; at least one.
inline int resident_blocks(std::size_t n, int threads, int per_sm, int sms) {
  const std::size_t wanted = (n + static_cast<std::size_t>(threads) - 1) / threads;
  std::size_t grid = static_cast<std::size_t>(per_sm > 0 ? per_sm : 1) *
                     static_cast<std::size_t>(sms > 0 ? sms : 1);
  if (wanted < grid) grid = wanted;
  return static_cast<int>(grid > 0 ? grid : 1);
}

/// The current device's multiprocessor count (for sizing resident grids); 0 when it cannot be
/// asked.
inline int current_multiprocessor_count() noexcept {
  static std::atomic<int> counts[64] = {};
  return current_device_attribute(cudaDevAttrMultiProcessorCount, counts);
}

/// The current device's opt-in shared memory per block (bytes; for kernels sized to it); 0 when
/// it cannot be asked.
inline int current_shared_memory_optin() noexcept {
  static std::atomic<int> sizes[64] = {};
  return current_device_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin, sizes);
}

/// Makes the device of `stream` current when another device is (CUDA launches kernels only on
/// streams of the current device) and returns the device that was current, or -1 when nothing
/// was changed: on a machine with one device (no CUDA call is made then), for the named default
/// streams (they belong to the current device), for a stream being captured into a graph (its
/// device cannot be asked then) and when the stream's device cannot be told (the call itself
/// then reports the stream). Leaves no CUDA error pending.
CUPAR_EXPORT int enter_stream_device(cudaStream_t stream) noexcept;
/// Makes `previous` (from enter_stream_device, when not -1) current again.
CUPAR_EXPORT void leave_stream_device(int previous) noexcept;

/// enter_stream_device for a scope: every cupar call holds one, so a call on a stream of device
/// 1 runs on device 1 whatever device the calling thread has current.
class device_guard {
 public:
  explicit device_guard(stream_ref stream) noexcept
      : previous_(enter_stream_device(stream.get())) {}
  device_guard(const device_guard&) = delete;
  device_guard& operator=(const device_guard&) = delete;
  ~device_guard() {
    if (previous_ >= 0) leave_stream_device(previous_);
  }

 private:
  int previous_;
};

}  // namespace cupar::detail
