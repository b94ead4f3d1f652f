// cupar internal: the host dispatch of segmented reduce and scans (segmented_run.cu), called by its
// library entry (segmented_call.cpp).
#pragma once

#include "../core/launch.hpp"

#include <cstddef>
#include <cstdint>

namespace cupar::detail::jit {

/// Segmented reduce and segmented scans: the values, the segments, the operator.
struct segmented_launch {
  const void* in;
  void* out;
  std::size_t value_size;
  std::size_t n;
  std::size_t num_segments;
  const std::int64_t* begin_offsets;
  const std::int64_t* end_offsets;
  const void* op_state;
  const void* init;  // reduce, exclusive scan: the initial value's bytes; null: inclusive scan
};
/// Segmented reduce (module meta: block threads, items per thread of CUB's segmented reduce
/// policy): CUB's DispatchSegmentedReduce with the module's kernel (its kernel-source seam).
cudaError_t run_segmented_reduce(const loaded_module& m, const device_info& dev, launch_status& st,
                                 void* temp, std::size_t& temp_bytes, const segmented_launch& s,
                                 cudaStream_t stream);
/// Segmented scans (module meta: block threads, items per thread, tile state single word, its
/// word or description bytes, payload bytes): the dispatch the compiled path runs
/// (detail/dp_dispatch.cuh) with the module's kernels.
cudaError_t run_segmented_scan(const loaded_module& m, const device_info& dev, launch_status& st,
                               void* temp, std::size_t& temp_bytes, const segmented_launch& s,
                               cudaStream_t stream);

}  // namespace cupar::detail::jit
