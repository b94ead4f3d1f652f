// cupar families: segmented reduce (CUB's DeviceSegmentedReduceKernel, jit_ops/
// cupar_segmented_reduce.cuh) and segmented inclusive and exclusive scans (cupar's kernels,
// include/cupar/detail/device/segmented_scan.cuh, through jit_ops/cupar_segmented_scan.cuh).
// Size classes {T}.
#include "../core/family.hpp"

namespace cupar::detail::jit {
namespace {

std::string typedefs(const set_spec& s) {
  return std::string(s.fam == family::segmented_scan_exclusive
                         ? "#define CUPAR_SEGMENTED_SCAN_EXCLUSIVE 1\n"
                         : "") +
         "typedef " + s.types[0].name + " cupar_T;\n";
}

std::vector<slot_spec> slots(const set_spec& s) {
  return {binary_op_slot(s.types[0])};
}

std::vector<std::string> reduce_names(const set_spec&) {
  // CUB's own kernel, as cub::DeviceSegmentedReduce::Reduce instantiates it.
  return {
      "cub::detail::reduce::DeviceSegmentedReduceKernel<cupar_policy, const cupar_T*, "
      "cupar_T*, const cupar_offset*, const cupar_offset*, cupar_offset, "
      "cupar_segmented_reduce_op, cupar_T, cupar_T>",
      meta_expression(2)};
}

std::vector<std::string> scan_names(const set_spec&) {
  return {"cupar::detail::segscan::init_kernel<cupar_tile_state>",
          "cupar::detail::segscan::sweep_kernel<cupar_policy, cupar_T, "
          "cupar_segmented_scan_op, cupar_segmented_scan_init>",
          meta_expression(5)};
}

const char* const reduce_rules[] = {
    "precompile c=classes: segmented_reduce<$c>",
    "precompile s=dp_structs: segmented_reduce<$s>",
};

const char* const inclusive_rules[] = {
    "precompile c=classes: segmented_scan_inclusive<$c>",
    "precompile s=dp_structs: segmented_scan_inclusive<$s>",
};

const char* const exclusive_rules[] = {
    "precompile c=classes: segmented_scan_exclusive<$c>",
    "precompile s=dp_structs: segmented_scan_exclusive<$s>",
};

}  // namespace

extern const family_def segmented_reduce_family =
    family_def::make(family::segmented_reduce, "segmented_reduce", "cupar_segmented_reduce.cuh", 1,
                     typedefs, slots, reduce_names)
        .for_size_classes()
        .precompiling(reduce_rules);

extern const family_def segmented_scan_inclusive_family =
    family_def::make(family::segmented_scan_inclusive, "segmented_scan_inclusive",
                     "cupar_segmented_scan.cuh", 2, typedefs, slots, scan_names)
        .for_size_classes()
        .precompiling(inclusive_rules);

extern const family_def segmented_scan_exclusive_family =
    family_def::make(family::segmented_scan_exclusive, "segmented_scan_exclusive",
                     "cupar_segmented_scan.cuh", 2, typedefs, slots, scan_names)
        .for_size_classes()
        .precompiling(exclusive_rules);

}  // namespace cupar::detail::jit
