// cupar: top-k selection (include/cupar/top_k.hpp), a radix select on the device.
//
// Every key becomes its order-preserving unsigned bits ("ordered": what CUB's radix sort sorts,
// -0.0 as +0.0, inverted for a descending order), so that the k items wanted are those with the
// k smallest (ordered key, position) pairs. Pass d (from the most significant byte) counts, over
// the keys whose higher bytes equal the digits chosen so far, how many have each value of byte d
// (a histogram of 256 bins per block, added to one in device memory); the pass's last block to
// finish then finds, with a warp's scan of the bins, the one holding the k-th item, which fixes
// byte d and how many of that bin are still needed. After the key's bytes the threshold key T is
// exact; the items with ordered < T are all taken, and of the keys equal to T (the ties) the `need`
// lowest positions, found the same way on the positions' bytes (skipped, on the device, when every
// tie is taken).
//
// Compaction: after the first pass whose chosen bin holds at most n / 16 items, one pass over the
// keys writes the items of that bin (ordered key, position) to a buffer and the items of the bins
// before it, which are all taken, straight to the output; every later pass reads the buffer
// instead of the n keys. On keys spread over the range that happens after the first pass, so two
// passes read the n keys whatever the key's width; on keys sharing their high bytes, a pass or
// two later. The last pass takes the rest of the k items from the buffer (or from the keys when
// no bin was small enough). Up to small_rank_max_k taken items are ordered by one block that
// counts each one's rank and writes the keys and positions (rank_taken); more by one radix sort
// of the k (ordered key, position) items, the outputs then gathered by position. No host
// synchronisation: every choice stays in device memory and a step that has nothing to do returns at
// once. The passes run in one cooperative launch (select_passes: its blocks resident at once, a
// grid-wide barrier between passes), or, while the stream captures a graph or where the device has
// no cooperative launch, as a chain of kernels, one a pass.
//
// A sampled threshold first (from sample_min_keys keys, k <= n / 64): one block radix-selects,
// among 4,096 evenly spaced keys, the key at sample_threshold_rank (top_k_sample.hpp), a bound T_s
// above the k-th key with a wide margin; one pass over the keys (eight loads a thread before any
// append) buffers every item whose ordered key is at most T_s. When the buffer holds at least k
// items and did not overflow (decided on the device) the passes read only it: every item outside
// has a key above T_s, above every buffered one, so the k wanted items are all inside. Otherwise
// the buffer is dropped and the passes read the keys as above. Below sample_min_keys keys there
// are no passes: from 2^12 keys with k <= 2,048 one block does the whole selection
// (small_select: the same byte-at-a-time threshold with its histograms in shared memory, the k
// items placed there in position order by block-wide scans, a block radix sort of them), one
// launch where a device-wide radix sort of every item takes several; otherwise one radix sort of
// every (ordered key, position) item on the key's bits (stable, so equal keys stay in position
// order), the first k taken.
#include "compiled/index_gather.hpp"
#include "compiled/library_types.hpp"
#include "compiled/top_k_sample.hpp"

#include <cupar/detail/checks.hpp>
#include <cupar/detail/cuda_check.hpp>
#include <cupar/detail/device/radix_order.cuh>
#include <cupar/detail/device_guard.hpp>
#include <cupar/detail/temp_storage.hpp>
#include <cupar/top_k.hpp>

#include <cooperative_groups.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cuda/std/tuple>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>

