// cupar internal: merge sort with run-time operators: CUB's kernels from the loaded module, host
// dispatch mirroring CUB 3.0.1's (its DispatchMergeSort sizes buffers with sizeof(KeyT)).
#include "merge_sort.hpp"

#include <cub/util_temporary_storage.cuh>
#include <cub/util_vsmem.cuh>

#include <algorithm>
#include <cstdint>

namespace cupar::detail::jit {
namespace {

int log2_round_up(long long x) {
  int r = 0;
  while ((1ll << r) < x)
    ++r;
  return r;
}

}  // namespace

cudaError_t run_merge_sort(const loaded_module& m, const device_info& dev, launch_status& st,
                           void* temp, std::size_t& temp_bytes, const void* keys_in, void* keys_out,
                           const void* values_in, void* values_out, std::size_t n_total,
                           std::size_t key_size, std::size_t value_size, const void* op_state,
                           cudaStream_t stream) {
  using offset_t = long long;
  const auto n = static_cast<offset_t>(n_total);
  if (n == 0) {
    if (temp == nullptr) temp_bytes = 0;
    return cudaSuccess;
  }
  const int block_threads = static_cast<int>(m.meta(0));
  const offset_t tile_size = m.meta(1);
  const offset_t num_tiles = ceil_div(n, tile_size);
  const std::size_t vsmem_per_block = static_cast<std::size_t>(std::max(m.meta(2), m.meta(3)));
  std::size_t sizes[4] = {static_cast<std::size_t>(1 + num_tiles) * sizeof(offset_t),
                          n_total * key_size, n_total * value_size,
                          static_cast<std::size_t>(num_tiles) * vsmem_per_block};
  void* allocations[4] = {};
  cudaError_t error = cub::detail::AliasTemporaries(temp, temp_bytes, allocations, sizes);
  if (error != cudaSuccess || temp == nullptr) return error;

  const int num_passes = log2_round_up(num_tiles);
  bool ping = num_passes % 2 == 0;
  auto* merge_partitions = static_cast<offset_t*>(allocations[0]);
  void* keys_buffer = allocations[1];
  void* items_buffer = allocations[2];
  const cub::detail::vsmem_t vsmem{allocations[3]};
  const erased_arg compare{op_state};
  jit_launcher_factory launch{&dev, &m, &st};

  launch(static_cast<int>(num_tiles), block_threads, 0, stream, true)
      .doit(m.kernel(0), ping, keys_in, values_in, keys_out, values_out, n, keys_buffer,
            items_buffer, compare, vsmem);
  const offset_t num_partitions = num_tiles + 1;
  constexpr int threads_per_partition_block = 256;
  const int partition_grid =
      static_cast<int>(ceil_div(num_partitions, threads_per_partition_block));
  const int items_per_tile = static_cast<int>(tile_size);
  for (int pass = 0; pass < num_passes; ++pass, ping = !ping) {
    const offset_t target_merged_tiles = offset_t(2) << pass;
    launch(partition_grid, threads_per_partition_block, 0, stream, true)
        .doit(m.kernel(1), ping, keys_out, keys_buffer, n, num_partitions, merge_partitions,
              compare, target_merged_tiles, items_per_tile);
    launch(static_cast<int>(num_tiles), block_threads, 0, stream, true)
        .doit(m.kernel(2), ping, keys_out, values_out, n, keys_buffer, items_buffer, compare,
              merge_partitions, target_merged_tiles, vsmem);
  }
  return st.first == CUDA_SUCCESS ? cudaSuccess : cudaErrorLaunchFailure;
}

}  // namespace cupar::detail::jit
