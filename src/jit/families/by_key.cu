// cupar families: the by-key algorithms (unique_by_key, run_length_encode, reduce_by_key,
// inclusive and exclusive scan_by_key). Device code: jit_ops/cupar_unique_by_key.cuh (CUB's own
// kernels), cupar_reduce_by_key.cuh (reduce_by_key and run-length encoding), cupar_scan_by_key.cuh.
// Size classes {K, V} (run_length_encode: {K, Count}). Variants: "wide" (64-bit offsets, for
// n >= 2^31; compiled from source at run time), "plus" (the named plus on a 4- or 8-byte
// arithmetic value type: cuda::std::plus<> compiled into the kernels, V the value type itself),
// "index" (reduce_by_key: the values an iterator expression read by the kernels,
// cupar_expr_input.cuh).
//
// One file holds the family: its record (what the core and the precompile tool read), then,
// outside the record-only build of the precompile tool, its host dispatch (launches the
// module's kernels through CUB's dispatch or a mirror of it) and its library entries (the
// operations of jit_call_named: argument checks, request, temporaries, launch).
#include "../core/family.hpp"

namespace cupar::detail::jit {
namespace {

std::string typedefs(const set_spec& s) {
  std::string out;
  if (s.fam == family::scan_by_key_exclusive) out += "#define CUPAR_SCAN_BY_KEY_EXCLUSIVE 1\n";
  if (s.fam == family::run_length_encode) out += "#define CUPAR_RUN_LENGTH_ENCODE 1\n";
  if (s.variant == "wide") out += "#define CUPAR_BY_KEY_WIDE 1\n";  // 64-bit offsets
  if (s.variant == "plus") out += "#define CUPAR_BY_KEY_PLUS 1\n";  // V: the user's type
  out += "typedef " + s.types[0].name + " cupar_K;\ntypedef " + s.types[1].name + " cupar_V;\n";
  // "+index": the values' expression yields cupar_V (cupar_expr_input.cuh names it cupar_T).
  if (s.variant == "index") out += "#define CUPAR_INDEX_INPUT 1\ntypedef cupar_V cupar_T;\n";
  return out;
}

/// The equality on the keys, with its batched head flags: the out-of-line kernels flag a thread's
/// keys eight or four a call (jit_ops/cupar_prelude.cuh, CUPAR_BATCHED_FLAG_HEADS).
slot_spec keys_equality(const set_spec& s) {
  return with_batches(equality_slot(s.types[0]), batch::heads);
}

std::vector<slot_spec> equality_only(const set_spec& s) {
  return {keys_equality(s)};
}

/// The operator on the values, then the equality on the keys; "+plus": the equality alone;
/// "+index": the values' expression first.
std::vector<slot_spec> operator_and_equality(const set_spec& s) {
  if (s.variant == "plus") return {keys_equality(s)};  // cuda::std::plus<> compiled in
  // The operator with its segmented batches: the out-of-line kernels reduce and scan a thread's
  // (flag, value) pairs eight or four a call (jit_ops/cupar_prelude.cuh).
  const slot_spec op = with_batches(binary_op_slot(s.types[1]), batch::segmented);
  if (s.variant == "index") return {expression_slot(s.types[1]), op, keys_equality(s)};
  return {op, keys_equality(s)};
}

/// The operator works on values (type 1), the equality on keys (type 0) (a "+index" set's
/// expression, before them, yields values: request.cpp).
std::size_t operator_and_equality_type(std::size_t slot) {
  return slot == 0 ? 1 : 0;
}

/// The tier-1 (out-of-line) sweeps of reduce_by_key, the inclusive scan by key and unique_by_key on
/// 4-byte arithmetic keys and values on sm_90, at the optimised kernels' occupancy. Linked with an
/// operator (CUPAR_JIT_DUMP_DIR, 2026-12-01) they took 168 registers (reduce_by_key: 1 block of
/// 256 an SM; the optimised kernel 126, 2 blocks), 105 (the inclusive scan: 2 blocks of 288;
/// optimised 71, 3 blocks) and 103 (unique_by_key, CUB's kernel: 1 block of 512; optimised 64, 2
/// blocks). Capped: 128 registers (13 local stores), 72 (4) and 64 (31); the operators' batched
/// forms within 32 registers spill nothing for these types. (The exclusive scan by key, 143
/// registers, 1 block, gave 96 with 40 local stores at 2 blocks; it has no benchmark row yet and
/// keeps its own.)
bool word_pairs(const set_spec& s, int arch) {
  return arch == 90 && s.variant.empty() && s.types.size() >= 2 && s.types[0].is_scalar() &&
         s.types[1].is_scalar() && s.types[0].size == 4 && s.types[1].size == 4;
}
std::vector<std::string> unique_by_key_names(const set_spec&) {
  // CUB's own kernels (NVRTC-safe headers in 3.0.1).
  return {"cub::detail::scan::DeviceCompactInitKernel<cupar_tile_state, cupar_num_selected_out>",
          "cub::detail::unique_by_key::DeviceUniqueByKeySweepKernel<cupar_policy, "
          "const cupar_K*, const cupar_V*, cupar_K*, cupar_V*, cupar_num_selected_out, "
          "cupar_tile_state, cupar_unique_by_key_eq, cupar_offset>",
          meta_expression(4)};
}

std::vector<std::string> reduce_by_key_names(const set_spec&) {
  return {"cupar_reduce_by_key_init", "cupar_reduce_by_key_sweep", meta_expression(6)};
}

std::vector<std::string> scan_by_key_names(const set_spec&) {
  return {"cupar_scan_by_key_init", "cupar_scan_by_key_sweep", meta_expression(5)};
}

// Keys and values of every pair of size classes (16 sets per family), and run-length encoding of
// every key class with 4- and 8-byte counts. The default equality is the precompiled named
// equal_to of the key type, linked to the class's kernels, so calls with no operator, or named
// ones, compile nothing. unique_by_key, reduce_by_key and run_length_encode count with 32-bit
// offsets below 2^31 items (64-bit ones ran 1.2-1.8x slower, H100); their "+wide" variants are
// compiled from source at run time. Struct values (accumulators such as (count, sum, min, max))
// of the data-processing struct classes, with 4- and 8-byte keys.
const char* const unique_by_key_rules[] = {
    "precompile k=classes v=classes: unique_by_key<$k,$v>",
    "precompile k=u32|u64 s=dp_structs: unique_by_key<$k,$s>",
};

const char* const run_length_encode_rules[] = {
    "precompile k=classes n=u32|u64: run_length_encode<$k,$n>",
};

// The "+plus" sets: 4- and 8-byte keys, 4- and 8-byte arithmetic values. cuda::std::plus<> is
// what the compiled path hands CUB and the only operator for which CUB's reduce-by-key agent
// takes its identity-zero scan. Other named operators, other sizes and snippets use the generic
// sets.
// The "+index" sets: the values an iterator expression (columns combined into an accumulator)
// read by the kernels, with 4- and 8-byte keys; other keys, and n >= 2^31, write the values to a
// temporary first.
const char* const reduce_by_key_rules[] = {
    "precompile k=classes v=classes: reduce_by_key<$k,$v>",
    "precompile k=u32|u64 v=i32|u32|f32|i64|u64|f64: reduce_by_key<$k,$v>+plus",
    "precompile k=u32|u64 s=dp_structs: reduce_by_key<$k,$s>",
    "precompile k=u32|u64 v=classes: reduce_by_key<$k,$v>+index",
    "precompile k=u32|u64 s=dp_structs: reduce_by_key<$k,$s>+index",
};

const char* const scan_by_key_inclusive_rules[] = {
    "precompile k=classes v=classes: scan_by_key_inclusive<$k,$v>",
    "precompile k=u32|u64 v=i32|u32|f32|i64|u64|f64: scan_by_key_inclusive<$k,$v>+plus",
    "precompile k=u32|u64 s=dp_structs: scan_by_key_inclusive<$k,$s>",
};

const char* const scan_by_key_exclusive_rules[] = {
    "precompile k=classes v=classes: scan_by_key_exclusive<$k,$v>",
    "precompile k=u32|u64 v=i32|u32|f32|i64|u64|f64: scan_by_key_exclusive<$k,$v>+plus",
    "precompile k=u32|u64 s=dp_structs: scan_by_key_exclusive<$k,$s>",
};

}  // namespace

extern const family_def unique_by_key_family =
    family_def::make(family::unique_by_key, "unique_by_key", "cupar_unique_by_key.cuh", 2, typedefs,
                     equality_only, unique_by_key_names)
        .for_size_classes()
        .taking_states_by_reference()
        .with_out_of_line_options(blocks_where<word_pairs, 512, 64>,
                                  operators_where<word_pairs, out_of_line_registers>)
        .precompiling(unique_by_key_rules);

extern const family_def run_length_encode_family =
    family_def::make(family::run_length_encode, "run_length_encode", "cupar_reduce_by_key.cuh", 2,
                     typedefs, equality_only, reduce_by_key_names)
        .for_size_classes()
        .taking_states_by_reference()
        .precompiling(run_length_encode_rules);

extern const family_def reduce_by_key_family =
    family_def::make(family::reduce_by_key, "reduce_by_key", "cupar_reduce_by_key.cuh", 2, typedefs,
                     operator_and_equality, reduce_by_key_names)
        .for_size_classes()
        .taking_states_by_reference()
        .with_out_of_line_options(blocks_where<word_pairs, 256, 128>,
                                  operators_where<word_pairs, out_of_line_registers>)
        .with_slot_types(operator_and_equality_type)
        .precompiling(reduce_by_key_rules);

extern const family_def scan_by_key_inclusive_family =
    family_def::make(family::scan_by_key_inclusive, "scan_by_key_inclusive",
                     "cupar_scan_by_key.cuh", 2, typedefs, operator_and_equality, scan_by_key_names)
        .for_size_classes()
        .taking_states_by_reference()
        .with_out_of_line_options(blocks_where<word_pairs, 288, 72>,
                                  operators_where<word_pairs, out_of_line_registers>)
        .with_slot_types(operator_and_equality_type)
        .precompiling(scan_by_key_inclusive_rules);

extern const family_def scan_by_key_exclusive_family =
    family_def::make(family::scan_by_key_exclusive, "scan_by_key_exclusive",
                     "cupar_scan_by_key.cuh", 2, typedefs, operator_and_equality, scan_by_key_names)
        .for_size_classes()
        .taking_states_by_reference()
        .with_slot_types(operator_and_equality_type)
        .precompiling(scan_by_key_exclusive_rules);

}  // namespace cupar::detail::jit

