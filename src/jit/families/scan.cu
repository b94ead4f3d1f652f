// cupar family: inclusive and exclusive scans. Device code: jit_ops/cupar_scan.cuh. Types {T}.
// "+index": the input is an iterator expression (read through cupar_expr_iterator); "+io": the
// output too (cupar_expr_output), its store in the last slot. Inclusive scans seeded with an
// initial value: "+init", "+index_init", "+io_init" (CUB's ForceInclusive kernels). "+xform": the
// input is an array of T transformed element by element by the first slot (a scan of
// jit::transform<T>(array, f), read as CUB reads an array: cupar_xform_iterator).
//
// One file holds the family: its record (what the core and the precompile tool read), then,
// outside the record-only build of the precompile tool, its host dispatch (launches the
// module's kernels through CUB's dispatch or a mirror of it) and its library entries (the
// operations of jit_call_named: argument checks, request, temporaries, launch).
#include "../core/family.hpp"

namespace cupar::detail::jit {
namespace {

/// Whether the set's variant is "xform" (the input is an array of the scan's type transformed by
/// the first slot).
bool reads_transformed_array(const set_spec& s) {
  return s.variant == "xform";
}

std::string typedefs(const set_spec& s) {
  std::string out;
  if (reads_expression(s)) out += "#define CUPAR_INDEX_INPUT 1\n";
  if (writes_expression(s)) out += "#define CUPAR_INDEX_OUTPUT 1\n";
  if (reads_transformed_array(s)) out += "#define CUPAR_XFORM_INPUT 1\n";
  out += "typedef " + s.types[0].name + " cupar_T;\n";
  // The "+xform" sets' transform maps the scan's type to itself.
  if (reads_transformed_array(s)) out += "typedef cupar_T cupar_In;\n";
  return out;
}

std::vector<slot_spec> slots(const set_spec& s) {
  const auto& t = s.types;
  // The out-of-line kernels reduce and scan a thread's items eight (or four) at a time with the
  // operator's fold and scan chunks, and a warp's values with one call of its warp scan
  // (jit_ops/cupar_prelude.cuh, cupar_scan.cuh, CUPAR_OUT_OF_LINE).
  const slot_spec scan_op =
      with_batches(op_slot({t[0], t[0]}, t[0], {"a", "b"}, "operator"), batch::fold | batch::scan);
  if (reads_expression(s)) {
    // The iterator expression first: it anchors the cache entry. "+io": the output expression's
    // store last. The out-of-line kernels read a full tile's items of the expression in one
    // call of its strided form (jit_ops/cupar_scan.cuh, LoadDirectWarpStriped), not one call an
    // item (tier 1 of the scan of transform(x, "x * x") on the H100: 0.45 -> 0.52 of the
    // optimised build).
    std::vector<slot_spec> out = {with_batches(expression_slot(t[0]), batch::strided), scan_op};
    if (writes_expression(s)) out.push_back(store_slot(t[0]));
    return out;
  }
  if (reads_transformed_array(s)) {
    // The transform first (it anchors the cache entry): the out-of-line kernels load a full
    // tile's items as the optimised build does, all in flight, then transform them eight a call
    // by value (jit_ops/cupar_scan.cuh, cupar_xform_iterator).
    return {{"cupar_jit_xform", "transform", {t[0]}, t[0], {"x"}, batch::items}, scan_op};
  }
  return {scan_op};
}

std::vector<std::string> names(const set_spec& set) {
  // An inclusive scan with an initial value: CUB's ForceInclusive kernel (InclusiveScanInit).
  const bool seeded_inclusive = set.fam == family::scan_inclusive && seeded(set);
  const std::string init =
      set.fam == family::scan_inclusive && !seeded_inclusive ? "cub::NullType" : "cupar_scan_init";
  return {"cub::detail::scan::DeviceScanInitKernel<cupar_tile_state>",
          "cub::detail::scan::DeviceScanKernel<cupar_policy, " +
              std::string(reads_expression(set)          ? "cupar_expr_iterator"
                          : reads_transformed_array(set) ? "cupar_xform_iterator"
                                                         : "const cupar_T*") +
              (writes_expression(set) ? ", cupar_expr_output" : ", cupar_T*") +
              ", cupar_tile_state, cupar_scan_op, " + init + ", cupar_offset, cupar_T, " +
              (seeded_inclusive ? "true>" : "false>"),
          "cupar_meta<(long long)cupar_active::ScanPolicyT::BLOCK_THREADS, "
          "(long long)cupar_active::ScanPolicyT::ITEMS_PER_THREAD, "
          "(long long)cupar_tile_state::description_bytes_per_tile, "
          "(long long)cupar_tile_state::payload_bytes_per_tile, "
          "(long long)sizeof(cupar_tile_state)>"};
}

/// nvcc gives CUB's sm_90 scan kernel (128 threads) 64 registers for cuda::std::plus, so 8 blocks
/// fit on an SM; the same kernel with the operator inlined by nvJitLink's LTO got 72 (7 blocks)
/// and ran 8-9% slower at 2^26..2^28 on the H100 (2026-11-21). ptxas picks 64 or 72 on small
/// differences of the code: calling even a force-inlined function instead of writing `a + b`
/// makes nvcc choose 72 as well (docs/JIT.md).
///
/// Struct classes: CUB picks 128 threads x 3 items for a 16-byte struct on sm_90, and nvcc gives
/// the kernel with a `merge` functor (counts and sums added, min and max kept) 48 registers, so
/// 10 blocks fit on an SM; the LTO build under the 64-register target got 54 (9 blocks) and ran
/// at 0.969-0.973 of the functor at 2^24..2^28 on the H100 (ptxas -v, 2026-11-24). A struct scan
/// is therefore tried at 48 registers first, then at 64. Metadata: {threads, items, ...}.
std::vector<std::vector<std::string>> occupancy(const set_spec& s, long long threads, int) {
  if (!s.types.empty() && !s.types[0].is_scalar()) {
    return {{blocks_for_registers(threads, 48)}, {blocks_for_registers(threads, 64)}};
  }
  return {{blocks_for_registers(threads, 64)}};
}

bool struct_position(std::size_t i) {
  return i == 0;
}

const char* const inclusive_rules[] = {
    "precompile t=types: scan_inclusive<$t>",
    "precompile t=types: scan_inclusive<$t>+index",
    "precompile t=types: scan_inclusive<$t>+io",
    "precompile t=types: scan_inclusive<$t>+xform",
    "precompile s=structs: scan_inclusive<$s>",
    // Seeded with an initial value (inclusive_scan with init).
    "precompile t=types: scan_inclusive<$t>+init",
    "precompile t=types: scan_inclusive<$t>+index_init",
    "precompile t=types: scan_inclusive<$t>+io_init",
    "precompile s=structs: scan_inclusive<$s>+init",
};
// One rule a line: cmake/cupar_sets.cmake reads them line by line.
// clang-format off
const char* const exclusive_rules[] = {
    "precompile t=types: scan_exclusive<$t>",
    "precompile t=types: scan_exclusive<$t>+index",
    "precompile t=types: scan_exclusive<$t>+io",
    "precompile t=types: scan_exclusive<$t>+xform",
    "precompile s=structs: scan_exclusive<$s>",
};
// clang-format on

}  // namespace

extern const family_def scan_inclusive_family =
    family_def::make(family::scan_inclusive, "scan_inclusive", "cupar_scan.cuh", 2, typedefs, slots,
                     names)
        .with_occupancy(occupancy)
        .taking_states_by_reference()
        // The tier-1 scan kernel on 4-byte arithmetic items on sm_90 (128 threads a block) at 6
        // blocks an SM: linked with an operator (CUPAR_JIT_DUMP_DIR, 2026-12-01) it took 122
        // registers, 4 blocks (the optimised kernel 64, 8 blocks); capped, 74 without local
        // memory (at 8 blocks, 64 with 8 local stores). 8-byte items run 224 threads and spill
        // under this cap (40 registers, 84 local stores): they keep their own.
        .with_out_of_line_options(sm90_four_byte_blocks<128, 80>,
                                  sm90_four_byte_operators<out_of_line_registers>)
        .with_struct_classes(struct_position)
        .precompiling(inclusive_rules);

extern const family_def scan_exclusive_family =
    family_def::make(family::scan_exclusive, "scan_exclusive", "cupar_scan.cuh", 2, typedefs, slots,
                     names)
        .with_occupancy(occupancy)
        .taking_states_by_reference()
        .with_struct_classes(struct_position)
        .precompiling(exclusive_rules);

}  // namespace cupar::detail::jit

