// cupar internal: radix sort, one explicit instantiation per key type (radix_sort_<key>.cu).
#pragma once

#include <cupar/sort.hpp>

namespace cupar::detail {

/// Sorts with validated arguments; end_bit already resolved to a bit count.
template <class Key>
void radix_sort_key(const radix_sort_args& args, int end_bit, stream_ref stream,
                    memory_resource& mr);

#define CUPAR_DECLARE_RADIX_KEY(K) \
  extern template void radix_sort_key<K>(const radix_sort_args&, int, stream_ref, memory_resource&);
CUPAR_FOR_EACH_SCALAR_TYPE(CUPAR_DECLARE_RADIX_KEY)
#undef CUPAR_DECLARE_RADIX_KEY

}  // namespace cupar::detail
