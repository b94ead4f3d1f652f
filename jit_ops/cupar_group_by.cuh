// cupar JIT: the hash method of cupar::group_by with a run-time combining operator. Expects the
// size classes cupar_K (keys: u8..u64, floating-point keys given as their normalised bits) and
// cupar_V (accumulators), and the slot function
//   cupar_jit_op(const unsigned char* state, cupar_V a, cupar_V b) -> cupar_V.
// With CUPAR_INDEX_INPUT ("+index" sets) the values are an iterator expression (its slot,
// cupar_jit_xform, first; cupar_T is cupar_V) that the hash method's first pass and the block
// tables read: over the rows as given, and over partitioned rows where the expression reads one
// array at the row's index (the host moves that array with the keys and rebinds the expression
// to the moved copy); the sort route takes arrays.
//
// The kernels are the C++ path's own (cupar/detail/device/hash_table.cuh: warp-level combining,
// warp-private tables in shared memory, a global table with lock-free compare-and-swap of the
// accumulator's word; the table method's tables a block), instantiated with a functor that calls
// the slot. The host side (table sizing, the sketch, the compaction of the ready slots, the sort
// route) is src/jit/families/group_by.cu.
#pragma once

#include <cupar/detail/device/hash_table.cuh>

#if defined(CUPAR_INDEX_INPUT)
#include "cupar_expr_input.cuh"
typedef cupar_expr_iterator cupar_group_values;
#else
typedef const cupar_V* cupar_group_values;
#endif

struct cupar_group_by_op {
  cupar_functor_state state;
  __device__ __forceinline__ cupar_V operator()(const cupar_V& a, const cupar_V& b) const {
    return cupar_jit_op(state.bytes, a, b);
  }
#if defined(CUPAR_OUT_OF_LINE)
  // The block tables' rows combined one at a time (hash::table_batch): with four in flight the
  // calls kept their values and buckets in local memory (64 registers a thread), 5-15% slower
  // (H100, docs/JIT.md).
  static constexpr int block_table_batch = 1;
#endif
};

typedef cupar::detail::hash::slot<cupar_K, cupar_V> cupar_group_slot;
static constexpr int cupar_group_threads = cupar::detail::hash::block_threads;
static constexpr int cupar_group_warp_slots =
    cupar::detail::hash::warp_table_slots<cupar_K, cupar_V>;
// The table method (a table a block in shared memory): its block and rows in flight a lane, as
// the C++ path's (group_by.cuh); rows as given or partitioned by their mixed keys.
static constexpr int cupar_group_table_threads = 1024;
static constexpr int cupar_group_table_unroll = sizeof(cupar_V) <= 16 ? 4 : 1;
typedef cupar::detail::hash::direct_rows<cupar_K, cupar_V, const cupar_K*, cupar_group_values>
    cupar_group_direct_rows;
typedef cupar::detail::hash::mixed_rows<cupar_K, cupar_V, cupar_group_values>
    cupar_group_mixed_rows;

// Launch values: block threads, slots of a warp's table, the slot's size and alignment, the table
// method's block, rows a lane and block-table slot size.
static constexpr long long cupar_m0 = cupar_group_threads;
static constexpr long long cupar_m1 = cupar_group_warp_slots;
static constexpr long long cupar_m2 = sizeof(cupar_group_slot);
static constexpr long long cupar_m3 = alignof(cupar_group_slot);
static constexpr long long cupar_m4 = cupar_group_table_threads;
static constexpr long long cupar_m5 = cupar_group_table_unroll;
static constexpr long long cupar_m6 =
    cupar::detail::hash::block_table<cupar_K, cupar_V>::slot_bytes;
