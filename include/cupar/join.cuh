// cupar: hash joins of arithmetic keys (cupar::inner_join, semi_join, anti_join) of any iterators
// of keys (nvcc): a hash table built on one table's keys, probed with the other's. The joins of
// two device arrays are join.hpp's (any host compiler; the library runs these kernels for them).
#pragma once

#include <cupar/buffer.hpp>
#include <cupar/detail/checks.hpp>
#include <cupar/detail/cuda_check.hpp>
#include <cupar/detail/device/hash_table.cuh>
#include <cupar/detail/device_guard.hpp>
#include <cupar/detail/group_by_sizing.hpp>
#include <cupar/detail/iterators.cuh>
#include <cupar/detail/temp_storage.hpp>
#include <cupar/detail/type_id.hpp>
#include <cupar/join.hpp>
#include <cupar/memory.hpp>
#include <cupar/stream.hpp>

#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>

#include <thrust/iterator/counting_iterator.h>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace cupar {
namespace detail {

/// A build row's slot is empty while its row word holds every bit set.
template <class R>
inline constexpr R join_empty = static_cast<R>(~static_cast<R>(0));

/// One slot of the build table: a build row's position (join_empty: no row) and its normalised
/// key, side by side so that a probe reads one 32-byte sector, not one of each array.
template <class K, class R>
struct join_slot {
  R row;
  K key;
};

/// The build table: capacity (mask + 1) slots. Duplicate build keys take a slot each.
template <class K, class R>
struct join_table {
  join_slot<K, R>* slots;
  unsigned long long mask;
};

/// Inserts build rows [0, n): each claims the first empty slot from its key's hash (linear
/// probing; the table has at least twice as many slots as rows), then writes its key there. The
/// probes run in later kernels, so no reader sees a slot being written.
template <class K, class R, class KeyIt>
__global__ void join_build_kernel(KeyIt keys, unsigned long long n, join_table<K, R> t) {
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long i =
           static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < n; i += stride) {
    const K k = hash::normalise(static_cast<K>(keys[i]));
    unsigned long long s = hash::mix(hash::key_bits(k)) & t.mask;
    while (atomicCAS(&t.slots[s].row, join_empty<R>, static_cast<R>(i)) != join_empty<R>)
      s = (s + 1) & t.mask;
    t.slots[s].key = k;
  }
}

/// Calls visit(build_row) for each build row whose key equals k (by normalised bits), in slot
/// order; stops early when visit returns false.
template <class K, class R, class Visit>
__device__ __forceinline__ void join_probe(const join_table<K, R>& t, K k, Visit&& visit) {
  const unsigned long long bits = hash::key_bits(k);
  for (unsigned long long s = hash::mix(bits) & t.mask;; s = (s + 1) & t.mask) {
    const join_slot<K, R> slot = t.slots[s];
    if (slot.row == join_empty<R>) return;
    if (hash::key_bits(slot.key) == bits && !visit(slot.row)) return;
  }
}

/// counts[i]: the build rows matching probe row i.
template <class K, class R, class KeyIt>
__global__ void join_count_kernel(KeyIt probe, unsigned long long n, join_table<K, R> t,
                                  unsigned long long* counts) {
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long i =
           static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < n; i += stride) {
    unsigned long long c = 0;
    join_probe(t, static_cast<K>(probe[i]), [&](R) {
      ++c;
      return true;
    });
    counts[i] = c;
  }
}

/// Writes probe row i's matches at offsets[i], offsets[i] + 1, ...
template <class K, class R, class KeyIt, class Index>
__global__ void join_fill_kernel(KeyIt probe, unsigned long long n, join_table<K, R> t,
                                 const unsigned long long* offsets, Index* build_out,
                                 Index* probe_out) {
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long i =
           static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < n; i += stride) {
    unsigned long long at = offsets[i];
    join_probe(t, static_cast<K>(probe[i]), [&](R row) {
      build_out[at] = static_cast<Index>(row);
      probe_out[at] = static_cast<Index>(i);
      ++at;
      return true;
    });
  }
}

/// flags[i] = whether probe row i has a match (semi join) or has none (anti join).
template <class K, class R, class KeyIt>
__global__ void join_flag_kernel(KeyIt probe, unsigned long long n, join_table<K, R> t,
                                 bool matched, unsigned char* flags) {
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long i =
           static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < n; i += stride) {
    bool found = false;
    join_probe(t, static_cast<K>(probe[i]), [&](R) {
      found = true;
      return false;
    });
    flags[i] = found == matched ? 1 : 0;
  }
}

inline int join_grid(std::size_t n) {
  const std::size_t blocks = (n + 255) / 256;
  return static_cast<int>(blocks < 65536 ? (blocks > 0 ? blocks : 1) : 65536);
}