namespace cupar::detail {
namespace {

constexpr int kBins = 256;
constexpr int kThreads = 256;
using ull = unsigned long long;

/// The sampled threshold: from this many keys, where k <= n / sample_max_fraction; its sample's
/// keys (one block of sample_threads, sample_items a thread); the buffering pass's loads a thread.
constexpr ull sample_min_keys = ull(1) << 16;
constexpr ull sample_max_fraction = 64;
constexpr int sample_threads = 1024;
constexpr int sample_items = 4;
constexpr ull sample_keys = static_cast<ull>(sample_threads) * sample_items;
constexpr int buffer_loads = 8;

/// What the passes decide, in device memory (the temporary storage's first bytes).
struct select_state {
  ull prefix;        // the ordered key's bytes chosen so far (then T)
  ull need;          // how many items of the chosen prefix are still to take
  ull index_prefix;  // the positions' bytes chosen among the ties (then I)
  ull index_need;
  ull taken;            // items appended to the output
  ull buffered;         // items in the compaction buffer
  ull bound;            // the sampled threshold T_s (an ordered key)
  unsigned all_ties;    // every tie is taken: the position passes do nothing
  unsigned compacted;   // the passes read the buffer
  unsigned compacting;  // the chosen bin is small enough: the next kernel compacts
  unsigned done;        // blocks of the running pass that finished (last_block)
  ull hist[kBins];
};

/// An item: its ordered key, then its position (the sort's order: key, then position).
template <class U, class Index>
struct chosen {
  U key;
  Index position;
};
struct chosen_decomposer {
  template <class U, class Index>
  __host__ __device__ ::cuda::std::tuple<U&, Index&> operator()(chosen<U, Index>& c) const {
    return {c.key, c.position};
  }
};

/// The items a pass reads: the n keys, or the compaction buffer once it is filled. Every thread
/// of a block runs the same iterations of `f(valid, ordered key, position)` (the bound is per
/// block), so a warp may vote in it.
template <class K, class Index, class F>
__device__ __forceinline__ void for_each_item(const K* keys, ull n,
                                              const chosen<uint_of_t<K>, Index>* buffer,
                                              bool from_buffer, ull buffered, bool descending,
                                              F&& f) {
  const ull count = from_buffer ? buffered : n;
  const ull stride = static_cast<ull>(gridDim.x) * blockDim.x;
  for (ull base = static_cast<ull>(blockIdx.x) * blockDim.x; base < count; base += stride) {
    const ull i = base + threadIdx.x;
    if (i >= count) {
      f(false, ull(0), ull(0));
    } else if (from_buffer) {
      f(true, static_cast<ull>(buffer[i].key), static_cast<ull>(buffer[i].position));
    } else {
      f(true, static_cast<ull>(ordered_bits(keys[i], descending)), i);
    }
  }
}

/// Adds a block's bins to the histogram in device memory.
__device__ __forceinline__ void flush_bins(const unsigned* bins, select_state* st) {
  __syncthreads();
  for (int t = threadIdx.x; t < kBins; t += blockDim.x) {
    if (bins[t] != 0) atomicAdd(&st->hist[t], static_cast<ull>(bins[t]));
  }
}

/// Whether this block is the last of the `blocks` first blocks of its grid (all of them by
/// default) to finish, every such block's writes to device memory before the call (atomics
/// included) then visible to it: each block takes a ticket after a fence; the last one resets
/// the counter for the next pass.
__device__ __forceinline__ bool last_block(select_state* st, unsigned blocks = 0) {
  __shared__ bool last;
  const unsigned counted = blocks != 0 ? blocks : gridDim.x;
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) {
    last = atomicAdd(&st->done, 1u) == counted - 1;
    if (last) st->done = 0;
  }
  __syncthreads();
  return last;
}

__device__ void choose_digit(select_state* st, int shift, bool positions, bool last, ull capacity);

/// Histogram of the byte at `shift` of the ordered keys whose bits under `high` equal the
/// prefix (positions: of the positions of the ties, ordered key == T, whose position bits under
/// `high` equal the position prefix; nothing when every tie is taken); the grid's last block then
/// chooses the digit (choose_digit).
template <class K, class Index>
__device__ __forceinline__ void histogram_pass(const K* keys, ull n,
                                               const chosen<uint_of_t<K>, Index>* buffer,
                                               select_state* st, int shift, ull high,
                                               bool positions, bool last, ull capacity,
                                               bool descending) {
  if (positions && st->all_ties != 0) return;
  // Over a buffer of fewer items than the grid has threads, only the blocks with items take part
  // (a grid sized for the n keys over a few thousand buffered items: the others return at once).
  // A block that starts after the last one chose the digit (one that does not take part) reads
  // the same count: a buffer once read stays read and its size does not change during a pass,
  // and a pass over the n keys has every block take part (pass_blocks: at most one per 4 tiles).
  const bool from_buffer = (st->compacted | st->compacting) != 0;
  const ull count = from_buffer ? st->buffered : n;
  const ull needed = (count + blockDim.x - 1) / blockDim.x;
  const unsigned taking_part =
      needed < gridDim.x ? static_cast<unsigned>(needed > 0 ? needed : 1) : gridDim.x;
  if (blockIdx.x >= taking_part) return;
  __shared__ unsigned bins[kBins];
  for (int t = threadIdx.x; t < kBins; t += blockDim.x)
    bins[t] = 0;
  __syncthreads();
  const ull threshold = st->prefix;
  const ull prefix = (positions ? st->index_prefix : st->prefix) & high;
  for_each_item<K, Index>(keys, n, buffer, from_buffer, st->buffered, descending,
                          [&](bool valid, ull u, ull i) {
                            if (!valid) return;
                            if (positions) {
                              if (u == threshold && (i & high) == prefix) {
                                atomicAdd(&bins[(i >> shift) & 0xFF], 1u);
                              }
                            } else if ((u & high) == prefix) {
                              atomicAdd(&bins[(u >> shift) & 0xFF], 1u);
                            }
                          });
  flush_bins(bins, st);
  if (last_block(st, taking_part) && threadIdx.x < 32) {
    choose_digit(st, shift, positions, last, capacity);
  }
}
template <class K, class Index>
__global__ void __launch_bounds__(kThreads)
    histogram(const K* keys, ull n, const chosen<uint_of_t<K>, Index>* buffer, select_state* st,
              int shift, ull high, bool positions, bool last, ull capacity, bool descending) {
  histogram_pass<K, Index>(keys, n, buffer, st, shift, high, positions, last, capacity, descending);
}

/// One warp: the bin of `bins` (kBins counts) holding the `need`-th item (from 1), and how many
/// items the bins before it hold; lane l reads bins [8 l, 8 l + 8), a scan of the lanes' sums
/// finds the lane. Every lane returns the answer.
template <class Count>
__device__ __forceinline__ void find_bin(const Count* bins, ull need, int& digit, ull& before) {
  const unsigned lane = threadIdx.x & 31u;
  ull mine[8];
  ull sum = 0;
  for (int b = 0; b < 8; ++b) {
    mine[b] = static_cast<ull>(bins[lane * 8 + b]);
    sum += mine[b];
  }
  ull inclusive = sum;
  for (int o = 1; o < 32; o <<= 1) {
    const ull up = __shfl_up_sync(0xFFFFFFFFu, inclusive, o);
    if (lane >= static_cast<unsigned>(o)) inclusive += up;
  }
  // The total is at least `need` (the caller's invariant); the last lane otherwise.
  const unsigned reached = __ballot_sync(0xFFFFFFFFu, inclusive >= need);
  const int holder = reached != 0 ? __ffs(static_cast<int>(reached)) - 1 : 31;
  ull at = inclusive - sum;
  int d = 7;
  for (int b = 0; b < 8; ++b) {
    if (at + mine[b] >= need) {
      d = b;
      break;
    }
    at += mine[b];
  }
  digit = __shfl_sync(0xFFFFFFFFu, static_cast<int>(lane) * 8 + d, holder);
  before = __shfl_sync(0xFFFFFFFFu, at, holder);
}

/// A block's radix select, a byte at a time from the most significant: the ordered key of the
/// `need`-th (from 1) smallest of its candidates. `count(shift, high, chosen, bins)` adds to the
/// shared `bins` the byte at `shift` of every candidate whose bits under `high` equal `chosen`
/// (the bytes chosen so far);
/// warp 0 then finds the bin (find_bin). Every thread of the block calls it and gets the key;
/// `need` is left as how many of the candidates equal to it are wanted.
template <int KeyBits, class Count>
__device__ __forceinline__ ull block_radix_select(ull& need, Count&& count) {
  __shared__ unsigned bins[kBins];
  __shared__ ull chosen_prefix;
  __shared__ ull chosen_need;
  ull prefix = 0;
  for (int shift = KeyBits - 8; shift >= 0; shift -= 8) {
    for (int t = threadIdx.x; t < kBins; t += blockDim.x)
      bins[t] = 0;
    __syncthreads();
    const ull high = shift + 8 >= KeyBits ? 0ull : ~0ull << (shift + 8);
    count(shift, high, prefix, bins);
    __syncthreads();
    if (threadIdx.x < 32) {
      int digit = 0;
      ull before = 0;
      find_bin(bins, need, digit, before);
      if (threadIdx.x == 0) {
        chosen_prefix = prefix | (static_cast<ull>(digit) << shift);
        chosen_need = need - before;
      }
    }
    __syncthreads();
    prefix = chosen_prefix;
    need = chosen_need;
  }
  return prefix;
}

/// Warp 0 of a pass's last block: the bin holding the `need`-th item fixes the byte at `shift`;
/// clears the bins. Key passes move prefix / need and, when the chosen bin holds at most
/// `capacity` items and nothing is compacted yet, ask the next kernel to compact; after the last
/// one (`last`), whether every tie is taken. Position passes move index_prefix / index_need.
__device__ void choose_digit(select_state* st, int shift, bool positions, bool last, ull capacity) {
  __shared__ ull counts[kBins];
  // The compaction asked for by the previous choice has run by now.
  const unsigned compacted = st->compacted | st->compacting;
  for (int d = threadIdx.x; d < kBins; d += 32) {
    counts[d] = __ldcg(&st->hist[d]);  // the other blocks' atomics, not a cached copy
    st->hist[d] = 0;
  }
  __syncwarp();
  ull need = positions ? st->index_need : st->need;
  int digit = 0;
  ull before = 0;
  find_bin(counts, need, digit, before);
  if (threadIdx.x != 0) return;
  const ull in_bin = counts[digit];
  need -= before;
  st->compacted = compacted;
  st->compacting = 0;
  if (positions) {
    st->index_prefix |= static_cast<ull>(digit) << shift;
    st->index_need = need;
  } else {
    st->prefix |= static_cast<ull>(digit) << shift;
    st->need = need;
    st->compacting = compacted == 0 && in_bin <= capacity ? 1u : 0u;
    if (last) {
      st->all_ties = need == in_bin ? 1u : 0u;
      st->index_need = need;
    }
  }
}

/// Appends to `out` the items of the warp's lanes that `take`, one atomic per warp. The counter
/// counts every item; slots from `capacity` on are not written (the caller sees the overflow as
/// a count above it).
template <class U, class Index>
__device__ __forceinline__ void append(bool take, ull u, ull i, ull* counter, chosen<U, Index>* out,
                                       ull capacity = ~0ull) {
  const unsigned mask = __ballot_sync(0xFFFFFFFFu, take);
  if (mask == 0) return;
  const unsigned lane = threadIdx.x & 31u;
  ull slot = 0;
  if (lane == 0) slot = atomicAdd(counter, static_cast<ull>(__popc(mask)));
  slot = __shfl_sync(0xFFFFFFFFu, slot, 0) + __popc(mask & ((1u << lane) - 1u));
  if (take && slot < capacity) out[slot] = {static_cast<U>(u), static_cast<Index>(i)};
}

/// The passes' state as the host would copy it (value-initialised, need = k), set on the device
/// instead (one step fewer a call, and nothing from pageable memory in a captured graph). Every
/// thread of one block calls it.
__device__ __forceinline__ void set_state(select_state* st, ull k, ull bound) {
  static_assert(sizeof(select_state) % sizeof(ull) == 0, "select_state is whole words");
  for (unsigned t = threadIdx.x; t < sizeof(select_state) / sizeof(ull); t += blockDim.x)
    reinterpret_cast<ull*>(st)[t] = 0;
  __syncthreads();
  if (threadIdx.x == 0) {
    st->need = k;
    st->bound = bound;
  }
}

/// The state of a call without the sampled threshold.
__global__ void __launch_bounds__(kBins) init_state(select_state* st, ull k) {
  set_state(st, k, 0);
}

/// One block of sample_threads: the ordered key of rank `rank` (from 0) among sample_keys keys
/// spaced `stride` apart, radix-selected in shared memory a byte at a time, to st->bound; it also
/// sets the rest of the passes' state.
template <class K>
__global__ void __launch_bounds__(sample_threads)
    sample_bound(const K* keys, ull stride, ull rank, bool descending, select_state* st, ull k) {
  using U = uint_of_t<K>;
  U v[sample_items];
  for (int j = 0; j < sample_items; ++j) {
    const ull at = (static_cast<ull>(j) * sample_threads + threadIdx.x) * stride;
    v[j] = ordered_bits(keys[at], descending);
  }
  ull need = rank + 1;
  const ull bound =
      block_radix_select<8 * sizeof(K)>(need, [&](int shift, ull high, ull chosen, unsigned* bins) {
        for (int j = 0; j < sample_items; ++j) {
          if ((static_cast<ull>(v[j]) & high) == chosen)
            atomicAdd(&bins[(v[j] >> shift) & 0xFF], 1u);
        }
      });
  set_state(st, k, bound);
}

/// Buffers every item whose ordered key is at most the sampled threshold (slots below
/// `capacity`). Each warp reads its own tiles of 32 x buffer_loads keys (loaded before any
/// append) and stages its items in its part of shared memory (a tile's worth at most), which goes
/// to the buffer with one atomic on the buffer's counter when the next tile's would not fit, and
/// at the end; no block-wide barrier until the end (a stage a block, with barriers between its
/// tiles, was slower: docs/PERFORMANCE_NOTES.md, "Top-k on arithmetic keys"). The grid's last
/// block then keeps the buffer for the passes when it holds at least k items and did not
/// overflow, else empties it (the passes then read the keys).
template <class K, class Index>
__global__ void __launch_bounds__(kThreads)
    sample_buffer(const K* keys, ull n, select_state* st, bool descending,
                  chosen<uint_of_t<K>, Index>* buffer, ull capacity, ull k) {
  using U = uint_of_t<K>;
  using item = chosen<U, Index>;
  constexpr unsigned warps = kThreads / 32;
  constexpr unsigned tile = 32u * buffer_loads;  // a warp's keys a step, and its stage's size
  __shared__ item stages[warps][tile];
  const unsigned lane = threadIdx.x & 31u;
  const unsigned warp = threadIdx.x / 32u;
  item* stage = stages[warp];
  unsigned staged = 0;  // items in the warp's stage (the same in every lane)
  // The warp's stage to the buffer.
  auto flush = [&] {
    ull at = 0;
    if (lane == 0) at = atomicAdd(&st->buffered, static_cast<ull>(staged));
    at = __shfl_sync(0xFFFFFFFFu, at, 0);
    for (unsigned i = lane; i < staged; i += 32u) {
      if (at + i < capacity) buffer[at + i] = stage[i];
    }
    __syncwarp();
    staged = 0;
  };
  const ull bound = st->bound;
  const ull stride = static_cast<ull>(gridDim.x) * warps * tile;
  for (ull base = (static_cast<ull>(blockIdx.x) * warps + warp) * tile; base < n; base += stride) {
    U u[buffer_loads];
    for (int j = 0; j < buffer_loads; ++j) {
      const ull i = base + static_cast<ull>(j) * 32u + lane;
      u[j] = i < n ? ordered_bits(keys[i], descending) : U(0);
    }
    unsigned mask = 0;  // bit j: item j is taken
    for (int j = 0; j < buffer_loads; ++j) {
      const ull i = base + static_cast<ull>(j) * 32u + lane;
      mask |= i < n && static_cast<ull>(u[j]) <= bound ? 1u << j : 0u;
    }
    // The lane's first slot among the warp's items.
    const unsigned mine = static_cast<unsigned>(__popc(mask));
    unsigned before = mine;
    for (int o = 1; o < 32; o <<= 1) {
      const unsigned up = __shfl_up_sync(0xFFFFFFFFu, before, o);
      if (lane >= static_cast<unsigned>(o)) before += up;
    }
    const unsigned total = __shfl_sync(0xFFFFFFFFu, before, 31);
    if (total == 0) continue;
    if (staged + total > tile) flush();
    unsigned slot = staged + before - mine;
    for (int j = 0; j < buffer_loads; ++j) {
      if ((mask >> j) & 1u) {
        const ull i = base + static_cast<ull>(j) * 32u + lane;
        stage[slot++] = {u[j], static_cast<Index>(i)};
      }
    }
    __syncwarp();
    staged += total;
  }
  if (staged != 0) flush();
  if (last_block(st) && threadIdx.x == 0) {
    const ull buffered = __ldcg(&st->buffered);
    if (buffered >= k && buffered <= capacity) {
      st->compacted = 1;
    } else {
      st->buffered = 0;
      st->compacted = 0;
    }
  }
}

/// Every key as an (ordered key, position) item, for the sort of all n.
template <class K, class Index>
__global__ void __launch_bounds__(kThreads)
    all_items(const K* keys, ull n, bool descending, chosen<uint_of_t<K>, Index>* items) {
  const ull i = static_cast<ull>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) items[i] = {ordered_bits(keys[i], descending), static_cast<Index>(i)};
}

