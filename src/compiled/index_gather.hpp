// cupar internal: the index generation and value gather behind every sort of pairs whose values
// the sort does not move itself: radix sorts of payloads other than 1, 2, 4, 8 and 16 aligned
// bytes (radix_sort_impl.cuh), segmented radix sorts of payloads other than 4 and 8 aligned
// bytes (segmented_sort_impl.cuh) and run-time-comparator merge sorts of payloads without a
// precompiled set (src/jit/families/merge_sort.cu): the sort moves a 4- or 8-byte index
// instead, then one pass gathers the values. Plain C++ (the kernels live in index_gather.cu), so
// the host-compiled JIT front end can call them.
#pragma once

#include <cupar/stream.hpp>

#include <cstddef>

namespace cupar::detail {

/// d_indices[i] = i for i < n, as 4- or 8-byte unsigned integers (index_size 4 or 8). Queued on
/// `stream`; does not synchronise. Throws cupar::cuda_error if the launch fails.
void index_iota(void* d_indices, std::size_t index_size, std::size_t n, stream_ref stream);

/// d_dst[i] = d_src[d_indices[i]] for i < n, values of value_size bytes moved in the widest words
/// that both arrays' alignment and value_size allow; an index of all ones leaves d_dst[i] as it
/// was (a segmented sort's positions outside every segment). d_src and d_dst must not overlap.
/// Queued on `stream`; does not synchronise. Throws cupar::cuda_error if the launch fails.
void index_gather(const void* d_src, void* d_dst, const void* d_indices, std::size_t index_size,
                  std::size_t value_size, std::size_t n, stream_ref stream);

}  // namespace cupar::detail
