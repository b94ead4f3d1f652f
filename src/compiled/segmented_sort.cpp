// cupar: argument checks and dispatch of the library's segmented sorts.
#include "segmented_sort.hpp"
#include "library_types.hpp"

#include <cupar/detail/checks.hpp>
#include <cupar/detail/device_guard.hpp>
#include <cupar/detail/dp_checks.hpp>

#include "jit/core/calls.hpp"

#include <cupar/detail/temp_storage.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace cupar::detail {

void segmented_sort(const segmented_sort_args& given, stream_ref stream, memory_resource& mr) {
  const char* fn = given.function;
  const device_guard on_device(stream);  // run on the stream's device
  // Offsets given as expressions (other integer types, computed offsets) stand for arrays that
  // overlap nothing in the checks below; they are written to temporary 64-bit arrays after them,
  // before the sort writes anything.
  segmented_sort_args a = given;
  const ::cupar::jit::iterator* expressions[2] = {given.begin_expression, given.end_expression};
  const auto* stand_in = static_cast<const std::int64_t*>(unchecked_range());
  if (expressions[0] != nullptr) a.begin_offsets = stand_in;
  if (expressions[1] != nullptr) a.end_offsets = stand_in;
  const int key_bits = 8 * scalar_size(a.key);
  if (a.options.order != sort_order::ascending && a.options.order != sort_order::descending) {
    throw_invalid_argument(fn, "options.order is neither ascending nor descending");
  }
  if (a.options.begin_bit != 0 || (a.options.end_bit != -1 && a.options.end_bit != key_bits)) {
    throw_invalid_argument(fn, "a bit range [" + std::to_string(a.options.begin_bit) + ", " +
                                   std::to_string(a.options.end_bit) +
                                   ") was given: segmented sorts sort on every bit of the key "
                                   "(CUB's segmented sort takes no bit range)");
  }
  const std::size_t key_size = static_cast<std::size_t>(scalar_size(a.key));
  require_size(fn, a.n, key_size);
  check_segments_args(fn, a.begin_offsets, a.end_offsets, a.num_segments, a.n);
  require_data(fn, "d_keys_in", a.keys_in, a.n);
  require_data(fn, "d_keys_out", a.keys_out, a.n);
  const std::size_t key_bytes = a.n * key_size;
  require_same_or_disjoint(fn, "d_keys_in", a.keys_in, key_bytes, "d_keys_out", a.keys_out,
                           key_bytes);
  require_disjoint_from_offsets(fn, a.begin_offsets, a.end_offsets, a.num_segments, "d_keys_out",
                                a.keys_out, key_bytes);
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
    require_disjoint_from_offsets(fn, a.begin_offsets, a.end_offsets, a.num_segments,
                                  "d_values_out", a.values_out, value_bytes);
  }
  if (a.n == 0 || a.num_segments == 0) return;  // nothing to sort, nothing written
  std::optional<temp_storage> offsets[2];
  for (int k = 0; k < 2; ++k) {
    if (expressions[k] == nullptr) continue;
    offsets[k].emplace(mr, a.num_segments * sizeof(std::int64_t), stream);
    materialize(*expressions[k], jit_type_of<std::int64_t>(), offsets[k]->get(), a.num_segments,
                stream, mr, fn);
    (k == 0 ? a.begin_offsets : a.end_offsets) =
        static_cast<const std::int64_t*>(offsets[k]->get());
  }
  visit_library_scalar(a.function, a.key, [&](auto key) {
    using K = decltype(key);
    if (a.value_size == 0) {
      segmented_sort_keys_of<K>(a, stream, mr);
    } else {
      segmented_sort_pairs_of<K>(a, stream, mr);
    }
  });
}

}  // namespace cupar::detail
