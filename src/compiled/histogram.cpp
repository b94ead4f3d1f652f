// cupar: dispatch of the library's histograms (arguments are checked by the public templates).
#include "histogram.hpp"
#include "library_types.hpp"

#include <cupar/detail/device_guard.hpp>

namespace cupar::detail {

void histogram(const histogram_args& a, stream_ref stream, memory_resource& mr) {
  const device_guard device(stream);
  if (a.counter_size != 4 && a.counter_size != 8) {
    throw_invalid_argument(a.function, "counters must be 4 or 8 bytes");
  }
  visit_library_scalar(a.function, a.sample,
                       [&](auto sample) { histogram_sample<decltype(sample)>(a, stream, mr); });
}

}  // namespace cupar::detail
