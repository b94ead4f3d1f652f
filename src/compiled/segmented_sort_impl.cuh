// cupar internal: CUB's segmented sort behind cupar::segmented_sort_keys / segmented_sort_pairs.
// Included by two translation units per key type (keys only, pairs) so the heavy instantiations
// build in parallel.
//
// CUB's DeviceSegmentedSort: radix sorts per block for large segments, warp and sub-warp merge
// sorts for small ones, after partitioning the segments by size (so many tiny segments cost
// little); 64-bit item and segment counts. Its Stable* entry points are used: in CCCL 3.0.1 they
// are the same code as the others, which is stable, and calling them keeps the guarantee should
// that change.
//
// Values: CUB moves 4- and 8-byte values itself (the key type's pairs translation unit holds those
// two instantiations per direction). Other sizes, and misaligned arrays, sort (key, index) pairs
// with the same instantiations (32- or 64-bit indices) and gather the values afterwards. Each of
// CUB's instantiations costs about 20 s of compile time; moving 1-, 2- and 16-byte values
// natively too would more than double the library's segmented sort build.
//
// In place (out == in): CUB's copying interface must not overwrite its input, and its
// double-buffer interface may leave the result in the other buffer, whose items outside the
// segments are not the caller's. So the input is first copied to temporary storage and sorted from
// there into the caller's array, whose items outside the segments stay untouched.
#pragma once

#include "index_gather.hpp"
#include "segmented_sort.hpp"

#include <cupar/detail/cuda_check.hpp>
#include <cupar/detail/temp_storage.hpp>

#include <cub/device/device_segmented_sort.cuh>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace cupar::detail {
namespace segsort {

template <class V>
constexpr bool keys_only = std::is_same_v<V, cub::NullType>;

template <class K, class V>
cudaError_t cub_sort(void* temp, std::size_t& bytes, const K* kin, K* kout, const V* vin, V* vout,
                     const segmented_sort_args& a, bool descending, cudaStream_t s) {
  using cub::DeviceSegmentedSort;
  const auto n = static_cast<std::int64_t>(a.n);
  const auto segments = static_cast<std::int64_t>(a.num_segments);
  if constexpr (keys_only<V>) {
    return descending ? DeviceSegmentedSort::StableSortKeysDescending(
                            temp, bytes, kin, kout, n, segments, a.begin_offsets, a.end_offsets, s)
                      : DeviceSegmentedSort::StableSortKeys(temp, bytes, kin, kout, n, segments,
                                                            a.begin_offsets, a.end_offsets, s);
  } else {
    return descending
               ? DeviceSegmentedSort::StableSortPairsDescending(temp, bytes, kin, kout, vin, vout,
                                                                n, segments, a.begin_offsets,
                                                                a.end_offsets, s)
               : DeviceSegmentedSort::StableSortPairs(temp, bytes, kin, kout, vin, vout, n,
                                                      segments, a.begin_offsets, a.end_offsets, s);
  }
}

inline void copy_async(void* dst, const void* src, std::size_t bytes, stream_ref s) {
  check_cuda(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, s.get()),
             "cudaMemcpyAsync");
}

inline bool aligned_to(const void* p, std::size_t alignment) {
  return reinterpret_cast<std::uintptr_t>(p) % alignment == 0;
}

/// Keys (V = cub::NullType), or keys with 4- or 8-byte values that CUB moves itself.
template <class K, class V>
void sort_moved(const segmented_sort_args& a, stream_ref s, memory_resource& mr) {
  const char* call = keys_only<V> ? "cub::DeviceSegmentedSort::StableSortKeys"
                                  : "cub::DeviceSegmentedSort::StableSortPairs";
  const bool descending = a.options.order == sort_order::descending;
  const auto* kin = static_cast<const K*>(a.keys_in);
  auto* kout = static_cast<K*>(a.keys_out);
  const auto* vin = static_cast<const V*>(a.values_in);
  auto* vout = static_cast<V*>(a.values_out);
  const bool keys_in_place = kin == kout;
  const bool values_in_place = !keys_only<V> && vin == vout;
  const std::size_t key_bytes = a.n * sizeof(K);
  const std::size_t value_bytes = keys_only<V> ? 0 : a.n * sizeof(V);
  auto sizing = [&](void* temp, std::size_t& bytes) {
    return cub_sort(temp, bytes, kin, kout, vin, vout, a, descending, s.get());
  };
  std::size_t cub_bytes = required_temp_bytes(call, {a.n, a.num_segments, descending}, sizing);
  carve parts;
  const std::size_t keys_at = parts.add(keys_in_place ? key_bytes : 0);
  const std::size_t values_at = parts.add(values_in_place ? value_bytes : 0);
  const std::size_t cub_at = parts.add(cub_bytes);
  temp_storage temp(mr, parts.total, s);
  auto* base = static_cast<unsigned char*>(temp.get());
  const K* ksrc = kin;
  const V* vsrc = vin;
  if (keys_in_place) {
    copy_async(base + keys_at, kin, key_bytes, s);
    ksrc = reinterpret_cast<const K*>(base + keys_at);
  }
  if (values_in_place) {
    copy_async(base + values_at, vin, value_bytes, s);
    vsrc = reinterpret_cast<const V*>(base + values_at);
  }
  check_cuda(cub_sort(base + cub_at, cub_bytes, ksrc, kout, vsrc, vout, a, descending, s.get()),
             call);
}

