// cupar internal: the by-key families with run-time operators (unique_by_key, run_length_encode,
// reduce_by_key, inclusive / exclusive scan_by_key), kernels from jit_ops/cupar_unique_by_key.cuh,
// cupar_reduce_by_key.cuh and cupar_scan_by_key.cuh.
//
// Unique by key runs CUB 3.0.1's own DispatchUniqueByKey (its KernelSource, launcher-factory and
// VSMemHelper seams take the module's kernels and the policy read back from the module).
// DispatchReduceByKey and DispatchScanByKey have no such seams in 3.0.1 (they launch CUB's own
// kernel templates with triple chevrons): their Invoke is mirrored here, statement for statement,
// with the tile state's layout read from the module's metadata (it depends on the value type,
// which the host knows only by its size).
//
// Offsets: unique_by_key, reduce_by_key and run_length_encode run kernel sets with 32-bit offsets
// up to 2^31 - 1 items and "wide" sets with 64-bit ones above (module meta says which); the scans
// by key count with 64-bit offsets at every n (their tile state does not hold offsets, and 32-bit
// ones measured no faster).
#include "by_key.hpp"

#include <cub/agent/single_pass_scan_operators.cuh>
#include <cub/device/dispatch/dispatch_unique_by_key.cuh>
#include <cub/util_temporary_storage.cuh>

#include <algorithm>
#include <cstdint>

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
  const erased_arg values_in{run_length ? static_cast<const void*>(&null_type) : &r.values_in};
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