#ifndef CUPAR_FAMILY_RECORD_ONLY

#include "../core/call.hpp"
#include "../core/iterator_expr.hpp"
#include "../core/launch.hpp"

#include <cupar/detail/counted.hpp>
#include <cupar/detail/dp_checks.hpp>
#include <cupar/detail/temp_storage.hpp>
#include <cupar/jit_iterator.hpp>

#include <cub/agent/single_pass_scan_operators.cuh>
#include <cub/device/dispatch/dispatch_unique_by_key.cuh>
#include <cub/util_temporary_storage.cuh>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>

// ---- host dispatch: launch arguments --------------------------------------------------

namespace cupar::detail::jit {

/// Unique by key (module meta: block threads, items per thread, virtual shared memory per block,
/// offset bytes): CUB's own DispatchUniqueByKey through its KernelSource seam (run_by_key.cu).
struct unique_by_key_launch {
  const void* keys_in;
  const void* values_in;
  void* keys_out;
  void* values_out;
  void* d_count;  // device count of selected items (64-bit)
  std::size_t n;
  const void* eq_state;
};
cudaError_t run_unique_by_key(const loaded_module& m, const device_info& dev, launch_status& st,
                              void* temp, std::size_t& temp_bytes, const unique_by_key_launch& u,
                              cudaStream_t stream);

/// Reduce by key and run-length encoding (module meta: block threads, items per thread, tile
/// state object size, tile descriptor bytes, tile payload bytes, offset bytes). Mirrors CUB's
/// DispatchReduceByKey::Invoke, which has no kernel-source seam in 3.0.1.
struct reduce_by_key_launch {
  const void* keys_in;
  void* unique_out;
  const void* values_in;  // null: run-length encoding (the kernels count ones) or an expression
  void* aggregates_out;   // aggregates, or the run lengths
  void* d_count;          // device count of runs (64-bit)
  std::size_t n;
  const void* op_state;  // null: run-length encoding (cuda::std::plus<>)
  const void* eq_state;
  bool op_inline = false;  // a "+plus" set: the operator is compiled in (an empty argument)
  /// A "+index" set: the values' expression state (cupar_expr_iterator, from index 0), else null.
  const void* values_state = nullptr;
};
cudaError_t run_reduce_by_key(const loaded_module& m, const device_info& dev, launch_status& st,
                              void* temp, std::size_t& temp_bytes, const reduce_by_key_launch& r,
                              cudaStream_t stream);

/// Inclusive and exclusive scans by key (module meta as reduce by key, less the offset bytes: the
/// scans by key always count with 64-bit offsets). Mirrors CUB's DispatchScanByKey::Invoke, which
/// has no kernel-source seam in 3.0.1.
struct scan_by_key_launch {
  const void* keys_in;
  const void* values_in;
  void* values_out;
  std::size_t n;
  std::size_t key_size;  // CUB keeps each tile's predecessor key in temporary storage
  const void* op_state;
  const void* eq_state;
  const void* init;        // exclusive: the initial value's bytes; null: inclusive
  bool op_inline = false;  // a "+plus" set: the operator is compiled in (an empty argument)
};
cudaError_t run_scan_by_key(const loaded_module& m, const device_info& dev, launch_status& st,
                            void* temp, std::size_t& temp_bytes, const scan_by_key_launch& s,
                            cudaStream_t stream);

}  // namespace cupar::detail::jit

