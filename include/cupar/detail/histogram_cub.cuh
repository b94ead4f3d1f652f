// cupar internal: CUB histogram calls shared by the library (plain samples) and the compiled
// operator path (samples seen through the user's operator). Needs nvcc.
#pragma once

#include <cupar/detail/cuda_check.hpp>
#include <cupar/detail/temp_storage.hpp>

#include <cub/device/device_histogram.cuh>

#include <cstddef>
#include <type_traits>

namespace cupar::detail {

/// CUB counts with atomics on int, unsigned or unsigned long long; signed and unsigned counters of
/// one size share a representation for the (never negative) counts.
template <class Counter>
using counter_storage_t =
    std::conditional_t<sizeof(Counter) == 4, unsigned int, unsigned long long>;

template <class Counter>
void zero_histogram(Counter* d_histogram, int num_levels, stream_ref stream) {
  check_cuda(cudaMemsetAsync(d_histogram, 0, sizeof(Counter) * std::size_t(num_levels - 1),
                             stream.get()),
             "cudaMemsetAsync");
}

template <class SampleIt, class Counter, class Level>
void cub_histogram_even(SampleIt d_samples, Counter* d_histogram, int num_levels, Level lower,
                        Level upper, std::size_t n, stream_ref stream, memory_resource& mr) {
  if (n == 0) return zero_histogram(d_histogram, num_levels, stream);
  auto* hist = reinterpret_cast<counter_storage_t<Counter>*>(d_histogram);
  run_with_temp_storage("cub::DeviceHistogram::HistogramEven", mr, stream,
                        [&](void* temp, std::size_t& bytes) {
                          return cub::DeviceHistogram::HistogramEven(
                              temp, bytes, d_samples, hist, num_levels, lower, upper,
                              static_cast<long long>(n), stream.get());
                        });
}

/// `h_levels` is a host array; it is copied into the temporary allocation in stream order.
template <class SampleIt, class Counter, class Level>
void cub_histogram_range(SampleIt d_samples, Counter* d_histogram, int num_levels,
                         const Level* h_levels, std::size_t n, stream_ref stream,
                         memory_resource& mr) {
  if (n == 0) return zero_histogram(d_histogram, num_levels, stream);
  auto* hist = reinterpret_cast<counter_storage_t<Counter>*>(d_histogram);
  const char* call = "cub::DeviceHistogram::HistogramRange";
  std::size_t cub_bytes = 0;
  check_cuda(cub::DeviceHistogram::HistogramRange(nullptr, cub_bytes, d_samples, hist, num_levels,
                                                  static_cast<const Level*>(nullptr),
                                                  static_cast<long long>(n), stream.get()),
             call);
  const std::size_t level_bytes = align_up(sizeof(Level) * std::size_t(num_levels), 256);
  temp_storage temp(mr, level_bytes + cub_bytes, stream);
  auto* d_levels = static_cast<Level*>(temp.get());
  check_cuda(cudaMemcpyAsync(d_levels, h_levels, sizeof(Level) * std::size_t(num_levels),
                             cudaMemcpyHostToDevice, stream.get()),
             "cudaMemcpyAsync");
  check_cuda(cub::DeviceHistogram::HistogramRange(static_cast<unsigned char*>(temp.get()) +
                                                      level_bytes,
                                                  cub_bytes, d_samples, hist, num_levels, d_levels,
                                                  static_cast<long long>(n), stream.get()),
             call);
}

}  // namespace cupar::detail
