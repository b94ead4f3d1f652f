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

#define CUPAR_DECLARE_SEGMENTED_SORT_KEY(K)                                               \
  extern template void segmented_sort_keys_of<K>(const segmented_sort_args&, stream_ref,  \
                                                 memory_resource&);                       \
  extern template void segmented_sort_pairs_of<K>(const segmented_sort_args&, stream_ref, \
                                                  memory_resource&);
CUPAR_FOR_EACH_SCALAR_TYPE(CUPAR_DECLARE_SEGMENTED_SORT_KEY)
#undef CUPAR_DECLARE_SEGMENTED_SORT_KEY

}  // namespace cupar::detail
