// cupar: the library entry of reduce and transform_reduce with run-time operators.
#include "../core/calls.hpp"
#include "../core/engine.hpp"
#include "../core/iterator_expr.hpp"
#include "../core/launch.hpp"
#include "../core/precompiled.hpp"
#include "../core/request.hpp"
#include "reduce.hpp"

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

/// Reduces into `out`, or into a slot of the temporary allocation copied to `host_out`.
template <class Run>
void reduce_with_result(const jit_reduce_args& a, stream_ref s, memory_resource& mr,
                        std::size_t cub_bytes, Run&& run) {
  const std::size_t slot = a.out != nullptr ? 0 : align_up(a.type->size, 256);
  temp_storage temp(mr, slot + cub_bytes, s);
  auto* base = static_cast<unsigned char*>(temp.get());
  void* out = a.out != nullptr ? a.out : base;
  run(slot + cub_bytes == 0 ? nullptr : base + slot, out);
  if (a.host_out != nullptr) {
    // Named after the call: an operator's fault (docs/RELIABILITY.md) shows at this copy when the
    // kernel already ended, at the synchronisation otherwise.
    check_cuda(cudaMemcpyAsync(a.host_out, out, a.type->size, cudaMemcpyDeviceToHost, s.get()),
               a.function);
    // Named after the call: a fault of the operator (docs/RELIABILITY.md) is reported here.
    check_cuda(cudaStreamSynchronize(s.get()), a.function);
  }
}

}  // namespace

void jit_reduce(const jit_reduce_args& a, stream_ref s, memory_resource& mr) {
  const char* fn = a.function;
  const device_guard device(s);  // before resolve(): the JIT builds for the current device
  const jit_type& t = *a.type;
  const bool expression = a.in_iter != nullptr;
  // An iterator expression is a transform of the indices (the "+index" sets): its operator,
  // generated, computes element i and converts it to the accumulator type.
  const bool transformed = a.transform != nullptr || expression;
  const jit_type& in = a.transform != nullptr ? *a.in_type : t;  // the elements read
  require_size(fn, a.n, in.size);
  if (!expression) require_data(fn, "d_in", a.in, a.n);
  if (a.out == nullptr && a.host_out == nullptr) throw_invalid_argument(fn, "d_out is null");
  std::optional<cupar::jit::op> loader;
  if (expression) loader.emplace(jit::expression_op(*a.in_iter, t, a.n, fn));
  const cupar::jit::op* transform = expression ? &*loader : a.transform;
  const cupar::jit::named_op named = a.op->named();
  if (!transformed && named != cupar::jit::named_op::none && !t.is_struct()) {
    bool done = false;
    visit_scalar(t.kind, [&](auto v) {
      using T = decltype(v);
      if (!named_op_supported<T>(named)) return;
      T init;
      std::memcpy(&init, a.init, sizeof(T));
      if (a.host_out == nullptr) {
        named_reduce<T>(named, static_cast<const T*>(a.in), static_cast<T*>(a.out), a.n, init, s,
                        mr);
      } else {
        temp_storage slot(mr, sizeof(T), s);
        named_reduce<T>(named, static_cast<const T*>(a.in), static_cast<T*>(slot.get()), a.n, init,
                        s, mr);
        check_cuda(
            cudaMemcpyAsync(a.host_out, slot.get(), sizeof(T), cudaMemcpyDeviceToHost, s.get()),
            fn);
        check_cuda(cudaStreamSynchronize(s.get()), fn);
      }
      done = true;
    });
    if (done) return;
  }
  set_request req = expression    ? jit::expression_request(family::reduce, t, *loader, a.op)
                    : transformed ? set_request{family::transform_reduce, {&in, &t}}
                                  : set_request{family::reduce, {&t}};
  if (!expression) {
    // transform_reduce: the transform first (slots_of: it anchors the build's cache entry).
    req.ops[0] = transformed ? transform : a.op;
    req.ops[1] = transformed ? a.op : nullptr;
  }
  const auto [devp, module] = resolve(req, a.plan, fn);
  const jit::device_info& dev = *devp;
  jit::launch_status st;
  const void* transform_state = transformed ? transform->state() : nullptr;
  auto sizing = [&](void* temp, std::size_t& b) {
    jit::check_dispatch(jit::run_reduce(*module, dev, st, temp, b, a.in, a.out, a.n, a.op->state(),
                                        a.init, t.size, s.get(), transform_state),
                        st, "cupar reduce (run-time operator)");
    return cudaSuccess;
  };
  const std::size_t bytes =
      required_temp_bytes("cupar reduce (run-time operator)", {a.n, module->serial()}, sizing);
  reduce_with_result(a, s, mr, bytes, [&](void* temp, void* out) {
    std::size_t b = bytes;
    jit::check_dispatch(jit::run_reduce(*module, dev, st, temp, b, a.in, out, a.n, a.op->state(),
                                        a.init, t.size, s.get(), transform_state),
                        st, "cupar reduce (run-time operator)");
  });
}

}  // namespace cupar::detail
