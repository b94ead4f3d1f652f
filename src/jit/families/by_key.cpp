// cupar families: the by-key algorithms (unique_by_key, run_length_encode, reduce_by_key,
// inclusive and exclusive scan_by_key). Device code: jit_ops/cupar_unique_by_key.cuh (CUB's own
// kernels), cupar_reduce_by_key.cuh (reduce_by_key and run-length encoding), cupar_scan_by_key.cuh.
// Size classes {K, V} (run_length_encode: {K, Count}). Variants: "wide" (64-bit offsets, for
// n >= 2^31; compiled from source at run time), "plus" (the named plus on a 4- or 8-byte
// arithmetic value type: cuda::std::plus<> compiled into the kernels, V the value type itself).
#include "../core/family.hpp"

namespace cupar::detail::jit {
namespace {

std::string typedefs(const set_spec& s) {
  std::string out;
  if (s.fam == family::scan_by_key_exclusive) out += "#define CUPAR_SCAN_BY_KEY_EXCLUSIVE 1\n";
  if (s.fam == family::run_length_encode) out += "#define CUPAR_RUN_LENGTH_ENCODE 1\n";
  if (s.variant == "wide") out += "#define CUPAR_BY_KEY_WIDE 1\n";  // 64-bit offsets
  if (s.variant == "plus") out += "#define CUPAR_BY_KEY_PLUS 1\n";  // V: the user's type
  return out + "typedef " + s.types[0].name + " cupar_K;\ntypedef " + s.types[1].name +
         " cupar_V;\n";
}

std::vector<slot_spec> equality_only(const set_spec& s) {
  return {equality_slot(s.types[0])};
}

/// The operator on the values, then the equality on the keys; "+plus": the equality alone.
std::vector<slot_spec> operator_and_equality(const set_spec& s) {
  if (s.variant == "plus") return {equality_slot(s.types[0])};  // cuda::std::plus<> compiled in
  return {binary_op_slot(s.types[1]), equality_slot(s.types[0])};
}

/// The operator works on values (type 1), the equality on keys (type 0).
std::size_t operator_and_equality_type(std::size_t slot) {
  return slot == 0 ? 1 : 0;
}

std::vector<std::string> unique_by_key_names(const set_spec&) {
  // CUB's own kernels (NVRTC-safe headers in 3.0.1).
  return {"cub::detail::scan::DeviceCompactInitKernel<cupar_tile_state, cupar_num_selected_out>",
          "cub::detail::unique_by_key::DeviceUniqueByKeySweepKernel<cupar_policy, "
          "const cupar_K*, const cupar_V*, cupar_K*, cupar_V*, cupar_num_selected_out, "
          "cupar_tile_state, cupar_unique_by_key_eq, cupar_offset>",
          meta_expression(4)};
}

std::vector<std::string> reduce_by_key_names(const set_spec&) {
  return {"cupar_reduce_by_key_init", "cupar_reduce_by_key_sweep", meta_expression(6)};
}

std::vector<std::string> scan_by_key_names(const set_spec&) {
  return {"cupar_scan_by_key_init", "cupar_scan_by_key_sweep", meta_expression(5)};
}

// Keys and values of every pair of size classes (16 sets per family), and run-length encoding of
// every key class with 4- and 8-byte counts. The default equality is the precompiled named
// equal_to of the key type, linked to the class's kernels, so calls with no operator, or named
// ones, compile nothing. unique_by_key, reduce_by_key and run_length_encode count with 32-bit
// offsets below 2^31 items (64-bit ones ran 1.2-1.8x slower, H100); their "+wide" variants are
// compiled from source at run time. Struct values (accumulators such as (count, sum, min, max))
// of the data-processing struct classes, with 4- and 8-byte keys.
const char* const unique_by_key_rules[] = {
    "precompile k=classes v=classes: unique_by_key<$k,$v>",
    "precompile k=u32|u64 s=dp_structs: unique_by_key<$k,$s>",
};

const char* const run_length_encode_rules[] = {
    "precompile k=classes n=u32|u64: run_length_encode<$k,$n>",
};

// The "+plus" sets: 4- and 8-byte keys, 4- and 8-byte arithmetic values. cuda::std::plus<> is
// what the compiled path hands CUB and the only operator for which CUB's reduce-by-key agent
// takes its identity-zero scan. Other named operators, other sizes and snippets use the generic
// sets.
const char* const reduce_by_key_rules[] = {
    "precompile k=classes v=classes: reduce_by_key<$k,$v>",
    "precompile k=u32|u64 v=i32|u32|f32|i64|u64|f64: reduce_by_key<$k,$v>+plus",
    "precompile k=u32|u64 s=dp_structs: reduce_by_key<$k,$s>",
};

const char* const scan_by_key_inclusive_rules[] = {
    "precompile k=classes v=classes: scan_by_key_inclusive<$k,$v>",
    "precompile k=u32|u64 v=i32|u32|f32|i64|u64|f64: scan_by_key_inclusive<$k,$v>+plus",
    "precompile k=u32|u64 s=dp_structs: scan_by_key_inclusive<$k,$s>",
};

const char* const scan_by_key_exclusive_rules[] = {
    "precompile k=classes v=classes: scan_by_key_exclusive<$k,$v>",
    "precompile k=u32|u64 v=i32|u32|f32|i64|u64|f64: scan_by_key_exclusive<$k,$v>+plus",
    "precompile k=u32|u64 s=dp_structs: scan_by_key_exclusive<$k,$s>",
};

}  // namespace

extern const family_def unique_by_key_family =
    family_def::make(family::unique_by_key, "unique_by_key", "cupar_unique_by_key.cuh", 2, typedefs,
                     equality_only, unique_by_key_names)
        .for_size_classes()
        .precompiling(unique_by_key_rules);

extern const family_def run_length_encode_family =
    family_def::make(family::run_length_encode, "run_length_encode", "cupar_reduce_by_key.cuh", 2,
                     typedefs, equality_only, reduce_by_key_names)
        .for_size_classes()
        .precompiling(run_length_encode_rules);

extern const family_def reduce_by_key_family =
    family_def::make(family::reduce_by_key, "reduce_by_key", "cupar_reduce_by_key.cuh", 2, typedefs,
                     operator_and_equality, reduce_by_key_names)
        .for_size_classes()
        .with_slot_types(operator_and_equality_type)
        .precompiling(reduce_by_key_rules);

extern const family_def scan_by_key_inclusive_family =
    family_def::make(family::scan_by_key_inclusive, "scan_by_key_inclusive",
                     "cupar_scan_by_key.cuh", 2, typedefs, operator_and_equality, scan_by_key_names)
        .for_size_classes()
        .with_slot_types(operator_and_equality_type)
        .precompiling(scan_by_key_inclusive_rules);

extern const family_def scan_by_key_exclusive_family =
    family_def::make(family::scan_by_key_exclusive, "scan_by_key_exclusive",
                     "cupar_scan_by_key.cuh", 2, typedefs, operator_and_equality, scan_by_key_names)
        .for_size_classes()
        .with_slot_types(operator_and_equality_type)
        .precompiling(scan_by_key_exclusive_rules);

}  // namespace cupar::detail::jit
