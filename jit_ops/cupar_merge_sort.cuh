// cupar JIT: CUB's merge sort kernels with a run-time comparator. Expects cupar_K, optionally
// CUPAR_SORT_PAIRS with cupar_V, and cupar_jit_op(const unsigned char* state, cupar_K a,
// cupar_K b) -> bool.
#pragma once

#include <cub/device/dispatch/kernels/merge_sort.cuh>
#include <cub/device/dispatch/tuning/tuning_merge_sort.cuh>
#include <cub/util_type.cuh>

struct cupar_sort_compare {
  cupar_functor_state state;
  __device__ __forceinline__ bool operator()(const cupar_K& a, const cupar_K& b) const {
    return cupar_jit_op(state.bytes, a, b);
  }
};

#if defined(CUPAR_SORT_PAIRS)
typedef cupar_V cupar_value;
typedef const cupar_V* cupar_value_in;
typedef cupar_V* cupar_value_out;
#else
typedef cub::NullType cupar_value;
typedef cub::NullType* cupar_value_in;
typedef cub::NullType* cupar_value_out;
#endif

typedef long long cupar_offset;
typedef cub::detail::merge_sort::policy_hub<cupar_K*>::MaxPolicy cupar_policy;
typedef cub::detail::merge_sort::merge_sort_vsmem_helper_t<
    cupar_policy::ActivePolicy::MergeSortPolicy, const cupar_K*, cupar_value_in, cupar_K*,
    cupar_value_out, cupar_offset, cupar_sort_compare, cupar_K, cupar_value>
    cupar_vsmem_helper;
