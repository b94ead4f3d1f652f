// cupar: the library entry of the run-time-comparator sorts (merge sort).
#include "../core/calls.hpp"
#include "../core/engine.hpp"
#include "../core/iterator_expr.hpp"
#include "../core/launch.hpp"
#include "../core/precompiled.hpp"
#include "../core/request.hpp"
#include "merge_sort.hpp"

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
      !k.is_struct()) {
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
      index_iota(base, index.size, a.n, s);
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
      index_gather(src, a.values_out, base + ib, index.size, vsize, a.n, s);
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

}  // namespace cupar::detail