/// Builds the table on build rows [0, nb) in temporary storage and calls body(table) (nothing
/// synchronised). 2 to 4 slots a build row, at least 1,024; 32-bit row words below 2^32 - 1
/// rows.
template <class K, class BuildIt, class Body>
void with_join_table(const char* fn, BuildIt build, std::size_t nb, stream_ref stream,
                     memory_resource& mr, Body&& body) {
  const auto run = [&](auto row_tag) {
    using R = decltype(row_tag);
    std::size_t capacity = next_pow2(2 * nb);
    if (capacity < 1024) capacity = 1024;
    temp_storage storage(mr, capacity * sizeof(join_slot<K, R>), stream);
    join_table<K, R> t{static_cast<join_slot<K, R>*>(storage.get()),
                       static_cast<unsigned long long>(capacity - 1)};
    cudaStream_t s = stream.get();
    // Every slot empty (its row all ones; the key is written with the row).
    check_cuda(cudaMemsetAsync(t.slots, 0xff, capacity * sizeof(join_slot<K, R>), s), fn);
    if (nb > 0) {
      join_build_kernel<<<join_grid(nb), 256, 0, s>>>(build, static_cast<unsigned long long>(nb),
                                                      t);
      check_cuda(cudaGetLastError(), fn);
    }
    body(t);
  };
  if (nb < 0xffffffffull) {
    run(0u);
  } else {
    run(0ull);
  }
}

template <class BuildIt, class ProbeIt>
void check_join(const char* fn, BuildIt build, std::size_t nb, ProbeIt probe, std::size_t np) {
  using KB = std::remove_cv_t<it_value_t<BuildIt>>;
  using KP = std::remove_cv_t<it_value_t<ProbeIt>>;
  static_assert(is_scalar_v<KB>,
                "cupar joins: keys are arithmetic (integers of 1-8 bytes, float, double)");
  static_assert(std::is_same_v<KB, KP>, "cupar joins: both tables' keys have the same type");
  require_size(fn, nb, sizeof(KB));
  require_size(fn, np, sizeof(KP) + 16);
  require_range(fn, "d_build_keys", build, nb);
  require_range(fn, "d_probe_keys", probe, np);
}

/// The inner join's matches: counts, offsets and their total, then emit(total, fill) where
/// fill(build_out, probe_out) writes them (synchronises once, for the total).
template <class K, class BuildIt, class ProbeIt, class Emit>
void inner_join_impl(const char* fn, BuildIt build, std::size_t nb, ProbeIt probe, std::size_t np,
                     stream_ref stream, memory_resource& mr, Emit&& emit) {
  with_join_table<K>(fn, build, nb, stream, mr, [&](const auto& t) {
    cudaStream_t s = stream.get();
    std::size_t scan_bytes = 0;
    check_cuda(cub::DeviceScan::ExclusiveSum(
                   nullptr, scan_bytes, static_cast<unsigned long long*>(nullptr),
                   static_cast<unsigned long long*>(nullptr), static_cast<std::int64_t>(np), s),
               "cub::DeviceScan::ExclusiveSum");
    carve parts;
    const std::size_t at_counts = parts.add(np * sizeof(unsigned long long));
    const std::size_t at_offsets = parts.add(np * sizeof(unsigned long long));
    const std::size_t at_scan = parts.add(scan_bytes);
    temp_storage storage(mr, parts.total, stream);
    auto* base = static_cast<unsigned char*>(storage.get());
    auto* counts = reinterpret_cast<unsigned long long*>(base + at_counts);
    auto* offsets = reinterpret_cast<unsigned long long*>(base + at_offsets);
    join_count_kernel<<<join_grid(np), 256, 0, s>>>(probe, static_cast<unsigned long long>(np), t,
                                                    counts);
    check_cuda(cudaGetLastError(), fn);
    check_cuda(cub::DeviceScan::ExclusiveSum(base + at_scan, scan_bytes, counts, offsets,
                                             static_cast<std::int64_t>(np), s),
               "cub::DeviceScan::ExclusiveSum");
    unsigned long long last[2] = {0, 0};
    check_cuda(cudaMemcpyAsync(&last[0], offsets + (np - 1), sizeof(unsigned long long),
                               cudaMemcpyDeviceToHost, s),
               fn);
    check_cuda(cudaMemcpyAsync(&last[1], counts + (np - 1), sizeof(unsigned long long),
                               cudaMemcpyDeviceToHost, s),
               fn);
    check_cuda(cudaStreamSynchronize(s), fn);
    const std::size_t total = static_cast<std::size_t>(last[0] + last[1]);
    emit(total, [&](auto* build_out, auto* probe_out) {
      if (total == 0) return;
      join_fill_kernel<<<join_grid(np), 256, 0, s>>>(probe, static_cast<unsigned long long>(np), t,
                                                     offsets, build_out, probe_out);
      check_cuda(cudaGetLastError(), fn);
    });
  });
}

