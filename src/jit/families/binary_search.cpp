// cupar family: lower_bound and upper_bound of needles in a sorted range (cupar's kernel,
// include/cupar/detail/device/binary_search.cuh, through jit_ops/cupar_binary_search.cuh).
// Size classes {T, Index (u32 or u64)}.
#include "../core/family.hpp"

namespace cupar::detail::jit {
namespace {

std::string typedefs(const set_spec& s) {
  return "typedef " + s.types[0].name + " cupar_T;\ntypedef " + s.types[1].name + " cupar_I;\n";
}

std::vector<slot_spec> slots(const set_spec& s) {
  return {comparator_slot(s.types[0])};
}

std::vector<std::string> names(const set_spec&) {
  return {
      "cupar::detail::bsearch::kernel<cub::NullType, cupar_T, cupar_I, "
      "cupar_binary_search_comp>",
      meta_expression(1)};
}

// The default comparator `<` needs the user's type: it is the precompiled named `less` of that
// type, linked to the class's kernels.
const char* const rules[] = {
    "precompile c=classes i=u32|u64: binary_search<$c,$i>",
};

}  // namespace

extern const family_def binary_search_family =
    family_def::make(family::binary_search, "binary_search", "cupar_binary_search.cuh", 1, typedefs,
                     slots, names)
        .for_size_classes()
        .precompiling(rules);

}  // namespace cupar::detail::jit
