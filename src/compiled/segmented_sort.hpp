// cupar internal: the segmented radix sorts, one explicit instantiation per key type and part
// (keys only, pairs) in generated translation units (segmented_sort_<part>_<key>.cu).
#pragma once

#include <cupar/segmented.hpp>

namespace cupar::detail {

/// Sorts with validated arguments (n > 0, num_segments > 0); keys only.
template <class Key>
void segmented_sort_keys_of(const segmented_sort_args& args, stream_ref stream,
                            memory_resource& mr);
/// As segmented_sort_keys_of, with values.
template <class Key>
void segmented_sort_pairs_of(const segmented_sort_args& args, stream_ref stream,
                             memory_resource& mr);

// Index generation and the gather of values the sort does not move itself
// (segmented_sort_gather.cu).
void segmented_iota(void* d_indices, std::size_t index_size, std::size_t n, stream_ref stream);
/// dst[i] = src[indices[i]] for every i whose index is not all ones (positions outside every
/// segment, which the sort leaves as they were filled).
void segmented_gather(const void* d_src, void* d_dst, const void* d_indices, std::size_t index_size,
                      std::size_t value_size, std::size_t n, stream_ref stream);

#define CUPAR_FOR_EACH_SEGMENTED_SORT_KEY(X) \
  X(signed char)                             \
  X(short)                                   \
  X(int)                                     \
  X(long long)                               \
  X(unsigned char)                           \
  X(unsigned short)                          \
  X(unsigned int)                            \
  X(unsigned long long)                      \
  X(float)                                   \
  X(double)

#define CUPAR_DECLARE_SEGMENTED_SORT_KEY(K)                                               \
  extern template void segmented_sort_keys_of<K>(const segmented_sort_args&, stream_ref,  \
                                                 memory_resource&);                       \
  extern template void segmented_sort_pairs_of<K>(const segmented_sort_args&, stream_ref, \
                                                  memory_resource&);
CUPAR_FOR_EACH_SEGMENTED_SORT_KEY(CUPAR_DECLARE_SEGMENTED_SORT_KEY)
#undef CUPAR_DECLARE_SEGMENTED_SORT_KEY

}  // namespace cupar::detail
