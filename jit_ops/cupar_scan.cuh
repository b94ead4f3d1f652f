// cupar JIT: CUB's scan kernels with a run-time operator. Expects cupar_T and
// cupar_jit_op(const unsigned char* state, cupar_T a, cupar_T b) -> cupar_T.
#pragma once

#include <cub/device/dispatch/kernels/scan.cuh>
#include <cub/device/dispatch/tuning/tuning_scan.cuh>

struct cupar_scan_op {
  cupar_op_state state;
  __device__ __forceinline__ cupar_T operator()(const cupar_T& a, const cupar_T& b) const {
    return cupar_jit_op(state.bytes, a, b);
  }
};

/// The exclusive scan's initial value, passed by value (CUB's own InputValue also allows a value
/// read from device memory, which cupar does not expose).
struct cupar_scan_init {
  typedef cupar_T value_type;
  cupar_T value;
  __device__ __forceinline__ operator cupar_T() const { return value; }
};

typedef unsigned long long cupar_offset;
typedef cub::ScanTileState<cupar_T> cupar_tile_state;
typedef cub::detail::scan::policy_hub<cupar_T, cupar_T, cupar_T, cupar_offset,
                                      cupar_scan_op>::MaxPolicy cupar_policy;
typedef cupar_policy::ActivePolicy cupar_active;
