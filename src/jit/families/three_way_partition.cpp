// cupar family: three-way partition by two predicates. Device code:
// jit_ops/cupar_three_way_partition.cuh. Size classes {T}.
#include "../core/family.hpp"

namespace cupar::detail::jit {
namespace {

std::string typedefs(const set_spec& s) {
  return "typedef " + s.types[0].name + " cupar_T;\n";
}

std::vector<slot_spec> slots(const set_spec& s) {
  return {predicate_slot(s.types[0], 1), predicate_slot(s.types[0], 2)};
}

std::vector<std::string> names(const set_spec&) {
  return {"cupar_three_way_partition_init", "cupar_three_way_partition_sweep", meta_expression(4)};
}

/// 4-byte items on sm_90 (ptxas -v, compile only): the compiled path's sweep kernel gets 64
/// registers (4 blocks of 256 threads per SM), the LTO build 76 (3 blocks); it ran at 0.97 of
/// CUB at 2^24..2^28 on the H100 (2026-11-23). --minnctapersm at 64 spills; nvJitLink's own
/// -maxrregcount=64 gives 64 without.
std::vector<std::vector<std::string>> occupancy(const set_spec& s, long long, int arch) {
  if (arch != 90 || s.types.empty() || s.types[0].size != 4) return {};
  return {{"-maxrregcount=64"}};
}

const char* const rules[] = {
    "precompile c=classes: three_way_partition<$c>",
    "precompile s=dp_structs: three_way_partition<$s>",
};

}  // namespace

extern const family_def three_way_partition_family =
    family_def::make(family::three_way_partition, "three_way_partition",
                     "cupar_three_way_partition.cuh", 2, typedefs, slots, names)
        .for_size_classes()
        .with_occupancy(occupancy)
        .precompiling(rules);

}  // namespace cupar::detail::jit