/// Below small_max_keys keys one block of small_threads does the whole selection (small_select)
/// from small_min_keys with k <= small_max_k, and from small_rank_min_keys with
/// k <= small_rank_max_k. Under those bounds one sort of every item is faster: the block radix
/// sort of the k taken (k > small_rank_max_k) costs about 20 us for 4-byte keys and 40 for 8-byte
/// ones whatever k is, where the sort of all 2^10 items took 18 and 28 (H100, 2026-12-07; at 2^12
/// the sort took 55 and 87 against 25 and 49).
constexpr ull small_min_keys = ull(1) << 12;
constexpr ull small_max_keys = ull(1) << 16;
constexpr int small_threads = 1024;
constexpr int small_items = 2;  // a thread's items in the block sort of the k taken
constexpr ull small_max_k = static_cast<ull>(small_threads) * small_items;
constexpr int small_scan_items = 8;  // a thread's consecutive keys in a step of the collection
constexpr int small_loads = 8;       // a thread's keys in flight in a histogram pass
/// Up to this many taken items are ordered by counting, for each, the items before it (k^2
/// comparisons over the block); more by a block radix sort (its passes over the key's bits cost
/// about 20 us for 4-byte keys and 40 for 8-byte ones on an H100 whatever k is).
constexpr unsigned small_rank_max_k = 512;
/// With k <= small_rank_max_k (no block sort) the one block is faster from 2^10 keys: at 2^10,
/// k = 100, 12.5 / 13.9 / 21.3 us for u32 / f32 / u64 keys against 17.7 / 17.7 / 28.0 for the sort
/// of every item (H100, 2026-12-07).
constexpr ull small_rank_min_keys = ull(1) << 10;

