// cupar: compile-only builds (cupar::jit::compile) and plans (cupar::jit::plan).
#include "calls.hpp"
#include "engine.hpp"
#include "iterator_expr.hpp"
#include "launch.hpp"
#include "precompiled.hpp"
#include "request.hpp"

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
  if (named == cupar::jit::named_op::none || !!r.t[0]->is_struct()) return false;
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
