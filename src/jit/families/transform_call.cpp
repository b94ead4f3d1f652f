// cupar: the library entry of transform with run-time operators.
#include "../core/calls.hpp"
#include "../core/engine.hpp"
#include "../core/iterator_expr.hpp"
#include "../core/launch.hpp"
#include "../core/precompiled.hpp"
#include "../core/request.hpp"
#include "transform.hpp"

#include "compiled/index_gather.hpp"
#include "compiled/named_ops.hpp"

#include <cupar/detail/checks.hpp>
#include <cupar/detail/device_guard.hpp>
#include <cupar/detail/histogram_binning.hpp>
#include <cupar/detail/jit_entry.hpp>
#include <cupar/detail/temp_storage.hpp>
#include <cupar/histogram.hpp>
#include <cupar/jit_compile.hpp>
#include <cupar/sort.hpp>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <tuple>

namespace cupar::detail {

using jit::family;
using jit::resolve;
using jit::set_request;

namespace {

/// Whether the library precompiled CUB's transform kernels for the types of `r` (the types
/// themselves, or a user struct's class).
bool transform_precompiled(const set_request& r) {
  const bool same =
      r.fam == family::transform_unary ? r.t[0] == r.t[1] : r.t[0] == r.t[1] && r.t[1] == r.t[2];
  if (same && !r.t[0]->is_struct()) return true;  // every arithmetic T -> T set is built
  return precompiled_request(r);
}

}  // namespace

void jit_transform(const jit_transform_args& a, stream_ref s) {
  const char* fn = a.function;
  const device_guard device(s);
  std::size_t widest = a.out_type->size;
  for (int i = 0; i < a.arity; ++i)
    widest = std::max<std::size_t>(widest, a.in_types[i]->size);
  require_size(fn, a.n, widest);
  static const char* in_names[2][2] = {{"d_in", ""}, {"d_a", "d_b"}};
  for (int i = 0; i < a.arity; ++i) {
    const char* name = in_names[a.arity - 1][i];
    require_data(fn, name, a.in[i], a.n);
    require_same_or_disjoint(fn, name, a.in[i], a.n * a.in_types[i]->size, "d_out", a.out,
                             a.n * a.out_type->size);
  }
  require_data(fn, "d_out", a.out, a.n);
  if (a.n == 0) return;
  const family f = a.arity == 1 ? family::transform_unary : family::transform_binary;
  set_request req{f,
                  {a.in_types[0], a.arity == 2 ? a.in_types[1] : a.out_type,
                   a.arity == 2 ? a.out_type : nullptr}};
  req.ops[0] = a.op;
  if (a.plan == nullptr && !transform_precompiled(req)) {
    // Types without precompiled CUB transform kernels (mixed types, structs without a class set):
    // the "for_each" set with the arrays as expressions, ready in tens of milliseconds instead
    // of compiling CUB's kernels from source (seconds).
    const cupar::jit::iterator ins[2] = {
        cupar::jit::iterator(cupar::jit::detail::iterator_pointer(*a.in_types[0], a.in[0])),
        cupar::jit::iterator(a.arity == 2
                                 ? cupar::jit::detail::iterator_pointer(*a.in_types[1], a.in[1])
                                 : cupar::jit::detail::node_ptr())};
    const cupar::jit::output out(cupar::jit::detail::output_pointer(*a.out_type, a.out));
    const cupar::jit::iterator* in[2] = {&ins[0], &ins[1]};
    run_apply(fn, a.arity, in, out, a.n, *a.op, s);
    return;
  }
  const auto [devp, module] = resolve(req, a.plan, fn);
  const jit::device_info& dev = *devp;
  jit::launch_status st;
  jit::check_dispatch(
      jit::run_transform(*module, dev, st, a.arity, a.in, a.out, a.n, a.op->state(), s.get()), st,
      "cupar transform (run-time operator)");
}

}  // namespace cupar::detail
