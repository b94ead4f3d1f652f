// cupar family: stream compaction (select_if, select_flagged, partition_if, unique). Device code:
// jit_ops/cupar_select.cuh, one header whose CUPAR_SELECT_MODE picks the family. Size classes:
// select_if, partition_if, unique {T}; select_flagged {T, Flag}. Variants: "inplace" (select_if,
// select_flagged: the output is the input), "index" (the input is an iterator expression read by
// the kernels, cupar_expr_input.cuh), "io" (the output too, cupar_expr_output).
#include "../core/family.hpp"

namespace cupar::detail::jit {
namespace {

std::string typedefs(const set_spec& s) {
  const int mode = s.fam == family::select_if        ? 0
                   : s.fam == family::select_flagged ? 1
                   : s.fam == family::unique         ? 2
                                                     : 3;
  std::string out = "#define CUPAR_SELECT_MODE " + std::to_string(mode) + "\n";
  if (s.variant == "inplace") out += "#define CUPAR_SELECT_IN_PLACE 1\n";
  if (reads_expression(s)) out += "#define CUPAR_INDEX_INPUT 1\n";
  if (s.variant == "io") out += "#define CUPAR_INDEX_OUTPUT 1\n";
  out += "typedef " + s.types[0].name + " cupar_T;\n";
  if (s.fam == family::select_flagged) out += "typedef " + s.types[1].name + " cupar_F;\n";
  return out;
}

/// The family's own slot after the expression's loader ("+index", "+io") and before the output
/// expression's store ("+io").
std::vector<slot_spec> with_expressions(const set_spec& s, slot_spec own) {
  if (s.variant == "index") return {expression_slot(s.types[0]), own};
  if (s.variant == "io") return {expression_slot(s.types[0]), own, store_slot(s.types[0])};
  return {own};
}

std::vector<slot_spec> predicate_slots(const set_spec& s) {
  return with_expressions(s, predicate_slot(s.types[0], 1));
}

std::vector<slot_spec> unique_slots(const set_spec& s) {
  return with_expressions(s, equality_slot(s.types[0]));
}

std::vector<slot_spec> no_slots(const set_spec&) {
  return {};
}

std::vector<std::string> names(const set_spec&) {
  return {"cupar_select_init", "cupar_select_sweep", meta_expression(3)};
}

/// Partition of 4-byte items (sm_90, ptxas -v, compile only): the compiled path's sweep kernel
/// gets 48 registers (5 blocks of 256 threads per SM), the LTO build 64 (4 blocks); it ran at
/// 0.94-0.95 of CUB at 2^24..2^28 on the H100 (2026-11-23). --minnctapersm reaches 48 without
/// spills. Metadata: {threads, items, vsmem}.
std::vector<std::vector<std::string>> partition_occupancy(const set_spec& s, long long threads,
                                                          int arch) {
  if (arch != 90 || s.types.empty() || s.types[0].size != 4) return {};
  return {{blocks_for_registers(threads, 48)}};
}

const char* const select_if_rules[] = {
    "precompile c=classes: select_if<$c>",
    "precompile c=classes: select_if<$c>+inplace",
    // "+index": a run-time iterator expression read by the kernels, fused; "+io": into an output
    // expression (transform_output, discard, ...), stored by the kernels as they compact.
    "precompile c=classes: select_if<$c>+index",
    "precompile c=classes: select_if<$c>+io",
    // Records filtered: a precompiled set of the struct's class serves every struct of it.
    "precompile s=dp_structs: select_if<$s>",
    "precompile s=dp_structs: select_if<$s>+inplace",
    "precompile s=dp_structs: select_if<$s>+index",
    "precompile s=dp_structs: select_if<$s>+io",
};

const char* const select_flagged_rules[] = {
    "precompile c=classes f=u8|u32: select_flagged<$c,$f>",
    "precompile c=classes f=u8|u32: select_flagged<$c,$f>+inplace",
};

const char* const partition_if_rules[] = {
    "precompile c=classes: partition_if<$c>",
    "precompile c=classes: partition_if<$c>+index",
    "precompile c=classes: partition_if<$c>+io",
    "precompile s=dp_structs: partition_if<$s>",
    "precompile s=dp_structs: partition_if<$s>+index",
    "precompile s=dp_structs: partition_if<$s>+io",
};

const char* const unique_rules[] = {
    "precompile c=classes: unique<$c>",
    "precompile c=classes: unique<$c>+index",
    "precompile c=classes: unique<$c>+io",
    "precompile s=dp_structs: unique<$s>",
};

}  // namespace

extern const family_def select_if_family =
    family_def::make(family::select_if, "select_if", "cupar_select.cuh", 2, typedefs,
                     predicate_slots, names)
        .for_size_classes()
        .precompiling(select_if_rules);

extern const family_def select_flagged_family =
    family_def::make(family::select_flagged, "select_flagged", "cupar_select.cuh", 2, typedefs,
                     no_slots, names)
        .for_size_classes()
        .precompiling(select_flagged_rules);

extern const family_def partition_if_family =
    family_def::make(family::partition_if, "partition_if", "cupar_select.cuh", 2, typedefs,
                     predicate_slots, names)
        .for_size_classes()
        .with_occupancy(partition_occupancy)
        .precompiling(partition_if_rules);

extern const family_def unique_family =
    family_def::make(family::unique, "unique", "cupar_select.cuh", 2, typedefs, unique_slots, names)
        .for_size_classes()
        .precompiling(unique_rules);

}  // namespace cupar::detail::jit