// ---- host dispatch ----------------------------------------------------------------------

namespace cupar::detail::jit {
namespace {

// ---- unique by key: CUB's dispatch ----------------------------------------------------------

/// The agent policy CUB chose when the module was compiled: what DispatchUniqueByKey reads
/// through its VSMemHelper (block threads, items per thread, virtual shared memory per block).
struct unique_by_key_agent {
  int block_threads;
  int items_per_thread;
  std::size_t vsmem_per_block;
};
struct unique_by_key_policy {
  using UniqueByKeyPolicyT = unique_by_key_agent;
  unique_by_key_agent agent;
  unique_by_key_agent UniqueByKey() const { return agent; }
  template <class Dispatch>
  cudaError_t Invoke(int, Dispatch& dispatch) const {
    return dispatch.Invoke(*this);
  }
};
struct unique_by_key_hub {
  using MaxPolicy = unique_by_key_policy;
};
/// CUB's detail::unique_by_key::VSMemHelper computes these from the agent's types at compile
/// time; here they come from the module.
struct unique_by_key_vsmem {
  template <class Policy, class... Ts>
  static int BlockThreads(Policy p) {
    return p.block_threads;
  }
  template <class Policy, class... Ts>
  static int ItemsPerThread(Policy p) {
    return p.items_per_thread;
  }
  template <class Policy, class... Ts>
  static std::size_t VSMemPerBlock(Policy p) {
    return p.vsmem_per_block;
  }
};
/// The module's kernels; the tile state is cupar_tile_state, CUB's ScanTileState of the offsets
/// (32 bits, or 64 in the "wide" sets: module meta 3).
template <class Offset>
struct unique_by_key_kernels {
  const loaded_module* m;
  CUkernel CompactInitKernel() const { return m->kernel(0); }
  CUkernel UniqueByKeySweepKernel() const { return m->kernel(1); }
  cub::ScanTileState<Offset> TileState() const { return cub::ScanTileState<Offset>(); }
};
// The key and value types (last two parameters) only default the policy hub and kernel source,
// both given here.
template <class Offset>
using unique_by_key_dispatch =
    cub::DispatchUniqueByKey<const void*, const void*, void*, void*, unsigned long long*,
                             erased_arg, Offset, unique_by_key_hub, unique_by_key_kernels<Offset>,
                             jit_launcher_factory, unique_by_key_vsmem, unsigned char,
                             unsigned char>;

template <class Offset>
cudaError_t dispatch_unique_by_key(const loaded_module& m, const device_info& dev,
                                   launch_status& st, void* temp, std::size_t& temp_bytes,
                                   const unique_by_key_launch& u,
                                   const unique_by_key_policy& policy, cudaStream_t stream) {
  return unique_by_key_dispatch<Offset>::Dispatch(
      temp, temp_bytes, u.keys_in, u.values_in, u.keys_out, u.values_out,
      static_cast<unsigned long long*>(u.d_count), erased_arg{u.eq_state}, static_cast<Offset>(u.n),
      stream, unique_by_key_kernels<Offset>{&m}, jit_launcher_factory{&dev, &m, &st}, policy);
}

/// The offsets of the module's kernels: 4 or 8 bytes (reduce by key: module meta 5).
bool wide_offsets(const loaded_module& m, int meta_index) {
  return m.meta(meta_index) == 8;
}

// ---- reduce and scan by key: the tile state of a value known by its size ---------------------

/// cub::ReduceByKeyScanTileState<V, Offset> for a V known only at run time (module meta 2..4):
/// CUB's single-word layout (one transaction word per tile: key, value and status) or its generic
/// ScanTileState of key-value pairs, with CUB's own size and carving functions.
struct by_key_tile_state {
  void* words[3] = {nullptr, nullptr, nullptr};
  int description_bytes = 0;
  int payload_bytes = 0;
  bool single_word = false;

