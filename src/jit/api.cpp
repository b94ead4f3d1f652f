// cupar: the library entry points of the algorithms with run-time operators.
#include "dp_calls.hpp"
#include "engine.hpp"
#include "iterator_expr.hpp"
#include "launch.hpp"
#include "precompiled.hpp"
#include "request.hpp"

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

namespace {

bool is_arithmetic(const jit_type& t) {
  return static_cast<int>(t.kind) != 0;
}

using jit::resolve;
using jit::set_request;

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
  if (!transformed && named != cupar::jit::named_op::none && is_arithmetic(t)) {
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
  if (!expression && named != cupar::jit::named_op::none && is_arithmetic(t)) {
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

/// Runs transform through the "for_each" set: `arity` input expressions, an output expression.
void run_apply(const char* fn, int arity, const cupar::jit::iterator* const* in,
               const cupar::jit::output& out, std::size_t n, const cupar::jit::op& op,
               stream_ref s) {
  run_for_each_op(jit::transform_apply_op(in, arity, out, op, n, fn), n, s, fn,
                  "cupar transform (run-time operator)");
}

}  // namespace

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

namespace {

/// Whether the library precompiled the kernel set `r` asks for (a user struct: its class's set),
/// remembered per family and types, so that the per-call path pays a map lookup, not the set's
/// key.
bool precompiled_request(const set_request& r) {
  using key_t = std::tuple<family, const jit_type*, const jit_type*, const jit_type*,
                           const jit_type*, scalar, scalar>;
  static std::mutex mutex;
  static std::map<key_t, bool> known;
  const key_t key{r.fam, r.t[0], r.t[1], r.t[2], r.value, r.level, r.counter};
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (auto it = known.find(key); it != known.end()) return it->second;
  }
  const bool built = jit::precompiled_for_any_arch(r.spec().set.key());
  std::lock_guard<std::mutex> lock(mutex);
  known.emplace(key, built);
  return built;
}

/// Whether the library precompiled CUB's transform kernels for the types of `r` (the types
/// themselves, or a user struct's class).
bool transform_precompiled(const set_request& r) {
  const bool same =
      r.fam == family::transform_unary ? r.t[0] == r.t[1] : r.t[0] == r.t[1] && r.t[1] == r.t[2];
  if (same && is_arithmetic(*r.t[0])) return true;  // every arithmetic T -> T set is built
  return precompiled_request(r);
}

}  // namespace

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

namespace {

/// The payload type a merge sort of pairs moves: a 4- or 8-byte payload whose arrays are both
/// aligned to its size takes the set of that size and alignment (the kernels only move its bytes),
/// so a {float, int} payload (8 bytes, alignment 4) needs no set of its own.
const jit_type* sort_payload_type(const jit_type* value, const void* in, const void* out) {
  static const jit_type word4{static_cast<scalar>(0), "", nullptr, 4, 4};
  static const jit_type word8{static_cast<scalar>(0), "", nullptr, 8, 8};
  const std::size_t size = value->size;
  if (value->align == size || (size != 4 && size != 8)) return value;
  const auto bits = reinterpret_cast<std::uintptr_t>(in) | reinterpret_cast<std::uintptr_t>(out);
  if (bits % size != 0) return value;
  return size == 4 ? &word4 : &word8;
}

/// The index type a sort of n pairs moves instead of the payload.
const jit_type& sort_index_type(std::size_t n) {
  return n > std::numeric_limits<std::uint32_t>::max() ? jit_type_of<unsigned long long>()
                                                       : jit_type_of<std::uint32_t>();
}

}  // namespace

namespace {

void sort_arrays(const jit_sort_args& call, stream_ref s, memory_resource& mr);

/// A sort whose keys or values go through output expressions: the sort writes temporary arrays,
/// which one "for_each" pass each (prepared before the sort) stores through the expressions;
/// discard() takes the temporary alone. An output expression that is a plain array of the
/// call's type is that array.
void sort_into_expressions(const jit_sort_args& call, stream_ref s, memory_resource& mr) {
  const char* fn = call.function;
  jit_sort_args b = call;
  b.keys_out_iter = nullptr;
  b.values_out_iter = nullptr;
  const bool pairs = call.value_type != nullptr;
  require_size(fn, call.n,
               std::max<std::size_t>(call.key_type->size, pairs ? call.value_type->size : 0));
  std::optional<temp_storage> temps[2];
  std::optional<for_each_pass> stores[2];
  const cupar::jit::output* outs[2] = {call.keys_out_iter, pairs ? call.values_out_iter : nullptr};
  const jit_type* types[2] = {call.key_type, call.value_jit_type};
  void** dst[2] = {&b.keys_out, &b.values_out};
  for (int k = 0; k < 2; ++k) {
    if (outs[k] == nullptr) continue;
    const jit_type* t = types[k];
    const bool discard = jit::is_discard(*outs[k]);
    if (t == nullptr && !discard) {
      throw_invalid_argument(fn,
                             "values written through an output expression need a type the "
                             "JIT knows (arithmetic, or a struct described with "
                             "CUPAR_JIT_TYPE)");
    }
    if (t != nullptr) {
      if (void* p = jit::plain_output(*outs[k], *t)) {
        *dst[k] = p;
        continue;
      }
    }
    const std::size_t size = k == 0 ? call.key_type->size : call.value_type->size;
    temps[k].emplace(mr, call.n * size, s);
    *dst[k] = temps[k]->get();
    if (discard) continue;
    stores[k].emplace(
        prepare_for_each(jit::bounded_store_op(*dst[k], *t, *outs[k], call.n, {}, fn), call.n, fn));
  }
  sort_arrays(b, s, mr);
  for (const auto& store : stores) {
    if (store) store->launch(s, "cupar: a sort's output expression stored (run-time operator)");
  }
}

/// A sort into arrays (keys and values may still be expressions), on the stream's device.
void sort_arrays(const jit_sort_args& call, stream_ref s, memory_resource& mr) {
  // Keys (values) given as an expression (a gather, a computed key, counting positions): the
  // sorts take arrays, so the expression is written to d_keys_out (d_values_out) in one pass once
  // the arguments are checked, and sorted there in place.
  jit_sort_args a = call;
  if (a.keys_iter != nullptr) a.keys_in = a.keys_out;
  const char* fn = a.function;
  if (a.values_iter != nullptr) {
    if (a.value_type == nullptr) throw_invalid_argument(fn, "values given to a keys-only sort");
    if (a.value_jit_type == nullptr) {
      throw_invalid_argument(fn,
                             "values given as an iterator expression need a type the JIT "
                             "knows (arithmetic, or a struct described with CUPAR_JIT_TYPE)");
    }
    a.values_in = a.values_out;
  }
  const jit_type& k = *a.key_type;
  const bool pairs = a.value_type != nullptr;
  const std::size_t vsize = pairs ? a.value_type->size : 0;
  require_size(fn, a.n, std::max<std::size_t>(k.size, vsize));
  require_data(fn, "d_keys_in", a.keys_in, a.n);
  require_data(fn, "d_keys_out", a.keys_out, a.n);
  const std::size_t kb = a.n * k.size, vb = a.n * vsize;
  require_same_or_disjoint(fn, "d_keys_in", a.keys_in, kb, "d_keys_out", a.keys_out, kb);
  if (pairs) {
    require_data(fn, "d_values_in", a.values_in, a.n);
    require_data(fn, "d_values_out", a.values_out, a.n);
    require_same_or_disjoint(fn, "d_values_in", a.values_in, vb, "d_values_out", a.values_out, vb);
    require_disjoint(fn, "d_keys_out", a.keys_out, kb, "d_values_out", a.values_out, vb);
    require_disjoint(fn, "d_keys_out", a.keys_out, kb, "d_values_in", a.values_in, vb);
    require_disjoint(fn, "d_keys_in", a.keys_in, kb, "d_values_out", a.values_out, vb);
  }
  if (a.keys_iter != nullptr) {
    materialize(*a.keys_iter, k, a.keys_out, a.n, s, fn);
    a.keys_iter = nullptr;
  }
  if (a.values_iter != nullptr) {
    materialize(*a.values_iter, *a.value_jit_type, a.values_out, a.n, s, fn);
    a.values_iter = nullptr;
  }
  if (a.n == 0) return;
  const cupar::jit::named_op named = a.op->named();
  if ((named == cupar::jit::named_op::less || named == cupar::jit::named_op::greater) &&
      is_arithmetic(k)) {
    // less / greater on arithmetic keys: the library's (stable) radix sort.
    const radix_options options{
        named == cupar::jit::named_op::less ? sort_order::ascending : sort_order::descending, 0,
        -1};
    radix_sort({fn, k.kind, a.keys_in, a.keys_out, vsize, pairs ? a.value_type->align : 0,
                a.values_in, a.values_out, a.n, options},
               s, mr);
    return;
  }
  const family f = pairs ? family::merge_sort_pairs : family::merge_sort_keys;
  set_request req{f, {&k}};
  req.value = pairs && a.plan == nullptr
                  ? sort_payload_type(a.value_type, a.values_in, a.values_out)
                  : a.value_type;
  req.ops[0] = a.op;
  if (pairs && a.plan == nullptr && !precompiled_request(req)) {
    // A payload without a precompiled set (a struct of another size than 4 or 8 bytes, 1- and
    // 2-byte values): sort the keys with a 4- or 8-byte index as payload, whose sets exist for
    // every precompiled key, then gather the values by the sorted index in one pass, as the
    // radix sort does for such payloads. Only the comparator is compiled, not CUB's kernels from
    // source. The sort stays stable: equal keys keep their indices, so their values, in order.
    const jit_type& index = sort_index_type(a.n);
    set_request by_index = req;
    by_index.value = &index;
    if (precompiled_request(by_index)) {
      const std::size_t ib = align_up(a.n * index.size, 256);
      const bool in_place = a.values_in == a.values_out;
      temp_storage temp(mr, 2 * ib + (in_place ? vb : 0), s);
      auto* base = static_cast<unsigned char*>(temp.get());
      radix_iota(base, index.size, a.n, s);
      jit_sort_args sorted = a;
      sorted.value_type = &index;
      sorted.values_in = base;
      sorted.values_out = base + ib;
      jit_sort(sorted, s, mr);
      const void* src = a.values_in;
      if (in_place) {
        check_cuda(
            cudaMemcpyAsync(base + 2 * ib, a.values_in, vb, cudaMemcpyDeviceToDevice, s.get()),
            "cudaMemcpyAsync");
        src = base + 2 * ib;
      }
      radix_gather(src, a.values_out, base + ib, index.size, vsize, a.n, s);
      return;
    }
  }
  const auto [devp, module] = resolve(req, a.plan, fn);
  const jit::device_info& dev = *devp;
  jit::launch_status st;
  run_with_temp_storage("cupar sort (run-time comparator)", mr, s, {a.n, module->serial()},
                        [&](void* temp, std::size_t& bytes) {
                          const cudaError_t e = jit::run_merge_sort(
                              *module, dev, st, temp, bytes, a.keys_in, a.keys_out,
                              pairs ? a.values_in : nullptr, pairs ? a.values_out : nullptr, a.n,
                              k.size, vsize, a.op->state(), s.get());
                          jit::check_dispatch(e, st, "cupar sort (run-time comparator)");
                          return cudaSuccess;
                        });
}

}  // namespace

void jit_sort(const jit_sort_args& call, stream_ref s, memory_resource& mr) {
  const device_guard device(s);
  if (call.keys_out_iter != nullptr || call.values_out_iter != nullptr) {
    return sort_into_expressions(call, s, mr);
  }
  sort_arrays(call, s, mr);
}

void jit_histogram(const jit_histogram_args& a, stream_ref s, memory_resource& mr) {
  const char* fn = a.function;
  const device_guard device(s);
  const jit_type& t = *a.sample_type;
  require_size(fn, a.n, t.size);
  require_data(fn, "d_samples", a.samples, a.n);
  require_pointer(fn, "d_histogram", a.histogram);
  const bool even = a.levels == nullptr;
  // The adjustments of histogram_binning (docs/NOTES.md): int8 results are binned as unsigned
  // with levels shifted by 128; even floating-point bins clamp values just below upper. Planned
  // before anything is queued (it can reject the arguments).
  int shifted_lower = 0, shifted_upper = 0;
  std::vector<int> shifted_levels;
  const void* lower = a.lower;
  const void* upper = a.upper;
  const void* host_levels = a.levels;
  bool clamp = false;
  double clamp_max = 0, clamp_upper = 0;
  visit_scalar(a.level, [&](auto v) {
    using L = decltype(v);
    using C = canonical_level_t<L>;
    const C lo = even ? *static_cast<const C*>(a.lower) : C{};
    const C hi = even ? *static_cast<const C*>(a.upper) : C{};
    const auto b = plan_histogram_binning<L>(fn, a.num_levels, even, lo, hi);
    if constexpr (histogram_binning<L>::xor_sign) {
      if (even) {
        shifted_lower = shifted_level<L>(lo);
        shifted_upper = shifted_level<L>(hi);
        lower = &shifted_lower;
        upper = &shifted_upper;
      } else {
        const auto* l = static_cast<const C*>(a.levels);
        shifted_levels.assign(l, l + a.num_levels);
        for (auto& x : shifted_levels)
          x = shifted_level<L>(x);
        host_levels = shifted_levels.data();
      }
    }
    if constexpr (std::is_floating_point_v<L>) {
      clamp = b.clamp;
      clamp_max = static_cast<double>(b.clamp_max);
      clamp_upper = static_cast<double>(b.upper);
    }
  });
  if (a.n == 0) {
    check_cuda(
        cudaMemsetAsync(a.histogram, 0, a.counter_size * std::size_t(a.num_levels - 1), s.get()),
        "cudaMemsetAsync");
    return;
  }
  const family f = even ? family::histogram_even : family::histogram_range;
  set_request req{f, {&t}};
  req.level = a.level;
  req.counter = a.counter_size == 4 ? scalar::u32 : scalar::u64;
  req.ops[0] = a.op;
  if (static_cast<int>(t.kind) == 0 && a.plan == nullptr && !precompiled_request(req)) {
    // Struct samples whose class has no histogram set for these levels and counters (the class
    // sets cover even bins with f32 levels and u32 counters): the operator maps the samples to
    // Level in one pass of the type-free "for_each" set, into temporary storage, and the
    // library's precompiled histogram of Level samples bins them. Not fused (one more read and
    // write of n levels), but only the operator compiles, not CUB's kernels from source.
    visit_scalar(a.level, [&](auto v) {
      using L = decltype(v);
      temp_storage levels_of(mr, a.n * sizeof(L), s);
      const cupar::jit::iterator in(cupar::jit::detail::iterator_pointer(t, a.samples));
      const cupar::jit::output out(
          cupar::jit::detail::output_pointer(jit_type_of<L>(), levels_of.get()));
      const cupar::jit::iterator* ins[1] = {&in};
      run_apply(fn, 1, ins, out, a.n, *a.op, s);
      histogram({fn, a.level, levels_of.get(), a.n, a.histogram, a.counter_size, a.num_levels,
                 a.lower, a.upper, a.levels},
                s, mr);
    });
    return;
  }
  const auto [devp, module] = resolve(req, a.plan, fn);
  const jit::device_info& dev = *devp;
  const std::size_t level_size = static_cast<std::size_t>(
      scalar_is_float(a.level) ? scalar_size(a.level) : (scalar_size(a.level) <= 2 ? 4 : 8));
  jit::histogram_launch h{a.samples, a.n,       a.histogram, a.counter_size, a.num_levels,
                          even,      a.level,   lower,       upper,          nullptr,
                          clamp,     clamp_max, clamp_upper};
  jit::launch_status st;
  auto sizing = [&](void* temp, std::size_t& b) {
    jit::check_dispatch(jit::run_histogram(*module, dev, st, temp, b, h, a.op->state(), s.get()),
                        st, "cupar histogram (run-time operator)");
    return cudaSuccess;
  };
  const std::size_t bytes = required_temp_bytes(
      "cupar histogram (run-time operator)",
      {a.n, module->serial(), static_cast<std::uint64_t>(a.num_levels)}, sizing);
  const std::size_t levels_bytes = even ? 0 : align_up(level_size * std::size_t(a.num_levels), 256);
  temp_storage temp(mr, levels_bytes + bytes, s);
  auto* base = static_cast<unsigned char*>(temp.get());
  if (!even) {
    check_cuda(cudaMemcpyAsync(base, host_levels, level_size * std::size_t(a.num_levels),
                               cudaMemcpyHostToDevice, s.get()),
               "cudaMemcpyAsync");
    h.d_levels = base;
  }
  std::size_t b = bytes;
  jit::check_dispatch(
      jit::run_histogram(*module, dev, st, base + levels_bytes, b, h, a.op->state(), s.get()), st,
      "cupar histogram (run-time operator)");
}

// --- compile-only builds and plans ------------------------------------------------------------

namespace {
set_request with_op(set_request r, const cupar::jit::op* op) {
  r.ops[0] = op;
  return r;
}

set_request request_of(const jit_compile_args& c) {
  if (c.kind != jit_compile_args::data_processing && c.op == nullptr) {
    throw_invalid_argument("cupar::jit", "no operator");
  }
  switch (c.kind) {
    case jit_compile_args::reduce:
      return with_op({family::reduce, {c.types[0]}}, c.op);
    case jit_compile_args::transform_reduce: {
      if (c.op2 == nullptr) throw_invalid_argument("cupar::jit", "no transform");
      set_request r = with_op({family::transform_reduce, {c.types[0], c.types[1]}}, c.op2);
      r.ops[1] = c.op;
      return r;
    }
    case jit_compile_args::scan_inclusive:
      return with_op({family::scan_inclusive, {c.types[0]}}, c.op);
    case jit_compile_args::scan_exclusive:
      return with_op({family::scan_exclusive, {c.types[0]}}, c.op);
    case jit_compile_args::transform_unary:
      return with_op({family::transform_unary, {c.types[0], c.types[1]}}, c.op);
    case jit_compile_args::transform_binary:
      return with_op({family::transform_binary, {c.types[0], c.types[1], c.types[2]}}, c.op);
    case jit_compile_args::sort_keys:
      return with_op({family::merge_sort_keys, {c.types[0]}}, c.op);
    case jit_compile_args::sort_pairs: {
      set_request r{family::merge_sort_pairs, {c.types[0]}};
      r.value = c.types[1];
      return with_op(r, c.op);
    }
    case jit_compile_args::histogram_even:
    case jit_compile_args::histogram_range: {
      set_request r{c.kind == jit_compile_args::histogram_even ? family::histogram_even
                                                               : family::histogram_range,
                    {c.types[0]}};
      r.level = c.level;
      r.counter = c.counter_size == 4 ? scalar::u32 : scalar::u64;
      return with_op(r, c.op);
    }
    case jit_compile_args::data_processing: {
      const cupar::jit::op* ops[2] = {c.op, c.op2};
      return dp_request(c.what, c.types, ops, false);
    }
  }
  throw_invalid_argument("cupar::jit", "unknown kernel set");
}

/// Whether calls with `op` on `r` are served by the library without the JIT.
bool served_by_library(const set_request& r, const cupar::jit::op& op) {
  const cupar::jit::named_op named = op.named();
  if (named == cupar::jit::named_op::none || !is_arithmetic(*r.t[0])) return false;
  switch (r.fam) {
    case family::reduce:
    case family::scan_inclusive:
    case family::scan_exclusive: {
      bool ok = false;
      visit_scalar(r.t[0]->kind, [&](auto v) { ok = named_op_supported<decltype(v)>(named); });
      return ok;
    }
    case family::merge_sort_keys:
    case family::merge_sort_pairs:
      return named == cupar::jit::named_op::less || named == cupar::jit::named_op::greater;
    default:
      return false;
  }
}
}  // namespace

cupar::jit::build_report jit_compile(const jit_compile_args& c) {
  std::optional<cupar::jit::op> loader, store;
  set_request req{family::reduce};
  const bool scan =
      c.kind == jit_compile_args::scan_inclusive || c.kind == jit_compile_args::scan_exclusive;
  if (c.out != nullptr && c.iter == nullptr) {
    throw_invalid_argument("cupar::jit", "an output expression needs an input expression");
  }
  const bool data_processing = c.kind == jit_compile_args::data_processing;
  if (c.out != nullptr && !scan && !data_processing) {
    // transform over expressions: the "for_each" set.
    if (c.op == nullptr) throw_invalid_argument("cupar::jit", "no operator");
    const int arity = c.iter2 != nullptr ? 2 : 1;
    const cupar::jit::iterator* ins[2] = {c.iter, c.iter2};
    loader.emplace(jit::transform_apply_op(ins, arity, *c.out, *c.op, 0, "cupar::jit::compile").op);
    req = set_request{family::for_each, {&jit::index_type()}};
    req.ops[0] = &*loader;
  } else if (c.iter != nullptr && data_processing) {
    // select_if, partition, unique over an expression: the "+index" stream compaction sets; into
    // an output expression as well: the "+io" sets.
    if (!reads_expressions(c.what)) {
      throw_invalid_argument("cupar::jit",
                             "of the data-processing families, select_if, partition and unique "
                             "read iterator expressions in their kernels");
    }
    loader.emplace(jit::expression_op(*c.iter, *c.types[0], 0, "cupar::jit::compile"));
    if (c.out != nullptr) {
      store.emplace(jit::store_op(*c.out, *c.types[0], 0, "cupar::jit::compile"));
    }
    const cupar::jit::op* ops[2] = {c.op, c.op2};
    req = dp_expression_request(c.what, c.types, ops, *loader, store ? &*store : nullptr);
  } else if (c.iter != nullptr) {
    if (c.op == nullptr) throw_invalid_argument("cupar::jit", "no operator");
    if (!scan && c.kind != jit_compile_args::reduce) {
      throw_invalid_argument("cupar::jit", "iterator expressions are taken by reduce and scans");
    }
    loader.emplace(jit::expression_op(*c.iter, *c.types[0], 0, "cupar::jit::compile"));
    const family f = !scan                                        ? family::reduce
                     : c.kind == jit_compile_args::scan_inclusive ? family::scan_inclusive
                                                                  : family::scan_exclusive;
    if (c.out != nullptr) {
      // A scan into an output expression: the "+io" scan sets.
      store.emplace(jit::store_op(*c.out, *c.types[0], 0, "cupar::jit::compile"));
      req = jit::expression_request(f, *c.types[0], *loader, c.op, *store);
    } else {
      req = jit::expression_request(f, *c.types[0], *loader, c.op);
    }
  } else {
    req = request_of(c);
  }
  const jit::build_spec spec = req.spec();
  const jit::built_binary b = jit::build_only(spec, c.arch, c.optimized ? 2 : 1);
  cupar::jit::build_report r;
  r.kernel_set = spec.set.key();
  r.arch = c.arch;
  r.precompiled_kernels = b.precompiled;
  r.cubin_bytes = b.cubin.size();
  r.kernels = b.kernels;
  r.compile_ms = b.compile_ms;
  r.link_ms = b.link_ms;
  r.tier = b.tier;
  r.register_capped = b.register_capped;
  return r;
}

plan_state::~plan_state() {
  if (entry) jit::hold_for_plan(*entry, false);
}

std::shared_ptr<plan_state> jit_make_plan(const jit_compile_args& c) {
  auto plan = std::make_shared<plan_state>();
  plan->request = request_of(c);
  const jit::device_info& dev = jit::current_device();
  plan->device = &dev;
  if (!served_by_library(plan->request, *c.op)) {
    plan->entry = jit::obtain_entry(
        plan->request.key(dev.arch), [&] { return plan->request.spec(); }, plan->request.anchor(),
        dev);
  }
  // The plan's calls pass their operator; the request's pointers are not kept past its making.
  plan->request.ops[0] = plan->request.ops[1] = nullptr;
  return plan;
}

}  // namespace cupar::detail
