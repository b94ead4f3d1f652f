// cupar: compile-only builds (cupar::jit::compile_*) and plans (cupar::jit::*_plan): the
// operation's record makes the request (call.hpp).
#include "call.hpp"
#include "engine.hpp"
#include "request.hpp"

#include "compiled/named_ops.hpp"

#include <cupar/detail/checks.hpp>
#include <cupar/detail/jit_entry.hpp>

#include <memory>
#include <string>

namespace cupar::detail {

using jit::set_request;

// --- compile-only builds and plans ------------------------------------------------------------

namespace {

/// The request of a compile-only build or a plan of `a` (its record's request()), after the checks
/// every operation shares.
set_request request_of(const jit_args& a, request_scratch& scratch) {
  const char* fn = a.function != nullptr ? a.function : "cupar::jit";
  if (a.call == nullptr) throw_invalid_argument(fn, "no operation");
  const jit_call& call = *a.call;
  if (call.request == nullptr) {
    throw_invalid_argument(fn, std::string(call.name) + " has no compile-only build");
  }
  if (!call.layered && a.ops[0] == nullptr) throw_invalid_argument("cupar::jit", "no operator");
  if (a.out_iter[0] != nullptr && a.in_iter[0] == nullptr) {
    throw_invalid_argument("cupar::jit", "an output expression needs an input expression");
  }
  if (call.layered && a.in_iter[0] != nullptr && !call.io.reads_input[0]) {
    throw_invalid_argument("cupar::jit",
                           "of the data-processing families, select_if, select_flagged, partition "
                           "and unique read iterator expressions in their kernels");
  }
  if (call.layered && a.in_iter[1] != nullptr && !call.io.reads_input[1]) {
    throw_invalid_argument("cupar::jit",
                           "of the data-processing families, reduce_by_key and group_by read "
                           "their values as iterator expressions in their kernels");
  }
  return call.request(a, scratch);
}

}  // namespace

bool named_on_arithmetic(const set_request& r, const cupar::jit::op& op) {
  const cupar::jit::named_op named = op.named();
  if (named == cupar::jit::named_op::none || r.t[0]->is_struct()) return false;
  bool ok = false;
  visit_scalar(r.t[0]->kind, [&](auto v) { ok = named_op_supported<decltype(v)>(named); });
  return ok;
}

cupar::jit::build_report jit_compile(const jit_args& given, int arch, bool optimized) {
  jit_args a = given;
  a.build_only = true;
  request_scratch scratch;
  const set_request req = request_of(a, scratch);
  const jit::build_spec spec = req.spec();
  const jit::built_binary b = jit::build_only(spec, arch, optimized ? 2 : 1);
  cupar::jit::build_report r;
  r.kernel_set = spec.set.key();
  r.arch = arch;
  r.precompiled_kernels = b.precompiled;
  r.cubin_bytes = b.bytes();
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

std::shared_ptr<plan_state> jit_make_plan(const jit_args& given) {
  jit_args a = given;
  a.build_only = true;
  auto plan = std::make_shared<plan_state>();
  request_scratch scratch;
  plan->request = request_of(a, scratch);
  const jit::device_info& dev = jit::current_device();
  plan->device = &dev;
  const auto served = a.call->served_by_library;
  if (served == nullptr || !served(plan->request, *a.ops[0])) {
    // for_plan: the plan holds the entry from here (its destructor lets it go), so that a
    // clear_memory_cache before its optimised build began does not drop that build.
    plan->entry = jit::obtain_entry(
        plan->request.key(dev.arch), [&] { return plan->request.spec(); }, plan->request.anchor(),
        dev, /*for_plan=*/true);
  }
  // The plan's calls pass their operator; the request's pointers are not kept past its making.
  plan->request.ops[0] = plan->request.ops[1] = nullptr;
  return plan;
}

}  // namespace cupar::detail
