// cupar internal: the device side of hash aggregation (group_by, group_by.cuh): an
// open-addressing table of slots {state, key, accumulator} with linear probing, private tables in
// shared memory in front of it (one per warp), and a HyperLogLog sketch that sizes the table from
// the input.
//
// Slot states: empty (0), being written by the thread that claimed it (1), ready (2), locked by a
// thread combining a value into it (3, only for accumulators above 16 bytes). A key is written
// once, by the claiming thread, before the slot becomes ready (release); a thread that sees it
// ready reads the key (acquire). An accumulator of up to 16 bytes is combined lock-free, by a
// compare-and-swap of its word (32, 64 or 128 bits; 128 from sm_90, a lock below); a larger one
// under the slot's lock (ready -> locked -> ready). A slot's first value is its initial
// accumulator: no identity is needed; the operator must be associative and commutative.
//
// Rows are taken a warp at a time: lanes with equal keys are found with __match_any_sync and
// their values combined in registers by the lowest lane of each key (its leader), which then
// updates the warp's private table in shared memory (no other warp writes it: plain reads and
// writes) or, when that has no room within 8 probes (all of its slots where it holds every
// expected group), the global table. A few hundred groups are aggregated in shared memory with no
// atomics beyond the claims; each warp adds its groups to the global table once at the end.
// Above that (the table method), each block of 1,024 threads keeps one table in shared memory for
// all its rows and adds its groups to the global table once; beyond what a table holds, the rows
// are first partitioned by a bijective mix of their keys so that each block sees one part's keys.
//
// Keys: arithmetic, compared by their bits after normalisation: -0.0 and +0.0 are one key, every
// NaN is one key (SQL's GROUP BY). Device code only with the toolkit's headers (NVRTC can compile
// it for the run-time operator path).
#pragma once

#include <cupar/detail/device/mix.cuh>

#include <cuda/atomic>
#include <cuda/std/cstdint>
#include <cuda/std/type_traits>

/// A kernel's operator parameter (the combining operator, the values' iterator, which holds an
/// iterator expression's state in the "+index" sets; key_table.cuh: the hash and the equality).
/// In the run-time path's kernels (NVRTC) a `const __grid_constant__` parameter: their
/// out-of-line (tier-1) operators take the state's address, and a by-value parameter whose address
/// is taken is copied into each thread's local memory first (64 bytes an operator; the join
/// kernels' tier 1 ran 0.49 -> 0.95 of the optimised build without that copy: jit_ops/
/// cupar_join.cuh). The C++ path's kernels take the callable as declared (inlined; its call
/// operator need not be const). CUPAR_KERNEL_OPERATOR_HELD(T): an operator kept in a kernel's
/// iterator, a reference to that parameter in the run-time path.
#if defined(__CUDACC_RTC__)
#define CUPAR_KERNEL_OPERATOR const __grid_constant__
#define CUPAR_KERNEL_OPERATOR_HELD(T) const T&
#else
#define CUPAR_KERNEL_OPERATOR
#define CUPAR_KERNEL_OPERATOR_HELD(T) T
#endif

