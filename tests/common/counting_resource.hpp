// cupar tests: a memory resource shaped like RMM's (stream parameter is its own stream-view type,
// members allocate/deallocate(bytes, stream_view)), which counts bytes and streams. It is used
// through cupar::resource_adaptor, showing how an RMM resource plugs into cupar.
#pragma once

#include <cuda_runtime_api.h>

#include <atomic>
#include <cstddef>
#include <map>
#include <mutex>
#include <new>
#include <set>
#include <stdexcept>

namespace cupar::testing {

/// Stand-in for rmm::cuda_stream_view: implicitly constructible from cudaStream_t.
class stream_view {
 public:
  stream_view(cudaStream_t s) : s_(s) {}  // NOLINT: implicit like rmm's
  cudaStream_t value() const { return s_; }

 private:
  cudaStream_t s_;
};

class counting_upstream {
 public:
  /// Allocates with cudaMallocAsync; fails (std::bad_alloc, as RMM does) once more than
  /// `limit` bytes would be live.
  explicit counting_upstream(std::size_t limit = SIZE_MAX) : limit_(limit) {}

  void* allocate(std::size_t bytes, stream_view stream) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (live_bytes_ + bytes > limit_) throw std::bad_alloc();
    void* p = nullptr;
    if (cudaMallocAsync(&p, bytes, stream.value()) != cudaSuccess) {
      (void)cudaGetLastError();
      throw std::bad_alloc();
    }
    live_[p] = {bytes, stream.value()};
    live_bytes_ += bytes;
    total_bytes_ += bytes;
    ++allocations_;
    streams_.insert(stream.value());
    return p;
  }

  void deallocate(void* p, std::size_t bytes, stream_view stream) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = live_.find(p);
    if (it == live_.end() || it->second.bytes != bytes) {
      ++mismatched_;
    } else {
      if (it->second.stream != stream.value()) ++other_stream_frees_;
      live_bytes_ -= bytes;
      live_.erase(it);
    }
    ++deallocations_;
    (void)cudaFreeAsync(p, stream.value());
  }

  std::size_t live_bytes() const {
    std::lock_guard<std::mutex> l(mutex_);
    return live_bytes_;
  }
  std::size_t live_allocations() const {
    std::lock_guard<std::mutex> l(mutex_);
    return live_.size();
  }
  std::size_t total_bytes() const {
    std::lock_guard<std::mutex> l(mutex_);
    return total_bytes_;
  }
  std::size_t allocations() const {
    std::lock_guard<std::mutex> l(mutex_);
    return allocations_;
  }
  std::size_t deallocations() const {
    std::lock_guard<std::mutex> l(mutex_);
    return deallocations_;
  }
  /// Frees whose pointer or size did not match an allocation.
  std::size_t mismatched() const {
    std::lock_guard<std::mutex> l(mutex_);
    return mismatched_;
  }
  /// Frees on another stream than the allocation's.
  std::size_t other_stream_frees() const {
    std::lock_guard<std::mutex> l(mutex_);
    return other_stream_frees_;
  }
  std::set<cudaStream_t> streams() const {
    std::lock_guard<std::mutex> l(mutex_);
    return streams_;
  }

 private:
  struct entry {
    std::size_t bytes;
    cudaStream_t stream;
  };
  mutable std::mutex mutex_;
  std::size_t limit_;
  std::map<void*, entry> live_;
  std::set<cudaStream_t> streams_;
  std::size_t live_bytes_ = 0, total_bytes_ = 0, allocations_ = 0, deallocations_ = 0;
  std::size_t mismatched_ = 0, other_stream_frees_ = 0;
};

}  // namespace cupar::testing
