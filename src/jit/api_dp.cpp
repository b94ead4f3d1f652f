// cupar: the library entry of the data-processing families with run-time operators.
#include "dp_calls.hpp"
#include "iterator_expr.hpp"
#include "precompiled.hpp"

#include <cupar/detail/checks.hpp>
#include <cupar/detail/device_guard.hpp>
#include <cupar/detail/temp_storage.hpp>

#include <atomic>
#include <cstring>
#include <optional>

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

namespace {

/// Whether a reduce or scan by key is served by a "+plus" set (cuda::std::plus<> compiled into the
/// kernels, as the compiled path hands CUB; jit_ops/cupar_reduce_by_key.cuh says why it is
/// faster): the named plus on a 4- or 8-byte arithmetic value type with arithmetic keys (not with
/// 64-bit offsets: compaction_request turns it off for the wide sets), and only where the library
/// precompiled that set: otherwise the generic precompiled set, which needs no compile, serves.
bool use_plus_set(jit::family fam, const jit_type& keys, const jit_type& values,
                  const cupar::jit::op* op) {
  if (op == nullptr || op->named() != cupar::jit::named_op::plus) return false;
  if (static_cast<int>(keys.kind) == 0 || static_cast<int>(values.kind) == 0) return false;
  if (values.size != 4 && values.size != 8) return false;
  const int f = fam == jit::family::reduce_by_key           ? 0
                : fam == jit::family::scan_by_key_inclusive ? 1
                                                            : 2;
  const int k = keys.size == 1 ? 0 : keys.size == 2 ? 1 : keys.size == 4 ? 2 : 3;
  // 0: not yet looked up, 1: not precompiled, 2: precompiled (static storage: zero to begin).
  static std::atomic<unsigned char> known[3][4][scalar_count + 1];
  std::atomic<unsigned char>& slot = known[f][k][static_cast<int>(values.kind)];
  unsigned char state = slot.load(std::memory_order_relaxed);
  if (state == 0) {
    const jit::set_spec set{
        fam, {jit::type_ref::size_class(keys), jit::type_ref::of(values)}, "plus"};
    state = jit::precompiled_for_any_arch(set.key()) ? 2 : 1;
    slot.store(state, std::memory_order_relaxed);
  }
  return state == 2;
}

}  // namespace

jit::set_request dp_request(dp_op what, const jit_type* const types[2],
                            const cupar::jit::op* const ops[2], bool in_place) {
  jit::set_request r{family_of(what), {types[0], types[1]}};
  r.ops[0] = ops[0];
  r.ops[1] = ops[1];
  r.in_place = in_place;
  if (r.fam == jit::family::reduce_by_key || r.fam == jit::family::scan_by_key_inclusive ||
      r.fam == jit::family::scan_by_key_exclusive) {
    r.plus = use_plus_set(r.fam, *types[0], *types[1], ops[0]);
  }
  return r;
}

namespace {

/// Input k of a call: its element type and count. Input 1 is the values (by key), or the needles
/// of a search, which have the sorted range's type and their own count.
bool is_needles(const jit_dp_args& a, int k) {
  return k == 1 && (a.what == dp_op::lower_bound || a.what == dp_op::upper_bound);
}
const jit_type& input_type(const jit_dp_args& a, int k) {
  return k == 0 || is_needles(a, k) ? *a.types[0] : *a.types[1];
}
std::size_t input_count(const jit_dp_args& a, int k) {
  return is_needles(a, k) ? a.m : a.n;
}

void dispatch(const jit_dp_args& a, stream_ref s, memory_resource& mr,
              const pending_inputs* pending = nullptr);

/// A call whose expression inputs are written to temporary arrays (one fused pass each, the
/// "for_each" set), then served by the family's kernels on arrays. The temporaries are taken
/// first (nothing runs), the family checks its arguments against them, then the expressions are
/// written (pending_inputs). They go back to `mr` on the stream when the call returns (or throws).
void with_materialised_inputs(const jit_dp_args& a, stream_ref s, memory_resource& mr) {
  jit_dp_args b = a;
  std::optional<temp_storage> temps[2];
  pending_inputs pending;
  pending.function = a.function;
  for (int k = 0; k < 2; ++k) {
    if (a.in_iter[k] == nullptr) continue;
    const jit_type& t = input_type(a, k);
    const std::size_t count = input_count(a, k);
    require_size(a.function, count, t.size);
    temps[k].emplace(mr, count * t.size, s);
    pending.expression[k] = a.in_iter[k];
    pending.dst[k] = temps[k]->get();
    pending.type[k] = &t;
    pending.count[k] = count;
    b.in[k] = temps[k]->get();
    b.in_iter[k] = nullptr;
  }
  dispatch(b, s, mr, &pending);
}

}  // namespace

void jit_data_processing(const jit_dp_args& a, stream_ref s, memory_resource& mr) {
  const device_guard device(s);  // before any build: the JIT builds for the current device
  jit_dp_args b = a;
  for (int k = 0; k < 2; ++k) {
    // An expression that is a plain array of the call's own type is that array.
    if (b.in_iter[k] == nullptr) continue;
    const auto [array, size] = jit::input_array(*b.in_iter[k]);
    const jit_type& t = input_type(a, k);
    if (array != nullptr && size == t.size &&
        std::strcmp(b.in_iter[k]->value_type().name, t.name) == 0) {
      b.in[k] = array;
      b.in_iter[k] = nullptr;
    }
  }
  if (b.in_iter[0] == nullptr && b.in_iter[1] == nullptr) return dispatch(b, s, mr);
  if (reads_expressions(b.what) && b.in_iter[1] == nullptr) return call_select(b, s, mr);
  with_materialised_inputs(b, s, mr);
}

namespace {

void dispatch(const jit_dp_args& a, stream_ref s, memory_resource& mr,
              const pending_inputs* pending) {
  switch (a.what) {
    case dp_op::select_if:
    case dp_op::select_flagged:
    case dp_op::partition:
    case dp_op::unique:
      return call_select(a, s, mr, pending);
    case dp_op::three_way_partition:
      return call_three_way(a, s, mr, pending);
    case dp_op::unique_by_key:
    case dp_op::run_length_encode:
    case dp_op::reduce_by_key:
    case dp_op::inclusive_scan_by_key:
    case dp_op::exclusive_scan_by_key:
      return call_by_key(a, s, mr, pending);
    case dp_op::segmented_reduce:
    case dp_op::segmented_inclusive_scan:
    case dp_op::segmented_exclusive_scan:
      return call_segmented(a, s, mr, pending);
    case dp_op::lower_bound:
    case dp_op::upper_bound:
      return call_search(a, s, mr, pending);
  }
  throw_invalid_argument(a.function, "unknown data-processing operation");
}

}  // namespace

}  // namespace cupar::detail
