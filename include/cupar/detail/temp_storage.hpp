// cupar internal: temporary storage that always goes back to its resource on its stream.
#pragma once

#include <cupar/detail/cuda_check.hpp>
#include <cupar/memory.hpp>

#include <cstddef>

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

}  // namespace cupar::detail

namespace cupar::detail {

/// Runs a CUB-style two-phase call `f(void* temp, std::size_t& bytes) -> cudaError_t`: asks for
/// the temporary storage size, takes it from `mr` on `stream`, runs, and gives the storage back
/// on `stream` whatever happens. `call` names the CUB entry point in error messages.
template <class F>
void run_with_temp_storage(const char* call, memory_resource& mr, stream_ref stream, F&& f) {
  std::size_t bytes = 0;
  check_cuda(f(nullptr, bytes), call);
  temp_storage temp(mr, bytes, stream);
  check_cuda(f(temp.get(), bytes), call);
}

}  // namespace cupar::detail
