// cupar internal: the host dispatch of the histograms (histogram_run.cu), called by its library
// entry (histogram_call.cpp).
#pragma once

#include "../core/launch.hpp"

#include <cstddef>
#include <cstdint>

namespace cupar::detail::jit {

/// Histogram (module meta: block threads, pixels per thread, sizes of the privatized and output
/// bin-selection operators). Mirrors CUB's DispatchHistogram for one channel.
struct histogram_launch {
  const void* samples;
  std::size_t n;
  void* histogram;
  std::size_t counter_size;
  int num_levels;
  bool even;
  scalar level;       // the operator's result type
  const void* lower;  // even: canonical level values (shifted for int8 results)
  const void* upper;
  const void* d_levels;  // range: device array of canonical levels
  bool clamp;            // even floating-point bins: values in [clamp_max, clamp_upper) are
  double clamp_max;      //   binned as clamp_max (see histogram_binning)
  double clamp_upper;
};
cudaError_t run_histogram(const loaded_module& m, const device_info& dev, launch_status& st,
                          void* temp, std::size_t& temp_bytes, const histogram_launch& h,
                          const void* op_state, cudaStream_t stream);

}  // namespace cupar::detail::jit