namespace cupar::detail::hash {

enum : unsigned int { slot_empty = 0, slot_writing = 1, slot_ready = 2, slot_locked = 3 };

/// The bytes of an accumulator above 16 bytes.
template <unsigned long long Size, unsigned long long Align>
struct alignas(Align) raw_bytes {
  unsigned char b[Size];
};

/// 128 bits for the compare-and-swap of 9- to 16-byte accumulators.
struct alignas(16) word128 {
  unsigned long long lo, hi;
};

/// The storage of an accumulator V in a slot: the word a compare-and-swap replaces (V's bytes,
/// zero-padded), or V's own bytes above 16.
template <class V>
using acc_word = ::cuda::std::conditional_t<
    sizeof(V) <= 4, unsigned int,
    ::cuda::std::conditional_t<
        sizeof(V) <= 8, unsigned long long,
        ::cuda::std::conditional_t<sizeof(V) <= 16, word128, raw_bytes<sizeof(V), alignof(V)>>>>;

template <class V>
inline constexpr bool lock_free_v = sizeof(V) <= 16;

template <class V>
__host__ __device__ __forceinline__ acc_word<V> to_word(const V& v) {
  acc_word<V> w{};
  memcpy(&w, &v, sizeof(V));
  return w;
}
template <class V>
__host__ __device__ __forceinline__ V from_word(const acc_word<V>& w) {
  V v;
  memcpy(&v, &w, sizeof(V));
  return v;
}

/// One slot of the table.
template <class K, class V>
struct slot {
  unsigned int state;
  K key;
  acc_word<V> acc;
};

/// Threads of the aggregation kernel (four warps), and the slots of each warp's private table in
/// shared memory: 256 of up to 32 bytes, fewer above (at most 32 KB a block). The C++ path
/// (group_by.cuh) and the run-time path (jit_ops/cupar_group_by.cuh) use the same.
inline constexpr int block_threads = 128;
template <class K, class V>
inline constexpr int warp_table_slots =
    static_cast<int>(sizeof(slot<K, V>)) <= 32
        ? 256
        : (static_cast<int>(sizeof(slot<K, V>)) <= 64
               ? 128
               : (static_cast<int>(sizeof(slot<K, V>)) <= 256 ? 32 : 8));

/// The key's bits as a 64-bit integer after normalisation (-0.0 -> +0.0, every NaN -> one NaN).
template <class K>
__host__ __device__ __forceinline__ unsigned long long key_bits(K k) {
  if constexpr (::cuda::std::is_same_v<K, float>) {
    if (k != k) return 0x7fc00000ull;
    if (k == 0.0f) return 0;
    unsigned int u;
    memcpy(&u, &k, sizeof(u));
    return u;
  } else if constexpr (::cuda::std::is_same_v<K, double>) {
    if (k != k) return 0x7ff8000000000000ull;
    if (k == 0.0) return 0;
    unsigned long long u;
    memcpy(&u, &k, sizeof(u));
    return u;
  } else {
    static_assert(::cuda::std::is_integral_v<K>, "hash keys are arithmetic");
    using U = ::cuda::std::make_unsigned_t<K>;
    return static_cast<unsigned long long>(static_cast<U>(k));
  }
}

/// The key whose key_bits are `bits` (the inverse of key_bits on normalised keys).
template <class K>
__host__ __device__ __forceinline__ K key_from_bits(unsigned long long bits) {
  if constexpr (::cuda::std::is_floating_point_v<K>) {
    K k;
    if constexpr (sizeof(K) == 4) {
      const unsigned int u = static_cast<unsigned int>(bits);
      memcpy(&k, &u, sizeof(k));
    } else {
      memcpy(&k, &bits, sizeof(k));
    }
    return k;
  } else {
    using U = ::cuda::std::make_unsigned_t<K>;
    return static_cast<K>(static_cast<U>(bits));
  }
}

/// The key a group stores: the normalised value (-0.0 stored as +0.0, NaN as the canonical NaN).
template <class K>
__host__ __device__ __forceinline__ K normalise(K k) {
  if constexpr (::cuda::std::is_floating_point_v<K>) {
    return key_from_bits<K>(key_bits(k));
  } else {
    return k;
  }
}

/// One compare-and-swap of an accumulator word (device scope); returns the word found.
__device__ __forceinline__ unsigned int cas_word(unsigned int* p, unsigned int expected,
                                                 unsigned int desired) {
  return atomicCAS(p, expected, desired);
}
__device__ __forceinline__ unsigned long long cas_word(unsigned long long* p,
                                                       unsigned long long expected,
                                                       unsigned long long desired) {
  return atomicCAS(p, expected, desired);
}
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
__device__ __forceinline__ word128 cas_word(word128* p, word128 expected, word128 desired) {
  return atomicCAS(p, expected, desired);
}
#endif
__device__ __forceinline__ bool same_word(unsigned int a, unsigned int b) {
  return a == b;
}
__device__ __forceinline__ bool same_word(unsigned long long a, unsigned long long b) {
  return a == b;
}
__device__ __forceinline__ bool same_word(const word128& a, const word128& b) {
  return a.lo == b.lo && a.hi == b.hi;
}

/// Whether this GPU combines V lock-free (a compare-and-swap of its word).
template <class V>
__device__ __forceinline__ constexpr bool cas_combines() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  return sizeof(V) <= 16;
#else
  return sizeof(V) <= 8;
#endif
}

/// Combines v into slot s of the global table, whose key is v's: a compare-and-swap loop on the
/// accumulator's word, or under the slot's lock.
/// Combines v into the accumulator word *acc by a compare-and-swap loop (cas_combines<V>()).
template <class V, class Op>
__device__ __forceinline__ void cas_combine(acc_word<V>* acc, const V& v, const Op& op) {
  acc_word<V> seen = *acc;  // a torn read only fails the first swap
  for (;;) {
    const acc_word<V> desired = to_word<V>(static_cast<V>(op(from_word<V>(seen), v)));
    const acc_word<V> found = cas_word(acc, seen, desired);
    if (same_word(found, seen)) return;
    seen = found;
  }
}

template <::cuda::thread_scope Scope = ::cuda::thread_scope_device, class K, class V, class Op>
__device__ __forceinline__ void combine_global(slot<K, V>& s, const V& v, const Op& op) {
  if constexpr (cas_combines<V>()) {
    cas_combine(&s.acc, v, op);
  } else {
    ::cuda::atomic_ref<unsigned int, Scope> state(s.state);
    for (;;) {
      unsigned int expected = slot_ready;
      if (state.compare_exchange_weak(expected, slot_locked, ::cuda::std::memory_order_acquire)) {
        break;
      }
    }
    s.acc = to_word<V>(static_cast<V>(op(from_word<V>(s.acc), v)));
    state.store(slot_ready, ::cuda::std::memory_order_release);
  }
}

enum : int { probe_other = 0, probe_claimed = 1, probe_found = 2 };

/// One probe of slot s for key k (bits: its key_bits): claims an empty slot, writing k and v into
/// it (probe_claimed), or waits for a slot being written and compares its key (probe_found when
/// it is k, probe_other when not). Scope: the atomics' (block for a table in shared memory).
template <::cuda::thread_scope Scope, class K, class V>
__device__ __forceinline__ int probe(slot<K, V>& s, const K& k, unsigned long long bits,
                                     const V& v) {
  ::cuda::atomic_ref<unsigned int, Scope> state(s.state);
  unsigned int st = state.load(::cuda::std::memory_order_acquire);
  if (st == slot_empty) {
    unsigned int expected = slot_empty;
    if (state.compare_exchange_strong(expected, slot_writing, ::cuda::std::memory_order_relaxed)) {
      s.key = k;
      s.acc = to_word<V>(v);
      state.store(slot_ready, ::cuda::std::memory_order_release);
      return probe_claimed;
    }
    st = expected;
  }
  while (st == slot_writing)
    st = state.load(::cuda::std::memory_order_acquire);
  return key_bits(s.key) == bits ? probe_found : probe_other;
}

