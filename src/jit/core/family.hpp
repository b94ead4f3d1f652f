// cupar internal: what the run-time core knows about a family of kernel sets, in one record per
// family (src/jit/families/<family>.cu). The core (code generation, requests, the engine's
// links, the precompile tool, the build's set list) reads these records and names no family.
#pragma once

#include "kernel_set.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace cupar::detail::jit {

/// One family of kernel sets: the CUB (or cupar) kernels of one algorithm, the operator slots
/// they call, and the sets the library precompiles. Records are constants made with the
/// builders below, e.g.
///   extern const family_def unique_family =
///       family_def::make(family::unique, "unique", "cupar_select.cuh", 2, typedefs, slots, names)
///           .for_size_classes()
///           .precompiling(unique_rules);
struct family_def {
  using typedefs_fn = std::string (*)(const set_spec& set);
  using slots_fn = std::vector<slot_spec> (*)(const set_spec& set);
  using names_fn = std::vector<std::string> (*)(const set_spec& set);
  using occupancy_fn = std::vector<std::vector<std::string>> (*)(const set_spec& set,
                                                                 long long threads, int arch);
  using options_fn = std::vector<std::string> (*)(const set_spec& set, int arch);
  using position_fn = bool (*)(std::size_t i);
  using slot_type_fn = std::size_t (*)(std::size_t slot);

  family id{};
  /// The family's name in set keys ("reduce", "select_if", ...).
  const char* name = nullptr;
  /// The jit_ops header holding its device code (included after the typedefs and slots).
  const char* header = nullptr;
  /// Kernels (entry points) of a set; the metadata carrier comes after them.
  int kernels = 0;
  /// The `#define`s and typedefs (cupar_T, cupar_K, ...) its header expects, for `set`.
  typedefs_fn typedefs = nullptr;
  /// The operator slots of `set`, in the order callers bind operators to them.
  slots_fn slots = nullptr;
  /// NVRTC name expressions: the kernels in role order, then the metadata carrier.
  names_fn name_expressions = nullptr;
  /// Whether its kernels are compiled for size classes (the unsigned integer of each size, opaque
  /// storage for structs) whose bits the operators' wrappers reinterpret as the caller's types:
  /// the data-processing families. Otherwise the set's types are the caller's.
  bool size_classes = false;
  /// Link options tried in turn for the optimised (LTO) build, the first without spills kept
  /// (engine.cpp); `threads`: the first metadata value (the main kernel's block size). Null: none.
  occupancy_fn occupancy = nullptr;
  /// NVRTC options added to the compile of the set's out-of-line (tier-1) cubin for `arch`
  /// (tools/cupar_precompile.cpp), e.g. an occupancy target. Null: none. A kernel linked at a
  /// register target calls only functions within it: the family's operators are then compiled
  /// for its tier-1 builds with out_of_line_operator_options (engine.cpp), and the named
  /// operators' batched forms within out_of_line_registers.
  options_fn out_of_line_options = nullptr;
  /// NVRTC options added to the compile of the operators of a tier-1 build. Null: none.
  options_fn out_of_line_operator_options = nullptr;
  /// Whether the family's out-of-line (tier-1) kernels take the operators' parameters by
  /// reference: each functor holds the address of a device copy of them (cupar_op_ref,
  /// jit_ops/cupar_prelude.cuh) in place of the bytes, so CUB's copies of a functor stay in
  /// registers. Every parameter block a call of the family passes to its kernels then goes
  /// through kernel_states (calls.hpp), which writes that copy for a module that needs it.
  bool states_by_reference = false;
  /// Whether a user struct at type position `i` may be served by its struct class (opaque
  /// storage of its size and alignment) when that set was precompiled. Null: no position.
  position_fn struct_class_position = nullptr;
  /// Size-class families: the index of the request's type that slot `slot`'s arguments carry.
  /// Null: the first type.
  slot_type_fn slot_type = nullptr;
  /// The sets the library precompiles, as rules "precompile <loops>: <key pattern>" (read by
  /// CMake as well: cmake/cupar_sets.cmake; the rules' form is in precompiled_rules.hpp).
  const char* const* precompiled = nullptr;
  std::size_t precompiled_count = 0;

