// cupar internal: temporary storage that always goes back to its resource on its stream.
#pragma once

#include <cupar/detail/cuda_check.hpp>
#include <cupar/memory.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <mutex>

namespace cupar::detail {

/// RAII temporary device storage from a memory_resource. The destructor gives the memory back on
/// the same stream, also during stack unwinding, so a throwing algorithm leaks nothing.
class temp_storage {
 public:
  temp_storage(memory_resource& mr, std::size_t bytes, stream_ref stream)
      : mr_(&mr), bytes_(bytes), stream_(stream) {
    if (bytes_ == 0) return;
    ptr_ = mr_->allocate(bytes_, stream_);
    // A resource that returns null instead of throwing would let the algorithm write through a
    // null pointer (cupy#9899): refuse it here.
    if (ptr_ == nullptr) throw_out_of_memory(bytes_, "memory resource returned null");
  }
  temp_storage(const temp_storage&) = delete;
  temp_storage& operator=(const temp_storage&) = delete;
  ~temp_storage() {
    if (ptr_ != nullptr) mr_->deallocate(ptr_, bytes_, stream_);
  }

  void* get() const noexcept { return ptr_; }
  std::size_t bytes() const noexcept { return bytes_; }

 private:
  memory_resource* mr_;
  std::size_t bytes_;
  stream_ref stream_;
  void* ptr_ = nullptr;
};

/// Rounds `bytes` up to a multiple of `alignment` (a power of two).
constexpr std::size_t align_up(std::size_t bytes, std::size_t alignment) noexcept {
  return (bytes + alignment - 1) & ~(alignment - 1);
}

/// Carves one allocation into consecutive 256-byte aligned parts: add(bytes) returns a part's
/// offset, `total` is the allocation's size.
struct carve {
  std::size_t total = 0;
  std::size_t add(std::size_t bytes) {
    const std::size_t at = total;
    total = align_up(at + bytes, 256);
    return at;
  }
};

}  // namespace cupar::detail

namespace cupar::detail {

/// What the temporary-storage size of a CUB-style call depends on, besides its call site (one
/// instantiation) and the device: the element count and up to two more values (radix bits,
/// histogram levels, a JIT module's serial number).
struct temp_size_key {
  std::uint64_t n = 0, a = 0, b = 0;
};

/// The sizes asked at one call site for its last few keys, so that a repeated call skips CUB's
/// sizing pass (a whole host dispatch: about 0.3-0.5 us before the first kernel goes out).
/// Thread-safe. A size remembered wrongly could only be too small for CUB, which then refuses
/// the call with cudaErrorInvalidValue before launching anything; it cannot corrupt memory.
class temp_size_cache {
 public:
  bool find(int device, const temp_size_key& k, std::size_t& bytes) {
    std::lock_guard<std::mutex> lock(m_);
    for (const entry& e : entries_) {
      if (e.valid && e.device == device && e.key.n == k.n && e.key.a == k.a && e.key.b == k.b) {
        bytes = e.bytes;
        return true;
      }
    }
    return false;
  }
  void store(int device, const temp_size_key& k, std::size_t bytes) {
    std::lock_guard<std::mutex> lock(m_);
    entries_[next_] = {k, device, bytes, true};
    next_ = (next_ + 1) % slots;
  }

 private:
  static constexpr unsigned slots = 4;
  struct entry {
    temp_size_key key;
    int device = 0;
    std::size_t bytes = 0;
    bool valid = false;
  };
  std::mutex m_;
  entry entries_[slots];
  unsigned next_ = 0;
};

/// The temporary storage `f(void* temp, std::size_t& bytes) -> cudaError_t` (a CUB-style
/// two-phase call) needs for `key` on the current device: remembered per call site (the static
/// below exists once per lambda type `F`), asked from `f` otherwise.
template <class F>
std::size_t required_temp_bytes(const char* call, const temp_size_key& key, F& f) {
  static temp_size_cache sizes;
  int device = 0;
  check_cuda(cudaGetDevice(&device), "cudaGetDevice");
  std::size_t bytes = 0;
  if (sizes.find(device, key, bytes)) return bytes;
  check_cuda(f(nullptr, bytes), call);
  sizes.store(device, key, bytes);
  return bytes;
}

/// Runs a CUB-style two-phase call `f(void* temp, std::size_t& bytes) -> cudaError_t`: finds the
/// temporary storage size (required_temp_bytes), takes it from `mr` on `stream`, runs, and gives
/// the storage back on `stream` whatever happens. `call` names the CUB entry point in error
/// messages; `key` holds everything besides the call site that the size depends on.
template <class F>
void run_with_temp_storage(const char* call, memory_resource& mr, stream_ref stream,
                           const temp_size_key& key, F&& f) {
  std::size_t bytes = required_temp_bytes(call, key, f);
  temp_storage temp(mr, bytes, stream);
  check_cuda(f(temp.get(), bytes), call);
}

}  // namespace cupar::detail
