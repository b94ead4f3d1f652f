// cupar JIT: CUB's three-way partition kernels (DevicePartition::If with two predicates) with
// run-time operators. Expects the size class cupar_T and the slot functions
//   cupar_jit_pred(const unsigned char* state, cupar_T x) -> bool   (the first part)
//   cupar_jit_pred2(const unsigned char* state, cupar_T x) -> bool  (the second part)
//
// CUB 3.0.1 defines the kernels and the streaming context in its host dispatch header
// (dispatch_three_way_partition.cuh), which NVRTC cannot compile; they are mirrored here around
// CUB's own agent. The host side is src/jit/families/three_way_partition.cu.
#pragma once

#include <cub/agent/agent_three_way_partition.cuh>
#include <cub/device/dispatch/tuning/tuning_three_way_partition.cuh>

/// CUB's detail::three_way_partition::streaming_context_t<long long> (64-bit totals, partitions of
/// at most INT_MAX items). The host fills it (three_way_partition.cu has the same layout).
struct cupar_three_way_streaming {
  bool first_partition;
  bool last_partition;
  long long total_previous_num_items;
  long long* d_num_selected_in;
  long long* d_num_selected_out;

  __device__ __forceinline__ long long input_offset() const {
    return first_partition ? 0ll : total_previous_num_items;
  }
  __device__ __forceinline__ long long num_previously_selected_first() const {
    return first_partition ? 0ll : d_num_selected_in[0];
  }
  __device__ __forceinline__ long long num_previously_selected_second() const {
    return first_partition ? 0ll : d_num_selected_in[1];
  }
  __device__ __forceinline__ long long num_previously_rejected() const {
    return first_partition ? 0ll : d_num_selected_in[2];
  }
  template <typename NumSelectedIteratorT>
  __device__ __forceinline__ void update_num_selected(NumSelectedIteratorT user_out,
                                                      long long num_selected_first,
                                                      long long num_selected_second,
                                                      long long num_items_in_partition) const {
    if (last_partition) {
      user_out[0] = num_previously_selected_first() + num_selected_first;
      user_out[1] = num_previously_selected_second() + num_selected_second;
    } else {
      d_num_selected_out[0] = num_previously_selected_first() + num_selected_first;
      d_num_selected_out[1] = num_previously_selected_second() + num_selected_second;
      d_num_selected_out[2] = num_previously_rejected() +
                              (num_items_in_partition - num_selected_second - num_selected_first);
    }
  }
};

struct cupar_first_part_op {
  cupar_functor_state state;
  __device__ __forceinline__ bool operator()(const cupar_T& x) const {
    return cupar_jit_pred(state.bytes, x);
  }
};
struct cupar_second_part_op {
  cupar_functor_state state;
  __device__ __forceinline__ bool operator()(const cupar_T& x) const {
    return cupar_jit_pred2(state.bytes, x);
  }
};

typedef int cupar_partition_offset;  // CUB's per_partition_offset_t
typedef cub::detail::three_way_partition::accumulator_pack_t<cupar_partition_offset>::pack_t
    cupar_accum_pack;
typedef cub::ScanTileState<cupar_accum_pack> cupar_tile_state;
typedef unsigned long long* cupar_num_selected_out;
/// The tuning CUB has for 64-bit offsets (the one cuda.compute's three-way partition takes, its
/// count being 64-bit: on sm_90 256 threads x 23 items by warp transposes for 4-byte items, where
/// the 32-bit offsets' tuning, CUB's C++ default, has 320 x 12 loaded directly). The agent keeps
/// its 32-bit per-partition offsets either way; only the tile's shape and its delays change.
typedef cub::detail::three_way_partition::policy_hub<cupar_T, long long>::MaxPolicy cupar_policy;
typedef cupar_policy::ActivePolicy::ThreeWayPartitionPolicy cupar_agent_policy;
typedef cub::detail::three_way_partition::AgentThreeWayPartition<
    cupar_agent_policy, const cupar_T*, cupar_T*, cupar_T*, cupar_T*, cupar_first_part_op,
    cupar_second_part_op, cupar_partition_offset, cupar_three_way_streaming>
    cupar_agent;

#if defined(CUPAR_OUT_OF_LINE)
// The out-of-line (tier-1) sweep. CUB's agent flags a full tile's items with one call of the
// first predicate an item and one of the second where the first was false, each call across the
// link clobbering the registers that hold the other items. Here the flags come from the
// predicates' generated batched forms (codegen.cpp, batch_functions): eight items a call for items
// of up to 4 bytes, four up to 8, the rest one call each, the second predicate under the mask of
// the items the first rejected, so each predicate sees the items CUB's loop gives it; a partial
// (last) tile keeps CUB's loop.
extern "C" __device__ unsigned int cupar_jit_pred_pred8(const unsigned char*, cupar_T, cupar_T,
                                                        cupar_T, cupar_T, cupar_T, cupar_T, cupar_T,
                                                        cupar_T);
extern "C" __device__ unsigned int cupar_jit_pred_pred4(const unsigned char*, cupar_T, cupar_T,
                                                        cupar_T, cupar_T);
