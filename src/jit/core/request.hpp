// cupar internal: what a library entry point asks the JIT engine for: a kernel set for the
// caller's types, with operators in its slots; cheap to key on the per-call path, spelled out as
// a build_spec only on a miss.
#pragma once

#include "engine.hpp"
#include "kernel_set.hpp"

#include <cupar/detail/jit_entry.hpp>

#include <memory>

namespace cupar::detail {

struct plan_state;

namespace jit {

struct set_request {
  family fam;
  /// The set's types in its key's order (a family's own types, such as a histogram's level and
  /// counter types, are scalar_type()s). The data-processing families compile size classes of
  /// them, the others the types themselves.
  const jit_type* t[3] = {nullptr, nullptr, nullptr};
  /// The index of the type the kernels only move, never read (a sort's payload), or -1: compiled
  /// as opaque storage of its size and alignment and keyed by them, so that every type of that
  /// size and alignment shares the set.
  int moved = -1;
  bool in_place = false;  // select_if, select_flagged: output is the input
  /// unique_by_key, reduce_by_key, run_length_encode: kernels with 64-bit offsets (n >= 2^31).
  bool wide = false;
  /// reduce_by_key, scan_by_key_*: the "+plus" sets (the named plus on a 4- or 8-byte
  /// arithmetic value type: cuda::std::plus<> compiled into the kernels, the value type itself
  /// rather than its size class, and one slot, the equality, given by ops[1]).
  bool plus = false;
  /// transform_reduce, the scans, select_if, partition_if, unique: the "+index" sets (the input
  /// is an iterator expression, ops[0]; the family's own operator follows it).
  bool index = false;
  /// Scans, select_if, partition_if, unique: the "+io" sets (also the output is an expression,
  /// its store in the last slot: ops[2]).
  bool io = false;
  /// The scans: the "+xform" sets (the input is an array of t[0] that the transform ops[0] maps
  /// into t[0] element by element; the scan's operator follows it).
  bool xform = false;
  /// Inclusive scans: the "+init" sets ("+index_init", "+io_init" with expressions), seeded with
  /// an initial value.
  bool init = false;
  /// The caller's arrays of the request's structs are 8-byte aligned (arrays_aligned8): a struct
  /// of smaller alignment whose size is a multiple of 8 may then take the 8-byte-aligned class of
  /// its size where its own class has no set (the bytes, their layout and the arrays' strides
  /// are the same). False for compile-only builds and plans, whose arrays are not known.
  bool aligned8 = false;
  /// The slots' operators (slot order of slots_of); the first one anchors the per-operator
  /// cache. Null: the slot's default, the named equal_to or less.
  const cupar::jit::op* ops[3] = {nullptr, nullptr, nullptr};

  fast_key key(int arch) const;
  /// The variant flags as bits (xform 7, aligned8 6, in_place 5, wide 4, plus 3, index 2, io 1,
  /// init 0), as keys and the precompiled-set memo tell requests apart.
  unsigned variant_bits() const {
    return (xform ? 128u : 0u) | (aligned8 ? 64u : 0u) | (in_place ? 32u : 0u) | (wide ? 16u : 0u) |
           (plus ? 8u : 0u) | (index ? 4u : 0u) | (io ? 2u : 0u) | (init ? 1u : 0u);
  }
  build_spec spec() const;
  /// spec() with structs of alignment below 8 and a size a multiple of 8 compiled as the
  /// 8-byte-aligned class of their size (`widen`) or as their own.
  build_spec spec_as(bool widen) const;
  /// The operator whose own cache remembers this request's builds.
  const cupar::jit::op& anchor() const;
};

/// The request of an iterator expression read by `f` (transform_reduce, scan_inclusive,
/// scan_exclusive, select_if, partition_if, unique) into `t`: the "+index" sets of types {t}
/// (a family whose sets also name the index type sets r.t itself: transform_reduce<u64, t>), the
/// expression's generated operator `loader` in the first slot (it anchors the cache), `op` in the
/// second.
set_request expression_request(family f, const jit_type& t, const cupar::jit::op& loader,
                               const cupar::jit::op* op);
/// As expression_request for a scan whose output is an expression too: the "+io" scan sets, the
/// output's generated store in the third slot.
set_request expression_request(family f, const jit_type& t, const cupar::jit::op& loader,
                               const cupar::jit::op* op, const cupar::jit::op& store);

/// Whether the library precompiled the kernel set `r` asks for (a user struct: its class's set),
/// remembered per family and types, so that the per-call path pays a map lookup, not the set's key.
bool precompiled_request(const set_request& r);

/// A struct of alignment below 8 whose size is a multiple of 8: in 8-byte-aligned arrays it may
/// take the 8-byte-aligned class of its size (set_request::aligned8).
bool widenable(const jit_type& t);

/// A record the run-time path may pad (entry.cpp): a struct (not a word type) of 4-byte alignment
/// and a size that is a multiple of 4, up to 64 bytes. Its padded view (padded_view) has the
/// next multiple of 8 as its size and 8-byte alignment, so a data-processing family's kernels
/// serve it with the class of that size (s8a8-s64a8) when the struct's own class has no set:
/// the caller's arrays are copied into 8-byte-aligned ones of the view's stride and back.
bool paddable(const jit_type& t);

/// The padded view of a paddable struct (one per struct, for the life of the process): the
/// struct's name and definition, the size rounded up to 8, alignment 8. The kernels move it as
/// storage of that size; the operators' wrappers copy the struct's bytes in and out of it
/// (user_type gives the struct they bind).
const jit_type& padded_view(const jit_type& t);

/// The struct a padded view stands for, or `t` itself.
const jit_type& user_type(const jit_type& t);

struct resolved {
  const device_info* dev;
  std::shared_ptr<const loaded_module> module;
};

/// The module serving `r` on the current device: the plan's, or through the per-operator and
/// process caches (building it on a miss).
resolved resolve(const set_request& r, const plan_state* plan, const char* fn);

}  // namespace jit

/// A plan's build: the cache entry it was made from, for the device it was made on.
struct plan_state {
  plan_state() = default;
  plan_state(const plan_state&) = delete;
  plan_state& operator=(const plan_state&) = delete;
  ~plan_state();
  jit::set_request request;
  std::shared_ptr<jit::program_entry> entry;  // null: a named operator served by the library
  const jit::device_info* device = nullptr;
};

}  // namespace cupar::detail
