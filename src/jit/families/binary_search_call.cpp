// cupar: lower_bound / upper_bound with run-time comparators, or the default `<` (the named
// `less`, whose precompiled object is linked to the precompiled kernels for arithmetic types).
// Kernel: jit_ops/cupar_binary_search.cuh; launch: binary_search_run.cu.
#include "../core/calls.hpp"
#include "binary_search.hpp"

#include <cupar/detail/dp_checks.hpp>

#include <cstdint>
#include <limits>

namespace cupar::detail {
namespace {

/// The largest value of the positions' integer type.
std::uint64_t index_max(const jit_type& t) {
  switch (t.kind) {
    case scalar::i32:
      return static_cast<std::uint64_t>(std::numeric_limits<std::int32_t>::max());
    case scalar::u32:
      return std::numeric_limits<std::uint32_t>::max();
    case scalar::i64:
      return static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
    case scalar::u64:
      return std::numeric_limits<std::uint64_t>::max();
    default:
      return 0;  // not a position type
  }
}

}  // namespace

void call_search(const jit_dp_args& a, stream_ref s, memory_resource&,
                 const pending_inputs* pending) {
  const char* fn = a.function;
  const jit_type& index = *a.types[1];
  if (index_max(index) == 0) {
    throw_invalid_argument(fn, "the positions' type must be a 4- or 8-byte integer");
  }
  check_binary_search(fn, a.in[0], a.n, a.in[1], a.m, a.out[0], a.types[0]->size, index.size,
                      index_max(index));
  write_pending(pending, s);
  if (a.m == 0) return;
  const jit::set_request req = dp_request(a.what, a.types, a.ops, false);
  const auto [devp, module] = jit::resolve(req, nullptr, fn);
  const cupar::jit::op& comp = a.ops[0] != nullptr ? *a.ops[0] : cupar::jit::less;
  const jit::search_launch launch{
      a.in[0], a.n, a.in[1], a.m, a.out[0], comp.state(), a.what == dp_op::upper_bound};
  jit::launch_status st;
  const char* call = "cupar binary search (run-time comparator)";
  jit::check_dispatch(jit::run_binary_search(*module, *devp, st, launch, s.get()), st, call);
}

}  // namespace cupar::detail
