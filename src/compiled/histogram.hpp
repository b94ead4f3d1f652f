// cupar internal: library histograms, one explicit instantiation per sample type.
#pragma once

#include <cupar/histogram.hpp>

namespace cupar::detail {

template <class Sample>
void histogram_sample(const histogram_args& args, stream_ref stream, memory_resource& mr);

#define CUPAR_DECLARE_HISTOGRAM_SAMPLE(S) \
  extern template void histogram_sample<S>(const histogram_args&, stream_ref, memory_resource&);
CUPAR_FOR_EACH_SCALAR_TYPE(CUPAR_DECLARE_HISTOGRAM_SAMPLE)
#undef CUPAR_DECLARE_HISTOGRAM_SAMPLE

}  // namespace cupar::detail