/// Where each of k (at most small_rank_max_k) items goes in (ordered key, position) order, by the
/// block of small_threads: its rank is the count of the items before it (positions differ, so the
/// ranks do), small_threads / k threads an item, each comparing it with every group-th item; then
/// write(rank, position) for every item. `key` and `position`: the items in shared memory, in any
/// order.
template <class U, class P, class Write>
__device__ __forceinline__ void write_by_rank(const U* key, const P* position, unsigned k,
                                              Write write) {
  __shared__ unsigned rank[small_rank_max_k];
  const unsigned t = threadIdx.x;
  for (unsigned i = t; i < k; i += small_threads)
    rank[i] = 0;
  __syncthreads();
  const unsigned groups = small_threads / k;
  if (t < groups * k) {
    const unsigned i = t % k;
    const U mine = key[i];
    const P at = position[i];
    unsigned before = 0;
    for (unsigned j = t / k; j < k; j += groups) {
      const U other = key[j];
      before += other < mine || (other == mine && position[j] < at) ? 1u : 0u;
    }
    atomicAdd(&rank[i], before);
  }
  __syncthreads();
  for (unsigned i = t; i < k; i += small_threads)
    write(rank[i], position[i]);
}

/// The outputs of the item at output place `at` and position `p`: the position (`positions`, for
/// the values' gather, and the caller's) and the key gathered by position; null ones skipped.
template <class K, class P, class Position>
__device__ __forceinline__ void write_taken(unsigned at, P p, const K* keys, K* keys_out,
                                            P* positions, Position* positions_out) {
  if (positions != nullptr) positions[at] = p;
  if (positions_out != nullptr) positions_out[at] = static_cast<Position>(p);
  if (keys_out != nullptr) keys_out[at] = keys[p];
}

/// One block: the threshold key T a byte at a time (block_radix_select over the n keys), then the
/// k items in position order (keys < T, and of the keys == T the lowest positions), a block-wide
/// scan per step of small_threads x small_scan_items consecutive keys placing them; then their
/// order: up to small_rank_max_k items each one's rank by counting, more by a stable block radix
/// sort on the ordered key alone (equal keys stay in position order). Writes the positions
/// (`positions`, for the values' gather, and the caller's), and the keys gathered by position.
template <class K, class Position>
__global__ void __launch_bounds__(small_threads)
    small_select(const K* keys, unsigned n, unsigned k, bool descending, K* keys_out,
                 std::uint32_t* positions, Position* positions_out) {
  using U = uint_of_t<K>;
  constexpr int key_bits = 8 * sizeof(K);
  using block_sort = cub::BlockRadixSort<U, small_threads, small_items, std::uint32_t>;
  using block_scan = cub::BlockScan<unsigned, small_threads>;
  struct taken_items {
    U key[small_max_k];
    std::uint32_t position[small_max_k];
  };
  __shared__ union {
    taken_items taken;  // until each thread holds its items
    typename block_sort::TempStorage sort;
  } shared;
  __shared__ typename block_scan::TempStorage scan;
  const unsigned t = threadIdx.x;
  ull need = k;
  const ull prefix =
      block_radix_select<key_bits>(need, [&](int shift, ull high, ull chosen, unsigned* bins) {
        // small_loads keys a thread in flight before any count (one key at a time waits on each).
        for (unsigned base = 0; base < n; base += small_threads * small_loads) {
          U u[small_loads];
#pragma unroll
          for (int j = 0; j < small_loads; ++j) {
            const unsigned i = base + j * small_threads + t;
            u[j] = i < n ? ordered_bits(keys[i], descending) : U(0);
          }
#pragma unroll
          for (int j = 0; j < small_loads; ++j) {
            const unsigned i = base + j * small_threads + t;
            if (i < n && (static_cast<ull>(u[j]) & high) == chosen)
              atomicAdd(&bins[(u[j] >> shift) & 0xFF], 1u);
          }
        }
      });
  // prefix is T; `need` of the keys equal to it are taken, the lowest positions.
  constexpr unsigned step = static_cast<unsigned>(small_threads) * small_scan_items;
  unsigned below = 0, ties = 0;  // keys < T and == T in the steps before
  for (unsigned base = 0; base < n && below + (ties < need ? ties : need) < k; base += step) {
    const unsigned first = base + t * small_scan_items;
    U u[small_scan_items];
#pragma unroll
    for (int j = 0; j < small_scan_items; ++j)
      u[j] = first + j < n ? ordered_bits(keys[first + j], descending) : U(0);
    unsigned mine = 0;  // keys < T in the low half, keys == T in the high half
#pragma unroll
    for (int j = 0; j < small_scan_items; ++j) {
      if (first + j < n) mine += u[j] < prefix ? 1u : (u[j] == prefix ? 0x10000u : 0u);
    }
    unsigned before = 0, total = 0;
    block_scan(scan).ExclusiveSum(mine, before, total);
    unsigned lt = below + (before & 0xFFFFu);
    unsigned eq = ties + (before >> 16);
#pragma unroll
    for (int j = 0; j < small_scan_items; ++j) {
      const bool valid = first + j < n;
      const bool less = valid && u[j] < prefix;
      const bool tie = valid && u[j] == prefix;
      if (less || (tie && eq < need)) {
        const unsigned slot = lt + (eq < need ? eq : static_cast<unsigned>(need));
        shared.taken.key[slot] = static_cast<U>(u[j]);
        shared.taken.position[slot] = first + j;
      }
      lt += less ? 1u : 0u;
      eq += tie ? 1u : 0u;
    }
    below += total & 0xFFFFu;
    ties += total >> 16;
    __syncthreads();  // the scan's storage is used again
  }
  __syncthreads();  // every taken item is in place
  auto write = [&](unsigned at, std::uint32_t p) {
    write_taken(at, p, keys, keys_out, positions, positions_out);
  };
  if (k <= small_rank_max_k) {
    write_by_rank(shared.taken.key, shared.taken.position, k, write);
    return;
  }
  // More: a stable block radix sort on the ordered key alone.
  U sort_keys[small_items];
  std::uint32_t sort_positions[small_items];
  for (int j = 0; j < small_items; ++j) {
    const unsigned at = t * small_items + j;
    // Past k: the largest key, after every taken item (the sort is stable).
    sort_keys[j] = at < k ? shared.taken.key[at] : static_cast<U>(~U(0));
    sort_positions[j] = at < k ? shared.taken.position[at] : 0u;
  }
  __syncthreads();  // the sort's storage overlays the taken items
  block_sort(shared.sort).Sort(sort_keys, sort_positions, 0, key_bits);
  for (int j = 0; j < small_items; ++j) {
    const unsigned at = t * small_items + j;
    if (at < k) write(at, sort_positions[j]);
  }
}

