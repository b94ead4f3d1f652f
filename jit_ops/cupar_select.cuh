// cupar JIT: CUB's stream compaction kernels (DeviceSelect::If / Flagged / Unique,
// DevicePartition::If) with run-time operators. Expects CUPAR_SELECT_MODE (0: predicate,
// 1: flags, 2: unique, 3: partition by predicate), optionally CUPAR_SELECT_IN_PLACE, the size
// class cupar_T (and cupar_F, the flags' class, for mode 1), and the slot functions:
//   mode 0, 3: cupar_jit_pred(const unsigned char* state, cupar_T x) -> bool
//   mode 2:    cupar_jit_eq(const unsigned char* state, cupar_T a, cupar_T b) -> bool
// With CUPAR_INDEX_INPUT ("+index" sets, every mode) the input is an iterator expression
// (cupar_expr_input.cuh) whose first slot, cupar_jit_xform, computes each element; with
// CUPAR_INDEX_OUTPUT as well ("+io" sets) the output is an output expression (cupar_expr_output)
// whose last slot, cupar_jit_store, stores each selected item where it belongs: the compaction
// and the store in one pass.
//
// CUB 3.0.1 defines the sweep kernel and the streaming context in its host dispatch header
// (dispatch_select_if.cuh), which NVRTC cannot compile; both are mirrored here, line for line,
// around CUB's own agent. The host side is src/jit/families/select.cu.
#pragma once

#include <cub/agent/agent_select_if.cuh>
#include <cub/device/dispatch/kernels/scan.cuh>
#include <cub/device/dispatch/tuning/tuning_select_if.cuh>
#include <cub/util_vsmem.cuh>

/// CUB's detail::select::streaming_context_t<long long, true>: DeviceSelect counts with 64-bit
/// totals and runs its kernels over partitions of at most INT_MAX items with 32-bit offsets. The
/// host fills it (cupar_select_streaming in select.cu has the same layout).
struct cupar_select_streaming {
  typedef long long total_num_items_t;
  bool first_partition;
  bool last_partition;
  long long total_num_items;
  long long total_previous_num_items;
  long long* d_num_selected_in;
  long long* d_num_selected_out;

  __device__ __forceinline__ long long input_offset() const {
    return first_partition ? 0ll : total_previous_num_items;
  }
  __device__ __forceinline__ long long is_first_partition() const { return first_partition; }
  __device__ __forceinline__ long long num_previously_selected() const {
    return first_partition ? 0ll : *d_num_selected_in;
  }
  __device__ __forceinline__ long long num_previously_rejected() const {
    return first_partition ? 0ll : (total_previous_num_items - num_previously_selected());
  }
  template <typename OffsetT>
  __device__ __forceinline__ long long num_total_items(OffsetT) const {
    return total_num_items;
  }
  template <typename NumSelectedIteratorT, typename OffsetT>
  __device__ __forceinline__ void update_num_selected(NumSelectedIteratorT user_out,
                                                      OffsetT num_selections) const {
    if (last_partition) {
      *user_out = num_previously_selected() + static_cast<long long>(num_selections);
    } else {
      *d_num_selected_out = num_previously_selected() + static_cast<long long>(num_selections);
    }
  }
};

#if defined(CUPAR_INDEX_INPUT)
#include "cupar_expr_input.cuh"
typedef cupar_expr_iterator cupar_select_in;
#else
typedef const cupar_T* cupar_select_in;
#endif
#if defined(CUPAR_INDEX_OUTPUT)
typedef cupar_expr_output cupar_select_out;
#else
typedef cupar_T* cupar_select_out;
#endif

#if CUPAR_SELECT_MODE == 0 || CUPAR_SELECT_MODE == 3
struct cupar_select_op {
  cupar_functor_state state;
  __device__ __forceinline__ bool operator()(const cupar_T& x) const {
    return cupar_jit_pred(state.bytes, x);
  }
};
typedef cub::NullType cupar_equality_op;
typedef cub::NullType* cupar_flags_in;
#elif CUPAR_SELECT_MODE == 1
typedef cub::NullType cupar_select_op;
typedef cub::NullType cupar_equality_op;
typedef const cupar_F* cupar_flags_in;
#else
typedef cub::NullType cupar_select_op;
struct cupar_equality_op {
  cupar_functor_state state;
  __device__ __forceinline__ bool operator()(const cupar_T& a, const cupar_T& b) const {
    return cupar_jit_eq(state.bytes, a, b);
  }
};
typedef cub::NullType* cupar_flags_in;
#endif

