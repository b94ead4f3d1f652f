// cupar family: reduce, and reduce(transform(x)) (CUB's reduce kernels with a transform applied
// after the loads, DispatchTransformReduce). Device code: jit_ops/cupar_reduce.cuh.
// Types: reduce {T}; transform_reduce {In, Acc} (the transform In -> Acc, then the reduction
// Acc x Acc -> Acc). "+index" (transform_reduce<u64, T>): the input is an iterator expression;
// the kernels read indices and the first slot computes each element.
//
// One file holds the family: its record (what the core and the precompile tool read), then,
// outside the record-only build of the precompile tool, its host dispatch (launches the
// module's kernels through CUB's dispatch or a mirror of it) and its library entries (the
// operations of jit_call_named: argument checks, request, temporaries, launch).
#include "../core/family.hpp"

namespace cupar::detail::jit {
namespace {

std::string typedefs(const set_spec& s) {
  return "typedef " + s.types[0].name + " cupar_T;\n";
}

std::string transform_reduce_typedefs(const set_spec& s) {
  std::string out;
  // "+index": the kernels read indices (cupar_index_iterator) and the first slot, an iterator
  // expression (iterator.cpp), computes the element of each.
  if (s.variant == "index") out += "#define CUPAR_INDEX_INPUT 1\n";
  return out + "#define CUPAR_TRANSFORM_REDUCE 1\ntypedef " + s.types[0].name +
         " cupar_In;\ntypedef " + s.types[1].name + " cupar_T;\n";
}

// The out-of-line kernels reduce a thread's items with one call of the operator's fold
// (jit_ops/cupar_reduce.cuh, CUPAR_OUT_OF_LINE) and transform_reduce's transform them with one
// call of the transform's map (an iterator expression: its strided form).
std::vector<slot_spec> slots(const set_spec& s) {
  const auto& t = s.types;
  return {with_batches(op_slot({t[0], t[0]}, t[0], {"a", "b"}, "operator"),
                       batch::fold | batch::warp_reduce)};
}

std::vector<slot_spec> transform_reduce_slots(const set_spec& s) {
  const auto& t = s.types;
  // The transform first: its operator holds the cache the build is found in, so the build lives
  // as long as the transform (usually a snippet), while the reduction (often the named plus,
  // alive for the whole program) is only kept alive by it.
  const slot_spec reduction = with_batches(op_slot({t[1], t[1]}, t[1], {"a", "b"}, "operator"),
                                           batch::fold | batch::warp_reduce);
  if (s.variant == "index") {
    return {{"cupar_jit_xform", "iterator expression", {t[0]}, t[1], {"cupar_i"}, batch::strided},
            reduction};
  }
  return {{"cupar_jit_xform", "transform", {t[0]}, t[1], {"x"}, batch::items}, reduction};
}

std::vector<std::string> names(const set_spec& set) {
  // transform_reduce: the first two kernels load cupar_In and apply the transform; the second
  // pass reduces the partial results (accumulators) as reduce's does. "+index": they read
  // indices, which the first slot turns into elements.
  const bool transformed = set.fam == family::transform_reduce;
  const std::string in = !transformed             ? "const cupar_T*"
                         : set.variant == "index" ? "cupar_index_iterator"
                                                  : "const cupar_In*";
  const std::string xform = transformed ? "cupar_transform_op" : "::cuda::std::__identity";
  return {"cub::detail::reduce::DeviceReduceSingleTileKernel<cupar_policy, " + in +
              ", cupar_T*, cupar_offset, cupar_reduce_op, cupar_reduce_init, cupar_T, " + xform +
              ">",
          "cub::detail::reduce::DeviceReduceKernel<cupar_policy, " + in +
              ", cupar_offset, cupar_reduce_op, cupar_T, " + xform + ">",
          "cub::detail::reduce::DeviceReduceSingleTileKernel<cupar_policy, cupar_T*, cupar_T*, "
          "int, cupar_reduce_op, cupar_reduce_init, cupar_T, ::cuda::std::__identity>",
          "cupar_meta<(long long)cupar_active::ReducePolicy::BLOCK_THREADS, "
          "(long long)cupar_active::ReducePolicy::ITEMS_PER_THREAD, "
          "(long long)cupar_active::SingleTilePolicy::BLOCK_THREADS, "
          "(long long)cupar_active::SingleTilePolicy::ITEMS_PER_THREAD>"};
}

/// The JIT kernels count with 64-bit offsets (one set for every n); ptxas gives CUB's i32 reduce
/// kernel (256 threads) 40 registers with them (6 blocks per SM) and 32 with the 32-bit offsets
/// the compiled path uses below 2^31 (8 blocks); the JIT i32 reduce ran at 0.96 of the compiled
/// one at 2^24. f32, f64 and i64 get 32 either way. int8 and int16 need 48 registers with 64-bit
/// offsets and spill under 32: not tried. Metadata: {reduce threads, items, single-tile threads,
/// items}.
std::vector<std::vector<std::string>> occupancy(const set_spec& s, long long threads, int) {
  // The element (the accumulator for transform_reduce).
  const std::size_t sized = s.fam == family::transform_reduce ? 1 : 0;
  const std::uint32_t size = s.types.size() <= sized ? 0 : s.types[sized].size;
  if (size < 4) return {};
  return {{blocks_for_registers(threads, 32)}};
}

/// transform_reduce's sets over arrays (not "+index") of 4- or 8-byte arithmetic elements on
/// sm_90: their tier-1 main kernel hands a thread's items to the transform by value
/// (jit_ops/cupar_reduce.cuh), which keeps them in registers across the calls: 95 registers for
/// transform_reduce<f32,u64> (2 blocks of 256 an SM) where CUB's calls per item took 74 (3).
/// Compiled for 3 blocks an SM, the operators within 80 registers.
bool by_value_transform_reduce(const set_spec& s, int arch) {
  return s.variant.empty() && sm90_words(s, arch);
}

/// The element type: a user struct's class serves it.
bool reduce_struct_position(std::size_t i) {
  return i == 0;
}
/// The accumulator (an iterator expression's struct, an argmin's pair).
bool transform_reduce_struct_position(std::size_t i) {
  return i == 1;
}

const char* const reduce_rules[] = {
    "precompile t=types: reduce<$t>",
    // User structs: opaque storage of the struct's exact size and alignment (cupar_storage in
    // jit_ops/cupar_prelude.cuh), so that an operator on a struct is linked like one on a float
    // instead of compiling CUB's kernels from source (2.1-2.4 s on the H100). CUB picks its
    // tuning from the type's size and whether it is primitive (a struct and its storage are not),
    // so a class gets the policy nvcc would give the struct.
    "precompile s=structs: reduce<$s>",
};

const char* const transform_reduce_rules[] = {
    "precompile t=types: transform_reduce<$t,$t>",
    // Reduce over a run-time iterator expression (jit_iterator.hpp) into T: the kernels read
    // indices, the expression's generated code computes each element.
    "precompile t=types: transform_reduce<u64,$t>+index",
    // Into a wider accumulator: counts (u64) of floats and of u32s, sums of f32 in f64 and of
    // i32 in i64.
    "precompile a=f32|f64|u32: transform_reduce<$a,u64>",
    "precompile: transform_reduce<f32,f64>",
    "precompile: transform_reduce<i32,i64>",
    "precompile s=structs: transform_reduce<u64,$s>+index",
};

}  // namespace

extern const family_def reduce_family =
    family_def::make(family::reduce, "reduce", "cupar_reduce.cuh", 3, typedefs, slots, names)
        .with_occupancy(occupancy)
        .with_struct_classes(reduce_struct_position)
        .taking_states_by_reference()
        .precompiling(reduce_rules);

extern const family_def transform_reduce_family =
    family_def::make(family::transform_reduce, "transform_reduce", "cupar_reduce.cuh", 3,
                     transform_reduce_typedefs, transform_reduce_slots, names)
        .with_occupancy(occupancy)
        .with_out_of_line_options(blocks_where<by_value_transform_reduce, 256, 80>,
                                  operators_where<by_value_transform_reduce, 80>)
        .with_struct_classes(transform_reduce_struct_position)
        .taking_states_by_reference()
        .precompiling(transform_reduce_rules);

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

#include <cub/device/dispatch/dispatch_reduce.cuh>

#include <cuda_runtime_api.h>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>

// ---- host dispatch: launch arguments --------------------------------------------------

namespace cupar::detail::jit {

/// reduce and, with a transform's state (transform_reduce sets), transform_reduce. `init`: the
/// bytes of the kernels' cupar_init argument (jit_init_value, launch.hpp).
cudaError_t run_reduce(const loaded_module& m, const device_info& dev, launch_status& st,
                       void* temp, std::size_t& temp_bytes, const void* in, void* out,
                       std::size_t n, const void* op_state, const void* init,
                       std::size_t value_size, cudaStream_t stream,
                       const void* transform_state = nullptr);

}  // namespace cupar::detail::jit

// ---- host dispatch ----------------------------------------------------------------------

namespace cupar::detail::jit {
namespace {

struct erased_accum;  // the accumulator type; the host dispatch only passes pointers to it

// ---- reduce: module meta = {reduce threads, reduce items, single-tile threads, items} ----

struct reduce_policy {
  agent_policy reduce, single_tile;
  agent_policy Reduce() const { return reduce; }
  agent_policy SingleTile() const { return single_tile; }
  template <class Dispatch>
  cudaError_t Invoke(int, Dispatch& dispatch) const {
    return dispatch.Invoke(*this);
  }
};
struct reduce_hub {
  using MaxPolicy = reduce_policy;
};
struct reduce_kernels {
  const loaded_module* m;
  std::size_t accum_size;
  CUkernel SingleTileKernel() const { return m->kernel(0); }
  CUkernel ReductionKernel() const { return m->kernel(1); }
  CUkernel SingleTileSecondKernel() const { return m->kernel(2); }
  std::size_t AccumSize() const { return accum_size; }
};
/// The out-of-line (tier-1) kernels' grid. CUB gives the first pass 5 blocks for each block an
/// SM holds (its subscription factor times the kernel's occupancy: 2 for the f32 tier-1 kernel),
/// and every block pays once for the block-wide reduction and thread 0's fold, out-of-line calls in
/// tier 1. Told that an SM holds one block, CUB gives it 5 blocks an SM, each over twice the
/// tiles: reduce_sum f32 at 2^24 39.9 -> 33.5 us, an expression's 89.9 -> 80.6, 2^28 within 1.5%
/// (H200, 2026-11-30; grids of 2 and 4 blocks an SM were slower at 2^28: docs/PERFORMANCE_NOTES.md,
/// "Tier-1 kernels"; 8-byte types, at 3 blocks an SM, not measured). The optimised build keeps
/// CUB's grid.
struct out_of_line_factory : jit_launcher_factory {
  cudaError_t MaxSmOccupancy(int& occupancy, CUkernel, int, int = 0) const {
    occupancy = 1;
    return cudaSuccess;
  }
};
template <class Factory>
using reduce_dispatch =
    cub::DispatchReduce<const void*, void*, unsigned long long, erased_arg, erased_arg,
                        erased_accum, ::cuda::std::__identity, reduce_hub, reduce_kernels, Factory>;
// transform_reduce: the transform's state goes to the first pass's kernels (the second pass
// reduces accumulators with CUB's identity, as for reduce).
template <class Factory>
using transform_reduce_dispatch =
    cub::DispatchReduce<const void*, void*, unsigned long long, erased_arg, erased_arg,
                        erased_accum, erased_arg, reduce_hub, reduce_kernels, Factory>;

template <class Factory>
cudaError_t dispatch_reduce(const loaded_module& m, const Factory& factory, void* temp,
                            std::size_t& temp_bytes, const void* in, void* out, std::size_t n,
                            const void* op_state, const void* init, std::size_t value_size,
                            cudaStream_t stream, const void* transform_state) {
  const reduce_policy policy{{static_cast<int>(m.meta(0)), static_cast<int>(m.meta(1))},
                             {static_cast<int>(m.meta(2)), static_cast<int>(m.meta(3))}};
  if (transform_state != nullptr) {
    return transform_reduce_dispatch<Factory>::Dispatch(
        temp, temp_bytes, in, out, static_cast<unsigned long long>(n), erased_arg{op_state},
        erased_arg{init}, stream, erased_arg{transform_state}, reduce_kernels{&m, value_size},
        factory, policy);
  }
  return reduce_dispatch<Factory>::Dispatch(
      temp, temp_bytes, in, out, static_cast<unsigned long long>(n), erased_arg{op_state},
      erased_arg{init}, stream, ::cuda::std::__identity{}, reduce_kernels{&m, value_size}, factory,
      policy);
}

}  // namespace

cudaError_t run_reduce(const loaded_module& m, const device_info& dev, launch_status& st,
                       void* temp, std::size_t& temp_bytes, const void* in, void* out,
                       std::size_t n, const void* op_state, const void* init,
                       std::size_t value_size, cudaStream_t stream, const void* transform_state) {
  const jit_launcher_factory factory{&dev, &m, &st};
  if (m.tier() == 1) {
    return dispatch_reduce(m, out_of_line_factory{factory}, temp, temp_bytes, in, out, n, op_state,
                           init, value_size, stream, transform_state);
  }
  return dispatch_reduce(m, factory, temp, temp_bytes, in, out, n, op_state, init, value_size,
                         stream, transform_state);
}

}  // namespace cupar::detail::jit

// ---- library entries --------------------------------------------------------------------

namespace cupar::detail {

using jit::family;
using jit::resolve;
using jit::set_request;

extern const jit_call transform_reduce_jit_call;

namespace {

/// The request of a reduction of an iterator expression into `t`: reduce's "+index" sets are
/// transform_reduce<u64, t>+index (the expression's index, then t).
set_request index_request(const jit_type& t, const cupar::jit::op& loader,
                          const cupar::jit::op* op) {
  set_request r = jit::expression_request(family::transform_reduce, t, loader, op);
  r.t[0] = &jit::index_type();
  r.t[1] = &t;
  return r;
}

/// Whether the library precompiled transform_reduce<In,Acc> for the arithmetic types `in` and
/// `acc`: a table made once, so that a call routes without building a key or scanning the sets.
bool array_pair_precompiled(scalar in, scalar acc) {
  using row = std::array<bool, scalar_count>;
  static const std::array<row, scalar_count> table = [] {
    std::array<row, scalar_count> t{};
    for (int i = 0; i < scalar_count; ++i) {
      for (int j = 0; j < scalar_count; ++j) {
        t[i][j] = jit::precompiled_for_any_arch(std::string("transform_reduce<") +
                                                scalar_name(static_cast<scalar>(i + 1)) + "," +
                                                scalar_name(static_cast<scalar>(j + 1)) + ">");
      }
    }
    return t;
  }();
  return table[static_cast<int>(in) - 1][static_cast<int>(acc) - 1];
}

/// A reduction of an expression that is one transform of an array of an arithmetic type into the
/// accumulator's type (`jit::transform<T>(array, f)`: array_transform_of; f a snippet) is
/// transform_reduce(array, f, reduction) on transform_reduce's array sets where the library
/// precompiled the set: the same elements (f applied to each once), the same operator. The array
/// sets' tier-1 kernels load a thread's items vectorised (two tiles at a time where a tile's
/// items are at most 32 bytes a thread) and take them to the transform by value; the "+index"
/// sets' tier 1 loads them inside the expression's out-of-line call, and ran this shape at
/// 0.29-0.49 of the optimised build where the array sets run at 0.80-0.85
/// (docs/PERFORMANCE_NOTES.md). A reduction of a plain array expression is the reduction of the
/// array. `b`: the arguments of that call. The run and the request of a compile-only build take
/// the same route (it does not depend on the arrays).
bool as_array_transform_reduce(const jit_args& a, jit_args& b) {
  if (a.call->fam != family::reduce || a.in_iter[0] == nullptr) return false;
  // A plain array of the accumulator's type (`jit::iterator(array)`): reduce of the array
  // itself (a named operator on an arithmetic type then runs the library's compiled CUB call).
  if (jit::with_plain_first_input(a, b)) return true;
  const jit_type& t = *a.types[0];
  const jit::array_transform x = jit::array_transform_of(*a.in_iter[0]);
  if (x.f == nullptr || x.f->is_named() || x.element->is_struct() || x.result->is_struct() ||
      t.is_struct() || x.result->kind != t.kind) {
    return false;
  }
  if (!array_pair_precompiled(x.element->kind, t.kind)) return false;
  b = a;
  b.call = &transform_reduce_jit_call;
  // The element type's static description rather than the expression node's copy.
  b.types[0] = &jit::scalar_type(x.element->kind);
  b.types[1] = &t;
  b.in[0] = x.array;
  b.in_iter[0] = nullptr;
  b.ops[0] = x.f;
  b.ops[1] = a.ops[0];
  return true;
}

/// Reduces into `out`, or into a slot of the temporary allocation copied to `host_out`.
template <class Run>
void reduce_with_result(const jit_args& a, const jit_type& t, stream_ref s, memory_resource& mr,
                        std::size_t cub_bytes, Run&& run) {
  void* const d_out = a.out[0];
  const std::size_t slot = d_out != nullptr ? 0 : align_up(t.size, 256);
  temp_storage temp(mr, slot + cub_bytes, s);
  auto* base = static_cast<unsigned char*>(temp.get());
  void* out = d_out != nullptr ? d_out : base;
  run(slot + cub_bytes == 0 ? nullptr : base + slot, out);
  if (a.host_out != nullptr) {
    // Named after the call: an operator's fault (docs/RELIABILITY.md) shows at this copy when the
    // kernel already ended, at the synchronisation otherwise.
    check_cuda(cudaMemcpyAsync(a.host_out, out, t.size, cudaMemcpyDeviceToHost, s.get()),
               a.function);
    // Named after the call: a fault of the operator (docs/RELIABILITY.md) is reported here.
    check_cuda(cudaStreamSynchronize(s.get()), a.function);
  }
}

/// reduce (types {T}, ops {reduction}) and transform_reduce (types {In, Acc}, ops {transform,
/// reduction}): an array or an expression in, a device result (out[0]) or a host one (host_out).
void run_reduce(const jit_args& a, stream_ref s, memory_resource& mr, const pending_inputs*) {
  const char* fn = a.function;
  // (A null array with elements keeps the expression's own message, from expression_op.)
  if (jit_args b; as_array_transform_reduce(a, b) && (b.in[0] != nullptr || a.n == 0)) {
    return run_reduce(b, s, mr, nullptr);
  }
  const bool transform_reduce = a.call->fam == family::transform_reduce;
  const jit_type& t = *a.types[transform_reduce ? 1 : 0];  // the accumulator's
  if (a.out_iter[0] != nullptr) {
    // The result through an output expression (jit::transform_output, zip_output, ...): reduced
    // into a slot, then stored by a one-element pass.
    return through_output_temporary(a, t, 1, s, mr,
                                    [&](const jit_args& b) { run_reduce(b, s, mr, nullptr); });
  }
  const cupar::jit::op* const op = a.ops[transform_reduce ? 1 : 0];
  const void* const d_in = a.in[0];
  const bool expression = a.in_iter[0] != nullptr;
  // An iterator expression is a transform of the indices (the "+index" sets): its operator,
  // generated, computes element i and converts it to the accumulator type.
  const bool transformed = transform_reduce || expression;
  const jit_type& in = transform_reduce ? *a.types[0] : t;  // the elements read
  require_size(fn, a.n, in.size);
  if (!expression) require_data(fn, "d_in", d_in, a.n);
  if (a.out[0] == nullptr && a.host_out == nullptr) throw_invalid_argument(fn, "d_out is null");
  std::optional<cupar::jit::op> loader;
  if (expression) loader.emplace(jit::expression_op(*a.in_iter[0], t, a.n, fn));
  const cupar::jit::op* transform = expression ? &*loader : a.ops[0];
  if (a.init == nullptr && a.d_init == nullptr) throw_invalid_argument(fn, "init is null");
  require_reachable(fn, "init.ptr", a.d_init);
  const cupar::jit::named_op named = op->named();
  require_determinism(fn, a.order);
  const bool any_order = a.order == determinism::not_guaranteed;
  // A named operator on an arithmetic type runs the library's compiled CUB call, which takes its
  // initial value from the host; one in device memory takes the kernel sets.
  if (!transformed && named != cupar::jit::named_op::none && !t.is_struct() &&
      a.d_init == nullptr) {
    bool done = false;
    visit_scalar(t.kind, [&](auto v) {
      using T = decltype(v);
      if constexpr (library_has_v<T>) {
        if (!named_op_supported<T>(named)) return;
        T init;
        std::memcpy(&init, a.init, sizeof(T));
        if (a.host_out == nullptr) {
          named_reduce<T>(named, static_cast<const T*>(d_in), static_cast<T*>(a.out[0]), a.n, init,
                          any_order, s, mr);
        } else {
          temp_storage slot(mr, sizeof(T), s);
          named_reduce<T>(named, static_cast<const T*>(d_in), static_cast<T*>(slot.get()), a.n,
                          init, any_order, s, mr);
          check_cuda(
              cudaMemcpyAsync(a.host_out, slot.get(), sizeof(T), cudaMemcpyDeviceToHost, s.get()),
              fn);
          check_cuda(cudaStreamSynchronize(s.get()), fn);
        }
        done = true;
      }
    });
    if (done) return;
  }
  set_request req = expression    ? index_request(t, *loader, op)
                    : transformed ? set_request{family::transform_reduce, {&in, &t}}
                                  : set_request{family::reduce, {&t}};
  req.aligned8 = arrays_aligned8(a);
  if (!expression) {
    // transform_reduce: the transform first (slots_of: it anchors the build's cache entry).
    req.ops[0] = transformed ? transform : op;
    req.ops[1] = transformed ? op : nullptr;
  }
  const jit::resolved resolved = resolve(req, a.plan, fn);
  const jit::device_info* const devp = resolved.dev;
  const std::shared_ptr<const jit::loaded_module>& module = resolved.module;
  const jit::device_info& dev = *devp;
  const placed_state placed(loader, s, mr);
  jit::launch_status st;
  const kernel_states states(*module, {op->state(), transformed ? transform->state() : nullptr}, s,
                             mr);
  const void* transform_state = states[1];
  const jit::jit_init_value init(a.init, a.d_init, t.size, t.align);
  auto sizing = [&](void* temp, std::size_t& b) {
    jit::check_dispatch(jit::run_reduce(*module, dev, st, temp, b, d_in, a.out[0], a.n, states[0],
                                        init.bytes(), t.size, s.get(), transform_state),
                        st, "cupar reduce (run-time operator)");
    return cudaSuccess;
  };
  const std::size_t bytes =
      required_temp_bytes("cupar reduce (run-time operator)", {a.n, module->serial()}, sizing);
  reduce_with_result(a, t, s, mr, bytes, [&](void* temp, void* out) {
    std::size_t b = bytes;
    jit::check_dispatch(jit::run_reduce(*module, dev, st, temp, b, d_in, out, a.n, states[0],
                                        init.bytes(), t.size, s.get(), transform_state),
                        st, "cupar reduce (run-time operator)");
  });
}

/// The request of a compile-only build or a plan: as run_reduce builds it.
set_request reduce_request(const jit_args& a, request_scratch& scratch) {
  if (jit_args b; as_array_transform_reduce(a, b)) return reduce_request(b, scratch);
  const bool transform_reduce = a.call->fam == family::transform_reduce;
  const jit_type& t = *a.types[transform_reduce ? 1 : 0];
  if (a.in_iter[0] != nullptr) {
    scratch.loader.emplace(jit::expression_op(*a.in_iter[0], t, 0, "cupar::jit::compile"));
    return index_request(t, *scratch.loader, a.ops[0]);
  }
  if (!transform_reduce) {
    set_request r{family::reduce, {&t}};
    r.ops[0] = a.ops[0];
    return r;
  }
  if (a.ops[1] == nullptr) throw_invalid_argument("cupar::jit", "no reduction");
  set_request r{family::transform_reduce, {a.types[0], &t}};
  r.ops[0] = a.ops[0];
  r.ops[1] = a.ops[1];
  return r;
}

}  // namespace

extern const jit_call reduce_jit_call =
    jit_call::make("reduce", jit::family::reduce, run_reduce, reduce_request)
        .served_by(named_on_arithmetic);
extern const jit_call transform_reduce_jit_call =
    jit_call::make("transform_reduce", jit::family::transform_reduce, run_reduce, reduce_request);

}  // namespace cupar::detail

#endif  // CUPAR_FAMILY_RECORD_ONLY
