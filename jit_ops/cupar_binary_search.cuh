// cupar JIT: the vectorised binary searches (lower_bound and upper_bound: one kernel, a flag picks
// which) with a run-time comparator. Expects cupar_T (the values' size class), cupar_I (the
// index's) and the slot function cupar_jit_comp(const unsigned char* state, cupar_T a, cupar_T b)
// -> bool (the default comparator is the precompiled named `less` of the user's type).
//
// The kernel is include/cupar/detail/device/binary_search.cuh, the same template the C++-operator
// path instantiates; the host side is src/jit/families/binary_search.cu.
#pragma once

#include "cupar/detail/device/binary_search.cuh"

struct cupar_binary_search_comp {
  cupar_functor_state state;
  __device__ __forceinline__ bool operator()(const cupar_T& a, const cupar_T& b) const {
    return cupar_jit_comp(state.bytes, a, b);
  }
};

static constexpr long long cupar_m0 = cupar::detail::bsearch::block_threads;