#if CUPAR_SELECT_MODE == 3
#define CUPAR_SELECT_IMPL cub::SelectImpl::Partition
#elif defined(CUPAR_SELECT_IN_PLACE)
#define CUPAR_SELECT_IMPL cub::SelectImpl::SelectPotentiallyInPlace
#else
#define CUPAR_SELECT_IMPL cub::SelectImpl::Select
#endif

typedef int cupar_partition_offset;  // CUB's per_partition_offset_t
typedef cub::ScanTileState<cupar_partition_offset> cupar_tile_state;
typedef unsigned long long* cupar_num_selected_out;
typedef cub::detail::it_value_t<cupar_flags_in> cupar_flag_value;
// DeviceSelect tunes with the per-partition offset; DevicePartition::If with the count's own
// type, which for CUB's int-count entry points is int as well.
typedef cub::detail::select::policy_hub<cupar_T, cupar_flag_value, cupar_partition_offset, false,
                                        CUPAR_SELECT_IMPL>::MaxPolicy cupar_policy;

template <cub::SelectImpl Impl>
struct cupar_select_agent {
  template <typename Policy, typename In, typename Flags, typename Out, typename Select,
            typename Equality, typename Offset, typename Streaming>
  struct agent_t : cub::detail::select::AgentSelectIf<Policy, In, Flags, Out, Select, Equality,
                                                      Offset, Streaming, Impl> {
    using cub::detail::select::AgentSelectIf<Policy, In, Flags, Out, Select, Equality, Offset,
                                             Streaming, Impl>::AgentSelectIf;
  };
};

typedef cub::detail::vsmem_helper_default_fallback_policy_t<
    cupar_policy::ActivePolicy::SelectIfPolicyT,
    cupar_select_agent<CUPAR_SELECT_IMPL>::template agent_t, cupar_select_in, cupar_flags_in,
    cupar_select_out, cupar_select_op, cupar_equality_op, cupar_partition_offset,
    cupar_select_streaming>
    cupar_select_vsmem;

#if defined(CUPAR_OUT_OF_LINE) && (CUPAR_SELECT_MODE == 0 || CUPAR_SELECT_MODE == 3)
// The out-of-line (tier-1) kernels. CUB's agent sets a thread's selection flags with one call of
// the predicate an item, each call across the link clobbering the registers that hold the other
// items. Here a full tile's flags come from the predicate's generated batched forms (codegen.cpp,
// batch_functions: bit k of the result is the predicate of item k, the predicate inlined there),
// eight items a call for items of up to 4 bytes, four up to 8, the rest one call each; a partial
// (last) tile keeps CUB's loop, so the predicate never sees an item past the input's end.
extern "C" __device__ unsigned int cupar_jit_pred_pred8(const unsigned char*, cupar_T, cupar_T,
                                                        cupar_T, cupar_T, cupar_T, cupar_T, cupar_T,
                                                        cupar_T);
extern "C" __device__ unsigned int cupar_jit_pred_pred4(const unsigned char*, cupar_T, cupar_T,
                                                        cupar_T, cupar_T);
static constexpr int cupar_pred_width = sizeof(cupar_T) <= 4 ? 8 : (sizeof(cupar_T) <= 8 ? 4 : 1);

template <int I, int N, class Flag>
__device__ __forceinline__ void cupar_select_flags(const cupar_select_op& op,
                                                   const cupar_T (&items)[N], Flag (&flags)[N]) {
  if constexpr (cupar_pred_width == 8 && I + 8 <= N) {
    const unsigned int m =
        cupar_jit_pred_pred8(op.state.bytes, items[I], items[I + 1], items[I + 2], items[I + 3],
                             items[I + 4], items[I + 5], items[I + 6], items[I + 7]);
#pragma unroll
    for (int k = 0; k < 8; ++k)
      flags[I + k] = static_cast<Flag>((m >> k) & 1u);
    cupar_select_flags<I + 8, N>(op, items, flags);
  } else if constexpr (cupar_pred_width >= 4 && I + 4 <= N) {
    const unsigned int m =
        cupar_jit_pred_pred4(op.state.bytes, items[I], items[I + 1], items[I + 2], items[I + 3]);
#pragma unroll
    for (int k = 0; k < 4; ++k)
      flags[I + k] = static_cast<Flag>((m >> k) & 1u);
    cupar_select_flags<I + 4, N>(op, items, flags);
  } else if constexpr (I < N) {
    flags[I] = static_cast<bool>(op(items[I]));
    cupar_select_flags<I + 1, N>(op, items, flags);
  }
}

