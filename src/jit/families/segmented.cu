// cupar families: segmented reduce (CUB's DeviceSegmentedReduceKernel, jit_ops/
// cupar_segmented_reduce.cuh) and segmented inclusive and exclusive scans (cupar's kernels,
// include/cupar/detail/device/segmented_scan.cuh, through jit_ops/cupar_segmented_scan.cuh).
// Size classes {T}.
//
// One file holds the family: its record (what the core and the precompile tool read), then,
// outside the record-only build of the precompile tool, its host dispatch (launches the
// module's kernels through CUB's dispatch or a mirror of it) and its library entries (the
// operations of jit_call_named: argument checks, request, temporaries, launch).
#include "../core/family.hpp"

namespace cupar::detail::jit {
namespace {

std::string typedefs(const set_spec& s) {
  return std::string(s.fam == family::segmented_scan_exclusive
                         ? "#define CUPAR_SEGMENTED_SCAN_EXCLUSIVE 1\n"
                         : "") +
         "typedef " + s.types[0].name + " cupar_T;\n";
}

// The out-of-line segmented scan kernels reduce and scan a thread's (flag, value) pairs with the
// operator's segmented batches, and a warp's pairs, the block's warp prefixes and the look-back's
// windows with one call each (jit_ops/cupar_segmented_scan.cuh).
std::vector<slot_spec> slots(const set_spec& s) {
  return {with_batches(binary_op_slot(s.types[0]), batch::segmented)};
}

// The out-of-line segmented reduce kernel reduces a thread's items with one call of the
// operator's fold, and a warp's values with one call (jit_ops/cupar_segmented_reduce.cuh).
std::vector<slot_spec> reduce_slots(const set_spec& s) {
  return {with_batches(binary_op_slot(s.types[0]), batch::fold | batch::warp_reduce)};
}

// The out-of-line segmented reduce kernel at the occupancy the optimised one reaches (32
// registers: 8 blocks of 256 threads an SM on sm_90) for values of up to 8 bytes; compiled on its
// own it took 96 registers (2 blocks an SM; its launch bounds name no block count, so ptxas
// ignores -maxrregcount). Structs keep theirs (32 registers would spill their copies). The
// operator's functions it calls are compiled within the same 32 registers (a callee may not use
// more than its kernel: f64's warp reduction took 36; the named operators' are compiled so too).
// (H200: the capped kernel ran at 89.5% achieved occupancy without spills; the calls are what
// keep it from the optimised kernel's speed: docs/PERFORMANCE_NOTES.md, "Segmented reduce".)
bool register_target(const set_spec& s) {
  return s.types[0].size <= 8;
}
std::vector<std::string> reduce_out_of_line_options(const set_spec& s, int) {
  if (!register_target(s)) return {};
  return {blocks_for_registers(256, out_of_line_registers)};
}
std::vector<std::string> reduce_operator_options(const set_spec& s, int) {
  if (!register_target(s)) return {};
  return {register_limit(out_of_line_registers)};
}

std::vector<std::string> reduce_names(const set_spec&) {
  // CUB's own kernel, as cub::DeviceSegmentedReduce::Reduce instantiates it.
  return {
      "cub::detail::reduce::DeviceSegmentedReduceKernel<cupar_policy, const cupar_T*, "
      "cupar_T*, const cupar_offset*, const cupar_offset*, cupar_offset, "
      "cupar_segmented_reduce_op, cupar_T, cupar_T>",
      meta_expression(2)};
}

std::vector<std::string> scan_names(const set_spec&) {
  return {"cupar::detail::segscan::init_kernel<cupar_tile_state>",
          "cupar::detail::segscan::sweep_kernel<cupar_policy, cupar_T, "
          "cupar_segmented_scan_op, cupar_segmented_scan_init>",
          meta_expression(5)};
}

const char* const reduce_rules[] = {
    "precompile c=classes: segmented_reduce<$c>",
    "precompile s=dp_structs: segmented_reduce<$s>",
};

const char* const inclusive_rules[] = {
    "precompile c=classes: segmented_scan_inclusive<$c>",
    "precompile s=dp_structs: segmented_scan_inclusive<$s>",
};

const char* const exclusive_rules[] = {
    "precompile c=classes: segmented_scan_exclusive<$c>",
    "precompile s=dp_structs: segmented_scan_exclusive<$s>",
};

}  // namespace

extern const family_def segmented_reduce_family =
    family_def::make(family::segmented_reduce, "segmented_reduce", "cupar_segmented_reduce.cuh", 1,
                     typedefs, reduce_slots, reduce_names)
        .for_size_classes()
        .taking_states_by_reference()
        .with_out_of_line_options(reduce_out_of_line_options, reduce_operator_options)
        .precompiling(reduce_rules);

extern const family_def segmented_scan_inclusive_family =
    family_def::make(family::segmented_scan_inclusive, "segmented_scan_inclusive",
                     "cupar_segmented_scan.cuh", 2, typedefs, slots, scan_names)
        .for_size_classes()
        .taking_states_by_reference()
        // The tier-1 sweep on 4-byte arithmetic items on sm_90 (128 threads a block) at the
        // optimised kernel's 8 blocks an SM: linked with an operator (CUPAR_JIT_DUMP_DIR,
        // 2026-12-01) it took 96 registers, 5 blocks, where the optimised kernel takes 64-72;
        // capped, 64 with 6 local stores. 8-byte items run other blocks (the same cap gave them
        // 32 registers and 162 local stores) and keep their own.
        .with_out_of_line_options(sm90_four_byte_blocks<128, 64>,
                                  sm90_four_byte_operators<out_of_line_registers>)
        .precompiling(inclusive_rules);

extern const family_def segmented_scan_exclusive_family =
    family_def::make(family::segmented_scan_exclusive, "segmented_scan_exclusive",
                     "cupar_segmented_scan.cuh", 2, typedefs, slots, scan_names)
        .for_size_classes()
        .taking_states_by_reference()
        .precompiling(exclusive_rules);

}  // namespace cupar::detail::jit