/// Combines (k, v) into the table of mask + 1 slots shared by every thread of `Scope` (the global
/// table: device; a block's table in shared memory: block), probing from h: claims an empty slot
/// for a new key, or combines v into the key's slot. Returns false when every slot was probed
/// (a full table).
template <::cuda::thread_scope Scope = ::cuda::thread_scope_device, class K, class V, class Op>
__device__ __forceinline__ bool global_update(slot<K, V>* table, unsigned long long mask,
                                              unsigned long long h, const K& k, const V& v,
                                              const Op& op) {
  const unsigned long long bits = key_bits(k);
  unsigned long long i = h & mask;
  for (unsigned long long p = 0; p <= mask; ++p, i = (i + 1) & mask) {
    slot<K, V>& s = table[i];
    const int found = probe<Scope>(s, k, bits, v);
    if (found == probe_claimed) return true;
    if (found == probe_other) continue;
    combine_global<Scope>(s, v, op);
    return true;
  }
  return false;
}

/// Combines (k, v) into a warp's private table (mask + 1 slots in shared memory), probing at
/// most `probes` slots from h. Called by the leaders of one warp, whose keys differ: claims use
/// an atomic, the accumulators are read and written plainly (no other thread has the key).
/// Returns false when the probes found neither the key nor an empty slot.
template <class K, class V, class Op>
__device__ __forceinline__ bool warp_update(slot<K, V>* table, unsigned int mask,
                                            unsigned long long h, const K& k, const V& v,
                                            const Op& op, int probes) {
  const unsigned long long bits = key_bits(k);
  unsigned int i = static_cast<unsigned int>(h) & mask;
  for (int p = 0; p < probes; ++p, i = (i + 1) & mask) {
    slot<K, V>& s = table[i];
    const int found = probe<::cuda::thread_scope_block>(s, k, bits, v);
    if (found == probe_claimed) return true;
    if (found == probe_other) continue;
    s.acc = to_word<V>(static_cast<V>(op(from_word<V>(s.acc), v)));
    return true;
  }
  return false;
}

/// v from lane `src` (every lane of `mask` calls it), moved in 4-byte words.
template <class V>
__device__ __forceinline__ V shuffle_value(unsigned int mask, const V& v, int src) {
  constexpr int words = static_cast<int>((sizeof(V) + 3) / 4);
  unsigned int w[words] = {};
  memcpy(w, &v, sizeof(V));
#pragma unroll
  for (int j = 0; j < words; ++j)
    w[j] = __shfl_sync(mask, w[j], src);
  V out;
  memcpy(&out, w, sizeof(V));
  return out;
}

/// Combines into the lowest lane of each group of `peers` (lanes with equal keys; every lane of
/// the warp calls it, `row` false for lanes without one) the values of its group's lanes, in
/// lane order: the largest group sets the rounds of shuffles, every active lane in each.
template <class V, class Op>
__device__ __forceinline__ void warp_combine(unsigned int active, unsigned int peers, bool row,
                                             V& acc, const Op& op) {
  const int lane = static_cast<int>(threadIdx.x % 32);
  int rounds = row ? __popc(peers) : 0;
#pragma unroll
  for (int d = 16; d >= 1; d /= 2)
    rounds = max(rounds, __shfl_xor_sync(0xffffffffu, rounds, d));
  if (!row) return;
  const int leader = __ffs(peers) - 1;
  unsigned int rest = peers & (peers - 1);  // the group's lanes after its leader
  for (int r = 1; r < rounds; ++r) {
    const int src = rest != 0 ? __ffs(rest) - 1 : lane;
    const V other = shuffle_value(active, acc, src);
    if (lane == leader && rest != 0) acc = static_cast<V>(op(acc, other));
    rest &= rest - 1;
  }
}

/// HyperLogLog with 2^12 registers (standard error 1.6%): register of a hash and its rank.
inline constexpr int hll_bits = 12;
inline constexpr int hll_registers = 1 << hll_bits;

__host__ __device__ __forceinline__ unsigned int hll_register(unsigned long long h) {
  return static_cast<unsigned int>(h >> (64 - hll_bits));
}
__device__ __forceinline__ unsigned int hll_rank(unsigned long long h) {
  const unsigned long long w = (h << hll_bits) | (1ull << (hll_bits - 1));
  return static_cast<unsigned int>(__clzll(static_cast<long long>(w))) + 1;
}

/// Fills `registers` (hll_registers words, zeroed before) with the sketch of keys[0, n): a block
/// (of Threads threads) keeps its own registers in shared memory and merges them with atomicMax
/// at the end.
template <int Threads, class KeyIt, class Offset>
__device__ __forceinline__ void hll_block(KeyIt keys, Offset n, unsigned int* registers) {
  __shared__ unsigned int local[hll_registers];
  for (int r = threadIdx.x; r < hll_registers; r += Threads)
    local[r] = 0;
  __syncthreads();
  using K = ::cuda::std::remove_cv_t<::cuda::std::remove_reference_t<decltype(*keys)>>;
  // Registers only grow and soon hold the ranks most keys have: read first, so that only the
  // rare key that raises one pays a shared-memory atomic (a stale read costs one extra atomic).
  const auto add = [&](const K& key) {
    const unsigned long long h = mix(key_bits(normalise(key)));
    const unsigned int rank = hll_rank(h);
    unsigned int* reg = &local[hll_register(h)];
    if (rank > *static_cast<volatile unsigned int*>(reg)) atomicMax(reg, rank);
  };
  const Offset stride = static_cast<Offset>(gridDim.x) * Threads;
  Offset i = static_cast<Offset>(blockIdx.x) * Threads + threadIdx.x;
  // Eight keys loaded before any is hashed: one load per thread at a time leaves too few loads in
  // flight for the memory's bandwidth (16 KB of registers a block: at most 14 blocks an SM).
  constexpr int unroll = 8;
  for (; i + (unroll - 1) * stride < n; i += unroll * stride) {
    K k[unroll];
#pragma unroll
    for (int u = 0; u < unroll; ++u)
      k[u] = keys[i + u * stride];
#pragma unroll
    for (int u = 0; u < unroll; ++u)
      add(k[u]);
  }
  for (; i < n; i += stride)
    add(keys[i]);
  __syncthreads();
  for (int r = threadIdx.x; r < hll_registers; r += Threads) {
    if (local[r] != 0) atomicMax(&registers[r], local[r]);
  }
}

