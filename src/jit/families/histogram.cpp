// cupar family: histograms with a sample operator (evenly spaced levels, or level arrays).
// Device code: jit_ops/cupar_histogram.cuh. Types {Sample, Level (the operator's result),
// Counter (u32 or u64)}.
#include "../core/family.hpp"

namespace cupar::detail::jit {
namespace {

std::string typedefs(const set_spec& s) {
  return std::string(s.fam == family::histogram_even ? "#define CUPAR_HISTOGRAM_EVEN 1\n" : "") +
         "typedef " + s.types[0].name + " cupar_S;\ntypedef " + s.types[1].name +
         " cupar_L;\ntypedef " + s.types[2].name + " cupar_C;\n";
}

std::vector<slot_spec> slots(const set_spec& s) {
  return {op_slot({s.types[0]}, s.types[1], {"x"}, "sample operator")};
}

std::vector<std::string> names(const set_spec&) {
  return {"cupar_histogram_init<cupar_C>", "cupar_histogram_sweep<256>", "cupar_histogram_sweep<0>",
          "cupar_meta<(long long)cupar_histogram_agent_policy::BLOCK_THREADS, "
          "(long long)cupar_histogram_agent_policy::PIXELS_PER_THREAD, "
          "(long long)sizeof(cupar_privatized_decode), "
          "(long long)sizeof(cupar_output_decode), (long long)sizeof(cupar_B), "
          "(long long)sizeof(cupar_sample_iterator)>"};
}

/// The samples.
bool struct_position(std::size_t i) {
  return i == 0;
}

const char* const even_rules[] = {
    "precompile t=types c=u32|u64: histogram_even<$t,$t,$c>",
    // Records binned by an f32 the sample operator computes, 32-bit counters.
    "precompile s=structs: histogram_even<$s,f32,u32>",
};

const char* const range_rules[] = {
    "precompile t=types c=u32|u64: histogram_range<$t,$t,$c>",
};

}  // namespace

extern const family_def histogram_even_family =
    family_def::make(family::histogram_even, "histogram_even", "cupar_histogram.cuh", 3, typedefs,
                     slots, names)
        .with_struct_classes(struct_position)
        .precompiling(even_rules);

extern const family_def histogram_range_family =
    family_def::make(family::histogram_range, "histogram_range", "cupar_histogram.cuh", 3, typedefs,
                     slots, names)
        .with_struct_classes(struct_position)
        .precompiling(range_rules);

}  // namespace cupar::detail::jit
