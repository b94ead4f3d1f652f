// cupar internal: the CUB radix sort behind cupar::sort_keys / cupar::sort_pairs. Included by one
// translation unit per key type so the instantiations build in parallel.
#pragma once

#include "index_gather.hpp"
#include "radix_sort.hpp"

#include <cupar/detail/temp_storage.hpp>

#include <cub/device/device_radix_sort.cuh>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace cupar::detail {

namespace radix {

/// Words rather than bytes: a struct of bytes is moved byte by byte in places (a merge sort with
/// a 4-byte struct of bytes as payload measured 1.17-1.29x slower: docs/probes/midsize.cu).
template <std::size_t Size, std::size_t Align>
struct alignas(Align) value_storage {
  static_assert(Size % 8 == 0 && Align >= 8, "used for 16-byte values");
  unsigned long long words[Size / 8];
};

// Offsets for CUB. CUB's sm_90 onesweep tuning depends only on the sizes of key, value and
// offset, but ptxas does not: with 32-bit offsets the keys-only onesweep kernel gets 74 registers
// for u32 keys (56 for i32 and f32 keys), so 2 instead of 3 blocks of 384 threads fit on an SM;
// with 64-bit offsets, u8 keys get 76 registers (64 with 32-bit), 1 block of 512 instead of 2.
// Measured (docs/probes/radixwidth.cu, GPU time, keys-only, time with 64-bit / time with 32-bit
// offsets): u32 0.96 at 2^23 falling to 0.86 at 2^28, 1.01-1.03 below 2^23; u8 1.09-1.39 from
// 2^21; i32, f32, i16, u16, i8 and f64 1.00-1.04 from 2^20; i64 and u64 0.99-1.00 from 2^23.
// Pairs (u32 values): 1.06-1.19 from 2^20 for every key up to 4 bytes, 1.00-1.01 for 8-byte keys.
// So 64-bit offsets where they win (u32 keys and 8-byte integer keys, keys only, from 2^23) or
// where n needs them (above 2^32 - 1); 32-bit everywhere else.
using offset32 = std::uint32_t;
using offset64 = unsigned long long;

/// Whether a keys-only sort of n keys of type K runs with 64-bit offsets (see above).
template <class K>
constexpr bool keys_only_offset64(std::size_t n) {
  if (n > std::numeric_limits<offset32>::max()) return true;
  constexpr bool faster_wide =
      std::is_integral_v<K> && ((sizeof(K) == 4 && std::is_unsigned_v<K>) || sizeof(K) == 8);
  return faster_wide && n >= (std::size_t(1) << 23);
}
static_assert(!keys_only_offset64<std::uint32_t>((std::size_t(1) << 23) - 1) &&
              keys_only_offset64<std::uint32_t>(std::size_t(1) << 23) &&
              keys_only_offset64<long long>(std::size_t(1) << 23) &&
              !keys_only_offset64<int>(std::size_t(1) << 28) &&
              !keys_only_offset64<float>(std::size_t(1) << 28) &&
              !keys_only_offset64<unsigned char>(std::size_t(1) << 28) &&
              keys_only_offset64<unsigned char>(std::size_t(1) << 32));

template <class K, class V>
constexpr bool keys_only = std::is_same_v<V, cub::NullType>;

template <class K, class V, class Offset>
cudaError_t cub_sort(void* temp, std::size_t& bytes, const K* kin, K* kout, const V* vin, V* vout,
                     Offset n, bool descending, int begin_bit, int end_bit, cudaStream_t s) {
  using cub::DeviceRadixSort;
  if constexpr (keys_only<K, V>) {
    return descending ? DeviceRadixSort::SortKeysDescending(temp, bytes, kin, kout, n, begin_bit,
                                                            end_bit, s)
                      : DeviceRadixSort::SortKeys(temp, bytes, kin, kout, n, begin_bit, end_bit, s);
  } else {
    return descending ? DeviceRadixSort::SortPairsDescending(temp, bytes, kin, kout, vin, vout, n,
                                                             begin_bit, end_bit, s)
                      : DeviceRadixSort::SortPairs(temp, bytes, kin, kout, vin, vout, n, begin_bit,
                                                   end_bit, s);
  }
}

template <class K, class V, class Offset>
cudaError_t cub_sort_double_buffer(void* temp, std::size_t& bytes, cub::DoubleBuffer<K>& keys,
                                   cub::DoubleBuffer<V>& values, Offset n, bool descending,
                                   int begin_bit, int end_bit, cudaStream_t s) {
  using cub::DeviceRadixSort;
  if constexpr (keys_only<K, V>) {
    return descending
               ? DeviceRadixSort::SortKeysDescending(temp, bytes, keys, n, begin_bit, end_bit, s)
               : DeviceRadixSort::SortKeys(temp, bytes, keys, n, begin_bit, end_bit, s);
  } else {
    return descending
               ? DeviceRadixSort::SortPairsDescending(temp, bytes, keys, values, n, begin_bit,
                                                      end_bit, s)
               : DeviceRadixSort::SortPairs(temp, bytes, keys, values, n, begin_bit, end_bit, s);
  }
}

/// Sorts kin -> kout (and vin -> vout). When the caller sorts in place (kin == kout or
/// vin == vout), CUB's two-buffer interface is used with an alternate buffer from `mr`, since
/// CUB's copying interface is wrong for aliased input and output (NVIDIA/cccl#4733).
template <class K, class V, class Offset>
void sort(const K* kin, K* kout, const V* vin, V* vout, std::size_t n_total, bool descending,
          int begin_bit, int end_bit, stream_ref stream, memory_resource& mr) {
  const char* call =
      keys_only<K, V> ? "cub::DeviceRadixSort::SortKeys" : "cub::DeviceRadixSort::SortPairs";
  const auto n = static_cast<Offset>(n_total);
  const bool in_place = kin == kout || (!keys_only<K, V> && vin == vout);
  if (!in_place) {
    const temp_size_key key{n_total, std::uint64_t(begin_bit) << 8 | std::uint64_t(end_bit),
                            std::uint64_t(descending)};
    run_with_temp_storage(call, mr, stream, key, [&](void* temp, std::size_t& bytes) {
      return cub_sort(temp, bytes, kin, kout, vin, vout, n, descending, begin_bit, end_bit,
                      stream.get());
    });
    return;
  }
  // The current buffers start out holding the input: the outputs, after copying the input there
  // where it is elsewhere.
  const std::size_t key_bytes = n_total * sizeof(K);
  const std::size_t value_bytes = keys_only<K, V> ? 0 : n_total * sizeof(V);
  if (kin != kout) {
    check_cuda(cudaMemcpyAsync(kout, kin, key_bytes, cudaMemcpyDeviceToDevice, stream.get()),
               "cudaMemcpyAsync");
  }
  if constexpr (!keys_only<K, V>) {
    if (vin != vout) {
      check_cuda(cudaMemcpyAsync(vout, vin, value_bytes, cudaMemcpyDeviceToDevice, stream.get()),
                 "cudaMemcpyAsync");
    }
  }
  cub::DoubleBuffer<K> keys(kout, nullptr);
  cub::DoubleBuffer<V> values(vout, nullptr);
  auto run = [&](void* temp, std::size_t& bytes) {
    return cub_sort_double_buffer(temp, bytes, keys, values, n, descending, begin_bit, end_bit,
                                  stream.get());
  };
  std::size_t cub_bytes = required_temp_bytes(
      call,
      {n_total, std::uint64_t(begin_bit) << 8 | std::uint64_t(end_bit), std::uint64_t(descending)},
      run);
  carve parts;
  const std::size_t alt_keys_at = parts.add(key_bytes);
  const std::size_t alt_values_at = parts.add(value_bytes);
  const std::size_t cub_at = parts.add(cub_bytes);
  temp_storage temp(mr, parts.total, stream);
  auto* base = static_cast<unsigned char*>(temp.get());
  keys = cub::DoubleBuffer<K>(kout, reinterpret_cast<K*>(base + alt_keys_at));
  if constexpr (!keys_only<K, V>) {
    values = cub::DoubleBuffer<V>(vout, reinterpret_cast<V*>(base + alt_values_at));
  }
  check_cuda(run(base + cub_at, cub_bytes), call);
  if (keys.Current() != kout) {
    check_cuda(
        cudaMemcpyAsync(kout, keys.Current(), key_bytes, cudaMemcpyDeviceToDevice, stream.get()),
        "cudaMemcpyAsync");
  }
  if constexpr (!keys_only<K, V>) {
    if (values.Current() != vout) {
      check_cuda(cudaMemcpyAsync(vout, values.Current(), value_bytes, cudaMemcpyDeviceToDevice,
                                 stream.get()),
                 "cudaMemcpyAsync");
    }
  }
}

/// Values the sort cannot move itself, and every pair sort above 2^32 - 1 elements (so only one
/// 64-bit-offset pair instantiation per key exists): sort (key, index) pairs, then gather. The two
/// index arrays are CUB's two value buffers, so the sort needs no third one.
template <class K, class Index>
void sort_by_index(const radix_sort_args& a, bool descending, int end_bit, stream_ref stream,
                   memory_resource& mr) {
  using Offset = std::conditional_t<sizeof(Index) == 4, offset32, offset64>;
  const char* call = "cub::DeviceRadixSort::SortPairs";
  const std::size_t n = a.n;
  const auto n_offset = static_cast<Offset>(n);
  const auto* kin = static_cast<const K*>(a.keys_in);
  auto* kout = static_cast<K*>(a.keys_out);
  const bool values_in_place = a.values_in == a.values_out;
  // The keys start out in the output (copied there unless sorted in place).
  if (kin != kout) {
    check_cuda(cudaMemcpyAsync(kout, kin, n * sizeof(K), cudaMemcpyDeviceToDevice, stream.get()),
               "cudaMemcpyAsync");
  }
  cub::DoubleBuffer<K> keys(kout, nullptr);
  cub::DoubleBuffer<Index> indices(nullptr, nullptr);
  auto run = [&](void* temp, std::size_t& bytes) {
    return cub_sort_double_buffer(temp, bytes, keys, indices, n_offset, descending,
                                  a.options.begin_bit, end_bit, stream.get());
  };
  std::size_t cub_bytes =
      required_temp_bytes(call,
                          {n, std::uint64_t(a.options.begin_bit) << 8 | std::uint64_t(end_bit),
                           std::uint64_t(descending)},
                          run);
  carve parts;
  const std::size_t alt_keys_at = parts.add(n * sizeof(K));
  const std::size_t idx_a_at = parts.add(n * sizeof(Index));
  const std::size_t idx_b_at = parts.add(n * sizeof(Index));
  const std::size_t copy_at = parts.add(values_in_place ? n * a.value_size : 0);
  const std::size_t cub_at = parts.add(cub_bytes);
  temp_storage temp(mr, parts.total, stream);
  auto* base = static_cast<unsigned char*>(temp.get());
  keys = cub::DoubleBuffer<K>(kout, reinterpret_cast<K*>(base + alt_keys_at));
  indices = cub::DoubleBuffer<Index>(reinterpret_cast<Index*>(base + idx_a_at),
                                     reinterpret_cast<Index*>(base + idx_b_at));
  index_iota(indices.Current(), sizeof(Index), n, stream);
  check_cuda(run(base + cub_at, cub_bytes), call);
  if (keys.Current() != kout) {
    check_cuda(cudaMemcpyAsync(kout, keys.Current(), n * sizeof(K), cudaMemcpyDeviceToDevice,
                               stream.get()),
               "cudaMemcpyAsync");
  }
  const void* src = a.values_in;
  if (values_in_place) {
    check_cuda(cudaMemcpyAsync(base + copy_at, a.values_in, n * a.value_size,
                               cudaMemcpyDeviceToDevice, stream.get()),
               "cudaMemcpyAsync");
    src = base + copy_at;
  }
  index_gather(src, a.values_out, indices.Current(), sizeof(Index), a.value_size, n, stream);
}

inline bool aligned_to(const void* p, std::size_t alignment) {
  return reinterpret_cast<std::uintptr_t>(p) % alignment == 0;
}

}  // namespace radix

