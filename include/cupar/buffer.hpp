// cupar: a small typed, stream-ordered device buffer.
#pragma once

#include <cupar/detail/checks.hpp>
#include <cupar/detail/cuda_check.hpp>
#include <cupar/detail/device_guard.hpp>
#include <cupar/memory.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <type_traits>
#include <utility>
#include <vector>

namespace cupar {

/// `n` elements of `T` in device memory, allocated from a memory_resource in stream order and
/// given back on its stream when destroyed. Move-only. Contents are uninitialised unless built
/// from host data. Copies to the device are asynchronous on the buffer's stream (host data is
/// staged by CUDA before the call returns, so the host range may be reused at once); `to_host`
/// synchronises the buffer's stream. The memory is given back on that stream when the buffer is
/// destroyed, so the stream must outlive the buffer (or call set_stream first). The memory is on
/// the stream's device, and every operation (allocation, copies, fill, destruction) runs there
/// whatever device the calling thread has current, which it leaves as it was.
template <class T>
class device_buffer {
  static_assert(std::is_trivially_copyable_v<T>,
                "cupar::device_buffer<T>: T must be trivially copyable (it is copied bytewise "
                "between host and device)");

 public:
  device_buffer() noexcept = default;

  /// Uninitialised storage for `n` elements. Throws cupar::out_of_memory.
  device_buffer(std::size_t n, stream_ref stream, memory_resource& mr = default_resource())
      : mr_(&mr), stream_(stream), size_(n), allocated_(n) {
    detail::require_size("cupar::device_buffer", n, sizeof(T));
    if (n != 0) {
      const detail::device_guard device(stream_);
      data_ = static_cast<T*>(mr_->allocate(n * sizeof(T), stream_));
      if (data_ == nullptr) detail::throw_out_of_memory(n * sizeof(T), "device_buffer");
    }
  }

  /// A copy of `host[0, n)`.
  device_buffer(const T* host, std::size_t n, stream_ref stream,
                memory_resource& mr = default_resource())
      : device_buffer(n, stream, mr) {
    copy_from_host(host, n);
  }

  /// A copy of a host vector.
  device_buffer(const std::vector<T>& host, stream_ref stream,
                memory_resource& mr = default_resource())
      : device_buffer(host.data(), host.size(), stream, mr) {}

  device_buffer(device_buffer&& other) noexcept { swap(other); }
  device_buffer& operator=(device_buffer&& other) noexcept {
    if (this != &other) {
      device_buffer tmp(std::move(other));
      swap(tmp);
    }
    return *this;
  }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
  ~device_buffer() { release(); }

  T* data() noexcept { return data_; }
  const T* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return size_; }
  std::size_t bytes() const noexcept { return size_ * sizeof(T); }
  bool empty() const noexcept { return size_ == 0; }
  stream_ref stream() const noexcept { return stream_; }

  /// Makes `stream` the buffer's stream (for later copies and the final deallocation). The
  /// caller orders any work still pending on the old stream before work on the new one.
  void set_stream(stream_ref stream) noexcept { stream_ = stream; }

  /// Asynchronously copies `host[0, count)` to elements [offset, offset + count).
  void copy_from_host(const T* host, std::size_t count, std::size_t offset = 0) {
    check_range("copy_from_host", count, offset);
    if (count == 0) return;
    detail::require_data("cupar::device_buffer::copy_from_host", "host", host, count);
    const detail::device_guard device(stream_);
    detail::check_cuda(cudaMemcpyAsync(data_ + offset, host, count * sizeof(T),
                                       cudaMemcpyHostToDevice, stream_.get()),
                       "cudaMemcpyAsync");
  }

  /// Copies elements [offset, offset + count) into `host`, then synchronises the stream.
  void copy_to_host(T* host, std::size_t count, std::size_t offset = 0) const {
    check_range("copy_to_host", count, offset);
    if (count != 0) {
      detail::require_data("cupar::device_buffer::copy_to_host", "host", host, count);
      const detail::device_guard device(stream_);
      detail::check_cuda(cudaMemcpyAsync(host, data_ + offset, count * sizeof(T),
                                         cudaMemcpyDeviceToHost, stream_.get()),
                         "cudaMemcpyAsync");
    }
    stream_.synchronize();
  }

  /// The whole buffer as a host vector. Synchronises the buffer's stream.
  std::vector<T> to_host() const {
    std::vector<T> host(size_);
    copy_to_host(host.data(), size_);
    return host;
  }

  /// Elements [0, count) as a host vector: the part an algorithm wrote when it reports a count
  /// (select, unique, by-key), without reading the rest, which may never have been written.
  /// Throws std::invalid_argument when count > size(). Synchronises the buffer's stream.
  std::vector<T> to_host(std::size_t count) const {
    std::vector<T> host(count);
    copy_to_host(host.data(), count);
    return host;
  }

  /// Keeps only elements [0, n): size() becomes n (n <= size(), else std::invalid_argument). The
  /// memory stays allocated, all of it, until the buffer is destroyed or assigned: for results
  /// whose size is known only after a buffer of an upper bound was filled. Never reallocates.
  void shrink(std::size_t n) {
    if (n > size_) {
      detail::throw_invalid_argument(
          "cupar::device_buffer::shrink",
          "n = " + std::to_string(n) + " exceeds the size " + std::to_string(size_));
    }
    size_ = n;
  }

  /// Asynchronously sets every byte of the buffer to `byte`.
  void fill_bytes(unsigned char byte) {
    if (size_ == 0) return;
    const detail::device_guard device(stream_);
    detail::check_cuda(cudaMemsetAsync(data_, byte, bytes(), stream_.get()), "cudaMemsetAsync");
  }

 private:
  void check_range(const char* what, std::size_t count, std::size_t offset) const {
    if (offset > size_ || count > size_ - offset) {
      detail::throw_invalid_argument(
          "cupar::device_buffer", std::string(what) + ": range [" + std::to_string(offset) + ", " +
                                      std::to_string(offset) + " + " + std::to_string(count) +
                                      ") is outside the buffer of " + std::to_string(size_));
    }
  }
  void release() noexcept {
    if (data_ != nullptr) {
      const detail::device_guard device(stream_);
      mr_->deallocate(data_, allocated_ * sizeof(T), stream_);
    }
    data_ = nullptr;
    size_ = 0;
    allocated_ = 0;
  }
  void swap(device_buffer& other) noexcept {
    std::swap(mr_, other.mr_);
    std::swap(stream_, other.stream_);
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
    std::swap(allocated_, other.allocated_);
  }

  memory_resource* mr_ = nullptr;
  stream_ref stream_ = stream_ref::legacy_default();
  T* data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t allocated_ = 0;  // elements allocated (size_ <= allocated_ after shrink)
};

}  // namespace cupar