/// hll_block as a kernel.
template <int Threads, class KeyIt, class Offset>
__global__ void __launch_bounds__(Threads)
    hll_kernel(KeyIt keys, Offset n, unsigned int* registers) {
  hll_block<Threads, KeyIt, Offset>(keys, n, registers);
}

/// Aggregates the rows [0, n) into the global table (mask + 1 slots, zeroed before), a warp of
/// rows at a time: equal keys within the warp combined by their leader, then the warp's private
/// table of WarpSlots slots in shared memory, or the global table when that has no room. Each warp
/// adds its private groups to the global table at the end, or, with `partials`, appends them there
/// (the count in *partial_count). `d_n`, when not null, holds n (a count an earlier kernel wrote).
/// Sets *overflow when the global table has no room for a key (the warp then stops: the caller
/// discards the table).
template <int Threads, int WarpSlots, class KeyIt, class ValueIt, class K, class V, class Op,
          class Offset>
__global__ void __launch_bounds__(Threads)
    aggregate_kernel(KeyIt keys, CUPAR_KERNEL_OPERATOR ValueIt values, Offset n,
                     const unsigned long long* d_n, slot<K, V>* table, unsigned long long mask,
                     CUPAR_KERNEL_OPERATOR Op op, unsigned int* overflow, slot<K, V>* partials,
                     unsigned long long* partial_count) {
  if (d_n != nullptr) n = static_cast<Offset>(*d_n);
  constexpr int warps = Threads / 32;
  __shared__ alignas(
      slot<K, V>) unsigned char private_bytes[warps * WarpSlots * sizeof(slot<K, V>)];
  const int lane = static_cast<int>(threadIdx.x % 32);
  const int warp = static_cast<int>(threadIdx.x / 32);
  slot<K, V>* mine = reinterpret_cast<slot<K, V>*>(private_bytes) + warp * WarpSlots;
  for (int j = lane; j < WarpSlots; j += 32)
    mine[j].state = slot_empty;
  __syncwarp();
  ::cuda::atomic_ref<unsigned int, ::cuda::thread_scope_device> overflowed(*overflow);
  bool stop = false;
  // After 64 misses the private table is taken to be full (more groups than it holds): later
  // rows go straight to the global table.
  int misses = 0;
  // A key probes 8 slots of the private table, or all of them where the table holds every
  // expected group (the two-pass regime: `partials`, and its second pass, which reads its count
  // from d_n): a key that found no room within 8 probes of a half-empty table (its neighbours'
  // run) sent its rows to the global table, and after 64 such rows the warp sent every row there,
  // thousands of compare-and-swap loops on each of a few slots (2^26 rows of 100 groups: from
  // 4 ms to over 100 ms for some sets of keys).
  const int probes = partials != nullptr || d_n != nullptr ? WarpSlots : 8;
  const Offset stride = static_cast<Offset>(gridDim.x) * Threads;
  for (Offset base = static_cast<Offset>(blockIdx.x) * Threads + static_cast<Offset>(warp) * 32;
       base < n && !stop; base += stride) {
    const Offset i = base + lane;
    const bool row = i < n;
    const unsigned int active = __ballot_sync(0xffffffffu, row);
    bool missed = false;
    K k{};
    V acc;
    unsigned long long bits = 0;
    unsigned int peers = 0;
    if (row) {
      k = normalise(static_cast<K>(keys[i]));
      acc = static_cast<V>(values[i]);
      bits = key_bits(k);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
      peers = __match_any_sync(active, bits);
#else
      peers = 1u << lane;
#endif
    }
    warp_combine(active, peers, row, acc, op);
    if (row) {
      if (lane == __ffs(peers) - 1) {
        const unsigned long long h = mix(bits);
        if (misses >= 64 || !warp_update(mine, WarpSlots - 1, h, k, acc, op, probes)) {
          missed = true;
          if (overflowed.load(::cuda::std::memory_order_relaxed) != 0 ||
              !global_update(table, mask, h, k, acc, op)) {
            overflowed.store(1u, ::cuda::std::memory_order_relaxed);
          }
        }
      }
    }
    misses += __popc(__ballot_sync(0xffffffffu, missed));
    stop = overflowed.load(::cuda::std::memory_order_relaxed) != 0;
    stop = __any_sync(0xffffffffu, stop);
    __syncwarp();
  }
  if (stop) return;
  __syncwarp();
  if (partials != nullptr) {
    // Few groups: every warp holds the same ones, and adding them all to the global table would
    // queue thousands of updates on each slot. Append them to `partials` instead (a second pass
    // with a small grid aggregates those).
    for (int j0 = 0; j0 < WarpSlots; j0 += 32) {
      const int j = j0 + lane;
      const bool ready = j < WarpSlots && mine[j].state == slot_ready;
      const unsigned int which = __ballot_sync(0xffffffffu, ready);
      if (which == 0) continue;
      unsigned long long at = 0;
      if (lane == 0) at = atomicAdd(partial_count, static_cast<unsigned long long>(__popc(which)));
      at = __shfl_sync(0xffffffffu, at, 0);
      if (ready) {
        slot<K, V>& out = partials[at + __popc(which & ((1u << lane) - 1u))];
        out.key = mine[j].key;
        out.acc = mine[j].acc;
      }
    }
    return;
  }
  for (int j = lane; j < WarpSlots; j += 32) {
    if (mine[j].state != slot_ready) continue;
    const K k = mine[j].key;
    if (!global_update(table, mask, mix(key_bits(k)), k, from_word<V>(mine[j].acc), op)) {
      overflowed.store(1u, ::cuda::std::memory_order_relaxed);
      return;
    }
  }
}