template <class K, class Index, class BuildIt, class ProbeIt>
std::size_t flagged_join(const char* fn, BuildIt build, std::size_t nb, ProbeIt probe,
                         std::size_t np, bool matched, Index* out, stream_ref stream,
                         memory_resource& mr) {
  std::size_t count = 0;
  with_join_table<K>(fn, build, nb, stream, mr, [&](const auto& t) {
    cudaStream_t s = stream.get();
    std::size_t select_bytes = 0;
    check_cuda(cub::DeviceSelect::Flagged(
                   nullptr, select_bytes, thrust::counting_iterator<Index>(0),
                   static_cast<const unsigned char*>(nullptr), out,
                   static_cast<unsigned long long*>(nullptr), static_cast<std::int64_t>(np), s),
               "cub::DeviceSelect::Flagged");
    carve parts;
    const std::size_t at_flags = parts.add(np);
    const std::size_t at_count = parts.add(sizeof(unsigned long long));
    const std::size_t at_select = parts.add(select_bytes);
    temp_storage storage(mr, parts.total, stream);
    auto* base = static_cast<unsigned char*>(storage.get());
    auto* flags = base + at_flags;
    auto* d_count = reinterpret_cast<unsigned long long*>(base + at_count);
    join_flag_kernel<<<join_grid(np), 256, 0, s>>>(probe, static_cast<unsigned long long>(np), t,
                                                   matched, flags);
    check_cuda(cudaGetLastError(), fn);
    check_cuda(cub::DeviceSelect::Flagged(base + at_select, select_bytes,
                                          thrust::counting_iterator<Index>(0),
                                          static_cast<const unsigned char*>(flags), out, d_count,
                                          static_cast<std::int64_t>(np), s),
               "cub::DeviceSelect::Flagged");
    unsigned long long h = 0;
    check_cuda(cudaMemcpyAsync(&h, d_count, sizeof(h), cudaMemcpyDeviceToHost, s), fn);
    check_cuda(cudaStreamSynchronize(s), fn);
    count = static_cast<std::size_t>(h);
  });
  return count;
}

/// inner_join's body: the checks, then the pairs written to alloc(total) -> {build rows, probe
/// rows} (called once with their number before anything is written; it may throw); returns
/// their number. Arrays of keys are the library's (join_arrays), iterators the templates below.
template <class Index, class BuildIt, class ProbeIt, class Alloc>
std::size_t inner_join_to(const char* fn, BuildIt build, std::size_t nb, ProbeIt probe,
                          std::size_t np, stream_ref stream, memory_resource& mr, Alloc&& alloc) {
  using K = std::remove_cv_t<it_value_t<BuildIt>>;
  const device_guard device(stream);
  check_join(fn, build, nb, probe, np);
  require_index_type<Index>(fn, nb, np);
  if (nb == 0 || np == 0) {
    alloc(std::size_t{0});
    return 0;
  }
  std::size_t count = 0;
  inner_join_impl<K>(fn, build, nb, probe, np, stream, mr, [&](std::size_t total, auto&& fill) {
    const auto out = alloc(total);
    fill(out.first, out.second);
    count = total;
  });
  return count;
}

/// semi_join's (matched) and anti_join's body.
template <class Index, class BuildIt, class ProbeIt>
std::size_t semi_or_anti_join(const char* fn, BuildIt build, std::size_t nb, ProbeIt probe,
                              std::size_t np, bool matched, Index* out, stream_ref stream,
                              memory_resource& mr) {
  using K = std::remove_cv_t<it_value_t<BuildIt>>;
  const device_guard device(stream);
  check_join(fn, build, nb, probe, np);
  require_index_type<Index>(fn, nb, np);
  if (np == 0) return 0;
  require_pointer(fn, "d_probe_rows", out);
  return flagged_join<K>(fn, build, nb, probe, np, matched, out, stream, mr);
}

/// The templates below serve iterators; two arrays go to the library (join.hpp).
template <class BuildIt, class ProbeIt>
inline constexpr bool join_iterators_v =
    is_iterator_v<BuildIt>&& is_iterator_v<ProbeIt> &&
    !(std::is_pointer_v<BuildIt> && std::is_pointer_v<ProbeIt>);

}  // namespace detail