#ifndef CUPAR_FAMILY_RECORD_ONLY

#include "../core/call.hpp"
#include "../core/calls.hpp"
#include "../core/engine.hpp"
#include "../core/iterator_expr.hpp"
#include "../core/launch.hpp"
#include "../core/precompiled.hpp"
#include "../core/request.hpp"

#include "compiled/named_ops.hpp"

#include <cupar/detail/checks.hpp>
#include <cupar/detail/device_guard.hpp>
#include <cupar/detail/jit_entry.hpp>
#include <cupar/detail/temp_storage.hpp>

#include <cub/device/dispatch/dispatch_scan.cuh>

#include <cuda_runtime_api.h>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>

// ---- host dispatch: launch arguments --------------------------------------------------

namespace cupar::detail::jit {

/// Scans; with an iterator expression's state (the "+index" sets) the input is the expression
/// (`in` unused), and with an output expression's state too (the "+io" sets) the output (`out`
/// unused); with `transformed_array` (the "+xform" sets) `expression_state` is the transform's
/// state and the input the array `in` it transforms. `init`: the bytes of the kernels' cupar_init
/// argument (jit_init_value, launch.hpp), or null for an inclusive scan without one.
cudaError_t run_scan(const loaded_module& m, const device_info& dev, launch_status& st, void* temp,
                     std::size_t& temp_bytes, const void* in, void* out, std::size_t n,
                     const void* op_state, const void* init /* null: inclusive */,
                     cudaStream_t stream, const void* expression_state = nullptr,
                     const void* output_state = nullptr, bool transformed_array = false);

}  // namespace cupar::detail::jit

