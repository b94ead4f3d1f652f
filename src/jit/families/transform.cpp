// cupar family: transform of one or two inputs (CUB's transform kernel). Device code:
// jit_ops/cupar_transform.cuh. Types: transform_unary {In, Out}; transform_binary {A, B, Out}.
// Transforms over iterator or output expressions, and of type mixes without a set here, run on
// the for_each family.
#include "../core/family.hpp"

namespace cupar::detail::jit {
namespace {

std::string unary_typedefs(const set_spec& s) {
  return "typedef " + s.types[0].name + " cupar_In;\ntypedef " + s.types[1].name + " cupar_Out;\n";
}

std::string binary_typedefs(const set_spec& s) {
  return "#define CUPAR_TRANSFORM_BINARY 1\ntypedef " + s.types[0].name + " cupar_A;\ntypedef " +
         s.types[1].name + " cupar_B;\ntypedef " + s.types[2].name + " cupar_Out;\n";
}

std::vector<slot_spec> unary_slots(const set_spec& s) {
  return {op_slot({s.types[0]}, s.types[1], {"x"}, "operator")};
}

std::vector<slot_spec> binary_slots(const set_spec& s) {
  return {op_slot({s.types[0], s.types[1]}, s.types[2], {"a", "b"}, "operator")};
}

std::vector<std::string> names(const set_spec& set) {
  const std::string ins =
      set.fam == family::transform_unary ? "const cupar_In*" : "const cupar_A*, const cupar_B*";
  return {
      "cub::detail::transform::transform_kernel<cupar_policy, cupar_offset, "
      "cupar_transform_op, cupar_Out*, " +
          ins + ">",
      "cupar_meta<(long long)cupar_active::algorithm, "
      "(long long)cupar_active::algo_policy::block_threads, "
      "(long long)cupar_active::algo_policy::min_items_per_thread, "
      "(long long)cupar_active::algo_policy::max_items_per_thread, "
      "(long long)cupar_active::min_bif, "
      "(long long)cub::detail::transform::loaded_bytes_per_iteration<" +
          ins + ">()>"};
}

/// Every type: a record to a record of the same class, a record to an f32 or f64 ...
bool struct_position(std::size_t) {
  return true;
}

const char* const unary_rules[] = {
    "precompile t=types: transform_unary<$t,$t>",
    // Records: a record to a record of the same class, to an f32 or f64 (a field, a derived
    // value: the common projections), an f32 to a record. Other mixes compile from source once.
    "precompile s=structs: transform_unary<$s,$s>",
    "precompile s=structs o=f32|f64: transform_unary<$s,$o>",
    "precompile s=structs: transform_unary<f32,$s>",
};

const char* const binary_rules[] = {
    "precompile t=types: transform_binary<$t,$t,$t>",
};

}  // namespace

extern const family_def transform_unary_family =
    family_def::make(family::transform_unary, "transform_unary", "cupar_transform.cuh", 1,
                     unary_typedefs, unary_slots, names)
        .with_struct_classes(struct_position)
        .precompiling(unary_rules);

extern const family_def transform_binary_family =
    family_def::make(family::transform_binary, "transform_binary", "cupar_transform.cuh", 1,
                     binary_typedefs, binary_slots, names)
        .with_struct_classes(struct_position)
        .precompiling(binary_rules);

}  // namespace cupar::detail::jit
