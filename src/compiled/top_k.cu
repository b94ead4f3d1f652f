// cupar: top-k selection (include/cupar/top_k.hpp), a radix select on the device.
//
// Every key becomes its order-preserving unsigned bits ("ordered": what CUB's radix sort sorts,
// -0.0 as +0.0, inverted for a descending order), so that the k items wanted are those with the
// k smallest (ordered key, position) pairs. Pass d (from the most significant byte) counts, over
// the keys whose higher bytes equal the digits chosen so far, how many have each value of byte d
// (a histogram of 256 bins per block, added to one in device memory); one thread then walks the
// bins to the one holding the k-th item, which fixes byte d and how many of that bin are still
// needed. After the key's bytes the threshold key T is exact; the items with ordered < T are all
// taken, and of the keys equal to T (the ties) the `need` lowest positions, found the same way on
// the positions' bytes (skipped, on the device, when every tie is taken). A collect pass appends
// the k items (ordered key, position) through one atomic per warp;
// one radix sort of those k items by (ordered key, position) gives the output order; the outputs
// are gathered by position. No host synchronisation: the choices stay in device memory.
#include "compiled/index_gather.hpp"
#include "compiled/library_types.hpp"

#include <cupar/detail/checks.hpp>
#include <cupar/detail/cuda_check.hpp>
#include <cupar/detail/device_guard.hpp>
#include <cupar/detail/temp_storage.hpp>
#include <cupar/top_k.hpp>

#include <cub/device/device_radix_sort.cuh>
#include <cuda/std/tuple>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>

namespace cupar::detail {
namespace {

constexpr int kBins = 256;
constexpr int kThreads = 256;

/// What the passes decide, in device memory (the temporary storage's first bytes).
struct select_state {
  unsigned long long prefix;        // the ordered key's bytes chosen so far (then T)
  unsigned long long need;          // how many items of the chosen prefix are still to take
  unsigned long long ties;          // the items in the chosen bin of the last pass
  unsigned long long index_prefix;  // the positions' bytes chosen among the ties (then I)
  unsigned long long index_need;
  unsigned long long taken;  // the collect pass's counter
  unsigned int all_ties;     // every tie is taken: the position passes do nothing
  unsigned int pad;
  unsigned long long hist[kBins];
};

template <std::size_t Bytes>
struct unsigned_of;
template <>
struct unsigned_of<1> {
  using type = std::uint8_t;
};
template <>
struct unsigned_of<2> {
  using type = std::uint16_t;
};
template <>
struct unsigned_of<4> {
  using type = std::uint32_t;
};
template <>
struct unsigned_of<8> {
  using type = std::uint64_t;
};

/// The key's order-preserving bits: ascending order of these is the radix sort's order of the
/// keys (descending: of their complement).
template <class K>
__device__ __forceinline__ typename unsigned_of<sizeof(K)>::type ordered(K key, bool descending) {
  using U = typename unsigned_of<sizeof(K)>::type;
  constexpr U sign = static_cast<U>(U(1) << (8 * sizeof(U) - 1));
  U b;
  memcpy(&b, &key, sizeof(K));
  if constexpr (std::is_floating_point_v<K>) {
    if (b == sign) b = 0;  // -0.0 sorts as +0.0
    b = (b & sign) ? static_cast<U>(~b) : static_cast<U>(b | sign);
  } else if constexpr (std::is_signed_v<K>) {
    b = static_cast<U>(b ^ sign);
  }
  return descending ? static_cast<U>(~b) : b;
}

/// Histogram of byte `shift / 8` of the ordered keys whose bits under `high` equal the prefix.
template <class K>
__global__ void __launch_bounds__(kThreads)
    key_histogram(const K* keys, unsigned long long n, select_state* st, int shift,
                  unsigned long long high, bool descending) {
  __shared__ unsigned int bins[kBins];
  for (int t = threadIdx.x; t < kBins; t += blockDim.x)
    bins[t] = 0;
  __syncthreads();
  const unsigned long long prefix = st->prefix & high;
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long i =
           static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < n; i += stride) {
    const unsigned long long u = ordered(keys[i], descending);
    if ((u & high) == prefix) atomicAdd(&bins[(u >> shift) & 0xFF], 1u);
  }
  __syncthreads();
  for (int t = threadIdx.x; t < kBins; t += blockDim.x) {
    if (bins[t] != 0) atomicAdd(&st->hist[t], static_cast<unsigned long long>(bins[t]));
  }
}

/// Histogram of byte `shift / 8` of the positions of the ties (ordered key == T) whose position
/// bits under `high` equal the position prefix. Nothing when every tie is taken.
template <class K>
__global__ void __launch_bounds__(kThreads)
    position_histogram(const K* keys, unsigned long long n, select_state* st, int shift,
                       unsigned long long high, bool descending) {
  if (st->all_ties != 0) return;
  __shared__ unsigned int bins[kBins];
  for (int t = threadIdx.x; t < kBins; t += blockDim.x)
    bins[t] = 0;
  __syncthreads();
  const unsigned long long threshold = st->prefix;
  const unsigned long long prefix = st->index_prefix & high;
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long i =
           static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < n; i += stride) {
    if ((i & high) == prefix && ordered(keys[i], descending) == threshold) {
      atomicAdd(&bins[(i >> shift) & 0xFF], 1u);
    }
  }
  __syncthreads();
  for (int t = threadIdx.x; t < kBins; t += blockDim.x) {
    if (bins[t] != 0) atomicAdd(&st->hist[t], static_cast<unsigned long long>(bins[t]));
  }
}

