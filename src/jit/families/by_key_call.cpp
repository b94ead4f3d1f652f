// cupar: the by-key families with run-time operators: unique_by_key, run_length_encode,
// reduce_by_key, inclusive_scan_by_key, exclusive_scan_by_key (kernel sets of
// jit_ops/cupar_unique_by_key.cuh, cupar_reduce_by_key.cuh, cupar_scan_by_key.cuh; host dispatch
// in by_key_run.cu). A null equality is the named equal_to, whose precompiled object is linked.
#include "../core/calls.hpp"
#include "by_key.hpp"

#include <cupar/detail/counted.hpp>
#include <cupar/detail/dp_checks.hpp>
#include <cupar/detail/temp_storage.hpp>

#include <cstdint>
#include <limits>

namespace cupar::detail {
namespace {

const cupar::jit::op& equality_or_default(const cupar::jit::op* eq) {
  return eq != nullptr ? *eq : cupar::jit::equal_to;
}

/// The kernels of unique_by_key, reduce_by_key and run_length_encode count with 32-bit offsets up
/// to 2^31 - 1 items, as CUB does for an int count (64-bit ones made them 1.2-1.8x slower on 2^28
/// items, H100: the offsets widen the tile state's and the block scan's words), and with 64-bit
/// offsets above: the "wide" kernel sets, compiled from source at run time, once (they are not
/// precompiled).
jit::set_request compaction_request(const jit_dp_args& a) {
  jit::set_request req = dp_request(a.what, a.types, a.ops, false);
  req.wide = a.n > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max());
  if (req.wide) req.plus = false;  // the wide sets keep the operator's slot
  return req;
}

void unique_by_key(const jit_dp_args& a, stream_ref s, memory_resource& mr,
                   const pending_inputs* pending) {
  const char* fn = a.function;
  const std::size_t ks = a.types[0]->size, vs = a.types[1]->size;
  const dp_range in[2] = {{"d_keys_in", a.in[0], ks}, {"d_values_in", a.in[1], vs}};
  const dp_range out[2] = {{"d_keys_out", a.out[0], ks}, {"d_values_out", a.out[1], vs}};
  check_by_key_compaction(fn, a.n, in, out, "d_num_selected", a.d_count, a.host_count != nullptr);
  write_pending(pending, s);
  const jit::set_request req = compaction_request(a);
  const auto [devp, module] = jit::resolve(req, nullptr, fn);
  const jit::device_info& dev = *devp;
  jit::unique_by_key_launch launch{
      a.in[0], a.in[1], a.out[0], a.out[1], nullptr, a.n, equality_or_default(a.ops[0]).state()};
  jit::launch_status st;
  const char* call = "cupar unique_by_key (run-time operator)";
  run_counted(call, mr, s, {a.n, module->serial()}, a.d_count, a.host_count, 1,
              [&](void* temp, std::size_t& bytes, std::size_t* counts) {
                launch.d_count = counts;
                jit::check_dispatch(
                    jit::run_unique_by_key(*module, dev, st, temp, bytes, launch, s.get()), st,
                    call);
                return cudaSuccess;
              });
}

/// reduce_by_key, and run_length_encode (no values, no operator: the kernels count).
void reduce_by_key(const jit_dp_args& a, stream_ref s, memory_resource& mr,
                   const pending_inputs* pending) {
  const char* fn = a.function;
  const bool run_length = a.what == dp_op::run_length_encode;
  const std::size_t ks = a.types[0]->size, vs = a.types[1]->size;
  const bool to_host = a.host_count != nullptr;
  if (run_length) {
    check_run_length_counts(fn, vs);
    const dp_range in[1] = {{"d_in", a.in[0], ks}};
    const dp_range out[2] = {{"d_unique_out", a.out[0], ks}, {"d_counts_out", a.out[1], vs}};
    check_by_key_compaction(fn, a.n, in, out, "d_num_runs", a.d_count, to_host);
  } else {
    const dp_range in[2] = {{"d_keys_in", a.in[0], ks}, {"d_values_in", a.in[1], vs}};
    const dp_range out[2] = {{"d_keys_out", a.out[0], ks}, {"d_aggregates_out", a.out[1], vs}};
    check_by_key_compaction(fn, a.n, in, out, "d_num_runs", a.d_count, to_host);
  }
  if (!run_length && a.ops[0] == nullptr) throw_invalid_argument(fn, "no operator");
  write_pending(pending, s);
  const jit::set_request req = compaction_request(a);
  const auto [devp, module] = jit::resolve(req, nullptr, fn);
  const jit::device_info& dev = *devp;
  // The equality is the last slot: the only one of run_length_encode, the second of reduce_by_key.
  const cupar::jit::op& eq = equality_or_default(run_length ? a.ops[0] : a.ops[1]);
  jit::reduce_by_key_launch launch{
      a.in[0], a.out[0], run_length ? nullptr : a.in[1],           a.out[1],
      nullptr, a.n,      run_length ? nullptr : a.ops[0]->state(), eq.state(),
      req.plus};
  jit::launch_status st;
  const char* call =
      run_length ? "cupar run_length_encode" : "cupar reduce_by_key (run-time operator)";
  run_counted(call, mr, s, {a.n, module->serial()}, a.d_count, a.host_count, 1,
              [&](void* temp, std::size_t& bytes, std::size_t* counts) {
                launch.d_count = counts;
                jit::check_dispatch(
                    jit::run_reduce_by_key(*module, dev, st, temp, bytes, launch, s.get()), st,
                    call);
                return cudaSuccess;
              });
}

void scan_by_key(const jit_dp_args& a, stream_ref s, memory_resource& mr,
                 const pending_inputs* pending) {
  const char* fn = a.function;
  const std::size_t ks = a.types[0]->size, vs = a.types[1]->size;
  check_scan_by_key(fn, a.in[0], ks, a.in[1], a.out[0], vs, a.n);
  const bool exclusive = a.what == dp_op::exclusive_scan_by_key;
  if (a.ops[0] == nullptr) throw_invalid_argument(fn, "no operator");
  if (exclusive && a.init == nullptr) throw_invalid_argument(fn, "no initial value");
  write_pending(pending, s);
  if (a.n == 0) return;  // nothing to write (CUB launches nothing either)
  const jit::set_request req = dp_request(a.what, a.types, a.ops, false);
  const auto [devp, module] = jit::resolve(req, nullptr, fn);
  const jit::device_info& dev = *devp;
  const jit::scan_by_key_launch launch{a.in[0],
                                       a.in[1],
                                       a.out[0],
                                       a.n,
                                       ks,
                                       a.ops[0]->state(),
                                       equality_or_default(a.ops[1]).state(),
                                       exclusive ? a.init : nullptr,
                                       req.plus};
  jit::launch_status st;
  const char* call = "cupar scan_by_key (run-time operator)";
  run_with_temp_storage(call, mr, s, {a.n, module->serial()}, [&](void* temp, std::size_t& bytes) {
    jit::check_dispatch(jit::run_scan_by_key(*module, dev, st, temp, bytes, launch, s.get()), st,
                        call);
    return cudaSuccess;
  });
}

}  // namespace

void call_by_key(const jit_dp_args& a, stream_ref s, memory_resource& mr,
                 const pending_inputs* pending) {
  switch (a.what) {
    case dp_op::unique_by_key:
      return unique_by_key(a, s, mr, pending);
    case dp_op::run_length_encode:
    case dp_op::reduce_by_key:
      return reduce_by_key(a, s, mr, pending);
    case dp_op::inclusive_scan_by_key:
    case dp_op::exclusive_scan_by_key:
      return scan_by_key(a, s, mr, pending);
    default:
      throw_invalid_argument(a.function, "not a by-key operation");
  }
}

}  // namespace cupar::detail