/// INNER JOIN of any iterators of keys (two device arrays go to join.hpp's overloads, the same
/// kernels compiled into the library): every pair of a build row and a probe row with equal
/// keys; the keys, the pairs' order, the memory and the errors as join.hpp says.
///
///   // rows of orders and customers with the same customer id, the ids computed on the fly
///   auto m = cupar::inner_join(thrust::make_transform_iterator(d_cust, id_of{}), n_cust,
///                              thrust::make_transform_iterator(d_orders, cust_of{}), n_orders,
///                              stream);
///
/// @tparam Index   the positions' type: a 4- or 8-byte integer (default std::uint64_t)
/// @param d_build_keys, d_probe_keys  device iterators of keys; nb, np: their rows (64-bit)
/// @returns the pairs in device buffers of exactly their number (from `mr`, on `stream`)
/// @throws std::invalid_argument for null inputs with rows; std::length_error when a table has
///         more rows than Index can count (before anything runs)
/// @throws cupar::out_of_memory, cupar::cuda_error
/// Synchronises `stream` (to learn the number of pairs) unless a table is empty.
template <class Index = std::uint64_t, class BuildIt, class ProbeIt,
          std::enable_if_t<detail::join_iterators_v<BuildIt, ProbeIt>, int> = 0>
join_pairs<Index> inner_join(BuildIt d_build_keys, std::size_t nb, ProbeIt d_probe_keys,
                             std::size_t np, stream_ref stream,
                             memory_resource& mr = default_resource()) {
  join_pairs<Index> out;
  detail::inner_join_to<Index>(
      "cupar::inner_join", d_build_keys, nb, d_probe_keys, np, stream, mr, [&](std::size_t total) {
        out.build_rows = device_buffer<Index>(total, stream, mr);
        out.probe_rows = device_buffer<Index>(total, stream, mr);
        return std::make_pair(out.build_rows.data(), out.probe_rows.data());
      });
  return out;
}

/// As above, writing the pairs to caller arrays with room for `out_capacity` pairs and returning
/// their number. Throws std::length_error, writing nothing, when there are more pairs than
/// out_capacity (the count is in the message).
/// @throws as above; std::invalid_argument also for null outputs
/// Synchronises `stream` unless a table is empty.
template <class Index, class BuildIt, class ProbeIt,
          std::enable_if_t<detail::join_iterators_v<BuildIt, ProbeIt>, int> = 0>
std::size_t inner_join(BuildIt d_build_keys, std::size_t nb, ProbeIt d_probe_keys, std::size_t np,
                       Index* d_build_rows, Index* d_probe_rows, std::size_t out_capacity,
                       stream_ref stream, memory_resource& mr = default_resource()) {
  detail::require_join_outputs("cupar::inner_join", d_build_rows, d_probe_rows, out_capacity);
  return detail::inner_join_to<Index>(
      "cupar::inner_join", d_build_keys, nb, d_probe_keys, np, stream, mr, [&](std::size_t total) {
        detail::require_join_room("cupar::inner_join", total, out_capacity);
        return std::make_pair(d_build_rows, d_probe_rows);
      });
}

/// LEFT SEMI JOIN: the positions of the probe rows whose key is among the build keys, ascending,
/// written to d_probe_rows (room for np); returns their number. Keys as inner_join.
/// @throws as inner_join; std::invalid_argument for a null output with np > 0
/// Synchronises `stream` unless np == 0.
template <class Index, class BuildIt, class ProbeIt,
          std::enable_if_t<detail::join_iterators_v<BuildIt, ProbeIt>, int> = 0>
std::size_t semi_join(BuildIt d_build_keys, std::size_t nb, ProbeIt d_probe_keys, std::size_t np,
                      Index* d_probe_rows, stream_ref stream,
                      memory_resource& mr = default_resource()) {
  return detail::semi_or_anti_join("cupar::semi_join", d_build_keys, nb, d_probe_keys, np, true,
                                   d_probe_rows, stream, mr);
}

/// LEFT ANTI JOIN: the positions of the probe rows whose key is not among the build keys,
/// ascending, written to d_probe_rows (room for np); returns their number (np when nb == 0).
/// @throws as semi_join
/// Synchronises `stream` unless np == 0.
template <class Index, class BuildIt, class ProbeIt,
          std::enable_if_t<detail::join_iterators_v<BuildIt, ProbeIt>, int> = 0>
std::size_t anti_join(BuildIt d_build_keys, std::size_t nb, ProbeIt d_probe_keys, std::size_t np,
                      Index* d_probe_rows, stream_ref stream,
                      memory_resource& mr = default_resource()) {
  return detail::semi_or_anti_join("cupar::anti_join", d_build_keys, nb, d_probe_keys, np, false,
                                   d_probe_rows, stream, mr);
}

}  // namespace cupar
