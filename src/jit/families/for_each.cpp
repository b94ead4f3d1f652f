// cupar family: one kernel walking indices (jit_ops/cupar_for_each.cuh). Its only slot,
// cupar_jit_apply (generated, iterator.cpp), loads, applies the operator and stores with the
// caller's types, so one set, {u64}, serves transforms of every type combination, iterator
// expressions and output expressions included.
#include "../core/family.hpp"

namespace cupar::detail::jit {
namespace {

std::string typedefs(const set_spec&) {
  return std::string();
}

std::vector<slot_spec> slots(const set_spec& s) {
  // The thread's first index and the count (the generated code knows its stride and items).
  return {{"cupar_jit_apply",
           "iterator expression",
           {s.types[0], s.types[0]},
           type_ref::of(scalar::i32),
           {"cupar_i", "cupar_n"}}};
}

std::vector<std::string> names(const set_spec&) {
  return {"cupar_for_each_kernel", meta_expression(1)};
}

const char* const rules[] = {
    "precompile: for_each<u64>",
};

}  // namespace

extern const family_def for_each_family =
    family_def::make(family::for_each, "for_each", "cupar_for_each.cuh", 1, typedefs, slots, names)
        .precompiling(rules);

}  // namespace cupar::detail::jit