/// The keys and the accumulators of an array of slots, as the aggregation reads its rows.
template <class K, class V>
struct slot_keys {
  const slot<K, V>* p;
  __device__ __forceinline__ K operator[](unsigned long long i) const { return p[i].key; }
};
template <class K, class V>
struct slot_values {
  const slot<K, V>* p;
  __device__ __forceinline__ V operator[](unsigned long long i) const {
    return from_word<V>(p[i].acc);
  }
};

/// Keys equal as group keys: by their normalised bits (NaN equals NaN).
struct same_key_bits {
  template <class K>
  __device__ __forceinline__ bool operator()(const K& a, const K& b) const {
    return key_bits(a) == key_bits(b);
  }
};

/// Writes the ready slots' keys and accumulators at the positions `index` lists (the i-th group
/// from slot index[i]).
template <class K, class V, class Index, class KeyOut, class ValueOut>
__global__ void gather_groups_kernel(const slot<K, V>* table, const Index* index,
                                     unsigned long long groups, KeyOut keys_out,
                                     ValueOut values_out) {
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long i =
           static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < groups; i += stride) {
    const slot<K, V>& s = table[index[i]];
    keys_out[i] = s.key;
    values_out[i] = from_word<V>(s.acc);
  }
}

// ---- a table a block: each block aggregates its share of the rows in a table in shared memory
// and adds its groups to the global table once at the end. Beyond what one table holds, the rows
// are first partitioned by a bijective mix of their keys (a radix pass over its low bits), so
// that each block sees the keys of one part only.

/// murmur3's finalisers, which are bijections: a key's bits mixed for the partition (32 bits for
/// keys of up to 4 bytes, 64 above), and back.
__host__ __device__ __forceinline__ unsigned int part_mix(unsigned int h) {
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  return h;
}
__host__ __device__ __forceinline__ unsigned int part_unmix(unsigned int h) {
  h ^= h >> 16;
  h *= 0x7ed1b41du;  // the inverse of 0xc2b2ae35 modulo 2^32
  h ^= (h >> 13) ^ (h >> 26);
  h *= 0xa5cb9243u;  // the inverse of 0x85ebca6b
  h ^= h >> 16;
  return h;
}
__host__ __device__ __forceinline__ unsigned long long part_mix(unsigned long long h) {
  return mix(h);
}
__host__ __device__ __forceinline__ unsigned long long part_unmix(unsigned long long h) {
  h ^= h >> 33;
  h *= 0x9cb4b2f8129337dbull;  // the inverse of 0xc4ceb9fe1a85ec53 modulo 2^64
  h ^= h >> 33;
  h *= 0x4f74430c22a54005ull;  // the inverse of 0xff51afd7ed558ccd
  h ^= h >> 33;
  return h;
}

/// The word a partitioned key travels in.
template <class K>
using part_word = ::cuda::std::conditional_t<sizeof(K) <= 4, unsigned int, unsigned long long>;

/// The rows as given: key i normalised, its hash, value i.
template <class K, class V, class KeyIt, class ValueIt>
struct direct_rows {
  KeyIt keys;
  ValueIt values;
  __device__ __forceinline__ void load(unsigned long long i, K& k, unsigned long long& h,
                                       V& v) const {
    k = normalise(static_cast<K>(keys[i]));
    if constexpr (sizeof(K) <= 4) {
      h = part_mix(static_cast<unsigned int>(key_bits(k)));  // block_table's key word
    } else {
      h = mix(key_bits(k));
    }
    v = static_cast<V>(values[i]);
  }
};

/// Partitioned rows: the keys' mixed bits (part_mix; the hash itself) and the values.
template <class K, class V, class ValueIt>
struct mixed_rows {
  const part_word<K>* mixed;
  ValueIt values;
  __device__ __forceinline__ void load(unsigned long long i, K& k, unsigned long long& h,
                                       V& v) const {
    const part_word<K> w = mixed[i];
    k = key_from_bits<K>(part_unmix(w));
    h = w;
    v = static_cast<V>(values[i]);
  }
};

/// Writes each row's mixed key bits and (when payload_out is not null) its payload get(i).
template <class K, class KeyIt, class Get, class P>
__global__ void mix_inputs_kernel(KeyIt keys, Get get, unsigned long long n, part_word<K>* mixed,
                                  P* payload_out) {
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long i =
           static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < n; i += stride) {
    mixed[i] = part_mix(static_cast<part_word<K>>(key_bits(normalise(static_cast<K>(keys[i])))));
    if (payload_out != nullptr) payload_out[i] = static_cast<P>(get(i));
  }
}