#ifndef CUPAR_FAMILY_RECORD_ONLY

#include "../core/call.hpp"
#include "../core/launch.hpp"

#include <cupar/detail/dp_checks.hpp>
#include <cupar/detail/dp_dispatch.cuh>
#include <cupar/detail/temp_storage.hpp>

#include <cub/agent/single_pass_scan_operators.cuh>
#include <cub/device/dispatch/dispatch_reduce.cuh>

#include <cstddef>
#include <cstdint>

// ---- host dispatch: launch arguments --------------------------------------------------

namespace cupar::detail::jit {

/// Segmented reduce and segmented scans: the values, the segments, the operator.
struct segmented_launch {
  const void* in;
  void* out;
  std::size_t value_size;
  std::size_t n;
  std::size_t num_segments;
  const std::int64_t* begin_offsets;
  const std::int64_t* end_offsets;
  const void* op_state;
  const void* init;  // reduce, exclusive scan: the initial value's bytes; null: inclusive scan
};
/// Segmented reduce (module meta: block threads, items per thread of CUB's segmented reduce
/// policy): CUB's DispatchSegmentedReduce with the module's kernel (its kernel-source seam).
cudaError_t run_segmented_reduce(const loaded_module& m, const device_info& dev, launch_status& st,
                                 void* temp, std::size_t& temp_bytes, const segmented_launch& s,
                                 cudaStream_t stream);
/// Segmented scans (module meta: block threads, items per thread, tile state single word, its
/// word or description bytes, payload bytes): the dispatch the compiled path runs
/// (detail/dp_dispatch.cuh) with the module's kernels.
cudaError_t run_segmented_scan(const loaded_module& m, const device_info& dev, launch_status& st,
                               void* temp, std::size_t& temp_bytes, const segmented_launch& s,
                               cudaStream_t stream);

}  // namespace cupar::detail::jit

// ---- host dispatch ----------------------------------------------------------------------

