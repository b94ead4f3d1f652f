// cupar JIT: the segmented scans (inclusive, or exclusive with CUPAR_SEGMENTED_SCAN_EXCLUSIVE)
// with a run-time operator. Expects cupar_T (the values' size class) and the slot function
// cupar_jit_op(const unsigned char* state, cupar_T a, cupar_T b) -> cupar_T.
//
// The kernels are cupar's own (CUB 3.0.1 has no segmented scan), in
// include/cupar/detail/device/segmented_scan.cuh, the same template the C++-operator path
// instantiates; the host dispatch is the same template too (detail/dp_dispatch.cuh, run from
// src/jit/families/segmented.cu).
#pragma once

#include "cupar/detail/device/segmented_scan.cuh"

#if defined(CUPAR_OUT_OF_LINE)
// The out-of-line (tier-1) sweep reduces and scans a thread's (flag, value) pairs eight or four a
// call (cupar_prelude.cuh, CUPAR_SEGMENT_OVERLOADS); its block scan's warp scans, warp prefixes
// and look-back take one call each (the macros below).
CUPAR_SEGMENT_DECLARE(cupar_T)
#endif
struct cupar_segmented_scan_op {
  cupar_functor_state state;
  __device__ __forceinline__ cupar_T operator()(const cupar_T& a, const cupar_T& b) const {
    return cupar_jit_op(state.bytes, a, b);
  }
#if defined(CUPAR_OUT_OF_LINE)
  CUPAR_SEGMENT_MEMBERS(cupar_T)
#endif
};

#if defined(CUPAR_SEGMENTED_SCAN_EXCLUSIVE)
typedef cupar_T cupar_segmented_scan_init;  // passed by value
#else
typedef cub::NullType cupar_segmented_scan_init;
#endif

// Tuned as the compiled path tunes the user's type: size classes are arithmetic, so as for
// cuda::std::plus of the class (see segscan::tuning).
typedef cupar::detail::segscan::tuning<cupar_T, cupar_segmented_scan_op>::hub::MaxPolicy
    cupar_policy;
typedef cupar_policy::ActivePolicy::ScanByKeyPolicyT cupar_active;
typedef cupar::detail::segscan::tile_state_t<cupar_T> cupar_tile_state;
typedef cupar::detail::segscan::tile_state_layout<cupar_tile_state> cupar_tile_layout;

#if defined(CUPAR_OUT_OF_LINE)
typedef cub::KeyValuePair<int, cupar_T> cupar_scan_pair;
typedef cub::detail::ScanBySegmentOp<cupar_segmented_scan_op> cupar_pair_op;
CUPAR_BATCHED_SEGMENT_BLOCK_SCAN(cupar_scan_pair, cupar_active::BLOCK_THREADS, cupar_pair_op, false)
#endif

// Metadata for the host: the sweep's shape and the tile state's layout
// (src/jit/families/segmented.cu).
static constexpr long long cupar_m0 = cupar_active::BLOCK_THREADS;
static constexpr long long cupar_m1 = cupar_active::ITEMS_PER_THREAD;
static constexpr long long cupar_m2 = cupar_tile_layout::single_word ? 1 : 0;
static constexpr long long cupar_m3 = cupar_tile_layout::single_word
                                          ? cupar_tile_layout::word_bytes
                                          : cupar_tile_layout::description_bytes;
static constexpr long long cupar_m4 = cupar_tile_layout::payload_bytes;