/// starts[p] for p in [0, parts]: the first row of part p in `mixed` (sorted by its low bits;
/// parts a power of two), starts[parts] = n.
template <class W>
__global__ void part_starts_kernel(const W* mixed, unsigned long long n, unsigned int parts,
                                   unsigned long long* starts) {
  const unsigned int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p > parts) return;
  if (p == parts) {
    starts[p] = n;
    return;
  }
  unsigned long long lo = 0, hi = n;
  while (lo < hi) {
    const unsigned long long mid = lo + (hi - lo) / 2;
    if (static_cast<unsigned int>(mixed[mid] & (parts - 1)) < p) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  starts[p] = lo;
}

/// The key words that mark a block_table's empty slot and a slot being claimed. The two keys whose
/// mixed words these are have the table's two extra slots.
inline constexpr unsigned int empty_key_word = 0xffffffffu;
inline constexpr unsigned int busy_key_word = 0xfffffffeu;

/// A block's table in shared memory (the table method), over `slots` slots (a power of two, at
/// least 4) at `base`. Keys of up to 4 bytes ("split"): the slots' keys are 4-byte words, the
/// keys' bits mixed by part_mix (a bijection, so the key comes back by part_unmix), in buckets of
/// four that one 16-byte load reads; a key is claimed by swapping an empty word for busy_key_word,
/// writing the row's value and then the key's word. The two keys whose words are the markers have
/// the extra slots `slots` and `slots + 1`, each claimed through a state word. The accumulators'
/// words sit apart, with a lock word a slot for accumulators that no compare-and-swap combines:
/// 24 bytes a slot for a 16-byte accumulator, 8,192 slots in 192 KB. Larger keys: slots as the
/// global table's, each with its state.
template <class K, class V>
struct block_table {
  static constexpr bool split = sizeof(K) <= 4;
  /// The bytes a slot takes.
  static constexpr unsigned long long slot_bytes =
      split ? 8 + sizeof(acc_word<V>) : sizeof(slot<K, V>);
  unsigned char* base;
  unsigned int slots;

  // split: keys [0, 4 slots), the extra slots' states (8 bytes), locks (slots + 2 words), the
  // accumulators from 8 slots + 16 (16-byte aligned), slots + 2 of them: (slots + 2) x
  // slot_bytes in all, what the host gives the kernel (block_table_bytes, group_by_sizing.hpp).
  __device__ __forceinline__ unsigned int* keys() const {
    return reinterpret_cast<unsigned int*>(base);
  }
  __device__ __forceinline__ unsigned int* extra_states() const { return keys() + slots; }
  __device__ __forceinline__ unsigned int* locks() const { return keys() + slots + 2; }
  __device__ __forceinline__ acc_word<V>* accs() const {
    return reinterpret_cast<acc_word<V>*>(base + 8ull * slots + 16);
  }
  __device__ __forceinline__ slot<K, V>* table() const {
    return reinterpret_cast<slot<K, V>*>(base);
  }
  /// The slots the table's groups may be in: [0, end()).
  __device__ __forceinline__ unsigned int end() const { return split ? slots + 2 : slots; }
  /// Empties the table (every thread of the block calls it; the block meets after).
  __device__ __forceinline__ void clear(unsigned int thread, unsigned int threads) const {
    for (unsigned int j = thread; j < slots; j += threads) {
      if constexpr (split) {
        keys()[j] = empty_key_word;
        locks()[j] = 0;
      } else {
        table()[j].state = slot_empty;
      }
    }
    if constexpr (split) {
      if (thread < 2) extra_states()[thread] = slot_empty, locks()[slots + thread] = 0;
    }
  }
  __device__ __forceinline__ bool ready(unsigned int j) const {
    if constexpr (split) {
      return j < slots ? keys()[j] < busy_key_word : extra_states()[j - slots] == slot_ready;
    } else {
      return table()[j].state == slot_ready;
    }
  }
  __device__ __forceinline__ K key(unsigned int j) const {
    if constexpr (split) {
      const unsigned int w = j < slots ? keys()[j] : (j == slots ? empty_key_word : busy_key_word);
      return key_from_bits<K>(part_unmix(w));
    } else {
      return table()[j].key;
    }
  }
  __device__ __forceinline__ V value(unsigned int j) const {
    if constexpr (split) {
      return from_word<V>(accs()[j]);
    } else {
      return from_word<V>(table()[j].acc);
    }
  }