namespace cupar::detail::jit {
namespace {

struct erased_accum;  // the accumulator type; the host dispatch only passes pointers to it

// ---- segmented reduce: module meta = {threads, items} ----

/// The output iterator: CUB advances it past INT_MAX segments per launch (many segments), so it
/// must know the element size; the kernel receives the pointer.
struct erased_out {
  void* ptr;
  std::size_t size;
  erased_out operator+(std::int64_t k) const {
    return {static_cast<unsigned char*>(ptr) + static_cast<std::size_t>(k) * size, size};
  }
};
inline void* arg_address(const erased_out& o) {
  return const_cast<void*>(static_cast<const void*>(&o.ptr));
}

struct segmented_reduce_policy {
  agent_policy segmented;
  agent_policy SegmentedReduce() const { return segmented; }
  template <class Dispatch>
  cudaError_t Invoke(int, Dispatch& dispatch) const {
    return dispatch.Invoke(*this);
  }
};
struct segmented_reduce_hub {
  using MaxPolicy = segmented_reduce_policy;
};
struct segmented_reduce_kernels {
  const loaded_module* m;
  CUkernel SegmentedReduceKernel() const { return m->kernel(0); }
};
using segmented_reduce_dispatch = cub::DispatchSegmentedReduce<
    const void*, erased_out, const std::int64_t*, const std::int64_t*, std::int64_t, erased_arg,
    erased_arg, erased_accum, segmented_reduce_hub, segmented_reduce_kernels, jit_launcher_factory>;

// ---- segmented scans: module meta = {threads, items, single word, word or description bytes,
// payload bytes} ----

/// cub::ReduceByKeyScanTileState<T, int> for a T known only at run time: one array of words, or
/// CUB's three arrays (status, partial, inclusive) carved by CUB's own functions.
struct runtime_tile_state {
  void* words[3] = {nullptr, nullptr, nullptr};
  bool single_word = true;
  long long word_bytes = 0;  // single word
  int description_bytes = 0;
  int payload_bytes = 0;

