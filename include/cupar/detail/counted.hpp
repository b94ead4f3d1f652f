// cupar internal: running a CUB-style call that writes counts to device memory, for the
// asynchronous forms (the caller's device pointer) and the `_count` forms (returned to the host).
#pragma once

#include <cupar/detail/cuda_check.hpp>
#include <cupar/detail/temp_storage.hpp>
#include <cupar/memory.hpp>
#include <cupar/stream.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>

namespace cupar::detail {

/// Runs `f(void* temp, std::size_t& bytes, std::size_t* d_count) -> cudaError_t`, a CUB-style
/// two-phase call writing `words` counts to `d_count`. With `host_count` null the counts go to the
/// caller's `d_count` and nothing synchronises; otherwise they go to a slot of the call's own
/// temporary allocation and are copied to `host_count`, synchronising `stream` (only it).
template <class F>
void run_counted(const char* call, memory_resource& mr, stream_ref stream, const temp_size_key& key,
                 std::size_t* d_count, std::size_t* host_count, std::size_t words, F&& f) {
  auto sizing = [&](void* temp, std::size_t& bytes) { return f(temp, bytes, d_count); };
  // At least one byte: a null temporary pointer would make CUB only size the call.
  const std::size_t bytes = required_temp_bytes(call, key, sizing) | 1;
  const std::size_t slot = host_count != nullptr ? align_up(words * sizeof(std::size_t), 256) : 0;
  temp_storage temp(mr, slot + bytes, stream);
  auto* base = static_cast<unsigned char*>(temp.get());
  std::size_t* counts = host_count != nullptr ? reinterpret_cast<std::size_t*>(base) : d_count;
  std::size_t b = bytes;
  check_cuda(f(base + slot, b, counts), call);
  if (host_count != nullptr) {
    check_cuda(cudaMemcpyAsync(host_count, counts, words * sizeof(std::size_t),
                               cudaMemcpyDeviceToHost, stream.get()),
               "cudaMemcpyAsync");
    stream.synchronize();
  }
}

}  // namespace cupar::detail