typedef cub::detail::select::AgentSelectIf<cupar_select_vsmem::agent_policy_t, cupar_select_in,
                                           cupar_flags_in, cupar_select_out, cupar_select_op,
                                           cupar_equality_op, cupar_partition_offset,
                                           cupar_select_streaming, CUPAR_SELECT_IMPL>
    cupar_select_base;

CUB_NAMESPACE_BEGIN
namespace detail {
namespace select {
// CUB's InitializeSelections for a select operator, for full tiles (the first one and the others).
#define CUPAR_SELECT_FULL_TILE_FLAGS(FIRST)                                                    \
  template <>                                                                                  \
  template <>                                                                                  \
  __device__ __forceinline__ void cupar_select_base::InitializeSelections<FIRST, false>(       \
      cupar_partition_offset, cupar_partition_offset, InputT(&items)[ITEMS_PER_THREAD],        \
      cupar_partition_offset(&selection_flags)[ITEMS_PER_THREAD], constant_t<USE_SELECT_OP>) { \
    cupar_select_flags<0, ITEMS_PER_THREAD>(select_op, items, selection_flags);                \
  }
CUPAR_SELECT_FULL_TILE_FLAGS(true)
CUPAR_SELECT_FULL_TILE_FLAGS(false)
#undef CUPAR_SELECT_FULL_TILE_FLAGS
}  // namespace select
}  // namespace detail
CUB_NAMESPACE_END
#endif

#if defined(CUPAR_OUT_OF_LINE) && CUPAR_SELECT_MODE == 2
// The out-of-line (tier-1) unique kernels flag a thread's items from the equality's head flags
// (cupar_prelude.cuh, CUPAR_BATCHED_FLAG_HEADS).
CUPAR_EQUALITY_HEADS(cupar_T)
CUPAR_BATCHED_FLAG_HEADS(cupar_T, cupar_select_vsmem::agent_policy_t::BLOCK_THREADS,
                         cupar_select_vsmem::agent_policy_t::ITEMS_PER_THREAD,
                         cupar_partition_offset, cupar_equality_op)
#endif

__global__ void cupar_select_init(cupar_tile_state tile_state, int num_tiles,
                                  cupar_num_selected_out d_num_selected_out) {
  tile_state.InitializeStatus(num_tiles);
  if (blockIdx.x == 0 && threadIdx.x == 0) *d_num_selected_out = 0;
}

__launch_bounds__(int(cupar_select_vsmem::agent_policy_t::BLOCK_THREADS)) __global__
    void cupar_select_sweep(cupar_select_in d_in, cupar_flags_in d_flags,
                            cupar_select_out d_selected_out,
                            cupar_num_selected_out d_num_selected_out, cupar_tile_state tile_status,
                            cupar_select_op select_op, cupar_equality_op equality_op,
                            cupar_partition_offset num_items, int num_tiles,
                            const __grid_constant__ cupar_select_streaming streaming,
                            cub::detail::vsmem_t vsmem) {
  typedef cupar_select_vsmem::agent_t agent_t;
  __shared__ typename cupar_select_vsmem::static_temp_storage_t static_temp_storage;
  typename agent_t::TempStorage& temp_storage =
      cupar_select_vsmem::get_temp_storage(static_temp_storage, vsmem);
  agent_t(temp_storage, d_in, d_flags, d_selected_out, select_op, equality_op, num_items, streaming)
      .ConsumeRange(num_tiles, tile_status, d_num_selected_out);
  cupar_select_vsmem::discard_temp_storage(temp_storage);
}

static constexpr long long cupar_m0 = cupar_select_vsmem::agent_policy_t::BLOCK_THREADS;
static constexpr long long cupar_m1 = cupar_select_vsmem::agent_policy_t::ITEMS_PER_THREAD;
static constexpr long long cupar_m2 = cupar_select_vsmem::vsmem_per_block;