  cudaError_t AllocationSize(int num_tiles, std::size_t& bytes) const {
    if (single_word) {
      // ReduceByKeyScanTileState<T, K, true>::AllocationSize
      bytes = (static_cast<std::size_t>(num_tiles) + cub::detail::warp_threads) *
              static_cast<std::size_t>(word_bytes);
    } else {
      bytes = cub::detail::tile_state_allocation_size(description_bytes, payload_bytes, num_tiles);
    }
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
// The kernels receive the tile state by value: one pointer or three.
inline void* arg_address(const runtime_tile_state& s) {
  return const_cast<void*>(static_cast<const void*>(s.words));
}

struct segmented_scan_kernels {
  const loaded_module* m;
  cudaError_t shape(segscan::shape& s) const {
    s.threads = static_cast<int>(m->meta(0));
    s.items = static_cast<int>(m->meta(1));
    return cudaSuccess;
  }
  CUkernel init_kernel() const { return m->kernel(0); }
  CUkernel sweep_kernel() const { return m->kernel(1); }
  runtime_tile_state tile_state() const {
    runtime_tile_state s;
    s.single_word = m->meta(2) != 0;
    if (s.single_word) {
      s.word_bytes = m->meta(3);
    } else {
      s.description_bytes = static_cast<int>(m->meta(3));
      s.payload_bytes = static_cast<int>(m->meta(4));
    }
    return s;
  }
};

}  // namespace

cudaError_t run_segmented_reduce(const loaded_module& m, const device_info& dev, launch_status& st,
                                 void* temp, std::size_t& temp_bytes, const segmented_launch& s,
                                 cudaStream_t stream) {
  const segmented_reduce_policy policy{{static_cast<int>(m.meta(0)), static_cast<int>(m.meta(1))}};
  return segmented_reduce_dispatch::Dispatch(
      temp, temp_bytes, s.in, erased_out{s.out, s.value_size},
      static_cast<std::int64_t>(s.num_segments), s.begin_offsets, s.end_offsets,
      erased_arg{s.op_state}, erased_arg{s.init}, stream, segmented_reduce_kernels{&m},
      jit_launcher_factory{&dev, &m, &st}, policy);
}

cudaError_t run_segmented_scan(const loaded_module& m, const device_info& dev, launch_status& st,
                               void* temp, std::size_t& temp_bytes, const segmented_launch& s,
                               cudaStream_t stream) {
  static const unsigned char null_type = 0;  // cub::NullType (inclusive scans' init)
  const erased_arg init{s.init != nullptr ? s.init : &null_type};
  return segscan::dispatch(temp, temp_bytes, s.in, s.out, static_cast<std::int64_t>(s.n),
                           static_cast<std::int64_t>(s.num_segments), s.begin_offsets,
                           s.end_offsets, erased_arg{s.op_state}, init, stream,
                           segmented_scan_kernels{&m}, jit_launcher_factory{&dev, &m, &st});
}

}  // namespace cupar::detail::jit

// ---- library entries --------------------------------------------------------------------

namespace cupar::detail {
namespace {

/// segmented_reduce and the segmented scans (types {T}; in[0] / out[0]; m segments by
/// begin_offsets / end_offsets; ops {op}; init: the reduce's and the exclusive scan's).
void call_segmented(const jit_args& a, stream_ref s, memory_resource& mr,
                    const pending_inputs* pending) {
  const char* fn = a.function;
  const std::size_t size = a.types[0]->size;
  const bool reduce = a.call->fam == jit::family::segmented_reduce;
  if (reduce) {
    check_segmented_reduce(fn, a.in[0], a.out[0], a.n, a.m, a.begin_offsets, a.end_offsets, size);
  } else {
    check_segmented_scan(fn, a.in[0], a.out[0], a.n, a.m, a.begin_offsets, a.end_offsets, size);
  }
  if (a.ops[0] == nullptr) throw_invalid_argument(fn, "no operator");
  write_pending(pending, s, mr);
  // Nothing is written without segments, nor by a scan of nothing (a reduce of empty segments
  // still writes init to each).
  if (a.m == 0 || (!reduce && a.n == 0)) return;
  const jit::set_request req = dp_request(a, false);
  const jit::resolved resolved = jit::resolve(req, nullptr, fn);
  const jit::device_info* const devp = resolved.dev;
  const std::shared_ptr<const jit::loaded_module>& module = resolved.module;
  const jit::device_info& dev = *devp;
  const kernel_states states(*module, {a.ops[0]->state()}, s, mr);
  const jit::segmented_launch launch{a.in[0],         a.out[0],      size,      a.n,   a.m,
                                     a.begin_offsets, a.end_offsets, states[0], a.init};
  jit::launch_status st;
  const char* call = reduce ? "cupar segmented_reduce (run-time operator)"
                            : "cupar segmented scan (run-time operator)";
  // The reduce's temporary storage is CUB's token byte; the scans' depends on n (tiles).
  run_with_temp_storage(
      call, mr, s, {reduce ? 0 : a.n, module->serial()}, [&](void* temp, std::size_t& bytes) {
        const cudaError_t status =
            reduce ? jit::run_segmented_reduce(*module, dev, st, temp, bytes, launch, s.get())
                   : jit::run_segmented_scan(*module, dev, st, temp, bytes, launch, s.get());
        jit::check_dispatch(status, st, call);
        return cudaSuccess;
      });
}

/// segmented_reduce writes one value per segment.
constexpr call_io reduce_io() {
  call_io io{};
  io.output_m = true;
  return io;
}
/// The scans leave the items outside every segment unwritten.
constexpr call_io scan_io() {
  call_io io{};
  io.output_starts_as_input = true;
  return io;
}

}  // namespace

extern const jit_call segmented_reduce_jit_call =
    jit_call::make("segmented_reduce", jit::family::segmented_reduce, call_segmented,
                   dp_compile_request)
        .with_io(reduce_io());
extern const jit_call segmented_inclusive_scan_jit_call =
    jit_call::make("segmented_inclusive_scan", jit::family::segmented_scan_inclusive,
                   call_segmented, dp_compile_request)
        .with_io(scan_io());
extern const jit_call segmented_exclusive_scan_jit_call =
    jit_call::make("segmented_exclusive_scan", jit::family::segmented_scan_exclusive,
                   call_segmented, dp_compile_request)
        .with_io(scan_io());

}  // namespace cupar::detail

#endif  // CUPAR_FAMILY_RECORD_ONLY