/// One thread: the bin holding the `need`-th item fixes the byte at `shift`; clears the bins.
/// Key passes (positions = false) move prefix / need; after the last one (`last`), ties and
/// whether every tie is taken. Position passes move index_prefix / index_need.
__global__ void choose_digit(select_state* st, int shift, bool positions, bool last) {
  if (positions && st->all_ties != 0) return;
  unsigned long long need = positions ? st->index_need : st->need;
  unsigned long long before = 0;
  int digit = kBins - 1;
  for (int d = 0; d < kBins; ++d) {
    const unsigned long long c = st->hist[d];
    if (before + c >= need) {
      digit = d;
      break;
    }
    before += c;
  }
  const unsigned long long in_bin = st->hist[digit];
  need -= before;
  if (positions) {
    st->index_prefix |= static_cast<unsigned long long>(digit) << shift;
    st->index_need = need;
  } else {
    st->prefix |= static_cast<unsigned long long>(digit) << shift;
    st->need = need;
    if (last) {
      st->ties = in_bin;
      st->all_ties = need == in_bin ? 1u : 0u;
      st->index_need = need;
    }
  }
  for (int d = 0; d < kBins; ++d)
    st->hist[d] = 0;
}

/// A chosen item: its ordered key, then its position (the sort's order: key, then position).
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

/// Appends the k chosen items to `out`, in no order.
template <class K, class Index>
__global__ void __launch_bounds__(kThreads)
    collect(const K* keys, unsigned long long n, select_state* st, bool descending,
            chosen<typename unsigned_of<sizeof(K)>::type, Index>* out) {
  const unsigned long long threshold = st->prefix;
  const unsigned long long last = st->all_ties != 0 ? ~0ull : st->index_prefix;
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  const unsigned lane = threadIdx.x & 31u;
  // Every thread of a warp runs the same iterations (the bound is per block), so the ballot is
  // over the whole warp.
  for (unsigned long long base = static_cast<unsigned long long>(blockIdx.x) * blockDim.x; base < n;
       base += stride) {
    const unsigned long long i = base + threadIdx.x;
    bool take = false;
    typename unsigned_of<sizeof(K)>::type u = 0;
    if (i < n) {
      u = ordered(keys[i], descending);
      take = u < threshold || (u == threshold && i <= last);
    }
    const unsigned mask = __ballot_sync(0xFFFFFFFFu, take);
    if (mask == 0) continue;
    unsigned long long slot = 0;
    if (lane == 0) slot = atomicAdd(&st->taken, static_cast<unsigned long long>(__popc(mask)));
    slot = __shfl_sync(0xFFFFFFFFu, slot, 0);
    if (take) {
      const unsigned long long at = slot + __popc(mask & ((1u << lane) - 1u));
      out[at] = {u, static_cast<Index>(i)};
    }
  }
}

/// The sorted items' positions, as the gathers take them and as the caller's positions.
template <class U, class Index, class Position>
__global__ void __launch_bounds__(kThreads)
    write_positions(const chosen<U, Index>* from, Index* positions, Position* to,
                    unsigned long long k) {
  const unsigned long long i =
      static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= k) return;
  positions[i] = from[i].position;
  if (to != nullptr) to[i] = static_cast<Position>(from[i].position);
}