// ---- host dispatch ----------------------------------------------------------------------

namespace cupar::detail::jit {
namespace {

struct erased_accum;  // the accumulator type; the host dispatch only passes pointers to it

// ---- scan: module meta = {threads, items, tile description bytes, payload bytes, tile state
// object size} ----

/// cub::ScanTileState<T> for a T known only at run time: both of CUB's layouts, with CUB's own
/// size and carving functions.
struct runtime_tile_state {
  void* words[3] = {nullptr, nullptr, nullptr};
  int description_bytes;
  int payload_bytes;
  bool single_word;

  cudaError_t AllocationSize(int num_tiles, std::size_t& bytes) const {
    bytes = cub::detail::tile_state_allocation_size(description_bytes, payload_bytes, num_tiles);
    return cudaSuccess;
  }
  cudaError_t Init(int num_tiles, void* temp, std::size_t bytes) {
    if (single_word) {
      words[0] = temp;
      return cudaSuccess;
    }
    return cub::detail::tile_state_init(description_bytes, payload_bytes, num_tiles, temp, bytes,
                                        words);
  }
};
// The kernels receive the tile state by value: one pointer or three (found by the launcher
// through argument-dependent lookup).
inline void* arg_address(const runtime_tile_state& s) {
  return const_cast<void*>(static_cast<const void*>(s.words));
}

struct scan_policy {
  agent_policy scan;
  agent_policy Scan() const { return scan; }
  void CheckLoadModifier() const {}
  template <class Dispatch>
  cudaError_t Invoke(int, Dispatch& dispatch) const {
    return dispatch.Invoke(*this);
  }
};
struct scan_hub {
  using MaxPolicy = scan_policy;
};
struct scan_kernels {
  const loaded_module* m;
  CUkernel InitKernel() const { return m->kernel(0); }
  CUkernel ScanKernel() const { return m->kernel(1); }
  runtime_tile_state TileState() const {
    runtime_tile_state s;
    s.description_bytes = static_cast<int>(m->meta(2));
    s.payload_bytes = static_cast<int>(m->meta(3));
    s.single_word = m->meta(4) == static_cast<long long>(sizeof(void*));
    return s;
  }
};
template <class Init, class In = const void*, class Out = void*>
using scan_dispatch =
    cub::DispatchScan<In, Out, erased_arg, Init, unsigned long long, erased_accum,
                      cub::ForceInclusive::No, scan_hub, scan_kernels, jit_launcher_factory>;

}  // namespace

cudaError_t run_scan(const loaded_module& m, const device_info& dev, launch_status& st, void* temp,
                     std::size_t& temp_bytes, const void* in, void* out, std::size_t n,
                     const void* op_state, const void* init, cudaStream_t stream,
                     const void* expression_state, const void* output_state,
                     bool transformed_array) {
  const scan_policy policy{{static_cast<int>(m.meta(0)), static_cast<int>(m.meta(1))}};
  const auto count = static_cast<unsigned long long>(n);
  // One dispatch for every form: the input and output as arrays or, for the "+index" and "+io"
  // sets, as the expressions' states passed by value (cupar_expr_iterator, cupar_expr_output).
  auto dispatch = [&](auto input, auto output) {
    using In = decltype(input);
    using Out = decltype(output);
    if (init == nullptr) {
      return scan_dispatch<cub::NullType, In, Out>::Dispatch(
          temp, temp_bytes, input, output, erased_arg{op_state}, cub::NullType{}, count, stream,
          scan_kernels{&m}, jit_launcher_factory{&dev, &m, &st}, policy);
    }
    return scan_dispatch<erased_arg, In, Out>::Dispatch(
        temp, temp_bytes, input, output, erased_arg{op_state}, erased_arg{init}, count, stream,
        scan_kernels{&m}, jit_launcher_factory{&dev, &m, &st}, policy);
  };
  expression_input e = expression_input::of(expression_state);
  if (transformed_array) {
    // cupar_xform_iterator: the transform's state, then the array's address where the "+index"
    // input has its first index.
    e.base = static_cast<unsigned long long>(reinterpret_cast<std::uintptr_t>(in));
    return dispatch(erased_arg{&e}, out);
  }
  if (output_state != nullptr) {
    const expression_input o = expression_input::of(output_state);
    return dispatch(erased_arg{&e}, erased_arg{&o});
  }
  if (expression_state != nullptr) return dispatch(erased_arg{&e}, out);
  return dispatch(in, out);
}

}  // namespace cupar::detail::jit

