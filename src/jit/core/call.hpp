// cupar internal: a library operation's record. Each family's file (src/jit/families/<family>.cu)
// defines the records of the operations its kernels serve ("reduce", "select_if", "lower_bound",
// ...); the table of them (entry.cpp) is made from those files, and jit_run, jit_compile and
// plans ask the record, never a family by name.
#pragma once

#include "calls.hpp"
#include "iterator_expr.hpp"
#include "request.hpp"

#include <cupar/detail/jit_entry.hpp>
#include <cupar/jit.hpp>
#include <cupar/memory.hpp>
#include <cupar/stream.hpp>

#include <optional>

namespace cupar::detail {

/// What a build request of a compile-only build or a plan keeps alive: the operators generated
/// for its expressions (request() fills them and points the request at them).
struct request_scratch {
  std::optional<cupar::jit::op> loader, store;
};

/// How jit_run's expression layer sees an operation's arrays, for the operations whose kernels
/// take arrays where the caller may give expressions (the data-processing operations): inputs
/// given as expressions are written to temporary arrays first, outputs given as expressions are
/// written to temporaries and stored through them after the kernels (entry.cpp).
struct call_io {
  signed char input_type[2] = {0, 1};  // which of jit_args::types input k's elements are
  bool input_m[2] = {false, false};    // input k has m elements (else n)
  signed char output_type[3] = {0, 0, 0};
  bool output_m = false;          // the outputs have room for m elements (else n)
  unsigned char count_words = 0;  // counts the call writes to d_count (0: none)
  /// Which of its elements an output's store pass writes (the counts bound them on the device).
  jit::store_bound::kind_t bound[3] = {jit::store_bound::all, jit::store_bound::all,
                                       jit::store_bound::all};
  /// The kernels read an input expression themselves ("+index" sets) and store through an output
  /// expression ("+io" sets) where one is precompiled: run() gets them as given.
  bool reads_expressions = false;
  /// Input k given as an expression reaches run() as the expression (the other inputs' are
  /// written to temporaries first): the family's kernels read it ("+index" sets, where the set is
  /// precompiled) or the family writes it to a temporary itself (materialize, calls.hpp), as it
  /// chooses per call (reduce_by_key's and group_by's values, select_flagged's items).
  bool reads_input[2] = {false, false};
  /// The kernels leave some outputs unwritten (segmented scans: items outside every segment): an
  /// output expression's temporary starts as a copy of the input, scanned in place.
  bool output_starts_as_input = false;
  /// Input 1 holds flags tested for non-zero (an expression is written as bytes of `x != 0`).
  bool nonzero_flags = false;
  /// Records of 4-byte fields whose own class has no set may be padded around the call
  /// (entry.cpp's run_padded: the arrays in a.in and a.out, an initial value); false for an
  /// operation that writes such records where the layer cannot see (group_by's outputs, sized
  /// in the call: it pads its values itself).
  bool pads_records = true;
};

/// One library operation. A family file defines each of its operations with the builders
/// (docs/ADDING_A_FAMILY.md):
///   extern const jit_call <name>_jit_call =
///       jit_call::make("<name>", family::<family>, <run>, <request>).with_io(<shape>);
struct jit_call {
  using run_fn = void (*)(const jit_args&, stream_ref, memory_resource&, const pending_inputs*);
  using request_fn = jit::set_request (*)(const jit_args&, request_scratch&);
  using served_fn = bool (*)(const jit::set_request&, const cupar::jit::op&);

  const char* name;  // as the public headers name it (jit_call_named)
  jit::family fam;   // the family whose kernels serve it
  /// Runs a call on the stream's device (current when it is called). With `layered`, the
  /// expression layer has already made plain arrays of what the kernels take as arrays, and
  /// `pending` holds the expression inputs still to be written (write_pending, after the
  /// argument checks); otherwise `pending` is null and the call takes its arguments as given.
  void (*run)(const jit_args& a, stream_ref s, memory_resource& mr, const pending_inputs* pending);
  /// The build request of a compile-only build or a plan (arrays may be null): the caller's
  /// types, operators and expressions. Throws std::invalid_argument for arguments the operation
  /// refuses.
  jit::set_request (*request)(const jit_args& a, request_scratch& scratch);
  /// Whether a plan's calls are served by the library without the JIT (named operators on
  /// arithmetic types); null: never.
  bool (*served_by_library)(const jit::set_request& r, const cupar::jit::op& op) = nullptr;
  /// jit_run applies the expression layer (io) before run().
  bool layered = false;
  call_io io{};

  /// An operation whose entry takes its arguments as given.
  static constexpr jit_call make(const char* name, jit::family fam, run_fn run,
                                 request_fn request) {
    return jit_call{name, fam, run, request};
  }
  /// ... whose plans of named operators the compiled library serves.
  constexpr jit_call served_by(served_fn served) const {
    jit_call c = *this;
    c.served_by_library = served;
    return c;
  }
  /// ... behind the expression layer, with the shape `io`.
  constexpr jit_call with_io(call_io shape) const {
    jit_call c = *this;
    c.layered = true;
    c.io = shape;
    return c;
  }
};

/// The request() of a data-processing operation on arrays: dp_request (calls.hpp).
inline jit::set_request dp_compile_request(const jit_args& a, request_scratch&) {
  return dp_request(a, false);
}

/// served_by_library of reduce and the scans: a named operator the compiled library has for the
/// request's arithmetic type (compiled/named_ops.hpp).
bool named_on_arithmetic(const jit::set_request& r, const cupar::jit::op& op);

/// The record of the operation `name`, or null.
const jit_call* find_call(const char* name);

/// The expression layer's shapes of the data-processing operations.
/// One input (items or keys), its output(s) of the same type.
constexpr call_io io_of_items() {
  return call_io{};
}
/// A compaction: one output of the items, a count bounding it (select, unique).
constexpr call_io io_of_compaction(bool reads_expressions) {
  call_io io{};
  io.count_words = 1;
  io.bound[0] = jit::store_bound::first;
  io.reads_expressions = reads_expressions;
  io.reads_input[0] = reads_expressions;
  return io;
}

}  // namespace cupar::detail
