// cupar internal: the kernels of the segmented scans (segmented_inclusive_scan,
// segmented_exclusive_scan), written once for both operator paths: nvcc instantiates them with
// the caller's functor in the caller's translation unit (segmented.cuh), NVRTC with the JIT's
// operator slot (jit_ops/cupar_segmented_scan.cuh; this file is embedded in the library under its
// include name). Device code and CUB's device headers only, so NVRTC compiles it.
//
// CUB 3.0.1 has no segmented scan. Scan-by-key needs a key per item, which would have to be
// materialised from the offsets first (a pass writing n keys, then the scan reading them again).
// This is a single-pass decoupled look-back scan over (reset flag, value) pairs, like CUB's
// AgentScanByKey (cub::detail::ScanBySegmentOp, ReduceByKeyScanTileState, TilePrefixCallbackOp),
// where each item's flag comes from the segment offsets instead of a key comparison:
//   - the initialisation kernel, one thread per tile, finds by binary search the first segment
//     ending after the tile's first item (segments are ordered, so end offsets are
//     non-decreasing) and stores it per tile, next to initialising the tile states;
//   - in the sweep, each thread searches its first item's segment among the (few) segments of
//     its tile, then walks forward over its consecutive items;
//   - an item starts a new run (flag 1) when it begins a segment or lies outside every segment;
//     items outside segments are not written. The user's operator is therefore only ever applied
//     to items of one segment: a run is a segment's items, or a single item outside segments,
//     and combining two runs with the second flagged takes the second unchanged.
#pragma once

#include <cub/agent/single_pass_scan_operators.cuh>
#include <cub/block/block_exchange.cuh>
#include <cub/block/block_load.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/block/block_store.cuh>
#include <cub/device/dispatch/tuning/tuning_scan_by_key.cuh>
#include <cub/iterator/cache_modified_input_iterator.cuh>
#include <cub/thread/thread_operators.cuh>
#include <cub/util_type.cuh>

#include <cuda/std/cstdint>
#include <cuda/std/functional>
#include <cuda/std/limits>
#include <cuda/std/type_traits>