  // ---- split tables
  /// Bucket b's four key words (a volatile read: other threads claim slots meanwhile).
  __device__ __forceinline__ uint4 bucket(unsigned int b) const {
    uint4 q;
    const unsigned int at = static_cast<unsigned int>(__cvta_generic_to_shared(keys() + 4 * b));
    asm volatile("ld.volatile.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(q.x), "=r"(q.y), "=r"(q.z), "=r"(q.w)
                 : "r"(at)
                 : "memory");
    return q;
  }
  /// The bits of the bucket's slots whose word is w.
  static __device__ __forceinline__ unsigned int matches(const uint4& q, unsigned int w) {
    return (q.x == w ? 1u : 0u) | (q.y == w ? 2u : 0u) | (q.z == w ? 4u : 0u) |
           (q.w == w ? 8u : 0u);
  }
  /// Combines (w, v) into the table: w is a key's mixed word, its buckets probed from b, whose
  /// words `q` were read. False when every bucket is full.
  template <class Op>
  __device__ __forceinline__ bool update(unsigned int w, unsigned int b, uint4 q, const V& v,
                                         const Op& op) const {
    if (w >= busy_key_word) {  // a marker's key: its extra slot, claimed through its state
      const unsigned int j = w == empty_key_word ? 0 : 1;
      unsigned int* state = extra_states() + j;
      if (atomicCAS(state, slot_empty, slot_writing) == slot_empty) {
        accs()[slots + j] = to_word<V>(v);
        __threadfence_block();
        atomicExch(state, slot_ready);
      } else {
        while (*static_cast<volatile unsigned int*>(state) != slot_ready) {
        }
        __threadfence_block();
        combine(slots + j, v, op);
      }
      return true;
    }
    const unsigned int buckets = slots / 4;
    for (unsigned int probed = 0; probed < buckets;) {
      const unsigned int m = matches(q, w);
      if (m != 0) {
        combine(4 * b + __ffs(static_cast<int>(m)) - 1, v, op);
        return true;
      }
      if (matches(q, busy_key_word) != 0) {  // a slot being claimed, perhaps for w: wait
        q = bucket(b);
        continue;
      }
      const unsigned int e = matches(q, empty_key_word);
      if (e == 0) {  // full, and the key is not in it: the next bucket
        b = (b + 1) & (buckets - 1);
        ++probed;
        q = bucket(b);
        continue;
      }
      const unsigned int t = 4 * b + __ffs(static_cast<int>(e)) - 1;
      if (atomicCAS(keys() + t, empty_key_word, busy_key_word) == empty_key_word) {
        accs()[t] = to_word<V>(v);
        __threadfence_block();
        atomicExch(keys() + t, w);
        return true;
      }
      q = bucket(b);  // another row took the slot: read the bucket again
    }
    return false;
  }
  /// Combines v into the accumulator of slot j, whose first value was written.
  template <class Op>
  __device__ __forceinline__ void combine(unsigned int j, const V& v, const Op& op) const {
    if constexpr (cas_combines<V>()) {
      cas_combine(&accs()[j], v, op);  // a stale first read only fails the first swap
    } else {
      while (atomicCAS(locks() + j, 0u, 1u) != 0u) {
      }
      __threadfence_block();
      accs()[j] = to_word<V>(static_cast<V>(op(from_word<V>(accs()[j]), v)));
      __threadfence_block();
      atomicExch(locks() + j, 0u);
    }
  }

  /// Larger keys: combines (k, v) into the table, probing from h; false when every slot was
  /// probed.
  template <class Op>
  __device__ __forceinline__ bool update(unsigned long long h, const K& k, const V& v,
                                         const Op& op) const {
    return global_update<::cuda::thread_scope_block>(table(), slots - 1, h, k, v, op);
  }
};

/// The rows a lane of block_table_kernel loads before it combines the first of them: Unroll, or
/// Op::block_table_batch where the operator names fewer (the JIT's out-of-line build, whose calls
/// of the operator would keep Unroll rows' values and buckets in local memory).
template <class Op, int Unroll, class = void>
struct table_batch {
  static constexpr int value = Unroll;
};
template <class Op, int Unroll>
struct table_batch<Op, Unroll, ::cuda::std::void_t<decltype(Op::block_table_batch)>> {
  static constexpr int value = Op::block_table_batch < Unroll ? Op::block_table_batch : Unroll;
};

/// Flags of the table kernel's *overflow.
enum : unsigned int { global_full = 1, block_full = 2 };

/// Writes the block's groups to table[base, base + count) of a global table of `capacity` slots
/// (count: the block's; every thread of the block calls it; the table is only written, so it
/// needs no clearing), a warp's ready slots of each round of 32 to consecutive slots. The ready
/// slots are counted first, a range of the table reserved through *appended, then written; sets
/// global_full in *overflow where the range does not fit.
template <int Threads, class K, class V>
__device__ __forceinline__ void append_groups(const block_table<K, V>& local, slot<K, V>* table,
                                              unsigned long long capacity, unsigned int* appended,
                                              unsigned int* overflow) {
  __shared__ unsigned int block_count;
  __shared__ unsigned long long block_base;
  const int lane = static_cast<int>(threadIdx.x % 32);
  const unsigned int below = (1u << lane) - 1u;
  if (threadIdx.x == 0) block_count = 0;
  __syncthreads();
  unsigned int mine = 0;  // the warp's ready slots
  for (unsigned int r = 0; r < local.end(); r += Threads) {
    const unsigned int j = r + threadIdx.x;
    mine += __popc(__ballot_sync(0xffffffffu, j < local.end() && local.ready(j)));
  }
  unsigned int warp_base = 0;
  if (lane == 0) warp_base = atomicAdd(&block_count, mine);
  warp_base = __shfl_sync(0xffffffffu, warp_base, 0);
  __syncthreads();
  if (threadIdx.x == 0) {
    block_base = atomicAdd(appended, block_count);
    if (block_base + block_count > capacity) atomicOr(overflow, global_full);
  }
  __syncthreads();
  if (block_base + block_count > capacity) return;
  unsigned long long at = block_base + warp_base;
  for (unsigned int r = 0; r < local.end(); r += Threads) {
    const unsigned int j = r + threadIdx.x;
    const bool ready = j < local.end() && local.ready(j);
    const unsigned int ballot = __ballot_sync(0xffffffffu, ready);
    if (ready) {
      slot<K, V>& out = table[at + __popc(ballot & below)];
      out.key = local.key(j);
      out.acc = to_word<V>(local.value(j));
      out.state = slot_ready;
    }
    at += __popc(ballot);
  }
}

/// The groups append_groups wrote to a table's first slots as a compaction of its ready slots
/// would list them: index[i] = i below the appended count (at most `capacity`), which goes to
/// *count.
template <class Index>
__global__ void appended_index_kernel(const unsigned int* appended, unsigned long long capacity,
                                      Index* index, Index* count) {
  const unsigned long long total = *appended < capacity ? *appended : capacity;
  if (blockIdx.x == 0 && threadIdx.x == 0) *count = static_cast<Index>(total);
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long i =
           static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < total; i += stride)
    index[i] = static_cast<Index>(i);
}

