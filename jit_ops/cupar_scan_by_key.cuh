// cupar JIT: CUB's scan-by-key kernels (DeviceScan::InclusiveScanByKey / ExclusiveScanByKey) with
// run-time operators. Expects the size classes cupar_K (keys) and cupar_V (values), optionally
// CUPAR_SCAN_BY_KEY_EXCLUSIVE, and the slot functions
//   cupar_jit_op(const unsigned char* state, cupar_V a, cupar_V b) -> cupar_V
//   cupar_jit_eq(const unsigned char* state, cupar_K a, cupar_K b) -> bool.
//
// CUB 3.0.1 defines both kernels (DeviceScanByKeyInitKernel, DeviceScanByKeyKernel) in its host
// dispatch header (dispatch_scan_by_key.cuh), which NVRTC cannot compile, and its
// DispatchScanByKey has no kernel-source seam: the kernels are mirrored here line for line
// around CUB's own agent, the host dispatch in src/jit/families/by_key.cu.
//
// With CUPAR_BY_KEY_PLUS (the "+plus" sets, for the named plus on 4- and 8-byte arithmetic
// values): cupar_V is the caller's value type and the scan operator CUB's cuda::std::plus<>,
// compiled in (no operator slot). The generic sets' sweep kernel, with the operator linked into
// its slot, took 71 registers where nvcc gives CUB's plus kernel 56 (sm_90: 3 blocks of 288
// threads per SM instead of 4) and ran at 0.92 of CUB at 2^28.
#pragma once

#include <cub/agent/agent_scan_by_key.cuh>
#include <cub/agent/single_pass_scan_operators.cuh>
#include <cub/device/dispatch/tuning/tuning_scan_by_key.cuh>

#include <cuda/std/functional>
#include <cuda/std/type_traits>

#if defined(CUPAR_BY_KEY_PLUS)
typedef ::cuda::std::plus<> cupar_by_key_op;  // an empty kernel argument
#else
#if defined(CUPAR_OUT_OF_LINE)
// The out-of-line (tier-1) kernels reduce and scan a thread's (flag, value) pairs eight or four a
// call (cupar_prelude.cuh, CUPAR_SEGMENT_OVERLOADS).
CUPAR_SEGMENT_DECLARE(cupar_V)
#endif
struct cupar_by_key_op {
  cupar_functor_state state;
  __device__ __forceinline__ cupar_V operator()(const cupar_V& a, const cupar_V& b) const {
    return cupar_jit_op(state.bytes, a, b);
  }
#if defined(CUPAR_OUT_OF_LINE)
  CUPAR_SEGMENT_MEMBERS(cupar_V)
#endif
};
#endif

struct cupar_by_key_eq {
  cupar_functor_state state;
  __device__ __forceinline__ bool operator()(const cupar_K& a, const cupar_K& b) const {
    return cupar_jit_eq(state.bytes, a, b);
  }
};

#if defined(CUPAR_SCAN_BY_KEY_EXCLUSIVE)
/// The exclusive scan's initial value, passed by value (the value class; CUB's
/// ExclusiveScanByKey takes the init value's own type).
typedef cupar_V cupar_init_value;
#else
typedef cub::NullType cupar_init_value;
#endif

/// DispatchScanByKey wants an unsigned offset of at least 4 bytes; 64 bits serve every n.
typedef unsigned long long cupar_offset;
/// The accumulator is the value class (cupar's scans by key are V x V -> V).
typedef cupar_V cupar_accum;
typedef cub::ReduceByKeyScanTileState<cupar_accum, int> cupar_tile_state;

/// The operator type CUB's tuning sees (the kernels run cupar_by_key_op): as for cuda::std::plus
/// on the arithmetic size classes (what the compiled path gets with cuda::std::plus; CUB tunes
/// only operators it knows to be cheap), the run-time operator itself on opaque classes.
template <class T, bool Arithmetic = ::cuda::std::is_arithmetic<T>::value>
struct cupar_by_key_tuning_op {
  typedef cupar_by_key_op type;
};
template <class T>
struct cupar_by_key_tuning_op<T, true> {
  typedef ::cuda::std::plus<T> type;
};
typedef cub::detail::scan_by_key::policy_hub<const cupar_K*, cupar_accum, cupar_V,
                                             cupar_by_key_tuning_op<cupar_V>::type>::MaxPolicy
    cupar_policy;
typedef cupar_policy::ActivePolicy::ScanByKeyPolicyT cupar_agent_policy;

