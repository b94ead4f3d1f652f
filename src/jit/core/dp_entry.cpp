// cupar: the library entry of the data-processing families with run-time operators.
#include "calls.hpp"
#include "iterator_expr.hpp"
#include "precompiled.hpp"

#include <cupar/detail/checks.hpp>
#include <cupar/detail/cuda_check.hpp>
#include <cupar/detail/device_guard.hpp>
#include <cupar/detail/temp_storage.hpp>

#include <cuda_runtime_api.h>

#include <atomic>
#include <cstdint>
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

/// Whether the library precompiled the set `set` names, looked up once per `slot` (0: not yet
/// looked up, 1: not precompiled, 2: precompiled; static storage starts at zero).
bool precompiled_once(std::atomic<unsigned char>& slot, const jit::set_spec& set) {
  unsigned char state = slot.load(std::memory_order_relaxed);
  if (state == 0) {
    state = jit::precompiled_for_any_arch(set.key()) ? 2 : 1;
    slot.store(state, std::memory_order_relaxed);
  }
  return state == 2;
}

/// Whether a reduce or scan by key is served by a "+plus" set (cuda::std::plus<> compiled into the
/// kernels, as the compiled path hands CUB; jit_ops/cupar_reduce_by_key.cuh says why it is
/// faster): the named plus on a 4- or 8-byte arithmetic value type with arithmetic keys (not with
/// 64-bit offsets: compaction_request turns it off for the wide sets), and only where the library
/// precompiled that set: otherwise the generic precompiled set, which needs no compile, serves.
bool use_plus_set(jit::family fam, const jit_type& keys, const jit_type& values,
                  const cupar::jit::op* op) {
  if (op == nullptr || op->named() != cupar::jit::named_op::plus) return false;
  if (keys.is_struct() || values.is_struct()) return false;
  if (values.size != 4 && values.size != 8) return false;
  const int f = fam == jit::family::reduce_by_key           ? 0
                : fam == jit::family::scan_by_key_inclusive ? 1
                                                            : 2;
  const int k = keys.size == 1 ? 0 : keys.size == 2 ? 1 : keys.size == 4 ? 2 : 3;
  static std::atomic<unsigned char> known[3][4][scalar_count + 1];
  return precompiled_once(
      known[f][k][static_cast<int>(values.kind)],
      {fam, {jit::type_ref::size_class(keys), jit::type_ref::of(values)}, "plus"});
}

