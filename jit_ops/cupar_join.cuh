// cupar JIT: hash joins on keys of any type with a run-time hash and equality (cupar::inner_join,
// semi_join, anti_join with operators, join.hpp). Expects cupar_K (the keys' type) and the slot
// functions
//   cupar_jit_hash(const unsigned char* state, cupar_K x) -> unsigned long long
//   cupar_jit_eq(const unsigned char* state, cupar_K a, cupar_K b) -> bool
// Keys the equality calls equal must hash equal. The table: slots of a build row's position
// (all ones: empty) and the top 32 bits of its key's mixed hash, linear probing from the hash's
// low bits; a probe compares the tags first and calls the equality only when they match. The host
// side is src/jit/families/join.cu.
//
// The module also holds group_by's kernels for keys under the same hash and equality (struct
// keys, cupar/detail/device/key_table.cuh): the sketch of the hashes, the rows' representatives,
// the groups' keys from them (their host side: src/jit/families/group_by.cu).
#pragma once

// The operator's hash is mixed by MurmurHash3's finaliser: every bit reaches the table's bits.
#include <cupar/detail/device/key_table.cuh>
#include <cupar/detail/device/mix.cuh>

/// The operators' states, wrapped so that the kernels' names are the same in the out-of-line and
/// the LTO builds (cupar_functor_state differs between them).
struct cupar_join_hash {
  cupar_functor_state state;
  __device__ __forceinline__ unsigned long long operator()(const cupar_K& x) const {
    return cupar_jit_hash(state.bytes, x);
  }
};
struct cupar_join_eq {
  cupar_functor_state state;
  __device__ __forceinline__ bool operator()(const cupar_K& a, const cupar_K& b) const {
    return cupar_jit_eq(state.bytes, a, b);
  }
};

template <class R>
struct cupar_join_slot {
  R row;
  unsigned int tag;
};

template <class R>
struct cupar_join_empty {
  static constexpr R value = static_cast<R>(~static_cast<R>(0));
};

// The kernels take the operators as __grid_constant__ parameters: the out-of-line (tier-1)
// operators take the state's address, and a plain by-value parameter whose address is taken is
// copied into each thread's local memory first (64 bytes an operator, for one probe row a thread;
// the for_each kernel's tier 1 ran 2.8-4.0x faster without that copy: docs/JIT.md). H200, the
// join of two-column keys with a run-time hash and equality (bench row join/cupar_jit/pair), tier
// 1 at 2^24 / 2^28: 0.49 / 0.82 of the optimised build with the copies, 0.95 / 0.97 without.

/// Inserts build rows [0, n): each claims the first empty slot from its hash, then writes its tag.
template <class R>
__global__ void cupar_join_build(const cupar_K* keys, unsigned long long n,
                                 cupar_join_slot<R>* slots, unsigned long long mask,
                                 const __grid_constant__ cupar_join_hash hash) {
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long i =
           static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < n; i += stride) {
    const unsigned long long h = cupar::detail::hash::mix(hash(keys[i]));
    unsigned long long s = h & mask;
    while (atomicCAS(&slots[s].row, cupar_join_empty<R>::value, static_cast<R>(i)) !=
           cupar_join_empty<R>::value)
      s = (s + 1) & mask;
    slots[s].tag = static_cast<unsigned int>(h >> 32);
  }
}

/// Calls visit(build_row) for each build row whose key equals probe key k, in slot order; stops
/// when visit returns false.
template <class R, class Visit>
__device__ __forceinline__ void cupar_join_probe(const cupar_K* build,
                                                 const cupar_join_slot<R>* slots,
                                                 unsigned long long mask, const cupar_K& k,
                                                 const cupar_join_hash& hash,
                                                 const cupar_join_eq& eq, Visit&& visit) {
  const unsigned long long h = cupar::detail::hash::mix(hash(k));
  const unsigned int tag = static_cast<unsigned int>(h >> 32);
  for (unsigned long long s = h & mask;; s = (s + 1) & mask) {
    const cupar_join_slot<R> slot = slots[s];
    if (slot.row == cupar_join_empty<R>::value) return;
    if (slot.tag == tag && eq(build[slot.row], k) && !visit(slot.row)) return;
  }
}

/// counts[i]: the build rows matching probe row i.
template <class R>
__global__ void cupar_join_count(const cupar_K* build, const cupar_K* probe, unsigned long long n,
                                 const cupar_join_slot<R>* slots, unsigned long long mask,
                                 const __grid_constant__ cupar_join_hash hash,
                                 const __grid_constant__ cupar_join_eq eq,
                                 unsigned long long* counts) {
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long i =
           static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < n; i += stride) {
    unsigned long long c = 0;
    cupar_join_probe<R>(build, slots, mask, probe[i], hash, eq, [&](R) {
      ++c;
      return true;
    });
    counts[i] = c;
  }
}

/// Writes probe row i's matches at offsets[i], offsets[i] + 1, ... (positions of I's size).
template <class R, class I>
__global__ void cupar_join_fill(const cupar_K* build, const cupar_K* probe, unsigned long long n,
                                const cupar_join_slot<R>* slots, unsigned long long mask,
                                const __grid_constant__ cupar_join_hash hash,
                                const __grid_constant__ cupar_join_eq eq,
                                const unsigned long long* offsets, I* build_out, I* probe_out) {
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long i =
           static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < n; i += stride) {
    unsigned long long at = offsets[i];
    cupar_join_probe<R>(build, slots, mask, probe[i], hash, eq, [&](R row) {
      build_out[at] = static_cast<I>(row);
      probe_out[at] = static_cast<I>(i);
      ++at;
      return true;
    });
  }
}

/// flags[i] = whether probe row i has a match (semi join) or has none (anti join).
template <class R>
__global__ void cupar_join_flag(const cupar_K* build, const cupar_K* probe, unsigned long long n,
                                const cupar_join_slot<R>* slots, unsigned long long mask,
                                const __grid_constant__ cupar_join_hash hash,
                                const __grid_constant__ cupar_join_eq eq, int matched,
                                unsigned char* flags) {
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long i =
           static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < n; i += stride) {
    bool found = false;
    cupar_join_probe<R>(build, slots, mask, probe[i], hash, eq, [&](R) {
      found = true;
      return false;
    });
    flags[i] = found == (matched != 0) ? 1 : 0;
  }
}

static constexpr long long cupar_m0 = sizeof(cupar_join_slot<unsigned int>);
static constexpr long long cupar_m1 = sizeof(cupar_join_slot<unsigned long long>);
