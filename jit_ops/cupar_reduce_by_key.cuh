// cupar JIT: CUB's reduce-by-key kernels with run-time operators, for two families:
//   reduce_by_key (DeviceReduce::ReduceByKey): cupar_K keys, cupar_V values and aggregates, the
//     slot functions cupar_jit_op(state, cupar_V a, cupar_V b) -> cupar_V and
//     cupar_jit_eq(state, cupar_K a, cupar_K b) -> bool; with CUPAR_INDEX_INPUT ("+index" sets)
//     the values are an iterator expression whose slot cupar_jit_xform comes first;
//   run_length_encode (DeviceRunLengthEncode::Encode, with CUPAR_RUN_LENGTH_ENCODE): cupar_K
//     keys, cupar_V the counts' class (u32 or u64), only the equality slot; the values are a
//     constant 1 summed with cuda::std::plus<>, as CUB's Encode does.
//
// CUB 3.0.1 defines the sweep kernel (DeviceReduceByKeyKernel) in its host dispatch header
// (dispatch_reduce_by_key.cuh), which NVRTC cannot compile, and its DispatchReduceByKey has no
// kernel-source seam: the kernel is mirrored here line for line around CUB's own agent, the host
// dispatch in src/jit/families/by_key.cu.
//
// With CUPAR_BY_KEY_PLUS (the "+plus" sets, served for the named plus on 4- and 8-byte arithmetic
// values): cupar_V is the caller's value type, not its size class, and the reduction is CUB's own
// cuda::std::plus<>, compiled in; there is no operator slot. CUB's agent takes its cheaper
// identity-zero scan only for cuda::std::plus<> on a primitive accumulator (HAS_IDENTITY_ZERO),
// which an operator linked into a slot can never be: the generic sets' sweep kernel took 126
// registers where nvcc gives CUB's plus kernel 80 (sm_90), and ran at 0.80 of CUB at 2^28.
#pragma once

#include <cub/agent/agent_reduce_by_key.cuh>
#include <cub/agent/single_pass_scan_operators.cuh>
#include <cub/device/dispatch/tuning/tuning_reduce_by_key.cuh>
#include <cub/device/dispatch/tuning/tuning_run_length_encode.cuh>

#include <cuda/std/functional>
#include <cuda/std/iterator>
#include <cuda/std/type_traits>

struct cupar_by_key_eq {
  cupar_functor_state state;
  __device__ __forceinline__ bool operator()(const cupar_K& a, const cupar_K& b) const {
    return cupar_jit_eq(state.bytes, a, b);
  }
};

/// The offsets CUB chooses for the count's width (choose_offset_t): 32 bits for an int count (the
/// default set; cupar uses it up to 2^31 - 1 items), 64 bits with CUPAR_BY_KEY_WIDE (the "wide"
/// variant). With 64-bit offsets the block scan's (offset, value) pairs double: reduce_by_key
/// ran at 0.72 of CUB's int-count path on 2^28 u32/f32 pairs (H100).
#if defined(CUPAR_BY_KEY_WIDE)
typedef unsigned long long cupar_offset;
#else
typedef unsigned int cupar_offset;
#endif
typedef unsigned long long* cupar_num_runs_out;

#if defined(CUPAR_RUN_LENGTH_ENCODE)

/// The run lengths' input: 1 at every position (CUB's Encode uses thrust::constant_iterator,
/// which NVRTC cannot compile; this is the same sequence, and an empty argument).
struct cupar_ones {
  typedef cupar_V value_type;
  typedef long long difference_type;
  typedef const cupar_V* pointer;
  typedef cupar_V reference;
  typedef ::cuda::std::random_access_iterator_tag iterator_category;
  __host__ __device__ __forceinline__ cupar_V operator*() const { return cupar_V(1); }
  template <class I>
  __host__ __device__ __forceinline__ cupar_V operator[](I) const {
    return cupar_V(1);
  }
  template <class I>
  __host__ __device__ __forceinline__ cupar_ones operator+(I) const {
    return *this;
  }
  template <class I>
  __host__ __device__ __forceinline__ cupar_ones operator-(I) const {
    return *this;
  }
};
typedef cupar_ones cupar_values_in;
typedef ::cuda::std::plus<> cupar_reduction_op;  // CUB's Encode: HAS_IDENTITY_ZERO holds
typedef cub::detail::rle::encode::policy_hub<cupar_V, cupar_K>::MaxPolicy cupar_policy;

#else

#if defined(CUPAR_INDEX_INPUT)
// The "+index" sets: the values an iterator expression (cupar_T is cupar_V), read as the agent
// loads each tile, the slot cupar_jit_xform computing value i.
#include "cupar_expr_input.cuh"
typedef cupar_expr_iterator cupar_values_in;
#else
typedef const cupar_V* cupar_values_in;
#endif
#if defined(CUPAR_BY_KEY_PLUS)
typedef ::cuda::std::plus<> cupar_reduction_op;  // an empty kernel argument
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
typedef cupar_by_key_op cupar_reduction_op;
#endif

