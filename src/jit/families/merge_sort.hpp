// cupar internal: the host dispatch of merge sort (merge_sort_run.cu), called by its library
// entry (merge_sort_call.cpp).
#pragma once

#include "../core/launch.hpp"

#include <cstddef>
#include <cstdint>

namespace cupar::detail::jit {

/// Merge sort (module meta: block threads, items per tile, block-sort and merge virtual shared
/// memory per block). Mirrors CUB's DispatchMergeSort::Invoke, whose 3.0.1 form sizes its buffers
/// with sizeof(KeyT) and so cannot serve a key type known only at run time.
cudaError_t run_merge_sort(const loaded_module& m, const device_info& dev, launch_status& st,
                           void* temp, std::size_t& temp_bytes, const void* keys_in, void* keys_out,
                           const void* values_in, void* values_out, std::size_t n,
                           std::size_t key_size, std::size_t value_size, const void* op_state,
                           cudaStream_t stream);

}  // namespace cupar::detail::jit
