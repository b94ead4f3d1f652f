// cupar tests: GPU detection. Tests that need a GPU call CUPAR_REQUIRE_GPU() first: without one
// they are skipped with the reason (CI has no GPU), never failed.
#pragma once

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <string>

namespace cupar::testing {

/// Empty when a usable CUDA device exists, else why not.
inline const std::string& gpu_unavailable_reason() {
  static const std::string reason = [] {
    int count = 0;
    const cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      return std::string("no usable CUDA device (") + cudaGetErrorName(e) + ": " +
             cudaGetErrorString(e) + ")";
    }
    if (count == 0) return std::string("no CUDA device");
    return std::string();
  }();
  return reason;
}

inline bool gpu_available() {
  return gpu_unavailable_reason().empty();
}

}  // namespace cupar::testing

#define CUPAR_REQUIRE_GPU()                                                          \
  do {                                                                               \
    if (!::cupar::testing::gpu_available()) {                                        \
      GTEST_SKIP() << "needs a GPU: " << ::cupar::testing::gpu_unavailable_reason(); \
    }                                                                                \
  } while (0)
