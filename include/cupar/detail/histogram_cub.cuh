// cupar internal: CUB histogram calls shared by the library (plain samples) and the compiled
// operator path (samples seen through the user's operator). Needs nvcc.
#pragma once

#include <cupar/detail/cuda_check.hpp>
#include <cupar/detail/histogram_binning.hpp>
#include <cupar/detail/temp_storage.hpp>
#include <cupar/histogram.hpp>

#include <cub/device/device_histogram.cuh>

#include <thrust/iterator/transform_iterator.h>

#include <cstddef>
#include <iterator>
#include <type_traits>
#include <vector>

namespace cupar::detail {

/// CUB counts with atomics on int, unsigned or unsigned long long; signed and unsigned counters of
/// one size share a representation for the (never negative) counts.
template <class Counter>
using counter_storage_t =
    std::conditional_t<sizeof(Counter) == 4, unsigned int, unsigned long long>;

// Sample adjustments of histogram_binning (docs/CUB_NOTES.md, "Histogram bugs": the CUB bugs they
// avoid).
struct flip_sign_byte {
  __host__ __device__ unsigned char operator()(signed char x) const {
    return static_cast<unsigned char>(x ^ 0x80);
  }
};
template <class T>
struct widen_to_int {
  __host__ __device__ int operator()(T x) const { return x; }
};
template <class T>
struct clamp_below_upper {
  T clamp_max, upper;
  __host__ __device__ T operator()(T x) const {
    return (x >= clamp_max && x < upper) ? clamp_max : x;
  }
};

/// The sample type CUB bins on the operator paths, where samples go through a functor anyway:
/// int8 as unsigned (sign flipped), 16-bit always widened.
template <class S>
using binned_sample_t =
    std::conditional_t<histogram_binning<S>::xor_sign, unsigned char,
                       std::conditional_t<std::is_integral_v<S> && sizeof(S) == 2, int, S>>;

/// `op(x)` as the type `Level`, adjusted for binning as binned_sample_t<Level>.
template <class Level, class Op>
struct binned_sample_op {
  Op op;
  Level clamp_max, upper;
  bool clamp;
  template <class Sample>
  __device__ __forceinline__ binned_sample_t<Level> operator()(const Sample& x) const {
    Level v = static_cast<Level>(op(x));
    if constexpr (histogram_binning<Level>::xor_sign) {
      return static_cast<unsigned char>(v ^ 0x80);
    } else if constexpr (std::is_floating_point_v<Level>) {
      return (clamp && v >= clamp_max && v < upper) ? clamp_max : v;
    } else {
      return v;
    }
  }
};

template <class Counter>
void zero_histogram(Counter* d_histogram, int num_levels, stream_ref stream) {
  check_cuda(
      cudaMemsetAsync(d_histogram, 0, sizeof(Counter) * std::size_t(num_levels - 1), stream.get()),
      "cudaMemsetAsync");
}

template <class SampleIt, class Counter, class Level>
void raw_histogram_even(SampleIt d_samples, Counter* d_histogram, int num_levels, Level lower,
                        Level upper, std::size_t n, stream_ref stream, memory_resource& mr) {
  if (n == 0) return zero_histogram(d_histogram, num_levels, stream);
  auto* hist = reinterpret_cast<counter_storage_t<Counter>*>(d_histogram);
  run_with_temp_storage(
      "cub::DeviceHistogram::HistogramEven", mr, stream,
      {n, static_cast<std::uint64_t>(num_levels)}, [&](void* temp, std::size_t& bytes) {
        return cub::DeviceHistogram::HistogramEven(temp, bytes, d_samples, hist, num_levels, lower,
                                                   upper, static_cast<long long>(n), stream.get());
      });
}

/// `h_levels` is a host array; it is copied into the temporary allocation in stream order.
template <class SampleIt, class Counter, class Level>
void raw_histogram_range(SampleIt d_samples, Counter* d_histogram, int num_levels,
                         const Level* h_levels, std::size_t n, stream_ref stream,
                         memory_resource& mr) {
  if (n == 0) return zero_histogram(d_histogram, num_levels, stream);
  auto* hist = reinterpret_cast<counter_storage_t<Counter>*>(d_histogram);
  const char* call = "cub::DeviceHistogram::HistogramRange";
  const Level* d_levels = nullptr;
  auto run = [&](void* temp, std::size_t& bytes) {
    return cub::DeviceHistogram::HistogramRange(temp, bytes, d_samples, hist, num_levels, d_levels,
                                                static_cast<long long>(n), stream.get());
  };
  std::size_t cub_bytes =
      required_temp_bytes(call, {n, static_cast<std::uint64_t>(num_levels)}, run);
  const std::size_t level_bytes = align_up(sizeof(Level) * std::size_t(num_levels), 256);
  temp_storage temp(mr, level_bytes + cub_bytes, stream);
  auto* levels = static_cast<Level*>(temp.get());
  check_cuda(cudaMemcpyAsync(levels, h_levels, sizeof(Level) * std::size_t(num_levels),
                             cudaMemcpyHostToDevice, stream.get()),
             "cudaMemcpyAsync");
  d_levels = levels;
  check_cuda(run(static_cast<unsigned char*>(temp.get()) + level_bytes, cub_bytes), call);
}

/// Histogram of the samples at `d_samples` (a pointer: the library's plain path) with CUB, with
/// the adjustments of histogram_binning applied where the sample type and bins need them.
template <class S, class Counter, class Level>
void cub_histogram_even(const char* function, const S* d_samples, Counter* d_histogram,
                        int num_levels, Level lower, Level upper, std::size_t n, stream_ref stream,
                        memory_resource& mr) {
  const auto b = plan_histogram_binning<S>(function, num_levels, true, lower, upper);
  if constexpr (histogram_binning<S>::xor_sign) {
    raw_histogram_even(thrust::make_transform_iterator(d_samples, flip_sign_byte{}), d_histogram,
                       num_levels, shifted_level<S>(lower), shifted_level<S>(upper), n, stream, mr);
  } else if constexpr (std::is_integral_v<S> && sizeof(S) == 2) {
    if (b.widen) {
      raw_histogram_even(thrust::make_transform_iterator(d_samples, widen_to_int<S>{}), d_histogram,
                         num_levels, lower, upper, n, stream, mr);
    } else {
      raw_histogram_even(d_samples, d_histogram, num_levels, lower, upper, n, stream, mr);
    }
  } else if constexpr (std::is_floating_point_v<S>) {
    if (b.clamp) {
      raw_histogram_even(
          thrust::make_transform_iterator(d_samples, clamp_below_upper<S>{b.clamp_max, b.upper}),
          d_histogram, num_levels, lower, upper, n, stream, mr);
    } else {
      raw_histogram_even(d_samples, d_histogram, num_levels, lower, upper, n, stream, mr);
    }
  } else {
    raw_histogram_even(d_samples, d_histogram, num_levels, lower, upper, n, stream, mr);
  }
}

template <class S, class Counter, class Level>
void cub_histogram_range(const char* function, const S* d_samples, Counter* d_histogram,
                         int num_levels, const Level* h_levels, std::size_t n, stream_ref stream,
                         memory_resource& mr) {
  const auto b = plan_histogram_binning<S>(function, num_levels, false, Level{}, Level{});
  if constexpr (histogram_binning<S>::xor_sign) {
    std::vector<Level> shifted(h_levels, h_levels + num_levels);
    for (auto& l : shifted)
      l = shifted_level<S>(l);
    raw_histogram_range(thrust::make_transform_iterator(d_samples, flip_sign_byte{}), d_histogram,
                        num_levels, shifted.data(), n, stream, mr);
  } else if constexpr (std::is_integral_v<S> && sizeof(S) == 2) {
    if (b.widen) {
      raw_histogram_range(thrust::make_transform_iterator(d_samples, widen_to_int<S>{}),
                          d_histogram, num_levels, h_levels, n, stream, mr);
    } else {
      raw_histogram_range(d_samples, d_histogram, num_levels, h_levels, n, stream, mr);
    }
  } else {
    raw_histogram_range(d_samples, d_histogram, num_levels, h_levels, n, stream, mr);
  }
}

/// Histogram of op(sample) as `Level` (the C++-operator path): one iterator type, the
/// adjustments folded into the functor. The samples are a pointer or any random-access iterator.
template <class Level, class SampleIt, class Counter, class Op>
void cub_histogram_even_op(const char* function, SampleIt d_samples, Counter* d_histogram,
                           int num_levels, canonical_level_t<Level> lower,
                           canonical_level_t<Level> upper, std::size_t n, const Op& op,
                           stream_ref stream, memory_resource& mr) {
  const auto b = plan_histogram_binning<Level>(function, num_levels, true, lower, upper);
  const binned_sample_op<Level, Op> f{op, b.clamp_max, b.upper, b.clamp};
  raw_histogram_even(thrust::make_transform_iterator(d_samples, f), d_histogram, num_levels,
                     shifted_level<Level>(lower), shifted_level<Level>(upper), n, stream, mr);
}

template <class Level, class SampleIt, class Counter, class Op>
void cub_histogram_range_op(const char* function, SampleIt d_samples, Counter* d_histogram,
                            int num_levels, const canonical_level_t<Level>* h_levels, std::size_t n,
                            const Op& op, stream_ref stream, memory_resource& mr) {
  (void)plan_histogram_binning<Level>(function, num_levels, false, Level{}, Level{});
  std::vector<canonical_level_t<Level>> shifted(h_levels, h_levels + num_levels);
  for (auto& l : shifted)
    l = shifted_level<Level>(l);
  const binned_sample_op<Level, Op> f{op, Level{}, Level{}, false};
  raw_histogram_range(thrust::make_transform_iterator(d_samples, f), d_histogram, num_levels,
                      shifted.data(), n, stream, mr);
}

}  // namespace cupar::detail