// ---- library entries --------------------------------------------------------------------

namespace cupar::detail {

using jit::family;
using jit::resolve;
using jit::set_request;

namespace {

/// A scan of a plain array expression of the scan's type (`jit::iterator(array)`) into an array
/// is the scan of the array itself (a named operator on an arithmetic type then runs the
/// library's compiled CUB call, the others the array sets): `b`, its arguments. Not with an
/// output expression (the "+io" sets read an expression). The run and the request of a
/// compile-only build take the same route.
bool as_array_scan(const jit_args& a, jit_args& b) {
  return a.out_iter[0] == nullptr && jit::with_plain_first_input(a, b);
}

/// Whether the library precompiled the "+xform" set of the scan family `f` for the arithmetic type
/// `t`: a table made once, so that a call routes without building a key or scanning the sets.
bool xform_precompiled(family f, scalar t) {
  using row = std::array<bool, scalar_count>;
  static const std::array<row, 2> table = [] {
    std::array<row, 2> r{};
    for (int i = 0; i < scalar_count; ++i) {
      const std::string type = scalar_name(static_cast<scalar>(i + 1));
      r[0][i] = jit::precompiled_for_any_arch("scan_inclusive<" + type + ">+xform");
      r[1][i] = jit::precompiled_for_any_arch("scan_exclusive<" + type + ">+xform");
    }
    return r;
  }();
  return table[f == family::scan_inclusive ? 0 : 1][static_cast<int>(t) - 1];
}

/// The transform and the array of a scan into an array (not an output expression, not seeded)
/// whose input expression is one transform of an array of the scan's arithmetic type into that
/// type (`jit::transform<T>(array, f)`: array_transform_of; f a snippet), where the library
/// precompiled the family's "+xform" set for the type; otherwise none (f null). Those sets read
/// the array as CUB reads one (the tier-1 kernels: a thread's items all in flight, then the
/// transform eight a call by value), where the "+index" sets compute each element in the
/// expression's out-of-line code (tier 1 of the scan of transform(x, "x * x") at 0.50-0.55 of the
/// optimised build). The same elements (f applied to each once), the same operator. The run and
/// the request of a compile-only build take the same route (it does not depend on the arrays).
jit::array_transform transformed_array_of(const jit_args& a) {
  if (a.in_iter[0] == nullptr || a.out_iter[0] != nullptr) return {};
  const family f = a.call->fam;
  if (f == family::scan_inclusive && (a.init != nullptr || a.d_init != nullptr)) return {};
  const jit_type& t = *a.types[0];
  if (t.is_struct()) return {};
  const jit::array_transform x = jit::array_transform_of(*a.in_iter[0]);
  if (x.f == nullptr || x.f->is_named() || x.element->is_struct() || x.result->is_struct() ||
      x.element->kind != t.kind || x.result->kind != t.kind || !xform_precompiled(f, t.kind)) {
    return {};
  }
  return x;
}

/// The request of the "+xform" set: the transform in the first slot, the scan's operator next.
set_request xform_request(family f, const jit_type& t, const cupar::jit::op& transform,
                          const cupar::jit::op* op) {
  set_request r{f, {&t}};
  r.xform = true;
  r.ops[0] = &transform;
  r.ops[1] = op;
  return r;
}

/// inclusive_scan and exclusive_scan (types {T}, ops {op}, init for exclusive): an array or an
/// expression in, an array or (with an input expression) an output expression out.
void run_scan(const jit_args& a, stream_ref s, memory_resource& mr, const pending_inputs*) {
  // (A null array with elements keeps the expression's own message, from expression_op.)
  if (jit_args b; as_array_scan(a, b) && (b.in[0] != nullptr || a.n == 0)) {
    return run_scan(b, s, mr, nullptr);
  }
  const char* fn = a.function;
  const family f = a.call->fam;
  const jit_type& t = *a.types[0];
  const cupar::jit::op& op = *a.ops[0];
  const void* const d_in = a.in[0];
  void* const d_out = a.out[0];
  const bool expression = a.in_iter[0] != nullptr;
  const bool output = a.out_iter[0] != nullptr;
  if (output && !expression) throw_invalid_argument(fn, "an output expression needs an input one");
  const bool has_init = a.init != nullptr || a.d_init != nullptr;
  if (f == family::scan_exclusive && !has_init) throw_invalid_argument(fn, "init is null");
  require_reachable(fn, "init.ptr", a.d_init);
  // An inclusive scan with an initial value: the "+init" sets (CUB's InclusiveScanInit).
  const bool seeded = f == family::scan_inclusive && has_init;
  require_size(fn, a.n, t.size);
  if (!expression) require_data(fn, "d_in", d_in, a.n);
  if (!output) require_data(fn, "d_out", d_out, a.n);
  if (!expression) {
    require_same_or_disjoint(fn, "d_in", d_in, a.n * t.size, "d_out", d_out, a.n * t.size);
  }
  // A transformed array of the scan's type: the "+xform" sets (transformed_array_of), the
  // array read as the array sets read theirs. A null array with elements takes the expression's
  // route, for its message.
  jit::array_transform xform = transformed_array_of(a);
  if (xform.array == nullptr && a.n > 0) xform = {};
  const bool transformed = xform.f != nullptr;
  if (transformed) {
    require_same_or_disjoint(fn, "the transformed array", xform.array, a.n * t.size, "d_out", d_out,
                             a.n * t.size);
  }
  // An iterator expression: the "+index" sets, whose input computes element i with the
  // generated operator in the first slot (its arrays are checked as it is generated); with an
  // output expression the "+io" sets, whose third slot stores element i through it.
  std::optional<cupar::jit::op> loader, store;
  if (expression && !transformed) loader.emplace(jit::expression_op(*a.in_iter[0], t, a.n, fn));
  if (output) store.emplace(jit::store_op(*a.out_iter[0], t, a.n, true, fn));
  if (a.n == 0) return;
  if (output && jit::output_may_overlap(*a.out_iter[0], a.n, a.in_iter[0], nullptr, 0)) {
    // The output writes an array the scan reads (a reversed copy of its input): a block's
    // stores would overwrite elements other blocks have still to read. Scan into a temporary,
    // then store it through the expression in one pass.
    return through_output_temporary(a, t, a.n, s, mr,
                                    [&](const jit_args& b) { run_scan(b, s, mr, nullptr); });
  }
  const cupar::jit::named_op named = op.named();
  // A named operator on an arithmetic type runs the library's compiled CUB call (an exclusive
  // scan's initial value from the host); the other forms take the kernel sets.
  if (!expression && named != cupar::jit::named_op::none && !t.is_struct() && !seeded &&
      a.d_init == nullptr) {
    bool done = false;
    visit_scalar(t.kind, [&](auto v) {
      using T = decltype(v);
      if constexpr (library_has_v<T>) {
        if (!named_op_supported<T>(named)) return;
        named_scan<T>(named, static_cast<const T*>(d_in), static_cast<T*>(d_out), a.n,
                      static_cast<const T*>(a.init), s, mr);
        done = true;
      }
    });
    if (done) return;
  }
  set_request req = transformed  ? xform_request(f, t, *xform.f, &op)
                    : output     ? jit::expression_request(f, t, *loader, &op, *store)
                    : expression ? jit::expression_request(f, t, *loader, &op)
                                 : set_request{f, {&t}};
  if (!expression) req.ops[0] = &op;
  req.init = seeded;
  req.aligned8 = arrays_aligned8(a);
  const jit::resolved resolved = resolve(req, a.plan, fn);
  const jit::device_info* const devp = resolved.dev;
  const std::shared_ptr<const jit::loaded_module>& module = resolved.module;
  const jit::device_info& dev = *devp;
  const placed_state placed_loader(loader, s, mr);
  const placed_state placed_store(store, s, mr);
  jit::launch_status st;
  const kernel_states states(*module,
                             {op.state(),
                              transformed  ? xform.f->state()
                              : expression ? loader->state()
                                           : nullptr,
                              output ? store->state() : nullptr},
                             s, mr);
  const void* expression_state = states[1];
  const void* output_state = states[2];
  const jit::jit_init_value init_value(a.init, a.d_init, t.size, t.align);
  const void* const init = has_init ? init_value.bytes() : nullptr;
  run_with_temp_storage("cupar scan (run-time operator)", mr, s, {a.n, module->serial()},
                        [&](void* temp, std::size_t& bytes) {
                          const cudaError_t e = jit::run_scan(
                              *module, dev, st, temp, bytes, transformed ? xform.array : d_in,
                              d_out, a.n, states[0], init, s.get(), expression_state, output_state,
                              transformed);
                          jit::check_dispatch(e, st, "cupar scan (run-time operator)");
                          return cudaSuccess;
                        });
}

/// The request of a compile-only build or a plan: as run_scan builds it.
set_request scan_request(const jit_args& a, request_scratch& scratch) {
  if (jit_args b; as_array_scan(a, b)) return scan_request(b, scratch);
  const family f = a.call->fam;
  const jit_type& t = *a.types[0];
  const bool seeded = f == family::scan_inclusive && (a.init != nullptr || a.d_init != nullptr);
  set_request r{f, {&t}};
  if (const jit::array_transform x = transformed_array_of(a); x.f != nullptr) {
    return xform_request(f, t, *x.f, a.ops[0]);  // (not seeded: transformed_array_of)
  }
  if (a.in_iter[0] == nullptr) {
    r.ops[0] = a.ops[0];
  } else {
    const char* fn = "cupar::jit::compile";
    scratch.loader.emplace(jit::expression_op(*a.in_iter[0], t, 0, fn));
    if (a.out_iter[0] == nullptr) {
      r = jit::expression_request(f, t, *scratch.loader, a.ops[0]);
    } else {
      // A scan into an output expression: the "+io" scan sets.
      scratch.store.emplace(jit::store_op(*a.out_iter[0], t, 0, true, fn));
      r = jit::expression_request(f, t, *scratch.loader, a.ops[0], *scratch.store);
    }
  }
  r.init = seeded;
  return r;
}

}  // namespace

extern const jit_call inclusive_scan_jit_call =
    jit_call::make("inclusive_scan", jit::family::scan_inclusive, run_scan, scan_request)
        .served_by(named_on_arithmetic);
extern const jit_call exclusive_scan_jit_call =
    jit_call::make("exclusive_scan", jit::family::scan_exclusive, run_scan, scan_request)
        .served_by(named_on_arithmetic);

}  // namespace cupar::detail

#endif  // CUPAR_FAMILY_RECORD_ONLY
