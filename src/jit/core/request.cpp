// cupar internal: turning a library call's types and operators into a JIT build request.
#include "request.hpp"

#include "family.hpp"

#include "iterator_expr.hpp"

#include "op_definition.hpp"
#include "precompiled.hpp"

#include <cupar/detail/checks.hpp>
#include <cupar/detail/cuda_check.hpp>

#include <cuda_runtime_api.h>

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

namespace cupar::detail::jit {
namespace {

/// The default operator of a slot left empty by the caller.
const cupar::jit::op& default_op(const slot_spec& slot) {
  return std::string(slot.symbol) == "cupar_jit_comp" ? cupar::jit::less : cupar::jit::equal_to;
}

/// For each slot of a data-processing family, the index (into the request's types) of the type
/// its arguments carry.
std::size_t slot_type_index(family f, std::size_t slot) {
  const auto of = describe(f).slot_type;
  return of != nullptr ? of(slot) : 0;
}

/// The alignment a struct's class takes: its own, or 8 with `widen` for a widenable struct.
std::uint32_t class_align(const jit_type& t, bool widen) {
  return widen && widenable(t) ? 8u : t.align;
}

/// Opaque storage of a struct's size and its class's alignment.
type_ref storage_of(const jit_type& t, bool widen) {
  return type_ref::storage(t.size, class_align(t, widen));
}

/// The positions of a set's types that a user struct may take and its struct class then serves
/// (each family's record says which).
bool struct_class_position(family f, std::size_t i) {
  const auto position = describe(f).struct_class_position;
  return position != nullptr && position(i);
}

/// `set` with each user struct (at a position its family allows) replaced by its struct class
/// (opaque storage of its size and alignment), when the library precompiled that set
/// (CUPAR_JIT_STRUCT_CLASSES); the operators' wrappers then bit-cast between the class and the
/// struct the snippet sees. Otherwise false: the user's types are kept and the kernels are
/// compiled from source.
bool struct_class_set(const set_spec& set, const std::vector<const jit_type*>& user, bool widen,
                      set_spec& out) {
  set_spec candidate = set;
  bool any = false;
  for (std::size_t i = 0; i < candidate.types.size() && i < user.size(); ++i) {
    const jit_type* t = user[i];
    if (t == nullptr || !t->is_struct() || !struct_class_position(set.fam, i)) {
      continue;
    }
    // A word type (bool, __half, ...) by the unsigned integer of its size, other structs by
    // storage of their size and alignment.
    candidate.types[i] = t->word ? type_ref::size_class(*t) : storage_of(*t, widen);
    any = true;
  }
  if (!any || !precompiled_for_any_arch(candidate.key())) return false;
  out = std::move(candidate);
  return true;
}

}  // namespace

bool widenable(const jit_type& t) {
  return t.is_struct() && !t.word && t.align < 8 && t.size % 8 == 0;
}

namespace {

struct padded_type {
  jit_type view;
  const jit_type* user;
};

std::mutex& padded_mutex() {
  static std::mutex* m = new std::mutex;  // immortal: calls may run while the process exits
  return *m;
}
std::map<const jit_type*, const padded_type*>& padded_views() {
  static auto* views = new std::map<const jit_type*, const padded_type*>;
  return *views;
}

}  // namespace

bool paddable(const jit_type& t) {
  return t.is_struct() && !t.word && t.align == 4 && t.size % 4 == 0 && t.size <= 64;
}

const jit_type& padded_view(const jit_type& t) {
  std::lock_guard<std::mutex> lock(padded_mutex());
  auto& views = padded_views();
  if (auto it = views.find(&t); it != views.end()) return it->second->view;
  // Immortal as the jit_type instances it stands beside (requests and cache keys hold its address).
  auto* p = new padded_type{t, &t};
  p->view.size = (t.size + 7) / 8 * 8;
  p->view.align = 8;
  views.emplace(&t, p);
  views.emplace(&p->view, p);
  return p->view;
}

const jit_type& user_type(const jit_type& t) {
  if (!t.is_struct() || t.align != 8) return t;  // views are structs of alignment 8
  std::lock_guard<std::mutex> lock(padded_mutex());
  const auto& views = padded_views();
  const auto it = views.find(&t);
  return it != views.end() && &it->second->view == &t ? *it->second->user : t;
}

fast_key set_request::key(int arch) const {
  // A moved type is keyed by its size and alignment, not by its identity.
  fast_key k{
      fam, moved == 0 ? nullptr : t[0], moved == 1 ? nullptr : t[1], moved == 2 ? nullptr : t[2], 0,
      arch};
  if (moved >= 0) k.extra = (std::uint64_t(t[moved]->size) << 8) | t[moved]->align;
  k.extra |= std::uint64_t(variant_bits()) << 40;
  // The first slot's operator holds the cache this key is looked up in; the others are named.
  if (ops[1] != nullptr) k.d1 = ops[1]->definition().get();
  if (ops[2] != nullptr) k.d2 = ops[2]->definition().get();
  return k;
}

build_spec set_request::spec() const {
  if (!aligned8) return spec_as(false);
  // The struct's own class first; the 8-byte-aligned one where only that has a set.
  build_spec own = spec_as(false);
  if (precompiled_for_any_arch(own.set.key())) return own;
  build_spec widened = spec_as(true);
  return precompiled_for_any_arch(widened.set.key()) ? widened : own;
}

build_spec set_request::spec_as(bool widen) const {
  build_spec sp;
  sp.set.fam = fam;
  const bool classes = is_data_processing(fam);
  for (int i = 0; i < 3; ++i) {
    const jit_type* x = t[i];
    if (x == nullptr) continue;
    if (i == moved) {
      sp.set.types.push_back(storage_of(*x, widen));
    } else if (classes && x->is_struct() && !x->word) {
      sp.set.types.push_back(storage_of(*x, widen));
    } else {
      sp.set.types.push_back(classes ? type_ref::size_class(*x) : type_ref::of(*x));
    }
  }
  if (plus) sp.set.types[1] = type_ref::of(*t[1]);  // the values' own type
  if (index) sp.set.variant = io ? "io" : "index";
  if (xform) sp.set.variant = "xform";
  if (init) sp.set.variant += sp.set.variant.empty() ? "init" : "_init";
  // Structs served by their precompiled class: the kernels move storage of their size and
  // alignment; the operator's wrapper bit-casts to and from the structs the snippet sees.
  set_spec classed;
  std::vector<const jit_type*> user(t, t + 3);
  if (moved >= 0) user[static_cast<std::size_t>(moved)] = nullptr;  // storage already
  if (!classes && struct_class_set(sp.set, user, widen, classed)) {
    const std::vector<slot_spec> user_slots = slots_of(sp.set);
    sp.set = std::move(classed);
    for (std::size_t i = 0; i < user_slots.size(); ++i) {
      const cupar::jit::op& op = ops[i] != nullptr ? *ops[i] : default_op(user_slots[i]);
      sp.slots.push_back({op, user_slots[i].args, user_slots[i].result});
    }
    return sp;
  }
  if (in_place) sp.set.variant = "inplace";
  if (wide) sp.set.variant = "wide";
  if (plus) sp.set.variant = "plus";
  const std::vector<slot_spec> slots = slots_of(sp.set);
  for (std::size_t i = 0; i < slots.size(); ++i) {
    // The "+plus" sets have only the equality slot: ops[1], on the keys.
    const std::size_t o = plus ? i + 1 : i;
    const cupar::jit::op& op = ops[o] != nullptr ? *ops[o] : default_op(slots[i]);
    if (!is_data_processing(fam)) {
      sp.slots.push_back({op, slots[i].args, slots[i].result});
      continue;
    }
    // A "+index" set's own slots follow the expression's: slot i is the family's slot i - 1.
    const std::size_t own = index && i > 0 ? i - 1 : i;
    // A padded view binds the struct it stands for (the wrapper copies its bytes in and out).
    const type_ref user = type_ref::of(user_type(*t[plus ? 0 : slot_type_index(fam, own)]));
    if (index && i == 0) {
      // The iterator expression of a "+index" set: an index in, the caller's type out.
      sp.slots.push_back({op, slots[i].args, user});
      continue;
    }
    if (io && i + 1 == slots.size()) {
      // The output expression's store of a "+io" set: an index and a value of the caller's type.
      sp.slots.push_back({op, {slots[i].args[0], user}, slots[i].result});
      continue;
    }
    slot_binding b{op, std::vector<type_ref>(slots[i].args.size(), user),
                   slots[i].result.is_boolean() ? type_ref::boolean() : user};
    sp.slots.push_back(std::move(b));
  }
  return sp;
}

set_request expression_request(family f, const jit_type& t, const cupar::jit::op& loader,
                               const cupar::jit::op* op) {
  set_request r{f, {&t}};
  r.index = true;
  r.ops[0] = &loader;
  r.ops[1] = op;
  return r;
}

set_request expression_request(family f, const jit_type& t, const cupar::jit::op& loader,
                               const cupar::jit::op* op, const cupar::jit::op& store) {
  set_request r = expression_request(f, t, loader, op);
  r.io = true;
  r.ops[2] = &store;
  return r;
}

const cupar::jit::op& set_request::anchor() const {
  if (ops[0] != nullptr) return *ops[0];
  // Sets without a caller's operator in their first slot: one constant anchor per family (its
  // cache holds builds for every type of the family; keys tell them apart).
  static const std::vector<cupar::jit::op> anchors = [] {
    std::vector<cupar::jit::op> v;
    for (int f = 0; f < family_count; ++f)
      v.emplace_back(std::string("/* cupar anchor */"));
    return v;
  }();
  return anchors[static_cast<int>(fam)];
}

/// Whether the library precompiled the kernel set `r` asks for (a user struct: its class's set),
/// remembered per family and types, so that the per-call path pays a map lookup, not the set's
/// key.
bool precompiled_request(const set_request& r) {
  using key_t =
      std::tuple<family, const jit_type*, const jit_type*, const jit_type*, int, unsigned>;
  static std::mutex mutex;
  static std::map<key_t, bool> known;
  const key_t key{r.fam, r.t[0], r.t[1], r.t[2], r.moved, r.variant_bits()};
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (auto it = known.find(key); it != known.end()) return it->second;
  }
  const bool built = jit::precompiled_for_any_arch(r.spec().set.key());
  std::lock_guard<std::mutex> lock(mutex);
  known.emplace(key, built);
  return built;
}

