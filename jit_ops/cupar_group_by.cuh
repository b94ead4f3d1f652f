// cupar JIT: the hash method of cupar::group_by with a run-time combining operator. Expects the
// size classes cupar_K (keys: u8..u64, floating-point keys given as their normalised bits) and
// cupar_V (accumulators), and the slot function
//   cupar_jit_op(const unsigned char* state, cupar_V a, cupar_V b) -> cupar_V.
//
// The kernels are the C++ path's own (cupar/detail/device/hash_table.cuh: warp-level combining,
// warp-private tables in shared memory, a global table with lock-free compare-and-swap of the
// accumulator's word), instantiated with a functor that calls the slot. The host side (table
// sizing, the sketch, the compaction of the ready slots, the sort route) is
// src/jit/families/group_by.cu.
#pragma once

#include <cupar/detail/device/hash_table.cuh>

struct cupar_group_by_op {
  cupar_functor_state state;
  __device__ __forceinline__ cupar_V operator()(const cupar_V& a, const cupar_V& b) const {
    return cupar_jit_op(state.bytes, a, b);
  }
};

typedef cupar::detail::hash::slot<cupar_K, cupar_V> cupar_group_slot;
static constexpr int cupar_group_threads = cupar::detail::hash::block_threads;
static constexpr int cupar_group_warp_slots =
    cupar::detail::hash::warp_table_slots<cupar_K, cupar_V>;

// Launch values: block threads, slots of a warp's table, the slot's size and alignment.
static constexpr long long cupar_m0 = cupar_group_threads;
static constexpr long long cupar_m1 = cupar_group_warp_slots;
static constexpr long long cupar_m2 = sizeof(cupar_group_slot);
static constexpr long long cupar_m3 = alignof(cupar_group_slot);
