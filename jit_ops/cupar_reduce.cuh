// cupar JIT: CUB's reduce kernels with a run-time operator. Expects cupar_T and the operator
// function cupar_jit_op(const unsigned char* state, cupar_T a, cupar_T b) -> cupar_T.
#pragma once

#include <cub/device/dispatch/kernels/reduce.cuh>
#include <cub/device/dispatch/tuning/tuning_reduce.cuh>

struct cupar_reduce_op {
  cupar_op_state state;
  __device__ __forceinline__ cupar_T operator()(const cupar_T& a, const cupar_T& b) const {
    return cupar_jit_op(state.bytes, a, b);
  }
};

typedef unsigned long long cupar_offset;
typedef cub::detail::reduce::policy_hub<cupar_T, cupar_offset, cupar_reduce_op>::MaxPolicy
    cupar_policy;
typedef cupar_policy::ActivePolicy cupar_active;