/// When the last choice asked for it: the items of the chosen bin (ordered key's bits under
/// `decided` equal to the prefix) to the buffer, those of the bins before it to `out`.
template <class K, class Index>
__device__ __forceinline__ void compact_pass(const K* keys, ull n, select_state* st, ull decided,
                                             bool descending, chosen<uint_of_t<K>, Index>* buffer,
                                             chosen<uint_of_t<K>, Index>* out) {
  using U = uint_of_t<K>;
  if (st->compacting == 0) return;
  const ull prefix = st->prefix & decided;
  for_each_item<K, Index>(keys, n, buffer, false, 0, descending, [&](bool valid, ull u, ull i) {
    const ull bits = u & decided;
    append<U, Index>(valid && bits < prefix, u, i, &st->taken, out);
    append<U, Index>(valid && bits == prefix, u, i, &st->buffered, buffer);
  });
}
template <class K, class Index>
__global__ void __launch_bounds__(kThreads)
    compact(const K* keys, ull n, select_state* st, ull decided, bool descending,
            chosen<uint_of_t<K>, Index>* buffer, chosen<uint_of_t<K>, Index>* out) {
  compact_pass<K, Index>(keys, n, st, decided, descending, buffer, out);
}

/// Appends the rest of the k items to `out` (all of them when nothing was compacted), in no
/// order: ordered key < T, or == T at a position <= I.
template <class K, class Index>
__device__ __forceinline__ void collect_pass(const K* keys, ull n, select_state* st,
                                             bool descending,
                                             const chosen<uint_of_t<K>, Index>* buffer,
                                             chosen<uint_of_t<K>, Index>* out) {
  using U = uint_of_t<K>;
  const ull threshold = st->prefix;
  const ull last = st->all_ties != 0 ? ~0ull : st->index_prefix;
  const bool from_buffer = (st->compacted | st->compacting) != 0;
  for_each_item<K, Index>(
      keys, n, buffer, from_buffer, st->buffered, descending, [&](bool valid, ull u, ull i) {
        append<U, Index>(valid && (u < threshold || (u == threshold && i <= last)), u, i,
                         &st->taken, out);
      });
}
template <class K, class Index>
__global__ void __launch_bounds__(kThreads)
    collect(const K* keys, ull n, select_state* st, bool descending,
            const chosen<uint_of_t<K>, Index>* buffer, chosen<uint_of_t<K>, Index>* out) {
  collect_pass<K, Index>(keys, n, st, descending, buffer, out);
}

/// Every pass of select() after the sampling in one cooperative launch (its blocks resident at
/// once): the key passes (histogram, then compaction), the position passes and the collection,
/// a grid-wide barrier between them where the chain of kernels had a launch each (3-8 us each
/// however little a pass does, about 12 of them for 4-byte keys).
template <class K, class Index>
__global__ void __launch_bounds__(kThreads)
    select_passes(const K* keys, ull n, select_state* st, bool descending,
                  chosen<uint_of_t<K>, Index>* buffer, chosen<uint_of_t<K>, Index>* items,
                  ull capacity, int position_bits) {
  const auto grid = cooperative_groups::this_grid();
  constexpr int key_bits = 8 * sizeof(K);
  const ull key_mask = ~0ull >> (64 - key_bits);
  for (int shift = key_bits - 8; shift >= 0; shift -= 8) {
    const ull high = shift + 8 >= key_bits ? 0ull : (~0ull << (shift + 8)) & key_mask;
    histogram_pass<K, Index>(keys, n, buffer, st, shift, high, false, shift == 0, capacity,
                             descending);
    grid.sync();
    compact_pass<K, Index>(keys, n, st, (~0ull << shift) & key_mask, descending, buffer, items);
    grid.sync();
  }
  for (int shift = position_bits - 8; shift >= 0; shift -= 8) {
    const ull high = shift + 8 >= 64 ? 0ull : ~0ull << (shift + 8);
    histogram_pass<K, Index>(keys, n, buffer, st, shift, high, true, false, capacity, descending);
    grid.sync();
  }
  collect_pass<K, Index>(keys, n, st, descending, buffer, items);
}

/// The sorted items' positions, as the gathers take them and as the caller's positions.
template <class U, class Index, class Position>
__global__ void __launch_bounds__(kThreads)
    write_positions(const chosen<U, Index>* from, Index* positions, Position* to, ull k) {
  const ull i = static_cast<ull>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= k) return;
  positions[i] = from[i].position;
  if (to != nullptr) to[i] = static_cast<Position>(from[i].position);
}