/// Aggregates rows into a block_table of `table_slots` slots (a power of two) in dynamic shared
/// memory (block_table_bytes(table_slots, block_table<K, V>::slot_bytes)), then adds the table's
/// groups to the global table (mask + 1 slots, zeroed unless the blocks append). Without `starts`,
/// the blocks share rows [0, n); with it, blocks_per_part blocks share each part's rows [starts[p],
/// starts[p + 1]). A warp takes Unroll x 32 consecutive rows at a time, all loaded before the first
/// is combined, each lane's row on its own (combining a warp's equal keys in registers first, as
/// aggregate_kernel does, was slower from 1,024 groups up: H200, 2026-11-29). Keys of up to 4
/// bytes: the rows' hashes are their keys' mixed words (Rows gives part_mix of the key's bits), the
/// bucket of a word w is (w >> shift) mod the buckets, every row's first bucket read before the
/// first row is combined. Larger keys: the slot of a hash h is (h >> shift) & (table_slots - 1). A
/// part's keys are its block's alone when it has one block (`starts` given, blocks_per_part 1): the
/// block appends its groups to the global table's first slots (append_groups, through overflow[1],
/// the count of slots appended; `mask + 1` the table's slots, any number); otherwise each group is
/// combined into the global table (mask + 1 slots, a power of two) by its key's hash. Sets
/// block_full in overflow[0] when a block's table fills (the caller aggregates another way) and
/// global_full when the global table does.
template <int Threads, int Unroll, class K, class V, class Rows, class Op>
__global__ void __launch_bounds__(Threads)
    block_table_kernel(CUPAR_KERNEL_OPERATOR Rows rows, unsigned long long n,
                       const unsigned long long* starts, unsigned int blocks_per_part,
                       unsigned int table_slots, int shift, slot<K, V>* table,
                       unsigned long long mask, CUPAR_KERNEL_OPERATOR Op op,
                       unsigned int* overflow) {
  extern __shared__ __align__(16) unsigned char block_table_bytes[];
  using local_table = block_table<K, V>;
  const local_table local{block_table_bytes, table_slots};
  __shared__ int full;
  local.clear(threadIdx.x, Threads);
  if (threadIdx.x == 0) full = 0;
  __syncthreads();
  const unsigned int part = blockIdx.x / blocks_per_part;
  const unsigned int slice = blockIdx.x % blocks_per_part;
  const unsigned long long begin = starts != nullptr ? starts[part] : 0;
  const unsigned long long end = starts != nullptr ? starts[part + 1] : n;
  const int lane = static_cast<int>(threadIdx.x % 32);
  constexpr unsigned long long chunk = static_cast<unsigned long long>(Threads) * Unroll;
  const unsigned long long warp_rows =
      static_cast<unsigned long long>(threadIdx.x / 32) * 32 * Unroll;
  bool failed = false;
  // Rows in flight: a lane's Unroll rows are loaded, in groups of `batch`, before the group's
  // first row is combined (table_batch: fewer where the operator asks).
  constexpr int batch = table_batch<Op, Unroll>::value;
  static_assert(batch > 0 && Unroll % batch == 0, "block_table_kernel: the batch divides Unroll");
  for (unsigned long long c = begin + slice * chunk; c < end; c += blocks_per_part * chunk) {
#pragma unroll 1
    for (int b = 0; b < Unroll; b += batch) {
      const unsigned long long row = c + warp_rows + lane + b * 32u;  // this batch's first row
      K ks[batch];
      unsigned long long hs[batch];
      V vs[batch];
#pragma unroll
      for (int u = 0; u < batch; ++u)
        if (row + u * 32u < end) rows.load(row + u * 32u, ks[u], hs[u], vs[u]);
      if constexpr (local_table::split) {
        const unsigned int bucket_mask = table_slots / 4 - 1;
        uint4 first[batch];
#pragma unroll
        for (int u = 0; u < batch; ++u) {
          if (row + u * 32u < end)
            first[u] = local.bucket((static_cast<unsigned int>(hs[u]) >> shift) & bucket_mask);
        }
#pragma unroll
        for (int u = 0; u < batch; ++u) {
          const unsigned int w = static_cast<unsigned int>(hs[u]);
          if (row + u * 32u < end && !failed &&
              !local.update(w, (w >> shift) & bucket_mask, first[u], vs[u], op)) {
            failed = true;
          }
          // The lanes meet again after each row: probes and compare-and-swap loops of different
          // lengths would otherwise leave the warp divided for the rest of the loop.
          __syncwarp();
        }
      } else {
#pragma unroll
        for (int u = 0; u < batch; ++u) {
          if (row + u * 32u < end && !failed && !local.update(hs[u] >> shift, ks[u], vs[u], op))
            failed = true;
          __syncwarp();
        }
      }
    }
    if (failed) full = 1;
    if (__any_sync(0xffffffffu, *static_cast<volatile int*>(&full) != 0)) break;
  }
  __syncthreads();
  if (full != 0) {
    if (threadIdx.x == 0) atomicOr(overflow, block_full);
    return;
  }
  if (starts != nullptr && blocks_per_part == 1) {
    append_groups<Threads>(local, table, mask + 1, overflow + 1, overflow);
    return;
  }
  for (unsigned int j = threadIdx.x; j < local.end(); j += Threads) {
    if (!local.ready(j)) continue;
    const K k = local.key(j);
    if (!global_update(table, mask, mix(key_bits(k)), k, local.value(j), op)) {
      atomicOr(overflow, global_full);
      return;
    }
  }
}

}  // namespace cupar::detail::hash
