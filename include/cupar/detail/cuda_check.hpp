// cupar internal: turning CUDA status codes into exceptions.
#pragma once

#include <cupar/config.hpp>
#include <cupar/error.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>

namespace cupar::detail {

/// Throws cupar::cuda_error for `status` returned by `call`. Clears the calling thread's pending
/// runtime error first, so a recoverable failure does not resurface in a later, unrelated call.
[[noreturn]] CUPAR_EXPORT void throw_cuda_error(cudaError_t status, const char* call);

/// Throws cupar::out_of_memory for a failed allocation of `bytes`, clearing the pending error.
[[noreturn]] CUPAR_EXPORT void throw_out_of_memory(std::size_t bytes, const char* what);

inline void check_cuda(cudaError_t status, const char* call) {
  if (status != cudaSuccess) throw_cuda_error(status, call);
}

}  // namespace cupar::detail
