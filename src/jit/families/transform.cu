// cupar family: transform of one or two inputs (CUB's transform kernel). Device code:
// jit_ops/cupar_transform.cuh. Types: transform_unary {In, Out}; transform_binary {A, B, Out}.
// Transforms over iterator or output expressions, and of type mixes without a set here, run on
// the for_each family.
//
// One file holds the family: its record (what the core and the precompile tool read), then,
// outside the record-only build of the precompile tool, its host dispatch (launches the
// module's kernels through CUB's dispatch or a mirror of it) and its library entries (the
// operations of jit_call_named: argument checks, request, temporaries, launch).
#include "../core/family.hpp"

namespace cupar::detail::jit {
namespace {

std::string unary_typedefs(const set_spec& s) {
  return "typedef " + s.types[0].name + " cupar_In;\ntypedef " + s.types[1].name + " cupar_Out;\n";
}

std::string binary_typedefs(const set_spec& s) {
  return "#define CUPAR_TRANSFORM_BINARY 1\ntypedef " + s.types[0].name + " cupar_A;\ntypedef " +
         s.types[1].name + " cupar_B;\ntypedef " + s.types[2].name + " cupar_Out;\n";
}

// The out-of-line kernels transform a thread's items of a tile with one call of the operator's
// batched form (jit_ops/cupar_transform.cuh, CUPAR_OUT_OF_LINE).
std::vector<slot_spec> unary_slots(const set_spec& s) {
  return {with_batches(op_slot({s.types[0]}, s.types[1], {"x"}, "operator"), batch::transform)};
}

std::vector<slot_spec> binary_slots(const set_spec& s) {
  return {with_batches(op_slot({s.types[0], s.types[1]}, s.types[2], {"a", "b"}, "operator"),
                       batch::transform)};
}

std::vector<std::string> names(const set_spec& set) {
  const std::string ins =
      set.fam == family::transform_unary ? "const cupar_In*" : "const cupar_A*, const cupar_B*";
  return {
      "cub::detail::transform::transform_kernel<cupar_policy, cupar_offset, "
      "cupar_transform_op, cupar_Out*, " +
          ins + ">",
      "cupar_meta<(long long)cupar_active::algorithm, "
      "(long long)cupar_active::algo_policy::block_threads, "
      "(long long)cupar_active::algo_policy::min_items_per_thread, "
      "(long long)cupar_active::algo_policy::max_items_per_thread, "
      "(long long)cupar_active::min_bif, "
      "(long long)cub::detail::transform::loaded_bytes_per_iteration<" +
          ins + ">()>"};
}

/// Every type: a record to a record of the same class, a record to an f32 or f64 ...
bool struct_position(std::size_t) {
  return true;
}

const char* const unary_rules[] = {
    "precompile t=types: transform_unary<$t,$t>",
    // Records: a record to a record of the same class, to an f32 or f64 (a field, a derived
    // value: the common projections), an f32 to a record. Other mixes compile from source once.
    "precompile s=structs: transform_unary<$s,$s>",
    "precompile s=structs o=f32|f64: transform_unary<$s,$o>",
    "precompile s=structs: transform_unary<f32,$s>",
};

const char* const binary_rules[] = {
    "precompile t=types: transform_binary<$t,$t,$t>",
};

}  // namespace

extern const family_def transform_unary_family =
    family_def::make(family::transform_unary, "transform_unary", "cupar_transform.cuh", 1,
                     unary_typedefs, unary_slots, names)
        .with_struct_classes(struct_position)
        .precompiling(unary_rules);

extern const family_def transform_binary_family =
    family_def::make(family::transform_binary, "transform_binary", "cupar_transform.cuh", 1,
                     binary_typedefs, binary_slots, names)
        .with_struct_classes(struct_position)
        .precompiling(binary_rules);

}  // namespace cupar::detail::jit

#ifndef CUPAR_FAMILY_RECORD_ONLY

#include "../core/call.hpp"
#include "../core/engine.hpp"
#include "../core/iterator_expr.hpp"
#include "../core/launch.hpp"
#include "../core/precompiled.hpp"
#include "../core/request.hpp"

#include <cupar/detail/checks.hpp>
#include <cupar/detail/device_guard.hpp>
#include <cupar/detail/jit_entry.hpp>
#include <cupar/detail/temp_storage.hpp>