resolved resolve(const set_request& r, const plan_state* plan, const char* fn) {
  // The call's device guard made the stream's device current.
  const device_info& dev = current_device();
  if (plan != nullptr) {
    // A plan's build is a context-independent library: it runs on every device of the
    // architecture it was built for.
    if (dev.arch != plan->device->arch) {
      throw_invalid_argument(
          fn, "the plan was built for sm_" + std::to_string(plan->device->arch) + " (device " +
                  std::to_string(plan->device->ordinal) + ") but the stream is of device " +
                  std::to_string(dev.ordinal) + ", an sm_" + std::to_string(dev.arch) +
                  ": make a plan for that device (with it current)");
    }
    return {&dev, current_module(plan->entry)};
  }
  try {
    return {&dev, obtain(
                      r.key(dev.arch), [&] { return r.spec(); }, r.anchor(), dev)};
  } catch (const jit_error& e) {
    // Name the call in the summary ("cupar::reduce: run-time operator failed to compile: ..."),
    // also when the build that failed was made by another thread's call.
    std::string what = e.what();
    if (what.rfind("cupar: ", 0) == 0) what = std::string(fn) + ": " + what.substr(7);
    throw jit_error(e.stage(), what, e.log(), e.source(), e.options(), e.line(), e.line_text());
  }
}

}  // namespace cupar::detail::jit
