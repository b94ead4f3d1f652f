// cupar: argument checks and dispatch of the library's radix sort.
#include "radix_sort.hpp"
#include "library_types.hpp"

#include <cupar/detail/checks.hpp>
#include <cupar/detail/device_guard.hpp>

#include <string>

namespace cupar::detail {

bool library_sorts(scalar key) noexcept {
  const int i = static_cast<int>(key);
  return i > 0 && i < 11 && library_types[i];
}

void radix_sort(const radix_sort_args& a, stream_ref stream, memory_resource& mr) {
  const char* fn = a.function;
  const device_guard device(stream);
  const int key_bits = 8 * scalar_size(a.key);
  const int begin_bit = a.options.begin_bit;
  const int end_bit = a.options.end_bit == -1 ? key_bits : a.options.end_bit;
  if (begin_bit < 0 || end_bit > key_bits || begin_bit >= end_bit) {
    throw_invalid_argument(fn, "invalid bit range [begin_bit, end_bit) = [" +
                                   std::to_string(a.options.begin_bit) + ", " +
                                   std::to_string(a.options.end_bit) +
                                   "): need 0 <= begin_bit "
                                   "< end_bit <= " +
                                   std::to_string(key_bits) + " (or end_bit = -1 for all bits)");
  }
  if (a.options.order != sort_order::ascending && a.options.order != sort_order::descending) {
    throw_invalid_argument(fn, "options.order is neither ascending nor descending");
  }
  const std::size_t key_size = static_cast<std::size_t>(scalar_size(a.key));
  require_size(fn, a.n, key_size);
  require_data(fn, "d_keys_in", a.keys_in, a.n);
  require_data(fn, "d_keys_out", a.keys_out, a.n);
  const std::size_t key_bytes = a.n * key_size;
  require_same_or_disjoint(fn, "d_keys_in", a.keys_in, key_bytes, "d_keys_out", a.keys_out,
                           key_bytes);
  if (a.value_size != 0) {
    require_size(fn, a.n, a.value_size);
    require_data(fn, "d_values_in", a.values_in, a.n);
    require_data(fn, "d_values_out", a.values_out, a.n);
    const std::size_t value_bytes = a.n * a.value_size;
    require_same_or_disjoint(fn, "d_values_in", a.values_in, value_bytes, "d_values_out",
                             a.values_out, value_bytes);
    require_disjoint(fn, "d_keys_out", a.keys_out, key_bytes, "d_values_out", a.values_out,
                     value_bytes);
    require_disjoint(fn, "d_keys_out", a.keys_out, key_bytes, "d_values_in", a.values_in,
                     value_bytes);
    require_disjoint(fn, "d_keys_in", a.keys_in, key_bytes, "d_values_out", a.values_out,
                     value_bytes);
  }
  if (a.n == 0) return;
  visit_library_scalar(fn, a.key,
                       [&](auto key) { radix_sort_key<decltype(key)>(a, end_bit, stream, mr); });
}

}  // namespace cupar::detail