extern "C" __device__ unsigned int cupar_jit_pred2_predm8(const unsigned char*, unsigned int,
                                                          cupar_T, cupar_T, cupar_T, cupar_T,
                                                          cupar_T, cupar_T, cupar_T, cupar_T);
extern "C" __device__ unsigned int cupar_jit_pred2_predm4(const unsigned char*, unsigned int,
                                                          cupar_T, cupar_T, cupar_T, cupar_T);
static constexpr int cupar_pred_width = sizeof(cupar_T) <= 4 ? 8 : (sizeof(cupar_T) <= 8 ? 4 : 1);
typedef cub::detail::three_way_partition::accumulator_pack_t<cupar_partition_offset> cupar_pack;

template <int I, int N>
__device__ __forceinline__ void cupar_three_way_flags(const cupar_first_part_op& first,
                                                      const cupar_second_part_op& second,
                                                      const cupar_T (&items)[N],
                                                      cupar_accum_pack (&flags)[N]) {
  if constexpr (cupar_pred_width == 8 && I + 8 <= N) {
    const unsigned int a =
        cupar_jit_pred_pred8(first.state.bytes, items[I], items[I + 1], items[I + 2], items[I + 3],
                             items[I + 4], items[I + 5], items[I + 6], items[I + 7]);
    const unsigned int b = cupar_jit_pred2_predm8(
        second.state.bytes, ~a & 0xffu, items[I], items[I + 1], items[I + 2], items[I + 3],
        items[I + 4], items[I + 5], items[I + 6], items[I + 7]);
#pragma unroll
    for (int k = 0; k < 8; ++k)
      flags[I + k] = cupar_pack::pack(static_cast<cupar_partition_offset>((a >> k) & 1u),
                                      static_cast<cupar_partition_offset>((b >> k) & 1u));
    cupar_three_way_flags<I + 8, N>(first, second, items, flags);
  } else if constexpr (cupar_pred_width >= 4 && I + 4 <= N) {
    const unsigned int a =
        cupar_jit_pred_pred4(first.state.bytes, items[I], items[I + 1], items[I + 2], items[I + 3]);
    const unsigned int b = cupar_jit_pred2_predm4(second.state.bytes, ~a & 0xfu, items[I],
                                                  items[I + 1], items[I + 2], items[I + 3]);
#pragma unroll
    for (int k = 0; k < 4; ++k)
      flags[I + k] = cupar_pack::pack(static_cast<cupar_partition_offset>((a >> k) & 1u),
                                      static_cast<cupar_partition_offset>((b >> k) & 1u));
    cupar_three_way_flags<I + 4, N>(first, second, items, flags);
  } else if constexpr (I < N) {
    const cupar_partition_offset f = first(items[I]);
    flags[I] = cupar_pack::pack(f, f ? 0 : static_cast<cupar_partition_offset>(second(items[I])));
    cupar_three_way_flags<I + 1, N>(first, second, items, flags);
  }
}

CUB_NAMESPACE_BEGIN
namespace detail {
namespace three_way_partition {
// CUB's Initialize for full tiles.
template <>
template <>
__device__ __forceinline__ void cupar_agent::Initialize<false>(
    cupar_partition_offset, InputT (&items)[ITEMS_PER_THREAD],
    AccumPackT (&items_selection_flags)[ITEMS_PER_THREAD]) {
  cupar_three_way_flags<0, ITEMS_PER_THREAD>(select_first_part_op, select_second_part_op, items,
                                             items_selection_flags);
}
}  // namespace three_way_partition
}  // namespace detail
CUB_NAMESPACE_END
#endif

__global__ void cupar_three_way_partition_init(cupar_tile_state tile_state, int num_tiles,
                                               cupar_num_selected_out d_num_selected_out) {
  tile_state.InitializeStatus(num_tiles);
  if (blockIdx.x == 0 && threadIdx.x < 2) d_num_selected_out[threadIdx.x] = 0;
}

__launch_bounds__(int(cupar_agent_policy::BLOCK_THREADS)) __global__
    void cupar_three_way_partition_sweep(
        const cupar_T* d_in, cupar_T* d_first_part_out, cupar_T* d_second_part_out,
        cupar_T* d_unselected_out, cupar_num_selected_out d_num_selected_out,
        cupar_tile_state tile_status, cupar_first_part_op select_first_part_op,
        cupar_second_part_op select_second_part_op, cupar_partition_offset num_items, int num_tiles,
        const __grid_constant__ cupar_three_way_streaming streaming) {
  __shared__ typename cupar_agent::TempStorage temp_storage;
  cupar_agent(temp_storage, d_in, d_first_part_out, d_second_part_out, d_unselected_out,
              select_first_part_op, select_second_part_op, num_items, streaming)
      .ConsumeRange(num_tiles, tile_status, d_num_selected_out);
}

static constexpr long long cupar_m0 = cupar_agent_policy::BLOCK_THREADS;
static constexpr long long cupar_m1 = cupar_agent_policy::ITEMS_PER_THREAD;
static constexpr long long cupar_m2 = sizeof(cupar_accum_pack);
static constexpr long long cupar_m3 = 0;
