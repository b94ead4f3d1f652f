// cupar: select_if, select_flagged, partition and unique with run-time operators (one kernel set
// family of CUB's stream compaction, jit_ops/cupar_select.cuh).
#include "../core/calls.hpp"
#include "../core/iterator_expr.hpp"
#include "select.hpp"

#include <cupar/detail/counted.hpp>
#include <cupar/detail/dp_checks.hpp>

#include <optional>

namespace cupar::detail {

jit::set_request dp_expression_request(dp_op what, const jit_type* const types[2],
                                       const cupar::jit::op* const ops[2],
                                       const cupar::jit::op& loader, const cupar::jit::op* store) {
  jit::set_request r = dp_request(what, types, ops, false);
  r.index = true;
  r.ops[1] = r.ops[0];
  r.ops[0] = &loader;
  if (store != nullptr) {
    r.io = true;
    r.ops[2] = store;
  }
  return r;
}

void call_select(const jit_dp_args& a, stream_ref s, memory_resource& mr,
                 const pending_inputs* pending) {
  const char* fn = a.function;
  const jit_type& t = *a.types[0];
  const bool to_host = a.host_count != nullptr;
  const bool flagged = a.what == dp_op::select_flagged;
  // An iterator expression input (select_if, partition, unique): the "+index" sets read it. An
  // output expression (fuses_output, dp_entry.cpp, chose it: no overlap with the input, a "+io" set
  // precompiled): the "+io" sets store through it as they compact, and read an array input as
  // an expression of that array.
  const cupar::jit::output* output = a.out_iter[0];
  std::optional<cupar::jit::iterator> array_input;
  if (output != nullptr && a.in_iter[0] == nullptr) {
    require_size(fn, a.n, t.size);
    require_data(fn, "d_in", a.in[0], a.n);
    array_input.emplace(cupar::jit::detail::iterator_pointer(t, a.in[0]));
  }
  const cupar::jit::iterator* expression = array_input ? &*array_input : a.in_iter[0];
  // CUB compacts in place for select_if and select_flagged only.
  const bool may_alias = a.what == dp_op::select_if || flagged;
  if (expression != nullptr) {
    // The expression checks its own arrays; the output must not be one of them (documented).
    require_size(fn, a.n, t.size);
    if (output == nullptr) require_data(fn, "d_out", a.out[0], a.n);
    require_count(fn, "d_num_selected", a.d_count, to_host);
  } else {
    check_select(fn, a.in[0], a.out[0], a.d_count, to_host, a.n, t.size, may_alias);
    if (flagged) check_flags(fn, a.in[1], a.n, a.types[1]->size, a.out[0], t.size);
  }
  write_pending(pending, s);
  const bool in_place = expression == nullptr && may_alias && a.n != 0 && a.in[0] == a.out[0];
  std::optional<cupar::jit::op> loader, store;
  if (expression != nullptr) loader.emplace(jit::expression_op(*expression, t, a.n, fn));
  if (output != nullptr) store.emplace(jit::store_op(*output, t, a.n, fn));
  const jit::set_request req =
      loader ? dp_expression_request(a.what, a.types, a.ops, *loader, store ? &*store : nullptr)
             : dp_request(a.what, a.types, a.ops, in_place);
  const auto [devp, module] = jit::resolve(req, nullptr, fn);
  const jit::device_info& dev = *devp;
  const cupar::jit::op* op = a.ops[0] != nullptr ? a.ops[0] : &cupar::jit::equal_to;
  jit::select_launch launch{a.in[0],
                            loader ? loader->state() : nullptr,
                            flagged ? a.in[1] : nullptr,
                            output != nullptr ? nullptr : a.out[0],
                            nullptr,
                            a.n,
                            nullptr,
                            nullptr,
                            store ? store->state() : nullptr};
  if (a.what == dp_op::unique) {
    launch.eq_state = op->state();
  } else if (!flagged) {
    launch.pred_state = op->state();
  }
  jit::launch_status st;
  const char* call = "cupar stream compaction (run-time operator)";
  run_counted(call, mr, s, {a.n, module->serial()}, a.d_count, a.host_count, 1,
              [&](void* temp, std::size_t& bytes, std::size_t* counts) {
                launch.d_count = counts;
                jit::check_dispatch(jit::run_select(*module, dev, st, temp, bytes, launch, s.get()),
                                    st, call);
                return cudaSuccess;
              });
}

}  // namespace cupar::detail
