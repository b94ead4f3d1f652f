// cupar internal: lower_bound / upper_bound with run-time comparators: the kernel of
// include/cupar/detail/device/binary_search.cuh (compiled into the module with the comparator)
// launched by the dispatch the C++-comparator path runs (detail/dp_dispatch.cuh).
#include "binary_search.hpp"

#include <cupar/detail/dp_dispatch.cuh>

namespace cupar::detail::jit {

cudaError_t run_binary_search(const loaded_module& m, const device_info& dev, launch_status& st,
                              const search_launch& s, cudaStream_t stream) {
  const cudaError_t error = bsearch::dispatch(
      m.kernel(0), jit_launcher_factory{&dev, &m, &st}, static_cast<int>(m.meta(0)), dev.sm_count,
      s.sorted, s.n, s.needles, s.m, s.out, erased_arg{s.comp_state}, s.upper, stream);
  return st.first == CUDA_SUCCESS ? error : cudaErrorLaunchFailure;
}

}  // namespace cupar::detail::jit
