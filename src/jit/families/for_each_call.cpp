// cupar: the for_each set's passes: transforms over iterator and output expressions, expressions
// materialised for kernels that take arrays, output expressions stored after an algorithm.
#include "../core/calls.hpp"
#include "../core/engine.hpp"
#include "../core/iterator_expr.hpp"
#include "../core/launch.hpp"
#include "../core/precompiled.hpp"
#include "../core/request.hpp"
#include "for_each.hpp"

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

for_each_pass prepare_for_each(jit::for_each_op apply, std::size_t n, const char* fn) {
  for_each_pass p{std::move(apply), n, {}};
  if (n == 0) return p;
  set_request req{family::for_each, {&jit::index_type()}};
  req.ops[0] = &p.apply.op;
  p.module = resolve(req, nullptr, fn);
  return p;
}

void for_each_pass::launch(stream_ref s, const char* call) const {
  if (n == 0) return;
  jit::launch_status st;
  jit::check_dispatch(
      jit::run_for_each(*module.module, *module.dev, st, n, apply.items, apply.op.state(), s.get()),
      st, call);
}

namespace {

/// Runs the "for_each" set with its generated slot `apply` over n indices. The slot is generated
/// (and its arrays checked) by the caller also for n == 0, so a malformed call fails on every n.
void run_for_each_op(jit::for_each_op apply, std::size_t n, stream_ref s, const char* fn,
                     const char* call) {
  prepare_for_each(std::move(apply), n, fn).launch(s, call);
}

}  // namespace

void run_apply(const char* fn, int arity, const cupar::jit::iterator* const* in,
               const cupar::jit::output& out, std::size_t n, const cupar::jit::op& op,
               stream_ref s) {
  run_for_each_op(jit::transform_apply_op(in, arity, out, op, n, fn), n, s, fn,
                  "cupar transform (run-time operator)");
}

void materialize(const cupar::jit::iterator& in, const jit_type& t, void* dst, std::size_t n,
                 stream_ref s, const char* fn) {
  const cupar::jit::output out(cupar::jit::detail::output_pointer(t, dst));
  run_for_each_op(jit::convert_apply_op(in, out, n, fn), n, s, fn,
                  "cupar: an iterator expression materialised (run-time operator)");
}

void jit_materialize(const cupar::jit::iterator& in, const jit_type& t, void* dst, std::size_t n,
                     stream_ref s, const char* fn) {
  const device_guard device(s);
  materialize(in, t, dst, n, s, fn);
}

void pending_inputs::write(stream_ref s) const {
  for (const input& x : slot) {
    if (x.expression != nullptr) {
      materialize(*x.expression, *x.type, x.dst, x.count, s, function);
    } else if (x.copy != nullptr && x.count != 0) {
      check_cuda(
          cudaMemcpyAsync(x.dst, x.copy, x.count * x.type->size, cudaMemcpyDeviceToDevice, s.get()),
          function);
    }
  }
}

void jit_transform_apply(const jit_apply_args& a, stream_ref s) {
  const char* fn = a.function;
  const device_guard device(s);
  if (a.arity < 1 || a.arity > 2 || a.out == nullptr || a.op == nullptr) {
    throw_invalid_argument(fn, "malformed call");
  }
  static const char* in_names[2][2] = {{"in", ""}, {"a", "b"}};
  const auto [out, out_size] = jit::output_array(*a.out);
  require_size(fn, a.n, out_size);
  for (int i = 0; i < a.arity; ++i) {
    const auto [in, in_size] = jit::input_array(*a.in[i]);
    require_size(fn, a.n, in_size);
    if (in != nullptr && out != nullptr) {
      require_same_or_disjoint(fn, in_names[a.arity - 1][i], in, a.n * in_size, "out", out,
                               a.n * out_size);
    }
  }
  run_apply(fn, a.arity, a.in, *a.out, a.n, *a.op, s);
}

}  // namespace cupar::detail
