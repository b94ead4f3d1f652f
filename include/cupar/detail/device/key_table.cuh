// cupar internal: group_by's keys of any type under a caller's hash and equality (struct keys,
// composite keys): each row mapped to a representative row of its key, the first row of that key
// to claim a slot of an open-addressing table, so that the rows' representatives (4- or 8-byte
// integers) are grouped by the arithmetic machinery and the groups' keys read back from the
// representatives' rows. For both paths: group_by.cuh (C++ functors) and the run-time path's join
// module (jit_ops/cupar_join.cuh, whose hash and equality slots these kernels call). Device code
// only with the toolkit's headers (NVRTC compiles it).
//
// The table: 64-bit words, all ones when empty, linear probing from the low bits of the key's
// mixed hash. With 4-byte representatives (fewer than 2^32 - 1 rows) a word holds the claiming
// row in its low half and the top 32 bits of the mixed hash in its high half: a probe compares
// those first and calls the equality only where they match (a word is claimed whole by one
// compare-and-swap, so no reader sees half of it). With 8-byte representatives a word is the row
// alone and every occupied slot on the way is compared by the equality.
#pragma once

#include <cupar/detail/device/hash_table.cuh>
#include <cupar/detail/device/mix.cuh>

namespace cupar::detail::keys {

inline constexpr unsigned long long empty_word = ~0ull;
inline constexpr int encode_threads = 256;

/// The keys' hashes as an iterator (what hash::hll_kernel reads).
template <class KeyIt, class Hash>
struct hashed_keys {
  KeyIt keys;
  CUPAR_KERNEL_OPERATOR_HELD(Hash) hash;
  __device__ __forceinline__ unsigned long long operator[](unsigned long long i) const {
    return hash(keys[i]);
  }
  __device__ __forceinline__ unsigned long long operator*() const { return hash(keys[0]); }
};

/// HyperLogLog registers (hash::hll_registers words, zeroed before) of the keys' hashes.
template <class KeyIt, class Hash>
__global__ void __launch_bounds__(hash::block_threads)
    sketch_kernel(KeyIt keys, unsigned long long n, CUPAR_KERNEL_OPERATOR Hash hash,
                  unsigned int* registers) {
  hash::hll_block<hash::block_threads, hashed_keys<KeyIt, Hash>, unsigned long long>(
      hashed_keys<KeyIt, Hash>{keys, hash}, n, registers);
}

/// reps[i] for rows [0, n): the row of the first of row i's key to claim a slot of `table` (mask
/// + 1 words, all ones before), i itself when it claimed one. counts[0] += the slots claimed (the
/// distinct keys); counts[1] is set when a row found no empty slot and no equal key in the whole
/// table (its representative is then wrong: the caller grows the table and encodes again).
template <class KeyIt, class Hash, class Eq, class R>
__global__ void __launch_bounds__(encode_threads)
    encode_kernel(KeyIt keys, unsigned long long n, unsigned long long* table,
                  unsigned long long mask, CUPAR_KERNEL_OPERATOR Hash hash,
                  CUPAR_KERNEL_OPERATOR Eq eq, R* reps, unsigned long long* counts) {
  constexpr bool tagged = sizeof(R) == 4;
  unsigned long long claimed = 0;
  bool full = false;
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * encode_threads;
  for (unsigned long long i =
           static_cast<unsigned long long>(blockIdx.x) * encode_threads + threadIdx.x;
       i < n; i += stride) {
    const auto key = keys[i];
    const unsigned long long h = hash::mix(hash(key));
    const unsigned long long tag = h >> 32;
    const unsigned long long mine = tagged ? (tag << 32) | i : i;
    unsigned long long s = h & mask;
    R rep = static_cast<R>(i);
    for (unsigned long long probes = 0;; ++probes) {
      if (probes > mask) {
        full = true;
        break;
      }
      unsigned long long w = *static_cast<volatile unsigned long long*>(&table[s]);
      if (w == empty_word) {
        w = atomicCAS(&table[s], empty_word, mine);
        if (w == empty_word) {
          ++claimed;
          break;
        }
      }
      if (!tagged || (w >> 32) == tag) {
        const R row = static_cast<R>(tagged ? (w & 0xffffffffull) : w);
        if (eq(keys[row], key)) {
          rep = row;
          break;
        }
      }
      s = (s + 1) & mask;
    }
    reps[i] = rep;
  }
  if (claimed != 0) atomicAdd(&counts[0], claimed);
  if (full) counts[1] = 1;
}

/// out[g] = keys[reps[g]] for the groups [0, count): the groups' keys from their representatives.
template <class KeyIt, class R, class K>
__global__ void gather_kernel(KeyIt keys, const R* reps, unsigned long long count, K* out) {
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long g =
           static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
       g < count; g += stride) {
    out[g] = keys[reps[g]];
  }
}

}  // namespace cupar::detail::keys