/// Up to small_rank_max_k taken items (in no order) in their output order, by one block of
/// small_threads (write_by_rank), with the positions (`positions`, for the values' gather, and
/// the caller's) and the keys gathered by position: one launch where CUB's single-tile sort of the
/// items (15 us for k = 100 on an H100), the positions' kernel and the keys' gather were three.
template <class K, class Index, class Position>
__global__ void __launch_bounds__(small_threads)
    rank_taken(const chosen<uint_of_t<K>, Index>* items, unsigned k, const K* keys, K* keys_out,
               Index* positions, Position* positions_out) {
  using U = uint_of_t<K>;
  __shared__ U key[small_rank_max_k];
  __shared__ Index position[small_rank_max_k];
  for (unsigned i = threadIdx.x; i < k; i += small_threads) {
    key[i] = items[i].key;
    position[i] = items[i].position;
  }
  // (write_by_rank's first barrier orders these stores before any read of them.)
  write_by_rank(key, position, k, [&](unsigned at, Index p) {
    write_taken(at, p, keys, keys_out, positions, positions_out);
  });
}

/// Blocks for a pass over n items: enough to fill the GPU a few times, at most one per 4 tiles.
unsigned pass_blocks(ull n) {
  const int known = current_multiprocessor_count();
  const ull count = known != 0 ? static_cast<ull>(known) : 132;
  const ull tiles = (n + kThreads * 4ull - 1) / (kThreads * 4ull);
  return static_cast<unsigned>(std::max(1ull, std::min(tiles, 8ull * count)));
}

