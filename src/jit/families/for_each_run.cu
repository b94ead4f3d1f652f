// cupar internal: the launch of the for_each set (one kernel walking indices).
#include "for_each.hpp"

#include <algorithm>

namespace cupar::detail::jit {

cudaError_t run_for_each(const loaded_module& m, const device_info& dev, launch_status& st,
                         std::size_t n_total, unsigned items, const void* op_state,
                         cudaStream_t stream) {
  if (n_total == 0) return cudaSuccess;
  const auto block = static_cast<unsigned long long>(m.meta(0));
  const unsigned long long n = n_total;
  const unsigned long long tile = block * items;
  const unsigned long long tiles = (n + tile - 1) / tile;
  const auto grid = static_cast<unsigned>(
      std::min<unsigned long long>(tiles, static_cast<unsigned long long>(dev.max_grid_dim_x)));
  jit_launcher_factory launch{&dev, &m, &st};
  launch(grid, static_cast<unsigned>(block), 0, stream)
      .doit(m.kernel(0), erased_arg{op_state}, n, tile);
  return st.first == CUDA_SUCCESS ? cudaSuccess : cudaErrorLaunchFailure;
}

}  // namespace cupar::detail::jit
