// cupar internal: what the families' library entries share: the data-processing request, the
// "for_each" passes (families/for_each.cu) and the inputs the expression layer (entry.cpp) leaves
// for a family to write after its argument checks.
#pragma once

#include "iterator_expr.hpp"
#include "request.hpp"

#include <cupar/detail/jit_entry.hpp>
#include <cupar/detail/temp_storage.hpp>
#include <cupar/jit_iterator.hpp>
#include <cupar/memory.hpp>
#include <cupar/stream.hpp>

#include <array>
#include <atomic>
#include <cstddef>
#include <initializer_list>
#include <optional>

namespace cupar::detail {
namespace jit {
class loaded_module;
}

/// The request of a data-processing call on the caller's types with the caller's operators
/// (null: the slot's default): the call's family, types[0..1], ops[0..1]. `in_place`: select_if /
/// select_flagged writing over their input.
jit::set_request dp_request(const jit_args& a, bool in_place);
/// Whether a call on arrays (not a compile-only build or a plan; arrays may be null when it has
/// no elements) with a struct of alignment below 8 and a size a multiple of 8 among its types
/// has every array (inputs, outputs, a device initial value) 8-byte aligned: its requests may
/// then take the 8-byte-aligned class (set_request::aligned8).
bool arrays_aligned8(const jit_args& a);
/// dp_request of a "+index" set: the generated operator `loader` of an input expression in the
/// first slot (it anchors the cache), the call's operators after it.
jit::set_request dp_index_request(const jit_args& a, const cupar::jit::op& loader);

/// Whether the library precompiled the set `set` names, looked up once per `slot` (0: not yet
/// looked up, 1: not precompiled, 2: precompiled; static storage starts at zero).
bool precompiled_once(std::atomic<unsigned char>& slot, const jit::set_spec& set);

/// A pass of the "for_each" set over n indices with its generated slot, resolved (compiled and
/// linked: a jit_error for a malformed snippet) by prepare_for_each, so that it can be prepared
/// before an algorithm runs and launched after it (the output expressions' store passes).
struct for_each_pass {
  jit::for_each_op apply;
  std::size_t n = 0;
  jit::resolved module;  // empty when n == 0
  /// Queues the pass on `s` (a wide expression state's device copy from `mr`); `call` names it
  /// in errors.
  void launch(stream_ref s, memory_resource& mr, const char* call) const;
};

/// The device copy of an iterator expression's wide state (an operator whose state is wider
/// than cupar::jit::max_param_bytes, up to max_expression_state_bytes) for one call: allocated
/// from `mr`, written on `s` by a one-block kernel whose parameters carry the bytes (so that a
/// graph captured from the stream holds them, not a host pointer), its address put in the
/// operator's parameter bytes; freed stream-ordered when this ends, after the kernels the call
/// queued. Nothing for other operators or an empty one. Throws cupar::out_of_memory or
/// cupar::cuda_error.
class placed_state {
 public:
  placed_state(std::optional<cupar::jit::op>& op, stream_ref s, memory_resource& mr);
  placed_state(const placed_state&) = delete;
  placed_state& operator=(const placed_state&) = delete;

 private:
  std::optional<temp_storage> mem_;
};
for_each_pass prepare_for_each(jit::for_each_op apply, std::size_t n, const char* fn);

/// The parameter blocks a call passes to the kernels of module `m` for its operators' states
/// (`states`: each one's cupar::jit::max_param_bytes bytes, or null; at most max_states): the
/// blocks themselves where the kernels hold them by value; where they take them by reference (a
/// tier-1 build of a family with family_def::states_by_reference), a device copy of all of them
/// from `mr`, written on `s` by a one-block kernel whose parameters carry the bytes (so that a
/// graph captured from the stream holds them, not a host pointer), and blocks holding their
/// addresses (cupar_op_ref, jit_ops/cupar_prelude.cuh). The copy is freed stream-ordered when
/// this ends, after the kernels the call queued: make it after any placed_state of the same
/// operators (their blocks then hold the wide state's address) and before the launches. Throws
/// cupar::out_of_memory or cupar::cuda_error.
class kernel_states {
 public:
  static constexpr std::size_t max_states = 4;
  kernel_states(const jit::loaded_module& m, std::initializer_list<const void*> states,
                stream_ref s, memory_resource& mr);
  kernel_states(const kernel_states&) = delete;
  kernel_states& operator=(const kernel_states&) = delete;
  /// The block to pass for states[i] (null where that was null).
  const void* operator[](std::size_t i) const { return blocks_[i]; }

 private:
  struct alignas(16) reference_block {
    unsigned char bytes[cupar::jit::max_param_bytes];
  };
  std::array<const void*, max_states> blocks_{};
  std::array<reference_block, max_states> references_{};
  std::optional<temp_storage> mem_;
};

/// Runs `run(b)` with b = a but its output expression out_iter[0] replaced by a temporary array
/// of n elements of `t` (out[0]), then stores the temporary through the expression in one
/// "for_each" pass, prepared before `run` (a store that does not compile throws before anything
/// runs). For a family's output written whole (reduce's result, a scan whose output overlaps its
/// input).
template <class Run>
void through_output_temporary(const jit_args& a, const jit_type& t, std::size_t n, stream_ref s,
                              memory_resource& mr, Run&& run) {
  temp_storage values(mr, n * t.size, s);
  const for_each_pass stored =
      prepare_for_each(jit::bounded_store_op(values.get(), t, *a.out_iter[0], n, jit::store_bound{},
                                             true, a.function),
                       n, a.function);
  jit_args b = a;
  b.out_iter[0] = nullptr;
  b.out[0] = values.get();
  run(b);
  stored.launch(s, mr, "cupar: an output expression stored (run-time operator)");
}

/// Writes the first n elements of the iterator expression `in`, converted to `t`, to the device
/// array `dst` in one pass of the "for_each" set (only the expression's code is compiled;
/// families/for_each.cu). For families whose kernels take arrays where the caller gave an
/// expression.
void materialize(const cupar::jit::iterator& in, const jit_type& t, void* dst, std::size_t n,
                 stream_ref s, memory_resource& mr, const char* fn);

/// Runs transform through the "for_each" set: `arity` input expressions, an output expression
/// (families/for_each.cu); the transforms without CUB transform sets, and the histograms'
/// sample operators on types without histogram sets.
void run_apply(const char* fn, int arity, const cupar::jit::iterator* const* in,
               const cupar::jit::output& out, std::size_t n, const cupar::jit::op& op, stream_ref s,
               memory_resource& mr);

/// Inputs of a call whose family's kernels take arrays, still to be written to the temporary
/// arrays (already in the call's in[] / offsets) that stand for them: iterator expressions
/// (slots 0 and 1: the inputs; 2 and 3: the begin / end offsets) or a copy of an array (a
/// segmented scan into an output expression scans a copy of its input in place). write() runs
/// them; each family calls it after its argument checks and before any build or launch, so that
/// bad arguments are refused before anything runs.
struct pending_inputs {
  struct input {
    const cupar::jit::iterator* expression = nullptr;
    const void* copy = nullptr;  // an array copied instead (no expression)
    void* dst = nullptr;
    const jit_type* type = nullptr;
    std::size_t count = 0;
  };
  input slot[4];
  const char* function = nullptr;
  void write(stream_ref s, memory_resource& mr) const;
};
/// Called by the families after their checks: writes the pending expression inputs, if any.
inline void write_pending(const pending_inputs* p, stream_ref s, memory_resource& mr) {
  if (p != nullptr) p->write(s, mr);
}

}  // namespace cupar::detail