/// The blocks of kThreads threads of `kernel` resident at once on the current device (its
/// occupancy asked once a device, `known`), at most one per `items_per_block` of n items.
/// (group_by_sketch.cuh's resident_grid asks the occupancy at every call and is group_by's.)
unsigned resident_blocks_of(const void* kernel, std::atomic<int> (&known)[64], ull n,
                            int items_per_block) {
  int per_sm = 0;
  check_cuda(current_occupancy(kernel, kThreads, known, per_sm),
             "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
  const int sms = current_multiprocessor_count();
  return static_cast<unsigned>(resident_blocks(n, items_per_block, per_sm, sms != 0 ? sms : 132));
}

/// sample_buffer's grid: the blocks resident at once, at most one a block's worth of warp tiles
/// (a second wave of its grid-stride loop would run its share after the first, on idle SMs).
template <class K, class Index>
unsigned buffer_blocks(ull n) {
  static std::atomic<int> known[64] = {};
  return resident_blocks_of(reinterpret_cast<const void*>(sample_buffer<K, Index>), known, n,
                            kThreads * buffer_loads);
}

/// select_passes' grid (pass_blocks, at most the blocks resident at once: a cooperative launch
/// needs them all resident), or 0 for the chain of kernels: where the device has no cooperative
/// launch, or while the stream captures a graph (the chain is what a captured call records).
template <class K, class Index>
unsigned passes_blocks(ull n, cudaStream_t s) {
  cudaStreamCaptureStatus capturing = cudaStreamCaptureStatusNone;
  check_cuda(cudaStreamIsCapturing(s, &capturing), "cudaStreamIsCapturing");
  if (capturing != cudaStreamCaptureStatusNone) return 0;
  static std::atomic<int> cooperative[64] = {};
  if (current_device_attribute(cudaDevAttrCooperativeLaunch, cooperative) == 0) return 0;
  static std::atomic<int> known[64] = {};
  return std::min(pass_blocks(n),
                  resident_blocks_of(reinterpret_cast<const void*>(select_passes<K, Index>), known,
                                     n, kThreads));
}

/// The sorted items' positions to the caller's and the gathers of keys and values.
template <class K, class Index>
void write_outputs(const top_k_args& a, const chosen<uint_of_t<K>, Index>* sorted, Index* positions,
                   stream_ref stream) {
  const cudaStream_t s = stream.get();
  const ull k = a.k;
  const unsigned grid = static_cast<unsigned>((k + kThreads - 1) / kThreads);
  if (a.positions_out != nullptr && a.position_size == 4) {
    write_positions<<<grid, kThreads, 0, s>>>(sorted, positions,
                                              static_cast<std::uint32_t*>(a.positions_out), k);
  } else {
    write_positions<<<grid, kThreads, 0, s>>>(sorted, positions,
                                              static_cast<std::uint64_t*>(a.positions_out), k);
  }
  check_cuda(cudaGetLastError(), "cupar top_k kernel launch");
  if (a.keys_out != nullptr) {
    index_gather(a.keys_in, a.keys_out, positions, sizeof(Index), sizeof(K), k, stream);
  }
  if (a.value_size != 0) {
    index_gather(a.values_in, a.values_out, positions, sizeof(Index), a.value_size, k, stream);
  }
}

/// k = 1: the smallest (ordered key, position) item, one CUB reduction over the keys read once.
template <class K, class Index>
struct ordered_item {
  const K* keys;
  bool descending;
  __device__ chosen<uint_of_t<K>, Index> operator()(Index i) const {
    return {ordered_bits(keys[i], descending), i};
  }
};
struct smaller_item {
  template <class U, class Index>
  __host__ __device__ chosen<U, Index> operator()(const chosen<U, Index>& a,
                                                  const chosen<U, Index>& b) const {
    return b.key < a.key || (b.key == a.key && b.position < a.position) ? b : a;
  }
};

template <class K, class Index>
void smallest(const top_k_args& a, stream_ref stream, memory_resource& mr) {
  using U = uint_of_t<K>;
  using item = chosen<U, Index>;
  const cudaStream_t s = stream.get();
  const auto in = thrust::make_transform_iterator(
      thrust::counting_iterator<Index>(0),
      ordered_item<K, Index>{static_cast<const K*>(a.keys_in), a.order == sort_order::descending});
  const item largest{static_cast<U>(~U(0)), static_cast<Index>(~Index(0))};
  auto sizing = [&](void* temp, std::size_t& bytes) {
    return cub::DeviceReduce::Reduce(temp, bytes, in, static_cast<item*>(nullptr), a.n,
                                     smaller_item{}, largest, s);
  };
  std::size_t cub_bytes = required_temp_bytes("cub::DeviceReduce::Reduce", {a.n}, sizing);
  carve parts;
  const std::size_t item_at = parts.add(sizeof(item));
  const std::size_t pos_at = parts.add(sizeof(Index));
  const std::size_t cub_at = parts.add(cub_bytes);
  temp_storage temp(mr, parts.total, stream);
  auto* base = static_cast<unsigned char*>(temp.get());
  auto* result = reinterpret_cast<item*>(base + item_at);
  check_cuda(cub::DeviceReduce::Reduce(base + cub_at, cub_bytes, in, result, a.n, smaller_item{},
                                       largest, s),
             "cub::DeviceReduce::Reduce");
  write_outputs<K, Index>(a, result, reinterpret_cast<Index*>(base + pos_at), stream);
}

/// Below small_max_keys keys, under the bounds at small_min_keys: small_select, then the values'
/// gather.
template <class K>
void small_top_k(const top_k_args& a, stream_ref stream, memory_resource& mr) {
  const cudaStream_t s = stream.get();
  const bool with_values = a.value_size != 0;
  temp_storage temp(mr, with_values ? a.k * sizeof(std::uint32_t) : 0, stream);
  auto* positions = with_values ? static_cast<std::uint32_t*>(temp.get()) : nullptr;
  const auto* keys = static_cast<const K*>(a.keys_in);
  auto* keys_out = static_cast<K*>(a.keys_out);
  const auto n = static_cast<unsigned>(a.n), k = static_cast<unsigned>(a.k);
  const bool descending = a.order == sort_order::descending;
  if (a.positions_out != nullptr && a.position_size == 4) {
    small_select<K><<<1, small_threads, 0, s>>>(keys, n, k, descending, keys_out, positions,
                                                static_cast<std::uint32_t*>(a.positions_out));
  } else {
    small_select<K><<<1, small_threads, 0, s>>>(keys, n, k, descending, keys_out, positions,
                                                static_cast<std::uint64_t*>(a.positions_out));
  }
  check_cuda(cudaGetLastError(), "cupar top_k kernel launch");
  if (with_values) {
    index_gather(a.values_in, a.values_out, positions, sizeof(std::uint32_t), a.value_size, a.k,
                 stream);
  }
}

/// Below sample_min_keys keys: one radix sort of every (ordered key, position) item on the key's
/// bits only (stable, and the items are written in position order, so equal keys keep it).
template <class K, class Index>
void sort_all(const top_k_args& a, stream_ref stream, memory_resource& mr) {
  using U = uint_of_t<K>;
  using item = chosen<U, Index>;
  const cudaStream_t s = stream.get();
  const ull n = a.n;
  constexpr int begin_bit = 8 * sizeof(Index);
  constexpr int end_bit = 8 * (sizeof(U) + sizeof(Index));
  auto sizing = [&](void* temp, std::size_t& bytes) {
    return cub::DeviceRadixSort::SortKeys(temp, bytes, static_cast<const item*>(nullptr),
                                          static_cast<item*>(nullptr), n, chosen_decomposer{},
                                          begin_bit, end_bit, s);
  };
  std::size_t cub_bytes = required_temp_bytes("cub::DeviceRadixSort::SortKeys", {n}, sizing);
  carve parts;
  const std::size_t items_at = parts.add(n * sizeof(item));
  const std::size_t sorted_at = parts.add(n * sizeof(item));
  const std::size_t pos_at = parts.add(a.k * sizeof(Index));
  const std::size_t cub_at = parts.add(cub_bytes);
  temp_storage temp(mr, parts.total, stream);
  auto* base = static_cast<unsigned char*>(temp.get());
  auto* items = reinterpret_cast<item*>(base + items_at);
  auto* sorted = reinterpret_cast<item*>(base + sorted_at);
  all_items<K, Index><<<static_cast<unsigned>((n + kThreads - 1) / kThreads), kThreads, 0, s>>>(
      static_cast<const K*>(a.keys_in), n, a.order == sort_order::descending, items);
  check_cuda(cudaGetLastError(), "cupar top_k kernel launch");
  check_cuda(cub::DeviceRadixSort::SortKeys(base + cub_at, cub_bytes, items, sorted, n,
                                            chosen_decomposer{}, begin_bit, end_bit, s),
             "cub::DeviceRadixSort::SortKeys");
  write_outputs<K, Index>(a, sorted, reinterpret_cast<Index*>(base + pos_at), stream);
}

template <class K, class Index>
void select(const top_k_args& a, stream_ref stream, memory_resource& mr) {
  using U = uint_of_t<K>;
  using item = chosen<U, Index>;
  const cudaStream_t s = stream.get();
  const bool descending = a.order == sort_order::descending;
  const auto* keys = static_cast<const K*>(a.keys_in);
  const ull n = a.n, k = a.k;
  if (k == 1) {
    smallest<K, Index>(a, stream, mr);
    return;
  }
  if constexpr (std::is_same_v<Index, std::uint32_t>) {
    // The one block's lower bound: lower where no block sort of the k taken is needed.
    const ull small_from = k <= small_rank_max_k ? small_rank_min_keys : small_min_keys;
    if (n >= small_from && n < small_max_keys && k <= small_max_k) {
      small_top_k<K>(a, stream, mr);
      return;
    }
    if (n < sample_min_keys) {
      sort_all<K, Index>(a, stream, mr);
      return;
    }
  }
  const ull capacity = n / 16;  // the compaction buffer's items
  const bool sampled = k <= n / sample_max_fraction;
  // Asked before anything is allocated or queued (they may throw).
  const unsigned buffer_grid = sampled ? buffer_blocks<K, Index>(n) : 0u;
  const unsigned passes_grid = passes_blocks<K, Index>(n, s);

  // Temporary storage: the state, the compaction buffer, the k chosen items (twice where CUB sorts
  // them: its input and output), their positions, CUB's storage.
  auto sizing = [&](void* temp, std::size_t& bytes) {
    return cub::DeviceRadixSort::SortKeys(temp, bytes, static_cast<const item*>(nullptr),
                                          static_cast<item*>(nullptr), k, chosen_decomposer{}, s);
  };
  // Up to small_rank_max_k items are ordered by rank_taken, more by CUB's sort (sized once per k,
  // temp_storage.hpp's cache: CUB's sizing pass is a whole host dispatch).
  const bool ranked = k <= small_rank_max_k;
  std::size_t cub_bytes =
      ranked ? 0 : required_temp_bytes("cub::DeviceRadixSort::SortKeys", {k}, sizing);
  carve parts;
  const std::size_t state_at = parts.add(sizeof(select_state));
  const std::size_t buffer_at = parts.add(capacity * sizeof(item));
  const std::size_t items_at = parts.add(k * sizeof(item));
  const std::size_t sorted_at = parts.add(ranked ? 0 : k * sizeof(item));
  const std::size_t pos_at = parts.add(k * sizeof(Index));
  const std::size_t cub_at = parts.add(cub_bytes);
  temp_storage temp(mr, parts.total, stream);
  auto* base = static_cast<unsigned char*>(temp.get());
  auto* st = reinterpret_cast<select_state*>(base + state_at);
  auto* buffer = reinterpret_cast<item*>(base + buffer_at);
  auto* items = reinterpret_cast<item*>(base + items_at);
  auto* sorted = reinterpret_cast<item*>(base + sorted_at);
  auto* positions = reinterpret_cast<Index*>(base + pos_at);

  const unsigned blocks = pass_blocks(n);
  if (!sampled) {
    init_state<<<1, kBins, 0, s>>>(st, k);
  } else {
    // sample_bound sets the state.
    sample_bound<K><<<1, sample_threads, 0, s>>>(
        keys, n / sample_keys, sample_threshold_rank(n, k, sample_keys), descending, st, k);
    sample_buffer<K, Index>
        <<<buffer_grid, kThreads, 0, s>>>(keys, n, st, descending, buffer, capacity, k);
  }
  // The positions' bytes, for the ties that do not all fit.
  int position_bits = 8;
  while (position_bits < 64 && (n - 1) >> position_bits != 0)
    position_bits += 8;
  // The passes as a chain of kernels.
  auto chain = [&] {
    constexpr int key_bits = 8 * sizeof(K);
    const ull key_mask = ~0ull >> (64 - key_bits);
    for (int shift = key_bits - 8; shift >= 0; shift -= 8) {
      const ull high = shift + 8 >= key_bits ? 0ull : (~0ull << (shift + 8)) & key_mask;
      histogram<K, Index><<<blocks, kThreads, 0, s>>>(keys, n, buffer, st, shift, high, false,
                                                      shift == 0, capacity, descending);
      compact<K, Index><<<blocks, kThreads, 0, s>>>(keys, n, st, (~0ull << shift) & key_mask,
                                                    descending, buffer, items);
    }
    for (int shift = position_bits - 8; shift >= 0; shift -= 8) {
      const ull high = shift + 8 >= 64 ? 0ull : ~0ull << (shift + 8);
      histogram<K, Index><<<blocks, kThreads, 0, s>>>(keys, n, buffer, st, shift, high, true, false,
                                                      capacity, descending);
    }
    collect<K, Index><<<blocks, kThreads, 0, s>>>(keys, n, st, descending, buffer, items);
  };
  if (passes_grid == 0) {
    chain();
  } else {
    // Every pass in one cooperative launch; where the device cannot hold the grid at once after
    // all (a share of it given to other processes), the chain.
    const K* in = keys;
    ull count = n, slots = capacity;
    bool down = descending;
    void* args[] = {&in, &count, &st, &down, &buffer, &items, &slots, &position_bits};
    const cudaError_t launched = cudaLaunchCooperativeKernel(
        reinterpret_cast<const void*>(select_passes<K, Index>), passes_grid, kThreads, args, 0, s);
    if (launched == cudaErrorCooperativeLaunchTooLarge) {
      (void)cudaGetLastError();  // not sticky: clears it
      chain();
    } else {
      check_cuda(launched, "cudaLaunchCooperativeKernel");
    }
  }
  check_cuda(cudaGetLastError(), "cupar top_k kernel launch");
  if (ranked) {
    // Ordered by counting ranks, positions and keys written by the same kernel.
    auto* keys_out = static_cast<K*>(a.keys_out);
    Index* value_positions = a.value_size != 0 ? positions : nullptr;
    const auto kk = static_cast<unsigned>(k);
    if (a.positions_out != nullptr && a.position_size == 4) {
      rank_taken<K, Index><<<1, small_threads, 0, s>>>(
          items, kk, keys, keys_out, value_positions, static_cast<std::uint32_t*>(a.positions_out));
    } else {
      rank_taken<K, Index><<<1, small_threads, 0, s>>>(
          items, kk, keys, keys_out, value_positions, static_cast<std::uint64_t*>(a.positions_out));
    }
    check_cuda(cudaGetLastError(), "cupar top_k kernel launch");
    if (a.value_size != 0) {
      index_gather(a.values_in, a.values_out, positions, sizeof(Index), a.value_size, k, stream);
    }
    return;
  }
  check_cuda(cub::DeviceRadixSort::SortKeys(base + cub_at, cub_bytes, items, sorted, k,
                                            chosen_decomposer{}, s),
             "cub::DeviceRadixSort::SortKeys");
  write_outputs<K, Index>(a, sorted, positions, stream);
}

}  // namespace