/// Whether select_if, partition or unique on elements of `t` has its "+io" set precompiled (an
/// output expression stored by the kernels): each arithmetic size class, and the struct classes
/// of CUPAR_JIT_STRUCT_DP_CLASSES for select_if and partition. Otherwise the output goes through a
/// temporary and a store pass, which needs no compile of kernels either.
bool io_set_precompiled(jit::family fam, const jit_type& t) {
  const bool arithmetic = !t.is_struct();
  const int a = t.align == 1    ? 0
                : t.align == 2  ? 1
                : t.align == 4  ? 2
                : t.align == 8  ? 3
                : t.align == 16 ? 4
                                : -1;
  if (a < 0 || t.size == 0 || t.size > 128) return false;
  const int f = fam == jit::family::select_if ? 0 : fam == jit::family::partition_if ? 1 : 2;
  static std::atomic<unsigned char> known[3][2][129][5];
  return precompiled_once(known[f][arithmetic ? 1 : 0][t.size][a],
                          {fam, {jit::type_ref::size_class(t)}, "io"});
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

/// Output k of a call: its element type (the keys' or items' for the first output; the second
/// output of the by-key families holds values or run lengths, a search's positions), how many
/// elements it has room for, and how many of them the call writes.
const jit_type& output_type(const jit_dp_args& a, int k) {
  switch (a.what) {
    case dp_op::unique_by_key:
    case dp_op::run_length_encode:
    case dp_op::reduce_by_key:
      return k == 0 ? *a.types[0] : *a.types[1];
    case dp_op::inclusive_scan_by_key:
    case dp_op::exclusive_scan_by_key:
    case dp_op::lower_bound:
    case dp_op::upper_bound:
      return *a.types[1];
    default:
      return *a.types[0];
  }
}
std::size_t output_capacity(const jit_dp_args& a) {
  return a.what == dp_op::segmented_reduce || a.what == dp_op::lower_bound ||
                 a.what == dp_op::upper_bound
             ? a.m
             : a.n;
}
/// Whether the call writes counts (select, unique, the by-key compactions, three-way partition;
/// partition writes one too, but fills its whole output).
bool writes_count(dp_op what) {
  switch (what) {
    case dp_op::select_if:
    case dp_op::select_flagged:
    case dp_op::partition:
    case dp_op::three_way_partition:
    case dp_op::unique:
    case dp_op::unique_by_key:
    case dp_op::run_length_encode:
    case dp_op::reduce_by_key:
      return true;
    default:
      return false;
  }
}
jit::store_bound::kind_t output_bound(dp_op what, int k) {
  using b = jit::store_bound;
  switch (what) {
    case dp_op::select_if:
    case dp_op::select_flagged:
    case dp_op::unique:
    case dp_op::unique_by_key:
    case dp_op::run_length_encode:
    case dp_op::reduce_by_key:
      return b::first;
    case dp_op::three_way_partition:
      return k == 0 ? b::first : k == 1 ? b::second : b::rest;
    default:
      return b::all;  // partition (selected, then the rest), scans, segmented, searches
  }
}

const jit_type& offset_type() {
  return jit_type_of<std::int64_t>();
}

void dispatch(const jit_dp_args& a, stream_ref s, memory_resource& mr,
              const pending_inputs* pending = nullptr);

/// A call whose expression inputs are written to temporary arrays (one fused pass each, the
/// "for_each" set), then served by the family's kernels on arrays. The temporaries are taken
/// first (nothing runs), the family checks its arguments against them, then the expressions are
/// written (pending_inputs). They go back to `mr` on the stream when the call returns (or throws).
void with_materialised_inputs(const jit_dp_args& a, stream_ref s, memory_resource& mr,
                              pending_inputs& pending) {
  jit_dp_args b = a;
  std::optional<temp_storage> temps[4];
  for (int k = 0; k < 4; ++k) {
    const cupar::jit::iterator* e = k < 2 ? a.in_iter[k] : a.offsets_iter[k - 2];
    if (e == nullptr) continue;
    const jit_type& t = k < 2 ? input_type(a, k) : offset_type();
    const std::size_t count = k < 2 ? input_count(a, k) : a.m;
    require_size(a.function, count, t.size);
    temps[k].emplace(mr, count * t.size, s);
    pending.slot[k] = {e, nullptr, temps[k]->get(), &t, count};
    if (k < 2) {
      b.in[k] = temps[k]->get();
      b.in_iter[k] = nullptr;
    } else {
      (k == 2 ? b.begin_offsets : b.end_offsets) = static_cast<std::int64_t*>(temps[k]->get());
      b.offsets_iter[k - 2] = nullptr;
    }
  }
  dispatch(b, s, mr, &pending);
}

/// Serves a call whose outputs are arrays: the families' own kernels on arrays, or reading an
/// input expression themselves (select_if, partition, unique), or after writing the input
/// expressions to temporary arrays.
void route(const jit_dp_args& b, stream_ref s, memory_resource& mr, pending_inputs& pending) {
  const bool offsets = b.offsets_iter[0] != nullptr || b.offsets_iter[1] != nullptr;
  if (b.in_iter[0] == nullptr && b.in_iter[1] == nullptr && !offsets) {
    return dispatch(b, s, mr, &pending);
  }
  if (reads_expressions(b.what) && b.in_iter[1] == nullptr) return call_select(b, s, mr, &pending);
  with_materialised_inputs(b, s, mr, pending);
}

/// Whether a call's one output expression is stored by the family's kernels as they compact
/// (select_if, partition, unique: the "+io" sets), fused: when the set is precompiled and the
/// output writes nothing the call reads (the kernels store while other blocks still read).
bool fuses_output(const jit_dp_args& b) {
  if (!reads_expressions(b.what) || b.out_iter[0] == nullptr) return false;
  const jit_type& t = *b.types[0];
  if (!io_set_precompiled(family_of(b.what), t)) return false;
  const void* array = b.in_iter[0] == nullptr ? b.in[0] : nullptr;
  return !jit::output_may_overlap(*b.out_iter[0], b.n, b.in_iter[0], array, t.size);
}

/// A call with output expressions: each such output is written by the family to a temporary
/// array, then stored through the expression by one "for_each" pass (prepared, so compiled and
/// linked, before the family runs) that stores only what the family wrote: a count it wrote to
/// device memory bounds the pass on the device, so nothing waits for the count. discard()
/// outputs get the temporary alone. The `_count` forms count into a slot of their own, copied to
/// the host after the stores, and synchronise once.
void with_output_expressions(const jit_dp_args& a, stream_ref s, memory_resource& mr) {
  const char* fn = a.function;
  jit_dp_args b = a;
  pending_inputs pending;
  pending.function = fn;
  const bool counted = writes_count(a.what);
  const std::size_t words = a.what == dp_op::three_way_partition ? 2 : 1;
  std::optional<temp_storage> slot, temps[3];
  if (counted && a.host_count != nullptr) {
    slot.emplace(mr, words * sizeof(std::size_t), s);
    b.d_count = static_cast<std::size_t*>(slot->get());
    b.host_count = nullptr;
  }
  if (counted && b.d_count == nullptr) throw_invalid_argument(fn, "the device count is null");
  const std::size_t capacity = output_capacity(a);
  std::optional<for_each_pass> stores[3];
  for (int k = 0; k < 3; ++k) {
    if (a.out_iter[k] == nullptr) continue;
    const jit_type& t = output_type(a, k);
    require_size(fn, capacity, t.size);
    temps[k].emplace(mr, capacity * t.size, s);
    b.out[k] = temps[k]->get();
    b.out_iter[k] = nullptr;
    if (jit::is_discard(*a.out_iter[k])) continue;
    const jit::store_bound bound{output_bound(a.what, k), b.d_count};
    stores[k].emplace(prepare_for_each(
        jit::bounded_store_op(b.out[k], t, *a.out_iter[k], capacity, bound, fn), capacity, fn));
  }
  const bool segmented_scan =
      a.what == dp_op::segmented_inclusive_scan || a.what == dp_op::segmented_exclusive_scan;
  if (segmented_scan && a.out_iter[0] != nullptr) {
    // The scans leave the items outside every segment unwritten: scan in place in the temporary,
    // which holds the input first, so those items are stored through the expression unchanged.
    const jit_type& t = *a.types[0];
    if (a.in_iter[0] == nullptr) require_data(fn, "d_in", a.in[0], a.n);
    pending.slot[0] = {a.in_iter[0], a.in_iter[0] == nullptr ? a.in[0] : nullptr, b.out[0], &t,
                       a.n};
    b.in[0] = b.out[0];
    b.in_iter[0] = nullptr;
  }
  route(b, s, mr, pending);
  const char* call = "cupar: an output expression stored (run-time operator)";
  for (const auto& store : stores) {
    if (store) store->launch(s, call);
  }
  if (slot) {
    check_cuda(cudaMemcpyAsync(a.host_count, slot->get(), words * sizeof(std::size_t),
                               cudaMemcpyDeviceToHost, s.get()),
               fn);
    s.synchronize();
  }
}

}  // namespace