namespace cupar {
namespace detail {
namespace segscan {

/// Offsets, positions and segment indices (64-bit: n and the number of segments may pass 2^31).
using offset_t = ::cuda::std::int64_t;

/// The tuning: CUB's scan-by-key policies (cub::detail::scan_by_key::policy_hub) for 1-byte keys
/// and values T. The sweep is a scan-by-key in everything but its key stream: the same block scan
/// of (int flag, T) pairs, the same tile state, the same look-back, values loaded and stored the
/// same way; only the keys are not loaded (flags come from the offsets). The 1-byte-key tuning is
/// the one whose memory traffic comes closest to that (sm_90, 4-byte values: 128 threads x 15
/// items, warp-transposed loads and stores). As for cupar's scans (jit_ops/cupar_scan.cuh), CUB
/// uses its tuned policies only for operators it knows to be cheap (cuda::std::plus, minimum,
/// maximum): for arithmetic T both paths tune as for cuda::std::plus<T>, whatever the operator
/// (operators on arithmetic types are cheap as a rule, and the JIT's size classes then get the
/// policy the compiled path gets for the user's type); for other T, CUB's default policy for the
/// operator. The kernels always run the caller's operator.
template <class T, class ScanOp>
struct tuning {
  using op = ::cuda::std::conditional_t<::cuda::std::is_arithmetic<T>::value, ::cuda::std::plus<T>,
                                        ScanOp>;
  using hub = cub::detail::scan_by_key::policy_hub<const unsigned char*, T, T, op>;
};

/// The look-back state: scan-by-key's, for (int flag, T) pairs.
template <class T>
using tile_state_t = cub::ReduceByKeyScanTileState<T, int>;

/// The tile state's memory layout, for a host that knows T only by size (the JIT reads it from
/// the module): CUB packs flag, value and status into one word when they fit (then
/// `word_bytes` per tile), else keeps three arrays (status, partial, inclusive).
template <class TileState, class = void>
struct tile_state_layout {  // one word per tile
  static constexpr bool single_word = true;
  static constexpr long long word_bytes = sizeof(typename TileState::TxnWord);
  static constexpr long long description_bytes = 0;
  static constexpr long long payload_bytes = 0;
};
template <class TileState>
struct tile_state_layout<TileState,
                         ::cuda::std::void_t<decltype(TileState::description_bytes_per_tile)>> {
  static constexpr bool single_word = false;
  static constexpr long long word_bytes = 0;
  static constexpr long long description_bytes = TileState::description_bytes_per_tile;
  static constexpr long long payload_bytes = TileState::payload_bytes_per_tile;
};

/// First s in [lo, hi) with d_end[s] > i, or hi when there is none.
__device__ __forceinline__ offset_t first_ending_after(const offset_t* d_end, offset_t lo,
                                                       offset_t hi, offset_t i) {
  while (lo < hi) {
    const offset_t mid = lo + ((hi - lo) >> 1);
    if (d_end[mid] > i) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return lo;
}

/// One thread per tile, num_tiles + 1 threads: initialises the tile states and stores, for tile
/// t = 0..num_tiles, the first segment ending after item t * tile_items. Entry t + 1 bounds the
/// segments tile t can touch.
template <class TileState>
CUB_DETAIL_KERNEL_ATTRIBUTES void init_kernel(TileState tile_state, int num_tiles,
                                              const offset_t* d_end, offset_t num_segments,
                                              offset_t tile_items, offset_t* d_tile_first) {
  tile_state.InitializeStatus(num_tiles);
  const offset_t tile = offset_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (tile <= num_tiles) {
    d_tile_first[tile] = first_ending_after(d_end, 0, num_segments, tile * tile_items);
  }
}

/// The sweep of one tile (one thread block per tile). InIt and OutIt are the value ranges: pointers
/// (both paths) or other random-access iterators (the compiled path).
template <class Policy, class T, class ScanOp, class InitT, class InIt = const T*, class OutIt = T*>
struct agent {
  static constexpr int threads = Policy::BLOCK_THREADS;
  static constexpr int items = Policy::ITEMS_PER_THREAD;
  static constexpr int tile_items = threads * items;
  static constexpr bool inclusive = ::cuda::std::is_same<InitT, cub::NullType>::value;
  // Blocked stores by each thread when CUB's policy stores directly; otherwise the tile goes
  // through shared memory to a warp-striped arrangement, so that writes are coalesced.
  static constexpr bool direct_store = Policy::STORE_ALGORITHM == cub::BLOCK_STORE_DIRECT;
  static_assert(threads % 32 == 0, "cupar: the segmented scan's blocks are whole warps");
  static_assert(items <= 64, "cupar: the segmented scan's write masks hold 64 items per thread");

  using mask_t = ::cuda::std::conditional_t<(items <= 32), unsigned int, unsigned long long>;
  using pair_t = cub::KeyValuePair<int, T>;
  using pair_op_t = cub::detail::ScanBySegmentOp<ScanOp>;
  using tile_state = tile_state_t<T>;
  using prefix_op_t = cub::TilePrefixCallbackOp<pair_t, pair_op_t, tile_state,
                                                typename Policy::detail::delay_constructor_t>;
  using load_t = cub::BlockLoad<T, threads, items, Policy::LOAD_ALGORITHM>;
  using scan_t = cub::BlockScan<pair_t, threads, Policy::SCAN_ALGORITHM>;
  using exchange_t = cub::BlockExchange<T, threads, items>;
  // Pointers are read through CUB's cache-modified iterator (the policy's load modifier), other
  // iterators as they are.
  using input_t = ::cuda::std::conditional_t<
      ::cuda::std::is_pointer<InIt>::value,
      cub::CacheModifiedInputIterator<Policy::LOAD_MODIFIER, T, offset_t>, InIt>;

  union storage_t {
    struct {
      typename scan_t::TempStorage scan;
      typename prefix_op_t::TempStorage prefix;
    } scan;
    typename load_t::TempStorage load;
    typename exchange_t::TempStorage exchange;
  };
  struct TempStorage : cub::Uninitialized<storage_t> {};

  storage_t& storage;
  InIt d_in;
  OutIt d_out;
  const offset_t* d_begin;
  const offset_t* d_end;
  offset_t num_segments;
  offset_t n;
  ScanOp op;
  InitT init;

  /// For this thread's items i0 .. i0 + items - 1: reset[k] (the item starts a run: it begins a
  /// segment or lies outside every segment) and bit k of the returned mask (it lies in a segment,
  /// so it is written). Segments [s_lo, s_up) are the ones the tile can touch; s_up, when it is a
  /// segment, ends after the tile.
  __device__ __forceinline__ mask_t flags(offset_t i0, offset_t s_lo, offset_t s_up,
                                          int (&reset)[items]) const {
    constexpr offset_t none = ::cuda::std::numeric_limits<offset_t>::max();
    mask_t in_segment = 0;
    if (i0 >= n) {
#pragma unroll
      for (int k = 0; k < items; ++k)
        reset[k] = 1;
      return in_segment;
    }
    offset_t s = first_ending_after(d_end, s_lo, s_up, i0);
    offset_t e = s < s_up ? d_end[s] : none;  // s_up ends after the tile
    offset_t b = s < num_segments ? d_begin[s] : none;
#pragma unroll
    for (int k = 0; k < items; ++k) {
      const offset_t i = i0 + k;
      if (i >= n) {
        reset[k] = 1;
        continue;
      }
      if (e <= i) {
        // Walk to the next segment ending after i; many empty segments in a row are jumped over
        // by a search rather than walked one by one.
        int steps = 0;
        do {
          ++s;
          if (++steps > 4) s = first_ending_after(d_end, s, s_up, i);
          e = s < s_up ? d_end[s] : none;
        } while (e <= i);
        b = s < num_segments ? d_begin[s] : none;
      }
      const bool in = b <= i;
      reset[k] = !in || b == i;
      in_segment |= mask_t(in) << k;
    }
    return in_segment;
  }

  template <bool Last>
  __device__ __forceinline__ void consume_tile(int tile_idx, offset_t tile_base,
                                               const offset_t* d_tile_first,
                                               tile_state& tile_state_ref) {
    T values[items];
    const offset_t remaining = n - tile_base;
    if (Last) {
      load_t(storage.load)
          .Load(input_t(d_in + tile_base), values, static_cast<int>(remaining), d_in[tile_base]);
    } else {
      load_t(storage.load).Load(input_t(d_in + tile_base), values);
    }
    __syncthreads();  // the load's storage is reused by the scan

    int reset[items];
    const mask_t in_segment = flags(tile_base + offset_t(threadIdx.x) * items,
                                    d_tile_first[tile_idx], d_tile_first[tile_idx + 1], reset);
    pair_t pairs[items];
#pragma unroll
    for (int k = 0; k < items; ++k) {
      pairs[k].key = reset[k];
      pairs[k].value = values[k];
    }
    pair_op_t pair_op(op);  // CUB's pair operator is not const-callable
    if (tile_idx == 0) {
      pair_t aggregate;
      if constexpr (inclusive) {
        scan_t(storage.scan.scan).InclusiveScan(pairs, pairs, pair_op, aggregate);
      } else {
        scan_t(storage.scan.scan).ExclusiveScan(pairs, pairs, pair_op, aggregate);
      }
      if (threadIdx.x == 0 && !Last) tile_state_ref.SetInclusive(0, aggregate);
    } else {
      prefix_op_t prefix(tile_state_ref, storage.scan.prefix, pair_op, tile_idx);
      if constexpr (inclusive) {
        scan_t(storage.scan.scan).InclusiveScan(pairs, pairs, pair_op, prefix);
      } else {
        scan_t(storage.scan.scan).ExclusiveScan(pairs, pairs, pair_op, prefix);
      }
    }
    __syncthreads();  // the scan's storage is reused by the exchange

#pragma unroll
    for (int k = 0; k < items; ++k) {
      if constexpr (inclusive) {
        values[k] = pairs[k].value;
      } else {
        // A run's first item gets init; the others init op (the run's items before them). The
        // exclusive prefix of a run's first item is undefined and never used.
        values[k] = reset[k] ? T(init) : static_cast<T>(op(init, pairs[k].value));
      }
    }

    const offset_t first = tile_base + offset_t(threadIdx.x) * items;
    if constexpr (direct_store) {
#pragma unroll
      for (int k = 0; k < items; ++k) {
        if ((in_segment >> k) & 1) d_out[first + k] = values[k];
      }
    } else {
      exchange_t(storage.exchange).BlockedToWarpStriped(values, values);
      // Warp-striped: item k of a lane is the warp's item k * 32 + lane, which the warp's lane
      // (k * 32 + lane) / items held in the blocked arrangement; its write bit comes from there.
      const int lane = static_cast<int>(threadIdx.x % 32);
      const offset_t warp_base = tile_base + offset_t(threadIdx.x / 32) * (32 * items);
#pragma unroll
      for (int k = 0; k < items; ++k) {
        const int p = k * 32 + lane;
        const mask_t owner_mask = __shfl_sync(0xffffffffu, in_segment, p / items);
        if ((owner_mask >> (p % items)) & 1) d_out[warp_base + p] = values[k];
      }
    }
  }

  __device__ __forceinline__ void consume(int num_tiles, const offset_t* d_tile_first,
                                          tile_state& tile_state_ref) {
    const int tile_idx = static_cast<int>(blockIdx.x);
    const offset_t tile_base = offset_t(tile_idx) * tile_items;
    if (tile_idx + 1 < num_tiles) {
      consume_tile<false>(tile_idx, tile_base, d_tile_first, tile_state_ref);
    } else if (tile_idx < num_tiles) {
      consume_tile<true>(tile_idx, tile_base, d_tile_first, tile_state_ref);
    }
  }
};

/// The sweep: one block per tile of CUB's active scan-by-key policy.
template <class ChainedPolicy, class T, class ScanOp, class InitT, class InIt = const T*,
          class OutIt = T*>
CUB_DETAIL_KERNEL_ATTRIBUTES __launch_bounds__(int(
    ChainedPolicy::ActivePolicy::ScanByKeyPolicyT::
        BLOCK_THREADS)) void sweep_kernel(InIt d_in, OutIt d_out, const offset_t* d_begin,
                                          const offset_t* d_end, offset_t num_segments, offset_t n,
                                          const offset_t* d_tile_first, tile_state_t<T> tile_state,
                                          int num_tiles, ScanOp op, InitT init) {
  using agent_t =
      agent<typename ChainedPolicy::ActivePolicy::ScanByKeyPolicyT, T, ScanOp, InitT, InIt, OutIt>;
  __shared__ typename agent_t::TempStorage storage;
  agent_t a{storage.Alias(), d_in, d_out, d_begin, d_end, num_segments, n, op, init};
  a.consume(num_tiles, d_tile_first, tile_state);
}

}  // namespace segscan
}  // namespace detail
}  // namespace cupar
