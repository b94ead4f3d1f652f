// cupar internal: the host dispatch of three-way partition (three_way_partition_run.cu), called by
// its library entry (three_way_partition_call.cpp).
#pragma once

#include "../core/launch.hpp"

#include <cstddef>
#include <cstdint>

namespace cupar::detail::jit {

/// Three-way partition (module meta: block threads, items per thread, size of the accumulator
/// pack). Mirrors CUB's DispatchThreeWayPartitionIf::Invoke.
struct three_way_launch {
  const void* in;
  void* out[3];    // first part, second part, unselected
  void* d_counts;  // two 64-bit counts
  std::size_t n;
  const void* first_state;
  const void* second_state;
};
cudaError_t run_three_way(const loaded_module& m, const device_info& dev, launch_status& st,
                          void* temp, std::size_t& temp_bytes, const three_way_launch& t,
                          cudaStream_t stream);

}  // namespace cupar::detail::jit
