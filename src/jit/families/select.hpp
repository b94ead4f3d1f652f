// cupar internal: the host dispatch of stream compaction (select_if, select_flagged, partition_if,
// unique) (select_run.cu), called by its library entry (select_call.cpp).
#pragma once

#include "../core/launch.hpp"

#include <cstddef>
#include <cstdint>

namespace cupar::detail::jit {

/// Stream compaction (module meta: block threads, items per thread, virtual shared memory per
/// block). Mirrors CUB's DispatchSelectIf::Invoke, partitions of at most INT_MAX items included.
struct select_launch {
  const void* in;                // null with an expression input
  const void* expression_state;  // "+index" sets: the input expression's state, else null
  const void* flags;             // select_flagged, else null
  void* out;
  void* d_count;  // device count of selected items (64-bit)
  std::size_t n;
  const void* pred_state;  // predicate's state (select_if, partition), else null
  const void* eq_state;    // equality's state (unique), else null
  /// "+io" sets: the output expression's store state (`out` unused), else null.
  const void* output_state = nullptr;
};
cudaError_t run_select(const loaded_module& m, const device_info& dev, launch_status& st,
                       void* temp, std::size_t& temp_bytes, const select_launch& s,
                       cudaStream_t stream);

}  // namespace cupar::detail::jit
