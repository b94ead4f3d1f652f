// cupar: the library entry of the data-processing families with run-time operators.
#include "dp_calls.hpp"

#include <cupar/detail/device_guard.hpp>
#include <cupar/detail/checks.hpp>

namespace cupar::detail {

jit::family family_of(dp_op what) {
  using jit::family;
  switch (what) {
    case dp_op::select_if:
      return family::select_if;
    case dp_op::select_flagged:
      return family::select_flagged;
    case dp_op::partition:
      return family::partition_if;
    case dp_op::three_way_partition:
      return family::three_way_partition;
    case dp_op::unique:
      return family::unique;
    case dp_op::unique_by_key:
      return family::unique_by_key;
    case dp_op::run_length_encode:
      return family::run_length_encode;
    case dp_op::reduce_by_key:
      return family::reduce_by_key;
    case dp_op::inclusive_scan_by_key:
      return family::scan_by_key_inclusive;
    case dp_op::exclusive_scan_by_key:
      return family::scan_by_key_exclusive;
    case dp_op::segmented_reduce:
      return family::segmented_reduce;
    case dp_op::segmented_inclusive_scan:
      return family::segmented_scan_inclusive;
    case dp_op::segmented_exclusive_scan:
      return family::segmented_scan_exclusive;
    case dp_op::lower_bound:
    case dp_op::upper_bound:
      return family::binary_search;
  }
  throw_invalid_argument("cupar::jit", "unknown data-processing operation");
}

jit::set_request dp_request(dp_op what, const jit_type* const types[2],
                            const cupar::jit::op* const ops[2], bool in_place) {
  jit::set_request r{family_of(what), {types[0], types[1]}};
  r.ops[0] = ops[0];
  r.ops[1] = ops[1];
  r.in_place = in_place;
  return r;
}

void jit_data_processing(const jit_dp_args& a, stream_ref s, memory_resource& mr) {
  const device_guard device(s);  // before any build: the JIT builds for the current device
  switch (a.what) {
    case dp_op::select_if:
    case dp_op::select_flagged:
    case dp_op::partition:
    case dp_op::unique:
      return call_select(a, s, mr);
    case dp_op::three_way_partition:
      return call_three_way(a, s, mr);
    case dp_op::unique_by_key:
    case dp_op::run_length_encode:
    case dp_op::reduce_by_key:
    case dp_op::inclusive_scan_by_key:
    case dp_op::exclusive_scan_by_key:
      return call_by_key(a, s, mr);
    case dp_op::segmented_reduce:
    case dp_op::segmented_inclusive_scan:
    case dp_op::segmented_exclusive_scan:
      return call_segmented(a, s, mr);
    case dp_op::lower_bound:
    case dp_op::upper_bound:
      return call_search(a, s, mr);
  }
  throw_invalid_argument(a.function, "unknown data-processing operation");
}

}  // namespace cupar::detail