#include <cuda_runtime_api.h>
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>

// ---- host dispatch: launch arguments --------------------------------------------------

namespace cupar::detail::jit {

/// Transform (module meta: algorithm, block threads, min / max items per thread, minimum bytes in
/// flight, bytes loaded per item). Mirrors CUB's detail::transform::dispatch_t, whose bulk-copy
/// path in 3.0.1 launches through CUB's triple-chevron launcher only.
cudaError_t run_transform(const loaded_module& m, const device_info& dev, launch_status& st,
                          int arity, const void* const* inputs, void* out, std::size_t n,
                          const void* op_state, cudaStream_t stream);

}  // namespace cupar::detail::jit

// ---- host dispatch ----------------------------------------------------------------------

namespace cupar::detail::jit {
namespace {

/// CUB's transform kernel_arg<T*> union: a plain pointer (prefetch) or an aligned base pointer
/// with the head padding (bulk copy).
struct alignas(8) transform_kernel_arg {
  const char* ptr;
  int head_padding;
  int unused;
};

}  // namespace

cudaError_t run_transform(const loaded_module& m, const device_info& dev, launch_status& st,
                          int arity, const void* const* inputs, void* out, std::size_t n_total,
                          const void* op_state, cudaStream_t stream) {
  using offset_t = long long;
  const auto n = static_cast<offset_t>(n_total);
  if (n == 0) return cudaSuccess;
  const bool bulk_copy = m.meta(0) == 1;  // CUB's Algorithm::ublkcp
  const int block = static_cast<int>(m.meta(1));
  const int min_items = static_cast<int>(m.meta(2));
  const int max_items = static_cast<int>(m.meta(3));
  const int min_bif = static_cast<int>(m.meta(4));
  const int loaded_bytes = static_cast<int>(m.meta(5));
  const CUkernel kernel = m.kernel(0);
  transform_kernel_arg args[2] = {};
  const erased_arg op{op_state};
  jit_launcher_factory launch{&dev, &m, &st};

  if (bulk_copy) {
    // CUB's configure_ublkcp_kernel: the smallest items per thread that put enough bytes in flight
    // per SM, within the 48 KiB of static shared memory. (CUB caches this choice in a static,
    // computed for the first call's size; here it is computed per call, occupancy cached.)
    // The tier-1 kernel (jit_ops/cupar_transform.cuh) holds two tiles a block, the copy of its
    // next tile in flight while it transforms the current one, and walks its share of the tiles
    // from a grid of as many blocks as fit at once: its registers leave it 3-4 blocks an SM where
    // CUB's kernel runs 8, and one tile a block put too few bytes in flight (tier 1 over the
    // optimised build, H200: unary f32 0.73 -> 0.85, binary i32 0.57 -> 0.82 at 2^24). Items
    // whose two tiles of 256 do not fit (records of 96 bytes and more) take CUB's grid, a tile a
    // block, in which the kernel uses one buffer.
    constexpr int alignment = 128;  // bulk_copy_alignment
    // `resident`: blocks an SM at the chosen shared memory (0 where one tile holds every item).
    int elem = 0, tile = 0, smem = 0, resident = 0;
    auto choose = [&](bool two_buffers) {
      int last_elem = 0, last_tile = 0, last_smem = 0, last_resident = 0;
      for (int e = min_items; e < max_items; ++e) {
        const int t = block * e;
        const int buffer = t * loaded_bytes + arity * alignment;
        const int s = alignment + (two_buffers ? 2 * buffer : buffer);
        if (s > dev.max_smem_per_block) break;
        if (t >= n) {
          elem = e, tile = t, smem = s, resident = 0;
          return;
        }
        const int occupancy = m.occupancy(kernel, block, static_cast<std::size_t>(s));
        if (min_bif <= occupancy * t * loaded_bytes) {
          elem = e, tile = t, smem = s, resident = occupancy;
          return;
        }
        last_elem = e, last_tile = t, last_smem = s, last_resident = occupancy;
      }
      elem = last_elem, tile = last_tile, smem = last_smem, resident = last_resident;
    };
    bool pipelined = m.tier() == 1;
    choose(pipelined);
    if (elem <= 0 && pipelined) {
      pipelined = false;
      choose(false);
    }
    if (elem <= 0) return cudaErrorInvalidConfiguration;
    for (int i = 0; i < arity; ++i) {
      const auto p = reinterpret_cast<std::uintptr_t>(inputs[i]);
      const auto base = p & ~static_cast<std::uintptr_t>(alignment - 1);
      args[i].ptr = reinterpret_cast<const char*>(base);
      args[i].head_padding = static_cast<int>(p - base);
    }
    offset_t blocks = ceil_div(n, tile);
    if (pipelined) {
      blocks =
          std::min<offset_t>(blocks, static_cast<offset_t>(std::max(resident, 1)) * dev.sm_count);
    }
    const auto grid = static_cast<unsigned>(blocks);
    if (arity == 1) {
      launch(grid, block, static_cast<std::size_t>(smem), stream)
          .doit(kernel, n, elem, op, out, args[0]);
    } else {
      launch(grid, block, static_cast<std::size_t>(smem), stream)
          .doit(kernel, n, elem, op, out, args[0], args[1]);
    }
  } else {
    // CUB's invoke_prefetch_algorithm.
    const int occupancy = m.occupancy(kernel, block, 0);
    const int items_per_thread = static_cast<int>(
        ceil_div(min_bif, static_cast<long long>(occupancy) * block * loaded_bytes));
    const int evenly_spread = static_cast<int>(std::min<offset_t>(
        items_per_thread, n / (static_cast<offset_t>(dev.sm_count) * block * occupancy)));
    const int items = std::clamp(evenly_spread, min_items, max_items);
    const int tile = block * items;
    for (int i = 0; i < arity; ++i)
      args[i].ptr = static_cast<const char*>(inputs[i]);
    const auto grid = static_cast<unsigned>(ceil_div(n, tile));
    if (arity == 1) {
      launch(grid, block, 0, stream).doit(kernel, n, items, op, out, args[0]);
    } else {
      launch(grid, block, 0, stream).doit(kernel, n, items, op, out, args[0], args[1]);
    }
  }
  return st.first == CUDA_SUCCESS ? cudaSuccess : cudaErrorLaunchFailure;
}

}  // namespace cupar::detail::jit

