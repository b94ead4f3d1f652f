// cupar family: merge sort of keys, or of keys with a payload moved as opaque storage (CUB's
// merge sort kernels). Device code: jit_ops/cupar_merge_sort.cuh. Types: merge_sort_keys {K};
// merge_sort_pairs {K, V (storage)}.
#include "../core/family.hpp"

namespace cupar::detail::jit {
namespace {

std::string keys_typedefs(const set_spec& s) {
  return "typedef " + s.types[0].name + " cupar_K;\n";
}

std::string pairs_typedefs(const set_spec& s) {
  return "#define CUPAR_SORT_PAIRS 1\ntypedef " + s.types[0].name + " cupar_K;\ntypedef " +
         s.types[1].name + " cupar_V;\n";
}

std::vector<slot_spec> slots(const set_spec& s) {
  return {op_slot({s.types[0], s.types[0]}, type_ref::boolean(), {"a", "b"}, "comparator")};
}

std::vector<std::string> names(const set_spec&) {
  return {
      "cub::detail::merge_sort::DeviceMergeSortBlockSortKernel<cupar_policy, "
      "const cupar_K*, cupar_value_in, cupar_K*, cupar_value_out, cupar_offset, "
      "cupar_sort_compare, cupar_K, cupar_value>",
      "cub::detail::merge_sort::DeviceMergeSortPartitionKernel<cupar_K*, cupar_offset, "
      "cupar_sort_compare, cupar_K>",
      "cub::detail::merge_sort::DeviceMergeSortMergeKernel<cupar_policy, "
      "const cupar_K*, cupar_value_in, cupar_K*, cupar_value_out, cupar_offset, "
      "cupar_sort_compare, cupar_K, cupar_value>",
      "cupar_meta<(long long)cupar_vsmem_helper::policy_t::BLOCK_THREADS, "
      "(long long)cupar_vsmem_helper::policy_t::ITEMS_PER_TILE, "
      "(long long)cub::detail::vsmem_helper_impl<"
      "cupar_vsmem_helper::block_sort_agent_t>::vsmem_per_block, "
      "(long long)cub::detail::vsmem_helper_impl<"
      "cupar_vsmem_helper::merge_agent_t>::vsmem_per_block>"};
}

/// The keys (the payload is storage already).
bool struct_position(std::size_t i) {
  return i == 0;
}

const char* const keys_rules[] = {
    "precompile t=types: merge_sort_keys<$t>",
    "precompile s=structs: merge_sort_keys<$s>",
};

const char* const pairs_rules[] = {
    // 4- and 8-byte payloads (an index, a row id); other payload sizes compile from source.
    "precompile t=types v=s4a4|s8a8: merge_sort_pairs<$t,$v>",
    "precompile s=structs v=s4a4|s8a8: merge_sort_pairs<$s,$v>",
};

}  // namespace

extern const family_def merge_sort_keys_family =
    family_def::make(family::merge_sort_keys, "merge_sort_keys", "cupar_merge_sort.cuh", 3,
                     keys_typedefs, slots, names)
        .with_struct_classes(struct_position)
        .precompiling(keys_rules);

extern const family_def merge_sort_pairs_family =
    family_def::make(family::merge_sort_pairs, "merge_sort_pairs", "cupar_merge_sort.cuh", 3,
                     pairs_typedefs, slots, names)
        .with_struct_classes(struct_position)
        .precompiling(pairs_rules);

}  // namespace cupar::detail::jit