  static by_key_tile_state of(const loaded_module& m) {
    by_key_tile_state s;
    s.single_word = m.meta(2) == static_cast<long long>(sizeof(void*));
    s.description_bytes = static_cast<int>(m.meta(3));
    s.payload_bytes = static_cast<int>(m.meta(4));
    return s;
  }
  cudaError_t AllocationSize(int num_tiles, std::size_t& bytes) const {
    if (single_word) {
      // ReduceByKeyScanTileState<V, K, true>::AllocationSize
      bytes = (num_tiles + tile_status_padding) * static_cast<std::size_t>(description_bytes);
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

  static constexpr int tile_status_padding = cub::detail::warp_threads;
};
// The kernels take the tile state by value: one pointer or three (found by the launcher through
// argument-dependent lookup).
inline void* arg_address(const by_key_tile_state& s) {
  return const_cast<void*>(static_cast<const void*>(s.words));
}

}  // namespace

cudaError_t run_unique_by_key(const loaded_module& m, const device_info& dev, launch_status& st,
                              void* temp, std::size_t& temp_bytes, const unique_by_key_launch& u,
                              cudaStream_t stream) {
  const unique_by_key_policy policy{{static_cast<int>(m.meta(0)), static_cast<int>(m.meta(1)),
                                     static_cast<std::size_t>(m.meta(2))}};
  const cudaError_t error =
      wide_offsets(m, 3)
          ? dispatch_unique_by_key<unsigned long long>(m, dev, st, temp, temp_bytes, u, policy,
                                                       stream)
          : dispatch_unique_by_key<unsigned int>(m, dev, st, temp, temp_bytes, u, policy, stream);
  if (error != cudaSuccess || temp == nullptr) return error;
  return st.first == CUDA_SUCCESS ? cudaSuccess : cudaErrorLaunchFailure;
}

cudaError_t run_reduce_by_key(const loaded_module& m, const device_info& dev, launch_status& st,
                              void* temp, std::size_t& temp_bytes, const reduce_by_key_launch& r,
                              cudaStream_t stream) {
  constexpr int init_kernel_threads = 128;
  const int block_threads = static_cast<int>(m.meta(0));
  const int items_per_thread = static_cast<int>(m.meta(1));
  const auto num_items = static_cast<unsigned long long>(r.n);

  const int tile_size = block_threads * items_per_thread;
  int num_tiles = static_cast<int>(ceil_div(static_cast<long long>(num_items), tile_size));

  by_key_tile_state tile_state = by_key_tile_state::of(m);
  std::size_t allocation_sizes[1];
  cudaError_t error = tile_state.AllocationSize(num_tiles, allocation_sizes[0]);
  if (error != cudaSuccess) return error;
  void* allocations[1] = {};
  error = cub::detail::AliasTemporaries(temp, temp_bytes, allocations, allocation_sizes);
  if (error != cudaSuccess || temp == nullptr) return error;

  error = tile_state.Init(num_tiles, allocations[0], allocation_sizes[0]);
  if (error != cudaSuccess) return error;

  const int init_grid_size =
      std::max(1, static_cast<int>(ceil_div(num_tiles, init_kernel_threads)));
  jit_launcher_factory launch{&dev, &m, &st};
  // The initialisation kernel also writes the zero count of an empty input.
  launch(init_grid_size, init_kernel_threads, 0, stream)
      .doit(m.kernel(0), tile_state, num_tiles, r.d_count);
  if (st.first != CUDA_SUCCESS) return cudaErrorLaunchFailure;
  if (num_items == 0) return cudaSuccess;

  // (CUB asks the sweep kernel's occupancy here, for its debug log only.)
  // Run-length encoding has no operator: its values (cupar_ones) and its reduction
  // (cuda::std::plus<>) are empty arguments.
  const bool run_length = r.op_state == nullptr;
  const unsigned char null_type = 0;
  const expression_input e = expression_input::of(r.values_state);
  const erased_arg values_in{run_length                  ? static_cast<const void*>(&null_type)
                             : r.values_state != nullptr ? static_cast<const void*>(&e)
                                                         : &r.values_in};
  const erased_arg reduction_op{run_length || r.op_inline ? &null_type : r.op_state};
  const erased_arg equality_op{r.eq_state};
  // The kernel's num_items is cupar_offset: 32 bits, or 64 in the "wide" sets.
  const auto items32 = static_cast<unsigned int>(num_items);
  const erased_arg items{wide_offsets(m, 5) ? static_cast<const void*>(&num_items) : &items32};
  const int scan_grid_size = std::min(num_tiles, dev.max_grid_dim_x);
  for (int start_tile = 0; start_tile < num_tiles; start_tile += scan_grid_size) {
    launch(scan_grid_size, block_threads, 0, stream)
        .doit(m.kernel(1), r.keys_in, r.unique_out, values_in, r.aggregates_out, r.d_count,
              tile_state, start_tile, equality_op, reduction_op, items);
    if (st.first != CUDA_SUCCESS) return cudaErrorLaunchFailure;
  }
  return cudaSuccess;
}

cudaError_t run_scan_by_key(const loaded_module& m, const device_info& dev, launch_status& st,
                            void* temp, std::size_t& temp_bytes, const scan_by_key_launch& s,
                            cudaStream_t stream) {
  constexpr int init_kernel_threads = 128;
  const int block_threads = static_cast<int>(m.meta(0));
  const int items_per_thread = static_cast<int>(m.meta(1));
  const auto num_items = static_cast<unsigned long long>(s.n);

  const int tile_size = block_threads * items_per_thread;
  int num_tiles = static_cast<int>(ceil_div(static_cast<long long>(num_items), tile_size));

  by_key_tile_state tile_state = by_key_tile_state::of(m);
  std::size_t allocation_sizes[2];
  cudaError_t error = tile_state.AllocationSize(num_tiles, allocation_sizes[0]);
  if (error != cudaSuccess) return error;
  // Each tile's predecessor key, saved before the scan so that d_out may be d_keys.
  allocation_sizes[1] = s.key_size * static_cast<std::size_t>(num_tiles + 1);
  void* allocations[2] = {};
  error = cub::detail::AliasTemporaries(temp, temp_bytes, allocations, allocation_sizes);
  if (error != cudaSuccess || temp == nullptr) return error;
  if (num_items == 0) return cudaSuccess;

  void* d_keys_prev_in = allocations[1];
  error = tile_state.Init(num_tiles, allocations[0], allocation_sizes[0]);
  if (error != cudaSuccess) return error;

  const int init_grid_size = static_cast<int>(ceil_div(num_tiles, init_kernel_threads));
  jit_launcher_factory launch{&dev, &m, &st};
  launch(init_grid_size, init_kernel_threads, 0, stream)
      .doit(m.kernel(0), tile_state, s.keys_in, d_keys_prev_in,
            static_cast<unsigned long long>(tile_size), num_tiles);
  if (st.first != CUDA_SUCCESS) return cudaErrorLaunchFailure;

  const unsigned char null_type = 0;  // cub::NullType: the inclusive scan's init
  const erased_arg init_value{s.init != nullptr ? s.init : &null_type};
  const erased_arg equality_op{s.eq_state};
  const erased_arg scan_op{s.op_inline ? &null_type : s.op_state};
  const int scan_grid_size = std::min(num_tiles, dev.max_grid_dim_x);
  for (int start_tile = 0; start_tile < num_tiles; start_tile += scan_grid_size) {
    launch(scan_grid_size, block_threads, 0, stream)
        .doit(m.kernel(1), s.keys_in, d_keys_prev_in, s.values_in, s.values_out, tile_state,
              start_tile, equality_op, scan_op, init_value, num_items);
    if (st.first != CUDA_SUCCESS) return cudaErrorLaunchFailure;
  }
  return cudaSuccess;
}

}  // namespace cupar::detail::jit

// ---- library entries --------------------------------------------------------------------

namespace cupar::detail {
extern const jit_call reduce_by_key_jit_call;
extern const jit_call inclusive_scan_jit_call;
namespace {

/// Whether a reduce or scan by key is served by a "+plus" set (cuda::std::plus<> compiled into the
/// kernels, as the compiled path hands CUB; jit_ops/cupar_reduce_by_key.cuh says why it is
/// faster): the named plus on a 4- or 8-byte arithmetic value type with arithmetic keys (not with
/// 64-bit offsets: compaction_request turns it off for the wide sets), and only where the library
/// precompiled that set: otherwise the generic precompiled set, which needs no compile, serves.
bool use_plus_set(jit::family fam, const jit_type& keys, const jit_type& values,
                  const cupar::jit::op* op) {
  if (op == nullptr || op->named() != cupar::jit::named_op::plus) return false;
  if (keys.is_struct() || values.is_struct()) return false;
  if (values.size != 4 && values.size != 8) return false;
  const int f = fam == jit::family::reduce_by_key           ? 0
                : fam == jit::family::scan_by_key_inclusive ? 1
                                                            : 2;
  const int k = keys.size == 1 ? 0 : keys.size == 2 ? 1 : keys.size == 4 ? 2 : 3;
  static std::atomic<unsigned char> known[3][4][scalar_count + 1];
  return precompiled_once(
      known[f][k][static_cast<int>(values.kind)],
      {fam, {jit::type_ref::size_class(keys), jit::type_ref::of(values)}, "plus"});
}

/// The request of a by-key call: dp_request, with the "+plus" sets where they serve it.
jit::set_request by_key_request(const jit_args& a, bool in_place) {
  jit::set_request r = dp_request(a, in_place);
  const jit::family f = r.fam;
  if (f == jit::family::reduce_by_key || f == jit::family::scan_by_key_inclusive ||
      f == jit::family::scan_by_key_exclusive) {
    r.plus = use_plus_set(f, *a.types[0], *a.types[1], a.ops[0]);
  }
  return r;
}

const cupar::jit::op& equality_or_default(const cupar::jit::op* eq) {
  return eq != nullptr ? *eq : cupar::jit::equal_to;
}

/// The kernels of unique_by_key, reduce_by_key and run_length_encode count with 32-bit offsets up
/// to 2^31 - 1 items, as CUB does for an int count (64-bit ones made them 1.2-1.8x slower on 2^28
/// items, H100: the offsets widen the tile state's and the block scan's words), and with 64-bit
/// offsets above: the "wide" kernel sets, compiled from source at run time, once (they are not
/// precompiled).
jit::set_request compaction_request(const jit_args& a) {
  jit::set_request req = by_key_request(a, false);
  req.wide = a.n > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max());
  if (req.wide) req.plus = false;  // the wide sets keep the operator's slot
  return req;
}

// ---- struct keys without a by-key set: the marked rows ----------------------------------------
// The by-key sets take keys of the size classes u8..u64 (and the struct classes the rules name);
// keys of another struct type would compile the family's kernels from source (seconds). Instead
// one "for_each" pass calls the equality on each row and the row before and writes the row's
// mark, (i << 1) | head (run_marks_op; row 0's head bit 0), and the u32-keyed sets (u64 from
// 2^31 rows) run the algorithm on the marks under the equality "b's head bit is 0": CUB's agents
// compare each key with the one before it as eq(predecessor, key) (BlockDiscontinuity's
// FlagHeads, CCCL 3.0.1; reduce_by_key's first tile compares row 0 with itself), so the marks
// split the rows into the equality's runs. The compactions' keys out are then marks of the rows
// CUB would have taken its keys from, and one bounded gather writes those rows' keys: only the
// operators compile, tens of milliseconds, and the keys are read once, coalesced, plus 8 bytes a
// row for the marks written and read.

void reduce_by_key(const jit_args& given, stream_ref s, memory_resource& mr,
                   const pending_inputs* pending);
void scan_by_key(const jit_args& a, stream_ref s, memory_resource& mr,
                 const pending_inputs* pending);

/// Whether a by-key call takes the marked rows: struct keys whose set `req` is not precompiled,
/// compared by a text equality (`eq`), outside a plan (a plan builds its own set).
bool by_marked_rows(const jit_args& a, const cupar::jit::op* eq, const jit::set_request& req) {
  return a.types[0]->is_struct() && a.plan == nullptr && eq != nullptr && !eq->is_named() &&
         !jit::precompiled_request(req);
}

/// The rows' marks (u32 below 2^31 rows, else u64) under the equality `eq` of the keys a.in[0],
/// and the equality on marks that the algorithms take.
struct marked_rows {
  const jit_type* type;
  temp_storage marks;
  marked_rows(const jit_args& a, const cupar::jit::op& eq, stream_ref s, memory_resource& mr)
      : type(a.n < (std::size_t{1} << 31) ? &jit_type_of<std::uint32_t>()
                                          : &jit_type_of<std::uint64_t>()),
        marks(mr, a.n * type->size, s) {
    // Generated (and its arrays checked) for n == 0 too, so that a malformed equality fails on
    // every n.
    prepare_for_each(
        jit::run_marks_op(eq, *a.types[0], a.in[0], marks.get(), type->size, a.n, a.function), a.n,
        a.function)
        .launch(s, mr, "cupar: the rows' run marks (run-time equality)");
  }
  /// jit_args `a` on the marks, the marks' equality in operator slot `eq_slot`.
  jit_args keyed(const jit_args& a, int eq_slot) const {
    static const cupar::jit::op same32("(b & 1u) == 0u"), same64("(b & 1ull) == 0ull");
    jit_args b = a;
    b.types[0] = type;
    b.in[0] = marks.get();
    b.in_iter[0] = nullptr;
    b.ops[eq_slot] = type->size == 4 ? &same32 : &same64;
    return b;
  }
};

/// The caller's count (device, or host: then the stream is synchronised) from the device count.
void give_count(const jit_args& a, const std::size_t* d_count, stream_ref s) {
  if (a.d_count != nullptr) {
    check_cuda(
        cudaMemcpyAsync(a.d_count, d_count, sizeof(std::size_t), cudaMemcpyDeviceToDevice, s.get()),
        a.function);
  }
  if (a.host_count != nullptr) {
    check_cuda(cudaMemcpyAsync(a.host_count, d_count, sizeof(std::size_t), cudaMemcpyDeviceToHost,
                               s.get()),
               a.function);
    check_cuda(cudaStreamSynchronize(s.get()), a.function);
  }
}

/// The compactions on the marks (unique_by_key, reduce_by_key): their keys out (the runs' rows'
/// marks) and count to temporaries; finish() gathers the runs' keys to the caller's keys out and
/// gives the count.
struct marked_compaction {
  marked_rows rows;
  temp_storage run_marks, count;
  marked_compaction(const jit_args& a, const cupar::jit::op& eq, stream_ref s, memory_resource& mr)
      : rows(a, eq, s, mr),
        run_marks(mr, a.n * rows.type->size, s),
        count(mr, sizeof(std::size_t), s) {}
  std::size_t* counts() const { return static_cast<std::size_t*>(count.get()); }
  /// marked_rows::keyed, the keys out and the count to the temporaries.
  jit_args on_marks(const jit_args& a, int eq_slot) const {
    jit_args b = rows.keyed(a, eq_slot);
    b.out[0] = run_marks.get();
    b.d_count = counts();
    b.host_count = nullptr;
    return b;
  }
  /// a.out[0][j] = a.in[0][run_marks[j] >> 1] for j below the count (one bounded "for_each"
  /// pass), then the caller's count.
  void finish(const jit_args& a, stream_ref s, memory_resource& mr) const {
    namespace j = cupar::jit;
    static const j::op row32("x >> 1u"), row64("x >> 1ull");
    const jit_type& key = *a.types[0];
    const bool narrow = rows.type->size == 4;
    const j::iterator marks(j::detail::iterator_pointer(*rows.type, run_marks.get()));
    const j::iterator in = j::permutation(j::iterator(j::detail::iterator_pointer(key, a.in[0])),
                                          narrow ? j::transform<std::uint32_t>(marks, row32)
                                                 : j::transform<std::uint64_t>(marks, row64));
    const j::output out(j::detail::output_pointer(key, a.out[0]));
    prepare_for_each(
        jit::bounded_convert_op(in, out, a.n, jit::store_bound{jit::store_bound::first, counts()},
                                a.function),
        a.n, a.function)
        .launch(s, mr, "cupar: the runs' keys gathered (run-time operator)");
    give_count(a, counts(), s);
  }
};

void unique_by_key(const jit_args& a, stream_ref s, memory_resource& mr,
                   const pending_inputs* pending) {
  const char* fn = a.function;
  const std::size_t ks = a.types[0]->size, vs = a.types[1]->size;
  const dp_range in[2] = {{"d_keys_in", a.in[0], ks}, {"d_values_in", a.in[1], vs}};
  const dp_range out[2] = {{"d_keys_out", a.out[0], ks}, {"d_values_out", a.out[1], vs}};
  check_by_key_compaction(fn, a.n, in, out, "d_num_selected", a.d_count, a.host_count != nullptr);
  write_pending(pending, s, mr);
  const jit::set_request req = compaction_request(a);
  if (by_marked_rows(a, a.ops[0], req)) {
    const marked_compaction runs(a, *a.ops[0], s, mr);
    unique_by_key(runs.on_marks(a, 0), s, mr, nullptr);
    runs.finish(a, s, mr);
    return;
  }
  const jit::resolved resolved = jit::resolve(req, nullptr, fn);
  const jit::device_info* const devp = resolved.dev;
  const std::shared_ptr<const jit::loaded_module>& module = resolved.module;
  const jit::device_info& dev = *devp;
  const kernel_states states(*module, {equality_or_default(a.ops[0]).state()}, s, mr);
  jit::unique_by_key_launch launch{a.in[0], a.in[1], a.out[0], a.out[1], nullptr, a.n, states[0]};
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

/// reduce_by_key, and run_length_encode (no values, no operator: the kernels count). Values given
/// as an expression (a.in_iter[1]) are read by the kernels of the "+index" sets where one is
/// precompiled (4- and 8-byte keys) or neither is, below 2^31 items; else written to a temporary
/// first.
void reduce_by_key(const jit_args& given, stream_ref s, memory_resource& mr,
                   const pending_inputs* pending) {
  jit_args a = given;
  const char* fn = a.function;
  const bool run_length = a.call->fam == jit::family::run_length_encode;
  const std::size_t ks = a.types[0]->size, vs = a.types[1]->size;
  const bool to_host = a.host_count != nullptr;
  const cupar::jit::iterator* values = run_length ? nullptr : a.in_iter[1];
  if (run_length) {
    check_run_length_counts(fn, vs);
    const dp_range in[1] = {{"d_in", a.in[0], ks}};
    const dp_range out[2] = {{"d_unique_out", a.out[0], ks}, {"d_counts_out", a.out[1], vs}};
    check_by_key_compaction(fn, a.n, in, out, "d_num_runs", a.d_count, to_host);
  } else if (values != nullptr) {
    // The values' expression checks its own arrays (the outputs must not be among them).
    require_size(fn, a.n, vs);
    const dp_range in[1] = {{"d_keys_in", a.in[0], ks}};
    const dp_range out[2] = {{"d_keys_out", a.out[0], ks}, {"d_aggregates_out", a.out[1], vs}};
    check_by_key_compaction(fn, a.n, in, out, "d_num_runs", a.d_count, to_host);
  } else {
    const dp_range in[2] = {{"d_keys_in", a.in[0], ks}, {"d_values_in", a.in[1], vs}};
    const dp_range out[2] = {{"d_keys_out", a.out[0], ks}, {"d_aggregates_out", a.out[1], vs}};
    check_by_key_compaction(fn, a.n, in, out, "d_num_runs", a.d_count, to_host);
  }
  if (!run_length && a.ops[0] == nullptr) throw_invalid_argument(fn, "no operator");
  write_pending(pending, s, mr);
  jit::set_request req = compaction_request(a);
  if (const cupar::jit::op* eq = run_length ? a.ops[0] : a.ops[1]; by_marked_rows(a, eq, req)) {
    // The algorithm on the marks (values and operator as given), the keys from the rows whose
    // marks it wrote as the runs' keys.
    const marked_compaction runs(a, *eq, s, mr);
    reduce_by_key(runs.on_marks(a, run_length ? 0 : 1), s, mr, nullptr);
    runs.finish(a, s, mr);
    return;
  }
  std::optional<cupar::jit::op> loader;
  std::optional<temp_storage> written;
  if (values != nullptr) {
    loader.emplace(jit::expression_op(*values, *a.types[1], a.n, fn));
    const jit::set_request indexed = dp_index_request(a, *loader);
    // The "+index" set where it is precompiled, or where neither is (both compile from source).
    if (!req.wide && (jit::precompiled_request(indexed) || !jit::precompiled_request(req))) {
      req = indexed;
    } else {
      written.emplace(mr, a.n * vs, s);
      materialize(*values, *a.types[1], written->get(), a.n, s, mr, fn);
      a.in[1] = written->get();
      loader.reset();
    }
  }
  const jit::resolved resolved = jit::resolve(req, nullptr, fn);
  const jit::device_info* const devp = resolved.dev;
  const std::shared_ptr<const jit::loaded_module>& module = resolved.module;
  const jit::device_info& dev = *devp;
  const placed_state placed(loader, s, mr);
  // The equality is the last slot: the only one of run_length_encode, the second of reduce_by_key.
  const cupar::jit::op& eq = equality_or_default(run_length ? a.ops[0] : a.ops[1]);
  const kernel_states states(
      *module,
      {run_length ? nullptr : a.ops[0]->state(), eq.state(), loader ? loader->state() : nullptr}, s,
      mr);
  jit::reduce_by_key_launch launch{a.in[0],   a.out[0],  run_length ? nullptr : a.in[1],
                                   a.out[1],  nullptr,   a.n,
                                   states[0], states[1], req.plus};
  if (loader) launch.values_state = states[2];
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

void scan_by_key(const jit_args& a, stream_ref s, memory_resource& mr,
                 const pending_inputs* pending) {
  const char* fn = a.function;
  const std::size_t ks = a.types[0]->size, vs = a.types[1]->size;
  check_scan_by_key(fn, a.in[0], ks, a.in[1], a.out[0], vs, a.n);
  const bool exclusive = a.call->fam == jit::family::scan_by_key_exclusive;
  if (a.ops[0] == nullptr) throw_invalid_argument(fn, "no operator");
  if (exclusive && a.init == nullptr) throw_invalid_argument(fn, "no initial value");
  write_pending(pending, s, mr);
  if (a.n == 0) return;  // nothing to write (CUB launches nothing either)
  const jit::set_request req = by_key_request(a, false);
  if (by_marked_rows(a, a.ops[1], req)) {
    const marked_rows rows(a, *a.ops[1], s, mr);
    scan_by_key(rows.keyed(a, 1), s, mr, nullptr);
    return;
  }
  const jit::resolved resolved = jit::resolve(req, nullptr, fn);
  const jit::device_info* const devp = resolved.dev;
  const std::shared_ptr<const jit::loaded_module>& module = resolved.module;
  const jit::device_info& dev = *devp;
  const kernel_states states(*module, {a.ops[0]->state(), equality_or_default(a.ops[1]).state()}, s,
                             mr);
  const jit::scan_by_key_launch launch{a.in[0], a.in[1],   a.out[0],  a.n,
                                       ks,      states[0], states[1], exclusive ? a.init : nullptr,
                                       req.plus};
  jit::launch_status st;
  const char* call = "cupar scan_by_key (run-time operator)";
  run_with_temp_storage(call, mr, s, {a.n, module->serial()}, [&](void* temp, std::size_t& bytes) {
    jit::check_dispatch(jit::run_scan_by_key(*module, dev, st, temp, bytes, launch, s.get()), st,
                        call);
    return cudaSuccess;
  });
}

/// The request of a compile-only build or a plan; reduce_by_key's values given as an expression
/// (a.in_iter[1]): its "+index" set.
jit::set_request by_key_compile_request(const jit_args& a, request_scratch& scratch) {
  if (a.in_iter[1] == nullptr) return by_key_request(a, false);
  scratch.loader.emplace(jit::expression_op(*a.in_iter[1], *a.types[1], 0, "cupar::jit::compile"));
  return dp_index_request(a, *scratch.loader);
}

/// The by-key compactions: keys and values (counts) out, one count bounding both.
constexpr call_io compaction_io() {
  call_io io{};
  io.output_type[1] = 1;
  io.count_words = 1;
  io.bound[0] = io.bound[1] = jit::store_bound::first;
  return io;
}
/// reduce_by_key: the compactions' shape; the kernels may read the values' expression.
constexpr call_io reduce_by_key_io() {
  call_io io = compaction_io();
  io.reads_input[1] = true;
  return io;
}
/// The scans by key: values out.
constexpr call_io scan_io() {
  call_io io{};
  io.output_type[0] = 1;
  return io;
}

}  // namespace

extern const jit_call unique_by_key_jit_call =
    jit_call::make("unique_by_key", jit::family::unique_by_key, unique_by_key,
                   by_key_compile_request)
        .with_io(compaction_io());
extern const jit_call run_length_encode_jit_call =
    jit_call::make("run_length_encode", jit::family::run_length_encode, reduce_by_key,
                   by_key_compile_request)
        .with_io(compaction_io());
extern const jit_call reduce_by_key_jit_call =
    jit_call::make("reduce_by_key", jit::family::reduce_by_key, reduce_by_key,
                   by_key_compile_request)
        .with_io(reduce_by_key_io());
extern const jit_call inclusive_scan_by_key_jit_call =
    jit_call::make("inclusive_scan_by_key", jit::family::scan_by_key_inclusive, scan_by_key,
                   by_key_compile_request)
        .with_io(scan_io());
extern const jit_call exclusive_scan_by_key_jit_call =
    jit_call::make("exclusive_scan_by_key", jit::family::scan_by_key_exclusive, scan_by_key,
                   by_key_compile_request)
        .with_io(scan_io());

}  // namespace cupar::detail

#endif  // CUPAR_FAMILY_RECORD_ONLY