// ---- library entries --------------------------------------------------------------------

namespace cupar::detail {

using jit::family;
using jit::resolve;
using jit::set_request;

namespace {

/// Whether the library precompiled CUB's transform kernels for the types of `r` (the types
/// themselves, or a user struct's class).
bool transform_precompiled(const set_request& r) {
  const bool same =
      r.fam == family::transform_unary ? r.t[0] == r.t[1] : r.t[0] == r.t[1] && r.t[1] == r.t[2];
  if (same && !r.t[0]->is_struct()) return true;  // every arithmetic T -> T set is built
  return precompiled_request(r);
}

}  // namespace

namespace {

/// transform over expressions (in_iter[0], in_iter[1] for a binary one, out_iter[0]): the
/// "for_each" set with the code generated for their shape (families/for_each.cu).
void run_transform_apply(const jit_args& a, stream_ref s, memory_resource& mr) {
  const char* fn = a.function;
  const int arity = a.in_iter[1] != nullptr ? 2 : 1;
  if (a.out_iter[0] == nullptr || a.ops[0] == nullptr) throw_invalid_argument(fn, "malformed call");
  static const char* in_names[2][2] = {{"in", ""}, {"a", "b"}};
  const auto [out, out_size] = jit::output_array(*a.out_iter[0]);
  require_size(fn, a.n, out_size);
  for (int i = 0; i < arity; ++i) {
    const auto [in, in_size] = jit::input_array(*a.in_iter[i]);
    require_size(fn, a.n, in_size);
    if (in != nullptr && out != nullptr) {
      require_same_or_disjoint(fn, in_names[arity - 1][i], in, a.n * in_size, "out", out,
                               a.n * out_size);
    }
  }
  // Element i is stored at n - 1 - i while other threads still read theirs: a reversed output
  // must not write what the transform reads.
  if (jit::output_has_reverse(*a.out_iter[0])) {
    for (int i = 0; i < arity; ++i) {
      if (jit::output_may_overlap(*a.out_iter[0], a.n, a.in_iter[i], nullptr, 0)) {
        throw_invalid_argument(fn,
                               "a reverse_output writes an array the transform reads (the "
                               "store of element i at n - 1 - i would overwrite an element "
                               "another thread has yet to read): write to another array");
      }
    }
  }
  run_apply(fn, arity, a.in_iter, *a.out_iter[0], a.n, *a.ops[0], s, mr);
}

/// The request of a transform on arrays: types {In, Out} (unary) or {A, B, Out} (binary).
set_request array_request(const jit_args& a) {
  const bool binary = a.types[2] != nullptr;
  set_request r{binary ? family::transform_binary : family::transform_unary,
                {a.types[0], a.types[1], a.types[2]}};
  r.ops[0] = a.ops[0];
  return r;
}

/// transform (ops {op}): arrays of types {In, Out} or {A, B, Out}, or expressions.
void run_transform(const jit_args& a, stream_ref s, memory_resource& mr, const pending_inputs*) {
  if (a.in_iter[0] != nullptr) return run_transform_apply(a, s, mr);
  const char* fn = a.function;
  const int arity = a.types[2] != nullptr ? 2 : 1;
  const jit_type& out_type = *a.types[arity];
  std::size_t widest = out_type.size;
  for (int i = 0; i < arity; ++i)
    widest = std::max<std::size_t>(widest, a.types[i]->size);
  require_size(fn, a.n, widest);
  static const char* in_names[2][2] = {{"d_in", ""}, {"d_a", "d_b"}};
  void* const d_out = a.out[0];
  for (int i = 0; i < arity; ++i) {
    const char* name = in_names[arity - 1][i];
    require_data(fn, name, a.in[i], a.n);
    require_same_or_disjoint(fn, name, a.in[i], a.n * a.types[i]->size, "d_out", d_out,
                             a.n * out_type.size);
  }
  require_data(fn, "d_out", d_out, a.n);
  if (a.n == 0) return;
  const set_request req = array_request(a);
  if (a.plan == nullptr && !transform_precompiled(req)) {
    // Types without precompiled CUB transform kernels (mixed types, structs without a class set):
    // the "for_each" set with the arrays as expressions, ready in tens of milliseconds instead
    // of compiling CUB's kernels from source (seconds).
    const cupar::jit::iterator ins[2] = {
        cupar::jit::iterator(cupar::jit::detail::iterator_pointer(*a.types[0], a.in[0])),
        cupar::jit::iterator(arity == 2 ? cupar::jit::detail::iterator_pointer(*a.types[1], a.in[1])
                                        : cupar::jit::detail::node_ptr())};
    const cupar::jit::output out(cupar::jit::detail::output_pointer(out_type, d_out));
    const cupar::jit::iterator* in[2] = {&ins[0], &ins[1]};
    run_apply(fn, arity, in, out, a.n, *a.ops[0], s, mr);
    return;
  }
  const jit::resolved resolved = resolve(req, a.plan, fn);
  const jit::device_info* const devp = resolved.dev;
  const std::shared_ptr<const jit::loaded_module>& module = resolved.module;
  const jit::device_info& dev = *devp;
  jit::launch_status st;
  jit::check_dispatch(
      jit::run_transform(*module, dev, st, arity, a.in, d_out, a.n, a.ops[0]->state(), s.get()), st,
      "cupar transform (run-time operator)");
}

/// The request of a compile-only build or a plan: CUB's transform kernels for arrays, the
/// "for_each" set for expressions.
set_request transform_request(const jit_args& a, request_scratch& scratch) {
  if (a.in_iter[0] == nullptr) return array_request(a);
  if (a.out_iter[0] == nullptr) {
    throw_invalid_argument("cupar::jit", "an input expression needs an output expression");
  }
  const int arity = a.in_iter[1] != nullptr ? 2 : 1;
  scratch.loader.emplace(
      jit::transform_apply_op(a.in_iter, arity, *a.out_iter[0], *a.ops[0], 0, "cupar::jit::compile")
          .op);
  set_request r{family::for_each, {&jit::index_type()}};
  r.ops[0] = &*scratch.loader;
  return r;
}

}  // namespace

extern const jit_call transform_jit_call =
    jit_call::make("transform", jit::family::transform_unary, run_transform, transform_request);

}  // namespace cupar::detail

#endif  // CUPAR_FAMILY_RECORD_ONLY