void jit_data_processing(const jit_dp_args& a, stream_ref s, memory_resource& mr) {
  const device_guard device(s);  // before any build: the JIT builds for the current device
  jit_dp_args b = a;
  // Expressions that are plain arrays of the call's own types are those arrays.
  for (int k = 0; k < 2; ++k) {
    if (b.in_iter[k] == nullptr) continue;
    if (const void* p = jit::plain_input(*b.in_iter[k], input_type(a, k))) {
      b.in[k] = p;
      b.in_iter[k] = nullptr;
    }
  }
  for (int k = 0; k < 2; ++k) {
    if (b.offsets_iter[k] == nullptr) continue;
    if (const void* p = jit::plain_input(*b.offsets_iter[k], offset_type())) {
      (k == 0 ? b.begin_offsets : b.end_offsets) = static_cast<const std::int64_t*>(p);
      b.offsets_iter[k] = nullptr;
    }
  }
  // Flags are tested for non-zero: an expression is written as bytes of `x != 0` (a conversion
  // to the caller's flag type could truncate, as 256 to a byte or 0.5 to an integer).
  std::optional<cupar::jit::iterator> flag_bytes;
  if (b.what == dp_op::select_flagged && b.in_iter[1] != nullptr) {
    static const cupar::jit::op nonzero("x != 0");
    flag_bytes.emplace(cupar::jit::transform<unsigned char>(*b.in_iter[1], nonzero));
    b.in_iter[1] = &*flag_bytes;
    b.types[1] = &jit_type_of<unsigned char>();
  }
  bool outputs = false;
  for (int k = 0; k < 3; ++k) {
    if (b.out_iter[k] == nullptr) continue;
    if (void* p = jit::plain_output(*b.out_iter[k], output_type(a, k))) {
      b.out[k] = p;
      b.out_iter[k] = nullptr;
    } else {
      outputs = true;
    }
  }
  if (outputs && fuses_output(b)) return call_select(b, s, mr);
  if (outputs) return with_output_expressions(b, s, mr);
  pending_inputs pending;
  pending.function = a.function;
  route(b, s, mr, pending);
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
