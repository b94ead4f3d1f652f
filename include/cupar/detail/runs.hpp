// cupar internal: the number of runs of equal keys in a sorted array, by which group_by's sort
// route (the C++ path's group_by.cuh and the run-time path's src/jit/families/group_by.cu) sizes
// its outputs before reduce_by_key writes the groups into them. Compiled into the library
// (src/compiled/runs.cu, with its kernel).
#pragma once

#include <cupar/config.hpp>
#include <cupar/memory.hpp>
#include <cupar/stream.hpp>

#include <cstddef>

namespace cupar::detail {

/// The rows i of keys[0, n) that start a run of equal keys (i == 0 or keys[i] != keys[i - 1],
/// compared by their bits as unsigned integers of key_size bytes: 1, 2, 4 or 8). One read of the
/// keys; synchronises `stream`. Throws std::invalid_argument for another key size,
/// cupar::cuda_error (named after `fn`) if the kernel fails.
CUPAR_EXPORT std::size_t count_runs(const char* fn, const void* keys, std::size_t key_size,
                                    std::size_t n, stream_ref stream, memory_resource& mr);

}  // namespace cupar::detail
