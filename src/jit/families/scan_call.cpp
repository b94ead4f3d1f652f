// cupar: the library entry of the scans with run-time operators.
#include "../core/calls.hpp"
#include "../core/engine.hpp"
#include "../core/iterator_expr.hpp"
#include "../core/launch.hpp"
#include "../core/precompiled.hpp"
#include "../core/request.hpp"
#include "scan.hpp"

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

void jit_scan(const jit_scan_args& a, stream_ref s, memory_resource& mr) {
  const char* fn = a.function;
  const device_guard device(s);
  const jit_type& t = *a.type;
  const bool expression = a.in_iter != nullptr;
  const bool output = a.out_iter != nullptr;
  if (output && !expression) throw_invalid_argument(fn, "an output expression needs an input one");
  require_size(fn, a.n, t.size);
  if (!expression) require_data(fn, "d_in", a.in, a.n);
  if (!output) require_data(fn, "d_out", a.out, a.n);
  if (!expression) {
    require_same_or_disjoint(fn, "d_in", a.in, a.n * t.size, "d_out", a.out, a.n * t.size);
  }
  // An iterator expression: the "+index" sets, whose input computes element i with the
  // generated operator in the first slot (its arrays are checked as it is generated); with an
  // output expression the "+io" sets, whose third slot stores element i through it.
  std::optional<cupar::jit::op> loader, store;
  if (expression) loader.emplace(jit::expression_op(*a.in_iter, t, a.n, fn));
  if (output) store.emplace(jit::store_op(*a.out_iter, t, a.n, fn));
  if (a.n == 0) return;
  const cupar::jit::named_op named = a.op->named();
  if (!expression && named != cupar::jit::named_op::none && !t.is_struct()) {
    bool done = false;
    visit_scalar(t.kind, [&](auto v) {
      using T = decltype(v);
      if (!named_op_supported<T>(named)) return;
      named_scan<T>(named, static_cast<const T*>(a.in), static_cast<T*>(a.out), a.n,
                    static_cast<const T*>(a.init), s, mr);
      done = true;
    });
    if (done) return;
  }
  const family f = a.init == nullptr ? family::scan_inclusive : family::scan_exclusive;
  set_request req = output       ? jit::expression_request(f, t, *loader, a.op, *store)
                    : expression ? jit::expression_request(f, t, *loader, a.op)
                                 : set_request{f, {&t}};
  if (!expression) req.ops[0] = a.op;
  const auto [devp, module] = resolve(req, a.plan, fn);
  const jit::device_info& dev = *devp;
  jit::launch_status st;
  const void* expression_state = expression ? loader->state() : nullptr;
  const void* output_state = output ? store->state() : nullptr;
  run_with_temp_storage("cupar scan (run-time operator)", mr, s, {a.n, module->serial()},
                        [&](void* temp, std::size_t& bytes) {
                          const cudaError_t e = jit::run_scan(
                              *module, dev, st, temp, bytes, a.in, a.out, a.n, a.op->state(),
                              a.init, s.get(), expression_state, output_state);
                          jit::check_dispatch(e, st, "cupar scan (run-time operator)");
                          return cudaSuccess;
                        });
}

}  // namespace cupar::detail