/// The operator type CUB's tuning sees (the kernels run cupar_by_key_op). CUB uses its tuned
/// reduce-by-key policies only for operators it knows to be cheap (cuda::std::plus, minimum,
/// maximum); an operator on an arithmetic type is cheap as a rule, so for the arithmetic size
/// classes CUB tunes as for plus, which is what the compiled path gets with cuda::std::plus.
/// Opaque (struct) classes keep the run-time operator: the compiled path gets the generic policy
/// for a user functor too.
template <class T, bool Arithmetic = ::cuda::std::is_arithmetic<T>::value>
struct cupar_by_key_tuning_op {
  typedef cupar_reduction_op type;
};
template <class T>
struct cupar_by_key_tuning_op<T, true> {
  typedef ::cuda::std::plus<T> type;
};
typedef cub::detail::reduce_by_key::policy_hub<cupar_by_key_tuning_op<cupar_V>::type, cupar_V,
                                               cupar_K>::MaxPolicy cupar_policy;

#endif

/// The accumulator is the value class (cupar's reduce_by_key reduces V x V -> V; CUB's Encode
/// accumulates the length type itself).
typedef cupar_V cupar_accum;
typedef cub::ReduceByKeyScanTileState<cupar_accum, cupar_offset> cupar_tile_state;
typedef cupar_policy::ActivePolicy::ReduceByKeyPolicyT cupar_agent_policy;

#if defined(CUPAR_OUT_OF_LINE)
// The out-of-line (tier-1) sweep flags a thread's full-tile keys from the equality's head flags
// (cupar_prelude.cuh, CUPAR_BATCHED_FLAG_HEADS; the last tile's guarded flags stay CUB's).
CUPAR_EQUALITY_HEADS(cupar_K)
CUPAR_BATCHED_FLAG_HEADS(cupar_K, cupar_agent_policy::BLOCK_THREADS,
                         cupar_agent_policy::ITEMS_PER_THREAD, cupar_offset, cupar_by_key_eq)
#if !defined(CUPAR_RUN_LENGTH_ENCODE) && !defined(CUPAR_BY_KEY_PLUS)
// Its block scan folds the warps' aggregates in one call (CUPAR_BATCHED_WARP_PREFIX), its warp
// scans and its look-back's window reductions take one call each (cupar_prelude.cuh).
typedef cub::KeyValuePair<cupar_offset, cupar_accum> cupar_scan_pair;
typedef cub::ReduceBySegmentOp<cupar_by_key_op> cupar_pair_op;
CUPAR_BATCHED_SEGMENT_BLOCK_SCAN(cupar_scan_pair, cupar_agent_policy::BLOCK_THREADS, cupar_pair_op,
                                 true)
#endif
#endif

/// CUB's detail::scan::DeviceCompactInitKernel, as DispatchReduceByKey instantiates it.
__global__ void cupar_reduce_by_key_init(cupar_tile_state tile_state, int num_tiles,
                                         cupar_num_runs_out d_num_runs_out) {
  tile_state.InitializeStatus(num_tiles);
  if ((blockIdx.x == 0) && (threadIdx.x == 0)) {
    *d_num_runs_out = 0;
  }
}

/// CUB's detail::reduce::DeviceReduceByKeyKernel.
__launch_bounds__(int(cupar_agent_policy::BLOCK_THREADS)) __global__
    void cupar_reduce_by_key_sweep(const cupar_K* d_keys_in, cupar_K* d_unique_out,
                                   cupar_values_in d_values_in, cupar_V* d_aggregates_out,
                                   cupar_num_runs_out d_num_runs_out, cupar_tile_state tile_state,
                                   int start_tile, cupar_by_key_eq equality_op,
                                   cupar_reduction_op reduction_op, cupar_offset num_items) {
  typedef cub::detail::reduce::AgentReduceByKey<
      cupar_agent_policy, const cupar_K*, cupar_K*, cupar_values_in, cupar_V*, cupar_num_runs_out,
      cupar_by_key_eq, cupar_reduction_op, cupar_offset, cupar_accum>
      agent_t;
  __shared__ typename agent_t::TempStorage temp_storage;
  agent_t(temp_storage, d_keys_in, d_unique_out, d_values_in, d_aggregates_out, d_num_runs_out,
          equality_op, reduction_op)
      .ConsumeRange(num_items, tile_state, start_tile);
}

/// The tile state's layout for the host (cub::ReduceByKeyScanTileState<V, Offset> for a V known
/// there only by its size): one word per tile (a pointer to them), or CUB's generic ScanTileState
/// of key-value pairs (three pointers: status words, partials, inclusives).
template <class V, class Offset,
          bool SingleWord =
              cub::detail::is_primitive<V>::value && (sizeof(V) + sizeof(Offset) < 16)>
struct cupar_by_key_tile_layout {
  typedef cub::ReduceByKeyScanTileState<V, Offset> state;
  static constexpr long long description_bytes = sizeof(typename state::TxnWord);
  static constexpr long long payload_bytes = 0;
};
template <class V, class Offset>
struct cupar_by_key_tile_layout<V, Offset, false> {
  typedef cub::ReduceByKeyScanTileState<V, Offset> state;
  static constexpr long long description_bytes = state::description_bytes_per_tile;
  static constexpr long long payload_bytes = state::payload_bytes_per_tile;
};
typedef cupar_by_key_tile_layout<cupar_accum, cupar_offset> cupar_tile_layout;

static constexpr long long cupar_m0 = cupar_agent_policy::BLOCK_THREADS;
static constexpr long long cupar_m1 = cupar_agent_policy::ITEMS_PER_THREAD;
static constexpr long long cupar_m2 = sizeof(cupar_tile_state);  // one pointer: a word per tile
static constexpr long long cupar_m3 = cupar_tile_layout::description_bytes;
static constexpr long long cupar_m4 = cupar_tile_layout::payload_bytes;
static constexpr long long cupar_m5 = sizeof(cupar_offset);