/// Blocks for a pass over n items: enough to fill the GPU a few times, at most one per 4 tiles.
unsigned pass_blocks(unsigned long long n) {
  static int sms[64] = {};
  int device = 0;
  check_cuda(cudaGetDevice(&device), "cudaGetDevice");
  int& count = sms[device & 63];
  if (count == 0) {
    check_cuda(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device),
               "cudaDeviceGetAttribute");
  }
  const unsigned long long tiles = (n + kThreads * 4ull - 1) / (kThreads * 4ull);
  return static_cast<unsigned>(std::max(1ull, std::min(tiles, 8ull * count)));
}

struct carve {
  std::size_t total = 0;
  std::size_t add(std::size_t bytes) {
    const std::size_t at = total;
    total = align_up(at + bytes, 256);
    return at;
  }
};

template <class K, class Index>
void select(const top_k_args& a, stream_ref stream, memory_resource& mr) {
  using U = typename unsigned_of<sizeof(K)>::type;
  const cudaStream_t s = stream.get();
  const bool descending = a.order == sort_order::descending;
  const auto* keys = static_cast<const K*>(a.keys_in);
  const unsigned long long n = a.n, k = a.k;

  // Temporary storage: the state, the k chosen items twice (the sort's input and output), their
  // positions, CUB's storage.
  using item = chosen<U, Index>;
  std::size_t cub_bytes = 0;
  check_cuda(cub::DeviceRadixSort::SortKeys(nullptr, cub_bytes, static_cast<const item*>(nullptr),
                                            static_cast<item*>(nullptr), k, chosen_decomposer{}, s),
             "cub::DeviceRadixSort::SortKeys");
  carve parts;
  const std::size_t state_at = parts.add(sizeof(select_state));
  const std::size_t items_at = parts.add(k * sizeof(item));
  const std::size_t sorted_at = parts.add(k * sizeof(item));
  const std::size_t pos_at = parts.add(k * sizeof(Index));
  const std::size_t cub_at = parts.add(cub_bytes);
  temp_storage temp(mr, parts.total, stream);
  auto* base = static_cast<unsigned char*>(temp.get());
  auto* st = reinterpret_cast<select_state*>(base + state_at);
  auto* items = reinterpret_cast<item*>(base + items_at);
  auto* sorted = reinterpret_cast<item*>(base + sorted_at);
  auto* positions = reinterpret_cast<Index*>(base + pos_at);

  select_state init{};
  init.need = k;
  check_cuda(cudaMemcpyAsync(st, &init, sizeof(init), cudaMemcpyHostToDevice, s),
             "cudaMemcpyAsync");
  const unsigned blocks = pass_blocks(n);
  constexpr int key_bits = 8 * sizeof(K);
  for (int shift = key_bits - 8; shift >= 0; shift -= 8) {
    const unsigned long long high =
        shift + 8 >= key_bits ? 0ull : (~0ull << (shift + 8)) & (~0ull >> (64 - key_bits));
    key_histogram<K><<<blocks, kThreads, 0, s>>>(keys, n, st, shift, high, descending);
    choose_digit<<<1, 1, 0, s>>>(st, shift, false, shift == 0);
  }
  // The positions' bytes, for the ties that do not all fit.
  int position_bits = 8;
  while (position_bits < 64 && (n - 1) >> position_bits != 0)
    position_bits += 8;
  for (int shift = position_bits - 8; shift >= 0; shift -= 8) {
    const unsigned long long high = shift + 8 >= 64 ? 0ull : ~0ull << (shift + 8);
    position_histogram<K><<<blocks, kThreads, 0, s>>>(keys, n, st, shift, high, descending);
    choose_digit<<<1, 1, 0, s>>>(st, shift, true, false);
  }
  collect<K, Index><<<blocks, kThreads, 0, s>>>(keys, n, st, descending, items);
  check_cuda(cudaGetLastError(), "cupar top_k kernel launch");
  check_cuda(cub::DeviceRadixSort::SortKeys(base + cub_at, cub_bytes, items, sorted, k,
                                            chosen_decomposer{}, s),
             "cub::DeviceRadixSort::SortKeys");
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
