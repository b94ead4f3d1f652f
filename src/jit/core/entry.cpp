// cupar: the library entry of every operation with run-time operators (jit_run), the table of
// operations (jit_call_named), and the expression layer of the data-processing operations:
// expression inputs written to temporary arrays for kernels that take arrays, output
// expressions stored through after the kernels, counts returned to the host.
#include "call.hpp"
#include "iterator_expr.hpp"
#include "precompiled.hpp"
#include "request.hpp"

#include "compiled/restride.hpp"

#include "cupar_families.inc"

#include <cupar/detail/checks.hpp>
#include <cupar/detail/cuda_check.hpp>
#include <cupar/detail/device_guard.hpp>
#include <cupar/detail/temp_storage.hpp>

#include <cuda_runtime_api.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>

namespace cupar::detail {

bool precompiled_once(std::atomic<unsigned char>& slot, const jit::set_spec& set) {
  unsigned char state = slot.load(std::memory_order_relaxed);
  if (state == 0) {
    state = jit::precompiled_for_any_arch(set.key()) ? 2 : 1;
    slot.store(state, std::memory_order_relaxed);
  }
  return state == 2;
}

namespace {

/// Whether the family `fam` (of an operation whose kernels read expressions: select_if, partition,
/// unique) has its "+io" set on elements of `t` precompiled (an output expression stored by the
/// kernels): each arithmetic size class, and the struct classes of CUPAR_JIT_STRUCT_DP_CLASSES
/// for select_if and partition. Otherwise the output goes through a
/// temporary and a store pass, which needs no compile of kernels either.
bool io_set_precompiled(jit::family fam, const jit_type& t) {
  const bool arithmetic = !t.is_struct() || t.word;  // word types: their integer's sets
  const int a = t.align == 1    ? 0
                : t.align == 2  ? 1
                : t.align == 4  ? 2
                : t.align == 8  ? 3
                : t.align == 16 ? 4
                                : -1;
  if (a < 0 || t.size == 0 || t.size > 128) return false;
  static std::atomic<unsigned char> known[jit::family_count][2][129][5];
  return precompiled_once(known[static_cast<int>(fam)][arithmetic ? 1 : 0][t.size][a],
                          {fam, {jit::type_ref::size_class(t)}, "io"});
}

}  // namespace

bool arrays_aligned8(const jit_args& a) {
  const auto any = [](const jit_type* t) { return t != nullptr && jit::widenable(*t); };
  if (a.build_only || a.plan != nullptr ||
      !(any(a.types[0]) || any(a.types[1]) || any(a.types[2]))) {
    return false;
  }
  for (const void* p :
       {a.in[0], a.in[1], static_cast<const void*>(a.out[0]), static_cast<const void*>(a.out[1]),
        static_cast<const void*>(a.out[2]), a.d_init}) {
    if (reinterpret_cast<std::uintptr_t>(p) % 8 != 0) return false;  // null passes
  }
  return true;
}

jit::set_request dp_request(const jit_args& a, bool in_place) {
  jit::set_request r{a.call->fam, {a.types[0], a.types[1]}};
  r.ops[0] = a.ops[0];
  r.ops[1] = a.ops[1];
  r.in_place = in_place;
  r.aligned8 = arrays_aligned8(a);
  return r;
}

jit::set_request dp_index_request(const jit_args& a, const cupar::jit::op& loader) {
  jit::set_request r = dp_request(a, false);
  r.index = true;
  r.ops[2] = r.ops[1];
  r.ops[1] = r.ops[0];
  r.ops[0] = &loader;
  return r;
}

namespace {

/// Input k of a call: its element type and count.
const jit_type& input_type(const jit_args& a, int k) {
  return *a.types[a.call->io.input_type[k]];
}
std::size_t input_count(const jit_args& a, int k) {
  return a.call->io.input_m[k] ? a.m : a.n;
}

/// Output k of a call: its element type, and how many elements it has room for.
const jit_type& output_type(const jit_args& a, int k) {
  return *a.types[a.call->io.output_type[k]];
}
std::size_t output_capacity(const jit_args& a) {
  return a.call->io.output_m ? a.m : a.n;
}

const jit_type& offset_type() {
  return jit_type_of<std::int64_t>();
}

/// Runs a call whose arrays are plain (the family's kernels).
void dispatch(const jit_args& a, stream_ref s, memory_resource& mr,
              const pending_inputs* pending = nullptr) {
  a.call->run(a, s, mr, pending);
}

/// A call whose expression inputs are written to temporary arrays (one fused pass each, the
/// "for_each" set), then served by the family's kernels on arrays. The temporaries are taken
/// first (nothing runs), the family checks its arguments against them, then the expressions are
/// written (pending_inputs). They go back to `mr` on the stream when the call returns (or throws).
void with_materialised_inputs(const jit_args& a, stream_ref s, memory_resource& mr,
                              pending_inputs& pending) {
  jit_args b = a;
  std::optional<temp_storage> temps[4];
  for (int k = 0; k < 4; ++k) {
    const cupar::jit::iterator* e = k < 2 ? a.in_iter[k] : a.offsets_iter[k - 2];
    if (e == nullptr || (k < 2 && a.call->io.reads_input[k])) continue;  // run() reads it
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
/// input expression themselves (io.reads_input), or after writing the other input expressions to
/// temporary arrays.
void route(const jit_args& b, stream_ref s, memory_resource& mr, pending_inputs& pending) {
  bool written = b.offsets_iter[0] != nullptr || b.offsets_iter[1] != nullptr;
  for (int k = 0; k < 2; ++k) {
    if (b.in_iter[k] != nullptr && !b.call->io.reads_input[k]) written = true;
  }
  if (!written) return dispatch(b, s, mr, &pending);
  with_materialised_inputs(b, s, mr, pending);
}

/// Whether a call's one output expression is stored by the family's kernels as they compact
/// (io.reads_expressions: the "+io" sets), fused: when the set is precompiled and the
/// output writes nothing the call reads (the kernels store while other blocks still read).
bool fuses_output(const jit_args& b) {
  if (!b.call->io.reads_expressions || b.out_iter[0] == nullptr) return false;
  const jit_type& t = *b.types[0];
  if (!io_set_precompiled(b.call->fam, t)) return false;
  const void* array = b.in_iter[0] == nullptr ? b.in[0] : nullptr;
  return !jit::output_may_overlap(*b.out_iter[0], b.n, b.in_iter[0], array, t.size);
}

/// A `_count` form's host count kept on the device while the call runs, so that what follows the
/// family's kernels (an output expression's store, a padded output's copy back) is bounded by it
/// on the device; copied to the host once those are queued.
struct host_count_on_device {
  std::optional<temp_storage> slot;
  std::size_t* host = nullptr;
  std::size_t words = 0;
  /// Moves `c`'s host count, if it has one, to a device slot of `count_words` counts (c.d_count).
  void take(jit_args& c, std::size_t count_words, memory_resource& mr, stream_ref s) {
    if (c.host_count == nullptr) return;
    words = count_words;
    host = c.host_count;
    slot.emplace(mr, words * sizeof(std::size_t), s);
    c.d_count = static_cast<std::size_t*>(slot->get());
    c.host_count = nullptr;
  }
  /// The counts to the host, when taken (synchronises the stream).
  void give_back(stream_ref s, const char* fn) {
    if (!slot) return;
    check_cuda(cudaMemcpyAsync(host, slot->get(), words * sizeof(std::size_t),
                               cudaMemcpyDeviceToHost, s.get()),
               fn);
    s.synchronize();
  }
};

/// A call with output expressions: each such output is written by the family to a temporary
/// array, then stored through the expression by one "for_each" pass (prepared, so compiled and
/// linked, before the family runs) that stores only what the family wrote: a count it wrote to
/// device memory bounds the pass on the device, so nothing waits for the count. discard()
/// outputs get the temporary alone. The `_count` forms count into a slot of their own, copied to
/// the host after the stores, and synchronise once.
void with_output_expressions(const jit_args& a, stream_ref s, memory_resource& mr) {
  const char* fn = a.function;
  jit_args b = a;
  pending_inputs pending;
  pending.function = fn;
  const std::size_t words = a.call->io.count_words;
  const bool counted = words != 0;
  std::optional<temp_storage> temps[3];
  host_count_on_device counts;
  if (counted) counts.take(b, words, mr, s);
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
    const jit::store_bound bound{a.call->io.bound[k], b.d_count};
    stores[k].emplace(prepare_for_each(
        jit::bounded_store_op(b.out[k], t, *a.out_iter[k], capacity, bound, !counted, fn), capacity,
        fn));
  }
  if (a.call->io.output_starts_as_input && a.out_iter[0] != nullptr) {
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
    if (store) store->launch(s, mr, call);
  }
  counts.give_back(s, fn);
}

}  // namespace

namespace {

static_assert(static_cast<int>(restride_bound::first) == jit::store_bound::first &&
                  static_cast<int>(restride_bound::second) == jit::store_bound::second &&
                  static_cast<int>(restride_bound::rest) == jit::store_bound::rest,
              "a padded output's copy back is bounded as an output expression's store");

/// The types of `b` that padding would change (jit::paddable), as bits 0-2.
unsigned paddable_types(const jit_args& b) {
  unsigned bits = 0;
  for (int i = 0; i < 3; ++i) {
    if (b.types[i] != nullptr && jit::paddable(*b.types[i])) bits |= 1u << i;
  }
  return bits;
}

/// `b` with the types in `bits` replaced by their padded views.
jit_args with_padded_types(const jit_args& b, unsigned bits) {
  jit_args c = b;
  for (int i = 0; i < 3; ++i) {
    if ((bits >> i) & 1u) c.types[i] = &jit::padded_view(*b.types[i]);
  }
  return c;
}

/// The types to pad so that precompiled kernels serve the call: none (0) when its own request
/// is precompiled (the struct's own class, or the 8-byte-aligned one in aligned arrays) or no
/// padding finds a set; else all the paddable types, or the first alone whose padding does.
unsigned types_to_pad(const jit_args& b, unsigned paddable) {
  request_scratch own;
  if (jit::precompiled_request(b.call->request(b, own))) return 0;
  const auto serves = [&](unsigned bits) {
    request_scratch scratch;
    return jit::precompiled_request(b.call->request(with_padded_types(b, bits), scratch));
  };
  if (serves(paddable)) return paddable;
  for (int i = 0; i < 3; ++i) {
    const unsigned one = 1u << i;
    if ((paddable & one) != 0 && one != paddable && serves(one)) return one;
  }
  return 0;
}

/// Records of 4-byte fields whose own class has no precompiled set (a size that is not a
/// multiple of 8, or arrays off an 8-byte boundary): the arrays of those records are copied into
/// 8-byte-aligned temporaries of the next 8-byte size (zero-padded), the family runs on the class
/// of that size (only the operators compile: tens of milliseconds, not the seconds of kernels
/// compiled from source), and its outputs are copied back, bounded by the counts it wrote as an
/// output expression's store is. Returns false, having done nothing, where that does not apply:
/// plans and compile-only builds, operations that pad their records themselves or write them
/// where this layer cannot see (io.pads_records false: group_by), records given or taken as
/// expressions, arrays missing (the family reports them), or no set of the padded size.
bool run_padded(const jit_args& b, stream_ref s, memory_resource& mr) {
  const call_io& io = b.call->io;
  if (b.plan != nullptr || b.build_only || !io.pads_records) return false;
  const unsigned paddable = paddable_types(b);
  if (paddable == 0) return false;
  const auto pads = [](unsigned bits, int type) { return ((bits >> type) & 1u) != 0; };
  for (int k = 0; k < 2; ++k) {
    if (!pads(paddable, io.input_type[k])) continue;
    if (b.in_iter[k] != nullptr) return false;
    if (b.in[k] == nullptr && input_count(b, k) != 0) return false;
  }
  for (int k = 0; k < 3; ++k) {
    if (pads(paddable, io.output_type[k]) && b.out_iter[k] != nullptr) return false;
  }
  const unsigned bits = types_to_pad(b, paddable);
  if (bits == 0) return false;
  const char* fn = b.function;
  jit_args c = with_padded_types(b, bits);
  std::optional<temp_storage> inputs[2], outputs[3], init;
  for (int k = 0; k < 2; ++k) {
    const int t = io.input_type[k];
    const std::size_t count = input_count(b, k);
    if (!pads(bits, t) || count == 0) continue;
    require_size(fn, count, c.types[t]->size);
    inputs[k].emplace(mr, count * c.types[t]->size, s);
    restride(b.in[k], b.types[t]->size, inputs[k]->get(), c.types[t]->size, count, {}, s);
    c.in[k] = inputs[k]->get();
  }
  const std::size_t capacity = output_capacity(b);
  bool bounded = false;
  for (int k = 0; k < 3; ++k) {
    const int t = io.output_type[k];
    if (!pads(bits, t) || b.out[k] == nullptr || capacity == 0) continue;
    require_size(fn, capacity, c.types[t]->size);
    outputs[k].emplace(mr, capacity * c.types[t]->size, s);
    c.out[k] = outputs[k]->get();
    bounded = bounded || io.bound[k] != jit::store_bound::all;
    // The segmented scans leave the items outside every segment as the output held them.
    if (io.output_starts_as_input && k == 0) {
      restride(b.out[0], b.types[t]->size, c.out[0], c.types[t]->size, capacity, {}, s);
    }
  }
  // An initial value has the type of the first output (the scans by key, segmented_reduce).
  unsigned char padded_init[64] = {};
  const int init_type = io.output_type[0];
  if (pads(bits, init_type) && b.init != nullptr) {
    std::memcpy(padded_init, b.init, b.types[init_type]->size);
    c.init = padded_init;
  }
  if (pads(bits, init_type) && b.d_init != nullptr) {
    init.emplace(mr, c.types[init_type]->size, s);
    restride(b.d_init, b.types[init_type]->size, init->get(), c.types[init_type]->size, 1, {}, s);
    c.d_init = init->get();
  }
  // The copies back are bounded by the counts the family writes to the device.
  host_count_on_device counts;
  if (bounded && c.d_count == nullptr) {
    counts.take(c, io.count_words, mr, s);
    if (c.d_count == nullptr) throw_invalid_argument(fn, "the device count is null");
  }
  pending_inputs pending;
  pending.function = fn;
  route(c, s, mr, pending);
  for (int k = 0; k < 3; ++k) {
    if (!outputs[k]) continue;
    const int t = io.output_type[k];
    const restride_bound bound{static_cast<restride_bound::kind_t>(io.bound[k]), c.d_count};
    restride(c.out[k], c.types[t]->size, b.out[k], b.types[t]->size, capacity, bound, s);
  }
  counts.give_back(s, fn);
  return true;
}

/// The expression layer of a data-processing call (io), then the family's kernels.
void run_layered(const jit_args& a, stream_ref s, memory_resource& mr) {
  jit_args b = a;
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
  if (b.call->io.nonzero_flags && b.in_iter[1] != nullptr) {
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
  if (outputs && fuses_output(b)) return dispatch(b, s, mr);
  if (outputs) return with_output_expressions(b, s, mr);
  if (run_padded(b, s, mr)) return;
  pending_inputs pending;
  pending.function = a.function;
  route(b, s, mr, pending);
}

}  // namespace

// --- the table of operations ---------------------------------------------------------------------

#define CUPAR_JIT_CALL_DECLARE(name) extern const jit_call name##_jit_call;
CUPAR_JIT_CALLS(CUPAR_JIT_CALL_DECLARE)
#undef CUPAR_JIT_CALL_DECLARE

namespace {
const jit_call* const calls[] = {
#define CUPAR_JIT_CALL_ENTRY(name) &name##_jit_call,
    CUPAR_JIT_CALLS(CUPAR_JIT_CALL_ENTRY)
#undef CUPAR_JIT_CALL_ENTRY
};
}  // namespace

const jit_call* find_call(const char* name) {
  if (name == nullptr) return nullptr;
  for (const jit_call* c : calls) {
    if (std::strcmp(c->name, name) == 0) return c;
  }
  return nullptr;
}

const jit_call& jit_call_named(const char* name) {
  if (const jit_call* c = find_call(name)) return *c;
  throw_invalid_argument("cupar::jit", std::string("this library has no run-time operation '") +
                                           (name != nullptr ? name : "(null)") +
                                           "' (a header of another cupar version?)");
}

void jit_run(const jit_args& a, stream_ref s, memory_resource& mr) {
  if (a.call == nullptr) {
    throw_invalid_argument(a.function != nullptr ? a.function : "cupar::jit", "no operation");
  }
  const device_guard device(s);  // before any build: the JIT builds for the current device
  if (a.call->layered) return run_layered(a, s, mr);
  a.call->run(a, s, mr, nullptr);
}

}  // namespace cupar::detail
