// cupar JIT: one kernel that walks indices and hands them to the slot function
// cupar_jit_apply(const unsigned char* state, unsigned long long first, unsigned long long n),
// which cupar generates for each call shape (src/jit/core/iterator.cpp, transform_apply_op): for
// the indices first, first + CUPAR_FOR_EACH_THREADS, ... of its thread (a fixed number, `items`,
// that the host passes as the tile) it loads the inputs with the caller's types, applies the
// operator and stores through the output. The kernel knows no element type, so one precompiled set
// serves every combination of types; the optimised (LTO) build inlines the slot, and the loads of a
// thread's items are issued before its stores.
#pragma once

#define CUPAR_FOR_EACH_THREADS 256

// The state is a __grid_constant__ parameter: the out-of-line (tier-1) slot takes its address,
// and a plain by-value parameter whose address is taken is copied to each thread's local memory
// first (64 bytes a thread of 8 items, as much traffic as the data of a 4-byte transform).
__global__ void __launch_bounds__(CUPAR_FOR_EACH_THREADS)
    cupar_for_each_kernel(const __grid_constant__ cupar_op_state state, unsigned long long n,
                          unsigned long long tile) {
  const unsigned long long step = tile * gridDim.x;
  for (unsigned long long first = blockIdx.x * tile + threadIdx.x; first < n; first += step) {
    cupar_jit_apply(state.bytes, first, n);
  }
}

static constexpr long long cupar_m0 = CUPAR_FOR_EACH_THREADS;