/// Values CUB does not move itself: sort (key, index) pairs, then gather. Positions outside every
/// segment keep the all-ones index they are filled with (the sort does not touch them), so the
/// gather skips them and the caller's values there stay untouched.
template <class K, class Index>
void sort_by_index(const segmented_sort_args& a, stream_ref s, memory_resource& mr) {
  const char* call = "cub::DeviceSegmentedSort::StableSortPairs";
  const bool descending = a.options.order == sort_order::descending;
  const std::size_t n = a.n;
  const auto* kin = static_cast<const K*>(a.keys_in);
  auto* kout = static_cast<K*>(a.keys_out);
  const bool keys_in_place = kin == kout;
  const bool values_in_place = a.values_in == a.values_out;
  Index* no_index = nullptr;
  auto sizing = [&](void* temp, std::size_t& bytes) {
    return cub_sort(temp, bytes, kin, kout, static_cast<const Index*>(no_index), no_index, a,
                    descending, s.get());
  };
  std::size_t cub_bytes = required_temp_bytes(call, {n, a.num_segments, descending}, sizing);
  carve parts;
  const std::size_t keys_at = parts.add(keys_in_place ? n * sizeof(K) : 0);
  const std::size_t index_in_at = parts.add(n * sizeof(Index));
  const std::size_t index_out_at = parts.add(n * sizeof(Index));
  const std::size_t values_at = parts.add(values_in_place ? n * a.value_size : 0);
  const std::size_t cub_at = parts.add(cub_bytes);
  temp_storage temp(mr, parts.total, s);
  auto* base = static_cast<unsigned char*>(temp.get());
  const K* ksrc = kin;
  if (keys_in_place) {
    copy_async(base + keys_at, kin, n * sizeof(K), s);
    ksrc = reinterpret_cast<const K*>(base + keys_at);
  }
  auto* index_in = reinterpret_cast<Index*>(base + index_in_at);
  auto* index_out = reinterpret_cast<Index*>(base + index_out_at);
  index_iota(index_in, sizeof(Index), n, s);
  check_cuda(cudaMemsetAsync(index_out, 0xFF, n * sizeof(Index), s.get()), "cudaMemsetAsync");
  check_cuda(cub_sort(base + cub_at, cub_bytes, ksrc, kout, static_cast<const Index*>(index_in),
                      index_out, a, descending, s.get()),
             call);
  const void* vsrc = a.values_in;
  if (values_in_place) {
    copy_async(base + values_at, a.values_in, n * a.value_size, s);
    vsrc = base + values_at;
  }
  index_gather(vsrc, a.values_out, index_out, sizeof(Index), a.value_size, n, s);
}

}  // namespace segsort

template <class Key>
void segmented_sort_keys_of(const segmented_sort_args& a, stream_ref stream, memory_resource& mr) {
  segsort::sort_moved<Key, cub::NullType>(a, stream, mr);
}

template <class Key>
void segmented_sort_pairs_of(const segmented_sort_args& a, stream_ref stream, memory_resource& mr) {
  using namespace segsort;
  const std::size_t size = a.value_size;
  const bool natural =
      (size == 4 || size == 8) && aligned_to(a.values_in, size) && aligned_to(a.values_out, size);
  if (natural && size == 4) return sort_moved<Key, unsigned int>(a, stream, mr);
  if (natural) return sort_moved<Key, unsigned long long>(a, stream, mr);
  // The all-ones index marks positions outside the segments, so it must not be a position.
  if (a.n <= std::numeric_limits<std::uint32_t>::max()) {
    return sort_by_index<Key, unsigned int>(a, stream, mr);
  }
  sort_by_index<Key, unsigned long long>(a, stream, mr);
}

}  // namespace cupar::detail