void top_k(const top_k_args& a, stream_ref stream, memory_resource& mr) {
  const char* fn = a.function;
  const device_guard device(stream);
  if (a.order != sort_order::ascending && a.order != sort_order::descending) {
    throw_invalid_argument(fn, "unknown order " + std::to_string(static_cast<int>(a.order)));
  }
  if (a.k > a.n) {
    throw_invalid_argument(
        fn, "k = " + std::to_string(a.k) + " is more than n = " + std::to_string(a.n));
  }
  const std::size_t key_size = static_cast<std::size_t>(scalar_size(a.key));
  require_size(fn, a.n, key_size);
  if (a.value_size != 0) require_size(fn, a.n, a.value_size);
  const bool want_positions = a.position_size != 0;  // top_k_positions
  if (want_positions) {
    if (a.position_size != 4 && a.position_size != 8) {
      throw_invalid_argument(fn, "positions of " + std::to_string(a.position_size) + " bytes");
    }
    const unsigned long long largest =
        a.position_size == 8 ? (a.position_signed ? std::numeric_limits<long long>::max()
                                                  : std::numeric_limits<unsigned long long>::max())
                             : (a.position_signed ? std::numeric_limits<std::int32_t>::max()
                                                  : std::numeric_limits<std::uint32_t>::max());
    if (a.n != 0 && a.n - 1 > largest) {
      throw_invalid_argument(fn, "positions of " + std::to_string(a.position_size) +
                                     " bytes cannot hold n - 1 = " + std::to_string(a.n - 1));
    }
  }
  require_data(fn, "d_keys", a.keys_in, a.k != 0 ? a.n : 0);
  if (want_positions) {
    require_data(fn, "d_positions", a.positions_out, a.k);
  } else {
    require_data(fn, "d_keys_out", a.keys_out, a.k);
  }
  if (a.value_size != 0) {
    require_data(fn, "d_values", a.values_in, a.k != 0 ? a.n : 0);
    require_data(fn, "d_values_out", a.values_out, a.k);
  }
  if (a.k != 0) {
    // No output may overlap an input or another output.
    const struct {
      const char* name;
      const void* p;
      std::size_t bytes;
    } in[] = {{"d_keys", a.keys_in, a.n * key_size},
              {"d_values", a.values_in, a.value_size != 0 ? a.n * a.value_size : 0}},
      out[] = {{"d_keys_out", a.keys_out, a.keys_out != nullptr ? a.k * key_size : 0},
               {"d_values_out", a.values_out, a.value_size != 0 ? a.k * a.value_size : 0},
               {"d_positions", a.positions_out, want_positions ? a.k * a.position_size : 0}};
    for (const auto& o : out) {
      for (const auto& i : in)
        require_disjoint(fn, i.name, i.p, i.bytes, o.name, o.p, o.bytes);
    }
    for (int x = 0; x < 3; ++x) {
      for (int y = x + 1; y < 3; ++y)
        require_disjoint(fn, out[x].name, out[x].p, out[x].bytes, out[y].name, out[y].p,
                         out[y].bytes);
    }
  }
  visit_library_scalar(fn, a.key, [&](auto key) {
    using K = decltype(key);
    if (a.k == 0) return;
    if (a.n <= std::numeric_limits<std::uint32_t>::max()) {
      select<K, std::uint32_t>(a, stream, mr);
    } else {
      select<K, unsigned long long>(a, stream, mr);
    }
  });
}

}  // namespace cupar::detail
