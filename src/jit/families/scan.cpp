// cupar family: inclusive and exclusive scans. Device code: jit_ops/cupar_scan.cuh. Types {T}.
// "+index": the input is an iterator expression (read through cupar_expr_iterator); "+io": the
// output too (cupar_expr_output), its store in the last slot.
#include "../core/family.hpp"

namespace cupar::detail::jit {
namespace {

std::string typedefs(const set_spec& s) {
  std::string out;
  if (reads_expression(s)) out += "#define CUPAR_INDEX_INPUT 1\n";
  if (s.variant == "io") out += "#define CUPAR_INDEX_OUTPUT 1\n";
  return out + "typedef " + s.types[0].name + " cupar_T;\n";
}

std::vector<slot_spec> slots(const set_spec& s) {
  const auto& t = s.types;
  if (reads_expression(s)) {
    // The iterator expression first: it anchors the cache entry. "+io": the output expression's
    // store last.
    std::vector<slot_spec> out = {expression_slot(t[0]),
                                  op_slot({t[0], t[0]}, t[0], {"a", "b"}, "operator")};
    if (s.variant == "io") out.push_back(store_slot(t[0]));
    return out;
  }
  return {op_slot({t[0], t[0]}, t[0], {"a", "b"}, "operator")};
}

std::vector<std::string> names(const set_spec& set) {
  const std::string init = set.fam == family::scan_inclusive ? "cub::NullType" : "cupar_scan_init";
  return {"cub::detail::scan::DeviceScanInitKernel<cupar_tile_state>",
          "cub::detail::scan::DeviceScanKernel<cupar_policy, " +
              std::string(set.variant.empty() ? "const cupar_T*" : "cupar_expr_iterator") +
              (set.variant == "io" ? ", cupar_expr_output" : ", cupar_T*") +
              ", cupar_tile_state, cupar_scan_op, " + init + ", cupar_offset, cupar_T, false>",
          "cupar_meta<(long long)cupar_active::ScanPolicyT::BLOCK_THREADS, "
          "(long long)cupar_active::ScanPolicyT::ITEMS_PER_THREAD, "
          "(long long)cupar_tile_state::description_bytes_per_tile, "
          "(long long)cupar_tile_state::payload_bytes_per_tile, "
          "(long long)sizeof(cupar_tile_state)>"};
}

/// nvcc gives CUB's sm_90 scan kernel (128 threads) 64 registers for cuda::std::plus, so 8 blocks
/// fit on an SM; the same kernel with the operator inlined by nvJitLink's LTO got 72 (7 blocks)
/// and ran 8-9% slower at 2^26..2^28 on the H100 (2026-11-21). ptxas picks 64 or 72 on small
/// differences of the code: calling even a force-inlined function instead of writing `a + b`
/// makes nvcc choose 72 as well (docs/JIT.md).
///
/// Struct classes: CUB picks 128 threads x 3 items for a 16-byte struct on sm_90, and nvcc gives
/// the kernel with a `merge` functor (counts and sums added, min and max kept) 48 registers, so
/// 10 blocks fit on an SM; the LTO build under the 64-register target got 54 (9 blocks) and ran
/// at 0.969-0.973 of the functor at 2^24..2^28 on the H100 (ptxas -v, 2026-11-24). A struct scan
/// is therefore tried at 48 registers first, then at 64. Metadata: {threads, items, ...}.
std::vector<std::vector<std::string>> occupancy(const set_spec& s, long long threads, int) {
  if (!s.types.empty() && !s.types[0].is_scalar()) {
    return {{blocks_for_registers(threads, 48)}, {blocks_for_registers(threads, 64)}};
  }
  return {{blocks_for_registers(threads, 64)}};
}

bool struct_position(std::size_t i) {
  return i == 0;
}

const char* const inclusive_rules[] = {
    "precompile t=types: scan_inclusive<$t>",
    "precompile t=types: scan_inclusive<$t>+index",
    "precompile t=types: scan_inclusive<$t>+io",
    "precompile s=structs: scan_inclusive<$s>",
};
const char* const exclusive_rules[] = {
    "precompile t=types: scan_exclusive<$t>",
    "precompile t=types: scan_exclusive<$t>+index",
    "precompile t=types: scan_exclusive<$t>+io",
    "precompile s=structs: scan_exclusive<$s>",
};

}  // namespace

extern const family_def scan_inclusive_family =
    family_def::make(family::scan_inclusive, "scan_inclusive", "cupar_scan.cuh", 2, typedefs, slots,
                     names)
        .with_occupancy(occupancy)
        .with_struct_classes(struct_position)
        .precompiling(inclusive_rules);

extern const family_def scan_exclusive_family =
    family_def::make(family::scan_exclusive, "scan_exclusive", "cupar_scan.cuh", 2, typedefs, slots,
                     names)
        .with_occupancy(occupancy)
        .with_struct_classes(struct_position)
        .precompiling(exclusive_rules);

}  // namespace cupar::detail::jit
