// cupar family: reduce, and reduce(transform(x)) (CUB's reduce kernels with a transform applied
// after the loads, DispatchTransformReduce). Device code: jit_ops/cupar_reduce.cuh.
// Types: reduce {T}; transform_reduce {In, Acc} (the transform In -> Acc, then the reduction
// Acc x Acc -> Acc). "+index" (transform_reduce<u64, T>): the input is an iterator expression;
// the kernels read indices and the first slot computes each element.
#include "../core/family.hpp"

namespace cupar::detail::jit {
namespace {

std::string typedefs(const set_spec& s) {
  return "typedef " + s.types[0].name + " cupar_T;\n";
}

std::string transform_reduce_typedefs(const set_spec& s) {
  std::string out;
  // "+index": the kernels read indices (cupar_index_iterator) and the first slot, an iterator
  // expression (iterator.cpp), computes the element of each.
  if (s.variant == "index") out += "#define CUPAR_INDEX_INPUT 1\n";
  return out + "#define CUPAR_TRANSFORM_REDUCE 1\ntypedef " + s.types[0].name +
         " cupar_In;\ntypedef " + s.types[1].name + " cupar_T;\n";
}

std::vector<slot_spec> slots(const set_spec& s) {
  const auto& t = s.types;
  return {op_slot({t[0], t[0]}, t[0], {"a", "b"}, "operator")};
}

std::vector<slot_spec> transform_reduce_slots(const set_spec& s) {
  const auto& t = s.types;
  // The transform first: its operator holds the cache the build is found in, so the build lives
  // as long as the transform (usually a snippet), while the reduction (often the named plus,
  // alive for the whole program) is only kept alive by it.
  if (s.variant == "index") {
    return {{"cupar_jit_xform", "iterator expression", {t[0]}, t[1], {"cupar_i"}},
            op_slot({t[1], t[1]}, t[1], {"a", "b"}, "operator")};
  }
  return {{"cupar_jit_xform", "transform", {t[0]}, t[1], {"x"}},
          op_slot({t[1], t[1]}, t[1], {"a", "b"}, "operator")};
}

std::vector<std::string> names(const set_spec& set) {
  // transform_reduce: the first two kernels load cupar_In and apply the transform; the second
  // pass reduces the partial results (accumulators) as reduce's does. "+index": they read
  // indices, which the first slot turns into elements.
  const bool transformed = set.fam == family::transform_reduce;
  const std::string in = !transformed             ? "const cupar_T*"
                         : set.variant == "index" ? "cupar_index_iterator"
                                                  : "const cupar_In*";
  const std::string xform = transformed ? "cupar_transform_op" : "::cuda::std::__identity";
  return {"cub::detail::reduce::DeviceReduceSingleTileKernel<cupar_policy, " + in +
              ", cupar_T*, cupar_offset, cupar_reduce_op, cupar_T, cupar_T, " + xform + ">",
          "cub::detail::reduce::DeviceReduceKernel<cupar_policy, " + in +
              ", cupar_offset, cupar_reduce_op, cupar_T, " + xform + ">",
          "cub::detail::reduce::DeviceReduceSingleTileKernel<cupar_policy, cupar_T*, cupar_T*, "
          "int, cupar_reduce_op, cupar_T, cupar_T, ::cuda::std::__identity>",
          "cupar_meta<(long long)cupar_active::ReducePolicy::BLOCK_THREADS, "
          "(long long)cupar_active::ReducePolicy::ITEMS_PER_THREAD, "
          "(long long)cupar_active::SingleTilePolicy::BLOCK_THREADS, "
          "(long long)cupar_active::SingleTilePolicy::ITEMS_PER_THREAD>"};
}

/// The JIT kernels count with 64-bit offsets (one set for every n); ptxas gives CUB's i32 reduce
/// kernel (256 threads) 40 registers with them (6 blocks per SM) and 32 with the 32-bit offsets
/// the compiled path uses below 2^31 (8 blocks); the JIT i32 reduce ran at 0.96 of the compiled
/// one at 2^24. f32, f64 and i64 get 32 either way. int8 and int16 need 48 registers with 64-bit
/// offsets and spill under 32: not tried. Metadata: {reduce threads, items, single-tile threads,
/// items}.
std::vector<std::vector<std::string>> occupancy(const set_spec& s, long long threads, int) {
  // The element (the accumulator for transform_reduce).
  const std::size_t sized = s.fam == family::transform_reduce ? 1 : 0;
  const std::uint32_t size = s.types.size() <= sized ? 0 : s.types[sized].size;
  if (size < 4) return {};
  return {{blocks_for_registers(threads, 32)}};
}

/// The element type: a user struct's class serves it.
bool reduce_struct_position(std::size_t i) {
  return i == 0;
}
/// The accumulator (an iterator expression's struct, an argmin's pair).
bool transform_reduce_struct_position(std::size_t i) {
  return i == 1;
}

const char* const reduce_rules[] = {
    "precompile t=types: reduce<$t>",
    // User structs: opaque storage of the struct's exact size and alignment (cupar_storage in
    // jit_ops/cupar_prelude.cuh), so that an operator on a struct is linked like one on a float
    // instead of compiling CUB's kernels from source (2.1-2.4 s on the H100). CUB picks its
    // tuning from the type's size and whether it is primitive (a struct and its storage are not),
    // so a class gets the policy nvcc would give the struct.
    "precompile s=structs: reduce<$s>",
};

const char* const transform_reduce_rules[] = {
    "precompile t=types: transform_reduce<$t,$t>",
    // Reduce over a run-time iterator expression (jit_iterator.hpp) into T: the kernels read
    // indices, the expression's generated code computes each element.
    "precompile t=types: transform_reduce<u64,$t>+index",
    // Into a wider accumulator: counts (u64) of floats and of u32s, sums of f32 in f64 and of
    // i32 in i64.
    "precompile a=f32|f64|u32: transform_reduce<$a,u64>",
    "precompile: transform_reduce<f32,f64>",
    "precompile: transform_reduce<i32,i64>",
    "precompile s=structs: transform_reduce<u64,$s>+index",
};

}  // namespace

extern const family_def reduce_family =
    family_def::make(family::reduce, "reduce", "cupar_reduce.cuh", 3, typedefs, slots, names)
        .with_occupancy(occupancy)
        .with_struct_classes(reduce_struct_position)
        .precompiling(reduce_rules);

extern const family_def transform_reduce_family =
    family_def::make(family::transform_reduce, "transform_reduce", "cupar_reduce.cuh", 3,
                     transform_reduce_typedefs, transform_reduce_slots, names)
        .with_occupancy(occupancy)
        .with_struct_classes(transform_reduce_struct_position)
        .precompiling(transform_reduce_rules);

}  // namespace cupar::detail::jit
