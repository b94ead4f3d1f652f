// cupar tests: an owned non-blocking stream.
#pragma once

#include <cupar/stream.hpp>

#include <cuda_runtime_api.h>

namespace cupar::testing {

class owned_stream {
 public:
  owned_stream() {
    if (cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking) != cudaSuccess) s_ = nullptr;
  }
  ~owned_stream() {
    if (s_ != nullptr) cudaStreamDestroy(s_);
  }
  owned_stream(const owned_stream&) = delete;
  owned_stream& operator=(const owned_stream&) = delete;
  cudaStream_t get() const { return s_; }
  operator cupar::stream_ref() const { return cupar::stream_ref(s_); }  // NOLINT

 private:
  cudaStream_t s_ = nullptr;
};

}  // namespace cupar::testing
