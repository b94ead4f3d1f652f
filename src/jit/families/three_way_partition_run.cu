// cupar internal: three-way partition with run-time predicates: CUB's agent in the kernels of
// jit_ops/cupar_three_way_partition.cuh, host dispatch mirroring CUB 3.0.1's
// DispatchThreeWayPartitionIf::Invoke (no kernel-source seam in 3.0.1).
#include "three_way_partition.hpp"

#include <cub/agent/agent_three_way_partition.cuh>
#include <cub/util_temporary_storage.cuh>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <utility>

namespace cupar::detail::jit {
namespace {

/// Host image of cupar_three_way_streaming (jit_ops/cupar_three_way_partition.cuh).
struct three_way_streaming {
  bool first_partition;
  bool last_partition;
  long long total_previous_num_items;
  long long* d_num_selected_in;
  long long* d_num_selected_out;
};
static_assert(sizeof(three_way_streaming) == 32, "layout of cupar_three_way_streaming");

}  // namespace

cudaError_t run_three_way(const loaded_module& m, const device_info& dev, launch_status& st,
                          void* temp, std::size_t& temp_bytes, const three_way_launch& t,
                          cudaStream_t stream) {
  using pack_t = cub::detail::three_way_partition::accumulator_pack_t<int>::pack_t;
  using tile_state_t = cub::ScanTileState<pack_t>;
  static_assert(sizeof(pack_t) == 8, "the kernels' accumulator pack");
  constexpr int init_threads = 256;
  constexpr long long counters_per_pass = 3;
  if (m.meta(2) != static_cast<long long>(sizeof(pack_t))) return cudaErrorInvalidValue;
  const long long n = static_cast<long long>(t.n);
  const int block_threads = static_cast<int>(m.meta(0));
  const long long tile_size = m.meta(0) * m.meta(1);
  const long long max_partition_size = std::min<long long>(n, INT_MAX);
  const long long num_partitions = max_partition_size == 0 ? 1 : ceil_div(n, max_partition_size);
  const long long max_tiles = ceil_div(max_partition_size, tile_size);

  std::size_t sizes[2] = {
      0, num_partitions > 1 ? 2 * counters_per_pass * sizeof(long long) : std::size_t{0}};
  cudaError_t error = tile_state_t::AllocationSize(static_cast<int>(max_tiles), sizes[0]);
  if (error != cudaSuccess) return error;
  void* allocations[2] = {};
  error = cub::detail::AliasTemporaries(temp, temp_bytes, allocations, sizes);
  if (error != cudaSuccess || temp == nullptr) return error;

  auto* tmp = static_cast<long long*>(allocations[1]);
  three_way_streaming streaming{true, num_partitions <= 1, 0, tmp, tmp + counters_per_pass};
  const erased_arg first{t.first_state}, second{t.second_state};
  jit_launcher_factory launch{&dev, &m, &st};
  for (long long p = 0; p < num_partitions; ++p) {
    const long long offset = p * max_partition_size;
    const long long items = p + 1 == num_partitions ? n - offset : max_partition_size;
    const int num_tiles = static_cast<int>(ceil_div(items, tile_size));
    tile_state_t tile_state;
    error = tile_state.Init(num_tiles, allocations[0], sizes[0]);
    if (error != cudaSuccess) return error;
    const int init_grid = std::max(1, static_cast<int>(ceil_div(num_tiles, init_threads)));
    launch(init_grid, init_threads, 0, stream).doit(m.kernel(0), tile_state, num_tiles, t.d_counts);
    if (items == 0) break;  // the initialisation kernel wrote the zero counts
    launch(num_tiles, block_threads, 0, stream)
        .doit(m.kernel(1), t.in, t.out[0], t.out[1], t.out[2], t.d_counts, tile_state, first,
              second, static_cast<int>(items), num_tiles, streaming);
    // CUB's streaming_context_t::advance
    std::swap(streaming.d_num_selected_in, streaming.d_num_selected_out);
    streaming.first_partition = false;
    streaming.last_partition = p + 2 == num_partitions;
    streaming.total_previous_num_items += items;
  }
  return st.first == CUDA_SUCCESS ? cudaSuccess : cudaErrorLaunchFailure;
}

}  // namespace cupar::detail::jit