#if defined(CUPAR_OUT_OF_LINE)
// The out-of-line (tier-1) sweep flags a thread's keys from the equality's head flags
// (cupar_prelude.cuh, CUPAR_BATCHED_FLAG_HEADS).
CUPAR_EQUALITY_HEADS(cupar_K)
CUPAR_BATCHED_FLAG_HEADS(cupar_K, cupar_agent_policy::BLOCK_THREADS,
                         cupar_agent_policy::ITEMS_PER_THREAD, cupar_offset, cupar_by_key_eq)
#if !defined(CUPAR_BY_KEY_PLUS)
// Its block scan folds the warps' aggregates in one call (CUPAR_BATCHED_WARP_PREFIX), its warp
// scans and its look-back's window reductions take one call each (cupar_prelude.cuh).
typedef cub::KeyValuePair<int, cupar_accum> cupar_scan_pair;
typedef cub::detail::ScanBySegmentOp<cupar_by_key_op> cupar_pair_op;
CUPAR_BATCHED_SEGMENT_BLOCK_SCAN(cupar_scan_pair, cupar_agent_policy::BLOCK_THREADS, cupar_pair_op,
                                 false)
#endif
#endif

/// CUB's detail::scan_by_key::DeviceScanByKeyInitKernel.
__global__ void cupar_scan_by_key_init(cupar_tile_state tile_state, const cupar_K* d_keys_in,
                                       cupar_K* d_keys_prev_in, cupar_offset items_per_tile,
                                       int num_tiles) {
  tile_state.InitializeStatus(num_tiles);

  const unsigned tid = threadIdx.x + blockDim.x * blockIdx.x;
  const cupar_offset tile_base = static_cast<cupar_offset>(tid) * items_per_tile;

  if (tid > 0 && tid < num_tiles) {
    d_keys_prev_in[tid] = d_keys_in[tile_base - 1];
  }
}

/// CUB's detail::scan_by_key::DeviceScanByKeyKernel.
__launch_bounds__(int(cupar_agent_policy::BLOCK_THREADS)) __global__
    void cupar_scan_by_key_sweep(const cupar_K* d_keys_in, cupar_K* d_keys_prev_in,
                                 const cupar_V* d_values_in, cupar_V* d_values_out,
                                 cupar_tile_state tile_state, int start_tile,
                                 cupar_by_key_eq equality_op, cupar_by_key_op scan_op,
                                 cupar_init_value init_value, cupar_offset num_items) {
  typedef cub::detail::scan_by_key::AgentScanByKey<
      cupar_agent_policy, const cupar_K*, const cupar_V*, cupar_V*, cupar_by_key_eq,
      cupar_by_key_op, cupar_init_value, cupar_offset, cupar_accum>
      agent_t;
  __shared__ typename agent_t::TempStorage temp_storage;
  agent_t(temp_storage, d_keys_in, d_keys_prev_in, d_values_in, d_values_out, equality_op, scan_op,
          init_value)
      .ConsumeRange(num_items, tile_state, start_tile);
}

/// The tile state's layout for the host (see cupar_reduce_by_key.cuh): one word per tile, or
/// CUB's generic ScanTileState of (flag, value) pairs.
template <class V, class Key,
          bool SingleWord = cub::detail::is_primitive<V>::value && (sizeof(V) + sizeof(Key) < 16)>
struct cupar_by_key_tile_layout {
  typedef cub::ReduceByKeyScanTileState<V, Key> state;
  static constexpr long long description_bytes = sizeof(typename state::TxnWord);
  static constexpr long long payload_bytes = 0;
};
template <class V, class Key>
struct cupar_by_key_tile_layout<V, Key, false> {
  typedef cub::ReduceByKeyScanTileState<V, Key> state;
  static constexpr long long description_bytes = state::description_bytes_per_tile;
  static constexpr long long payload_bytes = state::payload_bytes_per_tile;
};
typedef cupar_by_key_tile_layout<cupar_accum, int> cupar_tile_layout;

static constexpr long long cupar_m0 = cupar_agent_policy::BLOCK_THREADS;
static constexpr long long cupar_m1 = cupar_agent_policy::ITEMS_PER_THREAD;
static constexpr long long cupar_m2 = sizeof(cupar_tile_state);  // one pointer: a word per tile
static constexpr long long cupar_m3 = cupar_tile_layout::description_bytes;
static constexpr long long cupar_m4 = cupar_tile_layout::payload_bytes;
