// cupar internal: CUB histograms behind cupar::histogram_even / cupar::histogram_range.
#pragma once

#include "histogram.hpp"

#include <cupar/detail/histogram_cub.cuh>
#include <cupar/detail/temp_storage.hpp>

namespace cupar::detail {

template <class Sample>
void histogram_sample(const histogram_args& a, stream_ref stream, memory_resource& mr) {
  using Level = canonical_level_t<Sample>;
  const auto* samples = static_cast<const Sample*>(a.samples);
  auto run = [&](auto counter) {
    using Counter = decltype(counter);
    auto* hist = static_cast<Counter*>(a.histogram);
    if (a.levels == nullptr) {
      cub_histogram_even(a.function, samples, hist, a.num_levels,
                         *static_cast<const Level*>(a.lower), *static_cast<const Level*>(a.upper),
                         a.n, stream, mr);
    } else {
      cub_histogram_range(a.function, samples, hist, a.num_levels,
                          static_cast<const Level*>(a.levels), a.n, stream, mr);
    }
  };
  if (a.counter_size == 4) {
    run(0u);
  } else {
    run(0ull);
  }
}

}  // namespace cupar::detail
