// cupar: histograms whose samples go through a C++ operator first (compiled by nvcc). The
// binning rules are those of histogram.hpp.
#pragma once

#include <cupar/detail/checks.hpp>
#include <cupar/detail/device_guard.hpp>
#include <cupar/detail/histogram_cub.cuh>
#include <cupar/detail/iterators.cuh>
#include <cupar/detail/op_wrap.cuh>
#include <cupar/histogram.hpp>

#include <cstddef>
#include <type_traits>

namespace cupar {

/// Counts op(d_samples[i]) for i in [0, n) into num_levels - 1 evenly spaced bins over
/// [lower, upper). The operator's result is converted to `Level` and binned like samples of type
/// Level (for example the field of a struct, or log(x) for a log-scale histogram).
///
/// @param d_samples  device samples: a pointer (null only when n == 0) or any random-access
///                   iterator CUB takes
/// @param op  unary operator Sample -> Level (functor or extended __device__ lambda)
/// Other parameters, exceptions and synchronisation as the histogram_even of histogram.hpp.
template <class SampleIt, class Counter, class Level, class SampleOp,
          std::enable_if_t<detail::is_iterator_v<SampleIt> && detail::is_callable_op_v<SampleOp>,
                           int> = 0>
void histogram_even(SampleIt d_samples, Counter* d_histogram, int num_levels, Level lower,
                    Level upper, std::size_t n, SampleOp op, stream_ref stream,
                    memory_resource& mr = default_resource()) {
  constexpr const char* fn = "cupar::histogram_even";
  const detail::device_guard device(stream);
  detail::check_counter<Counter>();
  detail::canonical_level_t<Level> lo{}, hi{};
  detail::prepare_even_levels<Level>(fn, num_levels, lower, upper, lo, hi);
  detail::require_range(fn, "d_samples", d_samples, n);
  detail::require_pointer(fn, "d_histogram", d_histogram);
  static_assert(std::is_trivially_copyable_v<SampleOp>,
                "cupar::histogram_even: the operator must be trivially copyable");
  detail::cub_histogram_even_op<Level>(fn, d_samples, d_histogram, num_levels, lo, hi, n, op,
                                       stream, mr);
}

/// Counts op(d_samples[i]) into the bins [h_levels[i], h_levels[i + 1]). The operator's result is
/// converted to `Level`. Other parameters as histogram_range of histogram.hpp.
template <class SampleIt, class Counter, class Level, class SampleOp,
          std::enable_if_t<detail::is_iterator_v<SampleIt> && detail::is_callable_op_v<SampleOp>,
                           int> = 0>
void histogram_range(SampleIt d_samples, Counter* d_histogram, int num_levels,
                     const Level* h_levels, std::size_t n, SampleOp op, stream_ref stream,
                     memory_resource& mr = default_resource()) {
  constexpr const char* fn = "cupar::histogram_range";
  const detail::device_guard device(stream);
  detail::check_counter<Counter>();
  const auto levels = detail::prepare_range_levels<Level>(fn, h_levels, num_levels);
  detail::require_range(fn, "d_samples", d_samples, n);
  detail::require_pointer(fn, "d_histogram", d_histogram);
  static_assert(std::is_trivially_copyable_v<SampleOp>,
                "cupar::histogram_range: the operator must be trivially copyable");
  detail::cub_histogram_range_op<Level>(fn, d_samples, d_histogram, num_levels, levels.data(), n,
                                        op, stream, mr);
}

}  // namespace cupar
