// cupar internal: stream compaction with run-time operators (select_if, select_flagged,
// partition, unique): CUB's agent in the kernels of jit_ops/cupar_select.cuh, host dispatch
// mirroring CUB 3.0.1's DispatchSelectIf::Invoke (which has no kernel-source seam in 3.0.1).
#include "select.hpp"

#include <cub/agent/single_pass_scan_operators.cuh>
#include <cub/util_temporary_storage.cuh>
#include <cub/util_vsmem.cuh>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>

namespace cupar::detail::jit {
namespace {

/// Host image of cupar_select_streaming (jit_ops/cupar_select.cuh): CUB's streaming context for
/// 64-bit totals, same members in the same order.
struct select_streaming {
  bool first_partition;
  bool last_partition;
  long long total_num_items;
  long long total_previous_num_items;
  long long* d_num_selected_in;
  long long* d_num_selected_out;
};
static_assert(sizeof(select_streaming) == 40, "layout of cupar_select_streaming");

}  // namespace

cudaError_t run_select(const loaded_module& m, const device_info& dev, launch_status& st,
                       void* temp, std::size_t& temp_bytes, const select_launch& s,
                       cudaStream_t stream) {
  using tile_state_t = cub::ScanTileState<int>;
  constexpr int init_threads = 128;
  const long long n = static_cast<long long>(s.n);
  const int block_threads = static_cast<int>(m.meta(0));
  const long long tile_size = m.meta(0) * m.meta(1);
  const long long vsmem_per_block = m.meta(2);
  const long long partition_size = INT_MAX;
  const long long max_partition_size = n > partition_size ? partition_size : n;
  const long long num_partitions = max_partition_size == 0 ? 1 : ceil_div(n, max_partition_size);
  const long long max_tiles = ceil_div(max_partition_size, tile_size);

  std::size_t sizes[3] = {0, static_cast<std::size_t>(max_tiles * vsmem_per_block),
                          num_partitions > 1 ? 2 * sizeof(long long) : 0};
  cudaError_t error = tile_state_t::AllocationSize(static_cast<int>(max_tiles), sizes[0]);
  if (error != cudaSuccess) return error;
  void* allocations[3] = {};
  error = cub::detail::AliasTemporaries(temp, temp_bytes, allocations, sizes);
  if (error != cudaSuccess || temp == nullptr) return error;

  auto* tmp_selected = static_cast<long long*>(allocations[2]);
  select_streaming streaming{true, num_partitions <= 1, n, 0, tmp_selected, tmp_selected + 1};
  const unsigned char null_type = 0;  // cub::NullType arguments (an empty struct's byte)
  const erased_arg select_op{s.pred_state != nullptr ? s.pred_state : &null_type};
  const erased_arg equality_op{s.eq_state != nullptr ? s.eq_state : &null_type};
  const cub::detail::vsmem_t vsmem{allocations[1]};
  jit_launcher_factory launch{&dev, &m, &st};
  // "+index" sets: the input expression's state by value (cupar_expr_iterator), from index 0;
  // the kernels add each partition's offset to it as to a pointer.
  expression_input e{};
  if (s.expression_state != nullptr) std::memcpy(e.state, s.expression_state, sizeof e.state);
  // "+io" sets: the output expression likewise (cupar_expr_output), from index 0; the kernels
  // offset it by the items selected (and rejected) before, as they would a pointer.
  expression_input o{};
  if (s.output_state != nullptr) std::memcpy(o.state, s.output_state, sizeof o.state);
  for (long long p = 0; p < num_partitions; ++p) {
    const long long offset = p * max_partition_size;
    const long long items = p + 1 == num_partitions ? n - offset : max_partition_size;
    const int num_tiles = static_cast<int>(ceil_div(items, tile_size));
    tile_state_t tile_state;
    error = tile_state.Init(num_tiles, allocations[0], sizes[0]);
    if (error != cudaSuccess) return error;
    const int init_grid = std::max(1, static_cast<int>(ceil_div(num_tiles, init_threads)));
    launch(init_grid, init_threads, 0, stream).doit(m.kernel(0), tile_state, num_tiles, s.d_count);
    // No early return for n == 0: the initialisation kernel writes the zero count.
    if (items == 0) break;
    auto sweep = [&](const auto& input, const auto& output) {
      launch(num_tiles, block_threads, 0, stream)
          .doit(m.kernel(1), input, s.flags, output, s.d_count, tile_state, select_op, equality_op,
                static_cast<int>(items), num_tiles, streaming, vsmem);
    };
    if (s.output_state != nullptr) {
      sweep(erased_arg{&e}, erased_arg{&o});
    } else if (s.expression_state != nullptr) {
      sweep(erased_arg{&e}, s.out);
    } else {
      sweep(s.in, s.out);
    }
    // CUB's streaming_context_t::advance
    std::swap(streaming.d_num_selected_in, streaming.d_num_selected_out);
    streaming.first_partition = false;
    streaming.last_partition = p + 2 == num_partitions;
    streaming.total_previous_num_items += items;
  }
  return st.first == CUDA_SUCCESS ? cudaSuccess : cudaErrorLaunchFailure;
}

}  // namespace cupar::detail::jit
