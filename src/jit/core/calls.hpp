// cupar internal: the data-processing families' library entry (jit_data_processing) hands each
// call to its family's file (select_call.cpp, by_key_call.cpp, segmented_call.cpp,
// binary_search_call.cpp).
#pragma once

#include "iterator_expr.hpp"
#include "request.hpp"

#include <cupar/detail/jit_entry.hpp>
#include <cupar/jit_iterator.hpp>
#include <cupar/memory.hpp>
#include <cupar/stream.hpp>

namespace cupar::detail {

/// The kernel set family serving an operation.
jit::family family_of(dp_op what);

/// The JIT request of a data-processing operation on the caller's types with the caller's
/// operators (null: the slot's default). `in_place`: select_if / select_flagged writing over
/// their input.
jit::set_request dp_request(dp_op what, const jit_type* const types[2],
                            const cupar::jit::op* const ops[2], bool in_place);

/// A pass of the "for_each" set over n indices with its generated slot, resolved (compiled and
/// linked: a jit_error for a malformed snippet) by prepare_for_each, so that it can be prepared
/// before an algorithm runs and launched after it (the output expressions' store passes).
struct for_each_pass {
  jit::for_each_op apply;
  std::size_t n = 0;
  jit::resolved module;  // empty when n == 0
  /// Queues the pass on `s`; `call` names it in errors.
  void launch(stream_ref s, const char* call) const;
};
for_each_pass prepare_for_each(jit::for_each_op apply, std::size_t n, const char* fn);

/// Writes the first n elements of the iterator expression `in`, converted to `t`, to the device
/// array `dst` in one pass of the "for_each" set (only the expression's code is compiled;
/// families/for_each_call.cpp). For families whose kernels take arrays where the caller gave an
/// expression.
void materialize(const cupar::jit::iterator& in, const jit_type& t, void* dst, std::size_t n,
                 stream_ref s, const char* fn);

/// Runs transform through the "for_each" set: `arity` input expressions, an output expression
/// (families/for_each_call.cpp); the transforms without CUB transform sets, and the histograms'
/// sample operators on types without histogram sets.
void run_apply(const char* fn, int arity, const cupar::jit::iterator* const* in,
               const cupar::jit::output& out, std::size_t n, const cupar::jit::op& op,
               stream_ref s);

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
  void write(stream_ref s) const;
};
/// Called by the families after their checks: writes the pending expression inputs, if any.
inline void write_pending(const pending_inputs* p, stream_ref s) {
  if (p != nullptr) p->write(s);
}

/// Whether the kernels of `what` read an iterator expression themselves (select_if, partition,
/// unique: the "+index" stream compaction sets); the other families' kernels take arrays.
inline bool reads_expressions(dp_op what) {
  return what == dp_op::select_if || what == dp_op::partition || what == dp_op::unique;
}

/// select_if, partition and unique: an expression input (a.in_iter[0]) is read by the kernels of
/// the "+index" sets, fused; the other families get their expressions materialised first. An
/// output expression left in a.out_iter[0] (by the fused-output route only) is stored through by
/// the kernels of the "+io" sets.
void call_select(const jit_dp_args& a, stream_ref s, memory_resource& mr,
                 const pending_inputs* pending = nullptr);
/// The request of select_if, partition or unique reading the iterator expression whose generated
/// code is `loader` (the "+index" sets: the expression in the first slot, anchoring the cache, the
/// family's operator after it); with `store`, the generated store of an output expression, the
/// "+io" sets (the store in the last slot).
jit::set_request dp_expression_request(dp_op what, const jit_type* const types[2],
                                       const cupar::jit::op* const ops[2],
                                       const cupar::jit::op& loader,
                                       const cupar::jit::op* store = nullptr);
void call_three_way(const jit_dp_args& a, stream_ref s, memory_resource& mr,
                    const pending_inputs* pending = nullptr);
void call_by_key(const jit_dp_args& a, stream_ref s, memory_resource& mr,
                 const pending_inputs* pending = nullptr);
void call_segmented(const jit_dp_args& a, stream_ref s, memory_resource& mr,
                    const pending_inputs* pending = nullptr);
void call_search(const jit_dp_args& a, stream_ref s, memory_resource& mr,
                 const pending_inputs* pending = nullptr);

}  // namespace cupar::detail
