// cupar internal: the host dispatch of lower_bound and upper_bound (binary_search_run.cu), called
// by its library entry (binary_search_call.cpp).
#pragma once

#include "../core/launch.hpp"

#include <cstddef>
#include <cstdint>

namespace cupar::detail::jit {

/// lower_bound / upper_bound (module meta: block threads). No temporary storage.
struct search_launch {
  const void* sorted;
  std::size_t n;
  const void* needles;
  std::size_t m;
  void* out;
  const void* comp_state;
  bool upper;
};
cudaError_t run_binary_search(const loaded_module& m, const device_info& dev, launch_status& st,
                              const search_launch& s, cudaStream_t stream);

}  // namespace cupar::detail::jit