  static constexpr family_def make(family id, const char* name, const char* header, int kernels,
                                   typedefs_fn typedefs, slots_fn slots, names_fn names) {
    family_def d;
    d.id = id;
    d.name = name;
    d.header = header;
    d.kernels = kernels;
    d.typedefs = typedefs;
    d.slots = slots;
    d.name_expressions = names;
    return d;
  }
  constexpr family_def for_size_classes() const {
    family_def d = *this;
    d.size_classes = true;
    return d;
  }
  constexpr family_def with_occupancy(occupancy_fn f) const {
    family_def d = *this;
    d.occupancy = f;
    return d;
  }
  /// `set` for the set's tier-1 cubin, `op` for the operators a tier-1 build compiles.
  constexpr family_def with_out_of_line_options(options_fn set, options_fn op) const {
    family_def d = *this;
    d.out_of_line_options = set;
    d.out_of_line_operator_options = op;
    return d;
  }
  constexpr family_def taking_states_by_reference() const {
    family_def d = *this;
    d.states_by_reference = true;
    return d;
  }
  constexpr family_def with_struct_classes(position_fn f) const {
    family_def d = *this;
    d.struct_class_position = f;
    return d;
  }
  constexpr family_def with_slot_types(slot_type_fn f) const {
    family_def d = *this;
    d.slot_type = f;
    return d;
  }
  template <std::size_t N>
  constexpr family_def precompiling(const char* const (&rules)[N]) const {
    family_def d = *this;
    d.precompiled = rules;
    d.precompiled_count = N;
    return d;
  }
};

/// The record of `f`.
const family_def& describe(family f);
/// The record whose name is `name`, or null.
const family_def* find_family(const std::string& name);

/// The metadata carrier of the families whose headers define their launch values as cupar_m0,
/// cupar_m1, ... (constants of type long long): "cupar_meta<cupar_m0, ...>".
std::string meta_expression(int count);
/// The single operator slot of the families whose sets use their own element types:
/// cupar_jit_op(args...) -> result.
slot_spec op_slot(std::vector<type_ref> args, type_ref result, std::vector<const char*> names,
                  const char* what);
/// The output expression's store of the "+io" sets: element i (the value, of the set's type)
/// stored where the expression puts it; the int result is unused.
slot_spec store_slot(const type_ref& c);
/// The register target of the out-of-line kernels compiled for one (segmented reduce's), and so
/// the limit of the functions they call: the operators of those families' tier-1 builds and the
/// named operators' batched forms (a callee may not use more registers than its kernel).
inline constexpr int out_of_line_registers = 32;
/// "-maxrregcount=<registers>".
std::string register_limit(int registers);
/// "-Xptxas=--minnctapersm=<n>": as many blocks of `threads` per SM as `registers` per thread
/// allow (65,536 registers an SM).
std::string blocks_for_registers(long long threads, int registers);
/// Whether a set's first type is an arithmetic type (a size class of one) of 4 or 8 bytes and
/// `arch` is sm_90: the sets whose tier-1 kernels the stream compaction records cap.
bool sm90_words(const set_spec& s, int arch);
/// Whether the set is one of sm90_words' of 4-byte types: the families whose 8-byte forms run
/// other block sizes or spill under the 4-byte forms' cap.
bool sm90_four_byte_words(const set_spec& s, int arch);
/// Record options (out_of_line_options, out_of_line_operator_options) for the sets `Applies`
/// accepts, none for the others: a tier-1 kernel of `Threads` a block compiled for `Registers` a
/// thread, and the operators it calls within `OperatorRegisters` (a callee may not use more than
/// its kernel).
template <bool (*Applies)(const set_spec&, int), int Threads, int Registers>
std::vector<std::string> blocks_where(const set_spec& s, int arch) {
  if (!Applies(s, arch)) return {};
  return {blocks_for_registers(Threads, Registers)};
}
template <bool (*Applies)(const set_spec&, int), int OperatorRegisters>
std::vector<std::string> operators_where(const set_spec& s, int arch) {
  if (!Applies(s, arch)) return {};
  return {register_limit(OperatorRegisters)};
}
/// The same for the sets of sm90_words, and of sm90_four_byte_words.
template <int Threads, int Registers>
inline constexpr family_def::options_fn sm90_words_blocks =
    &blocks_where<sm90_words, Threads, Registers>;
template <int OperatorRegisters>
inline constexpr family_def::options_fn sm90_words_operators =
    &operators_where<sm90_words, OperatorRegisters>;
template <int Threads, int Registers>
inline constexpr family_def::options_fn sm90_four_byte_blocks =
    &blocks_where<sm90_four_byte_words, Threads, Registers>;
template <int OperatorRegisters>
inline constexpr family_def::options_fn sm90_four_byte_operators =
    &operators_where<sm90_four_byte_words, OperatorRegisters>;
/// Whether the set's variant is "index" or "io" (the input is an iterator expression), or one of
/// them with "_init" (the scans: seeded with an initial value).
inline bool reads_expression(const set_spec& s) {
  return s.variant == "index" || s.variant == "io" || s.variant == "index_init" ||
         s.variant == "io_init";
}
/// Whether the set's variant is "io" or "io_init" (the output is an expression too).
inline bool writes_expression(const set_spec& s) {
  return s.variant == "io" || s.variant == "io_init";
}
/// Whether the set's variant is "init", "index_init" or "io_init" (an inclusive scan seeded with
/// an initial value).
inline bool seeded(const set_spec& s) {
  return s.variant == "init" || s.variant == "index_init" || s.variant == "io_init";
}

}  // namespace cupar::detail::jit