template <class Key>
void radix_sort_key(const radix_sort_args& a, int end_bit, stream_ref stream, memory_resource& mr) {
  using namespace radix;
  const bool descending = a.options.order == sort_order::descending;
  const int begin_bit = a.options.begin_bit;
  const auto* kin = static_cast<const Key*>(a.keys_in);
  auto* kout = static_cast<Key*>(a.keys_out);
  if (a.value_size == 0) {
    auto keys_only = [&](auto offset_tag) {
      sort<Key, cub::NullType, decltype(offset_tag)>(
          kin, kout, static_cast<const cub::NullType*>(nullptr),
          static_cast<cub::NullType*>(nullptr), a.n, descending, begin_bit, end_bit, stream, mr);
    };
    if (keys_only_offset64<Key>(a.n)) {
      keys_only(offset64{});
    } else {
      keys_only(offset32{});
    }
    return;
  }
  if (a.n > std::numeric_limits<std::uint32_t>::max()) {
    sort_by_index<Key, unsigned long long>(a, descending, end_bit, stream, mr);
    return;
  }
  auto moved = [&](auto value_tag) {
    using V = decltype(value_tag);
    sort<Key, V, offset32>(kin, kout, static_cast<const V*>(a.values_in),
                           static_cast<V*>(a.values_out), a.n, descending, begin_bit, end_bit,
                           stream, mr);
  };
  const std::size_t size = a.value_size;
  const bool natural = (size == 1 || size == 2 || size == 4 || size == 8 || size == 16) &&
                       aligned_to(a.values_in, size) && aligned_to(a.values_out, size);
  if (natural) {
    switch (size) {
      case 1:
        return moved(static_cast<unsigned char>(0));
      case 2:
        return moved(static_cast<unsigned short>(0));
      case 4:
        return moved(0u);
      case 8:
        return moved(0ull);
      default:
        return moved(value_storage<16, 16>{});
    }
  }
  sort_by_index<Key, std::uint32_t>(a, descending, end_bit, stream, mr);
}

}  // namespace cupar::detail
