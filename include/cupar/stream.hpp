// cupar: a non-owning handle to the CUDA stream every call runs on.
#pragma once

#include <cupar/config.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <type_traits>

namespace cupar {

/// Non-owning reference to a CUDA stream. Every cupar call takes one explicitly: there is no
/// hidden default stream. It is built from a `cudaStream_t`; it cannot be built from a literal
/// `0`, `NULL` or `nullptr` by accident. To run on CUDA's default streams say so by name:
/// `cupar::stream_ref::legacy_default()` or `cupar::stream_ref::per_thread_default()`.
class stream_ref {
 public:
  /// Refers to `stream` (a stream created by the caller, or one of CUDA's named default streams).
  constexpr stream_ref(cudaStream_t stream) noexcept : stream_(stream) {}  // NOLINT: implicit
  stream_ref(std::nullptr_t) = delete;
  template <class Int, std::enable_if_t<std::is_integral_v<Int>, int> = 0>
  stream_ref(Int) = delete;

  /// The legacy default stream (`cudaStreamLegacy`): synchronises with other blocking streams.
  static stream_ref legacy_default() noexcept { return stream_ref(cudaStreamLegacy); }
  /// The calling thread's per-thread default stream (`cudaStreamPerThread`).
  static stream_ref per_thread_default() noexcept { return stream_ref(cudaStreamPerThread); }

  constexpr cudaStream_t get() const noexcept { return stream_; }

  /// Waits for all work queued on the stream. Throws cupar::cuda_error if that work failed.
  CUPAR_EXPORT void synchronize() const;

  friend constexpr bool operator==(stream_ref a, stream_ref b) noexcept {
    return a.stream_ == b.stream_;
  }
  friend constexpr bool operator!=(stream_ref a, stream_ref b) noexcept { return !(a == b); }

 private:
  cudaStream_t stream_;
};

}  // namespace cupar
