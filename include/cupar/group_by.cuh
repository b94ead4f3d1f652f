// cupar: GROUP BY with a C++ operator (cupar::group_by): unsorted keys and values in, one group
// per distinct key out with its values combined, by a hash table (few groups: the rows read once)
// or a sort of the keys (many groups).
#pragma once

#include <cupar/buffer.hpp>
#include <cupar/by_key.cuh>
#include <cupar/detail/checks.hpp>
#include <cupar/detail/cuda_check.hpp>
#include <cupar/detail/device/hash_table.cuh>
#include <cupar/detail/device/key_table.cuh>
#include <cupar/detail/device_guard.hpp>
#include <cupar/detail/group_by_sizing.hpp>
#include <cupar/detail/group_by_sketch.cuh>
#include <cupar/detail/iterators.cuh>
#include <cupar/detail/op_traits.hpp>
#include <cupar/detail/runs.hpp>
#include <cupar/detail/temp_storage.hpp>
#include <cupar/detail/type_id.hpp>
#include <cupar/group_by.hpp>
#include <cupar/memory.hpp>
#include <cupar/sort.hpp>
#include <cupar/stream.hpp>

#include <cub/device/device_select.cuh>

#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/permutation_iterator.h>

#include <cuda_runtime_api.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace cupar {
namespace detail {

/// Whether a slot holds a group (the select's predicate).
template <class K, class V>
struct slot_is_ready {
  const hash::slot<K, V>* table;
  __device__ bool operator()(std::uint64_t i) const { return table[i].state == hash::slot_ready; }
};

/// The groups of a finished aggregation in temporary storage: the hash table and the indices of
/// its ready slots (in slot order), or, from the sort route, arrays of keys and values sorted by
/// key.
template <class K, class V>
struct found_groups {
  const hash::slot<K, V>* table = nullptr;
  const std::uint64_t* index = nullptr;
  const K* keys = nullptr;
  const V* values = nullptr;
  std::size_t count = 0;
  /// The sort route wrote the groups to the caller's arrays already.
  bool written = false;
};

/// The aggregation kernel's block and each warp's table in shared memory (device/hash_table.cuh).
inline constexpr int hash_threads = hash::block_threads;
template <class K, class V>
inline constexpr int hash_warp_slots = hash::warp_table_slots<K, V>;

/// The most groups group_by_method::automatic aggregates in the hash table.
template <class K, class V>
inline constexpr std::size_t hash_limit = hash_limit_for(hash_warp_slots<K, V>);

/// What the sort route moves with the keys: the values themselves (up to 8 bytes), a transform
/// iterator's underlying values (up to 8 bytes), or else the rows' positions (the values read
/// through them after the sort).
enum class sort_payload { values, base, positions };
template <class ValueIt, class V, class = void>
struct sort_payload_of {
  static constexpr sort_payload kind =
      sizeof(V) <= 8 ? sort_payload::values : sort_payload::positions;
  using type = V;
};
template <class ValueIt, class V>
struct sort_payload_of<ValueIt, V, std::enable_if_t<transform_parts<ValueIt>::value>> {
  using B = std::remove_cv_t<it_value_t<typename transform_parts<ValueIt>::base>>;
  static constexpr bool small = std::is_trivially_copyable_v<B> && sizeof(B) <= 8;
  static constexpr sort_payload kind =
      small ? sort_payload::base
            : (sizeof(V) <= 8 ? sort_payload::values : sort_payload::positions);
  using type = std::conditional_t<small, B, V>;
};

/// Row i's payload for the sort route: its position, or the i-th element of an iterator.
template <class Index>
struct row_position {
  __device__ __forceinline__ Index operator()(unsigned long long i) const {
    return static_cast<Index>(i);
  }
};
template <class It>
struct row_element {
  It it;
  __device__ __forceinline__ auto operator()(unsigned long long i) const { return it[i]; }
};

/// What the sort route and the table method's partition move with the keys (sort_payload_of),
/// for values ValueIt of V and row positions of Index: the payload type P, where it is read from,
/// whether that is an array already, and the values read back through the moved payload.
template <class ValueIt, class V, class Index>
struct moved_payload {
  static constexpr sort_payload kind = sort_payload_of<ValueIt, V>::kind;
  using P = std::conditional_t<kind == sort_payload::positions, Index,
                               typename sort_payload_of<ValueIt, V>::type>;
  static auto source(const ValueIt& values) {
    if constexpr (kind == sort_payload::base) {
      return values.base();
    } else {
      return values;
    }
  }
  using source_type = std::remove_cv_t<decltype(source(std::declval<ValueIt>()))>;
  static constexpr bool as_given =
      kind != sort_payload::positions && std::is_pointer_v<source_type>;
  /// Row i's payload (a positions' row_position, or the source's i-th element).
  static auto getter(const ValueIt& values) {
    if constexpr (kind == sort_payload::positions) {
      return row_position<Index>{};
    } else {
      return row_element<source_type>{source(values)};
    }
  }
  /// The values of the rows whose payloads were moved to `moved`, in its order.
  static auto read_back(const ValueIt& values, const P* moved) {
    if constexpr (kind == sort_payload::positions) {
      return thrust::make_permutation_iterator(values, moved);
    } else if constexpr (kind == sort_payload::base) {
      return transform_parts<ValueIt>::rebind(values, moved);
    } else {
      return moved;
    }
  }
};

/// Writes the normalised keys (when keys_out is not null) and the rows' payloads (when
/// payload_out is not null) for the sort route.
template <class KeyIt, class K, class Get, class P>
__global__ void sort_inputs_kernel(KeyIt keys, Get get, unsigned long long n, K* keys_out,
                                   P* payload_out) {
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long i =
           static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < n; i += stride) {
    if (keys_out != nullptr) keys_out[i] = hash::normalise(static_cast<K>(keys[i]));
    if (payload_out != nullptr) payload_out[i] = static_cast<P>(get(i));
  }
}

/// The sort route's outputs where the caller gives none (aggregate_groups' `outputs`): temporary
/// storage, copied by emit.
struct no_outputs {
  std::pair<std::nullptr_t, std::nullptr_t> operator()(std::size_t) const {
    return {nullptr, nullptr};
  }
};

/// The sort route: the normalised keys radix-sorted with a payload (sort_payload), then one
/// reduce by key over the sorted runs. Integer keys in an array are sorted as they are; a payload
/// already in an array is not copied. Calls emit with the groups in key order, written to
/// keys_out / values_out when those are given (room for n groups); else the runs are counted
/// first (one read of the sorted keys) and the groups written where `outputs(count)` says (room
/// for count; it may throw, nothing written yet), or to temporary storage for count when it
/// returns null pointers. Throws std::length_error beyond a non-zero max_groups, before any
/// group is written unless keys_out / values_out are given.
template <class K, class V, class Index, class KeyIt, class ValueIt, class Op, class Emit,
          class Outputs>
void sort_aggregate(const char* fn, KeyIt keys, ValueIt values, std::size_t n, Op op,
                    std::size_t max_groups, K* keys_out, V* values_out, stream_ref stream,
                    memory_resource& mr, Emit&& emit, Outputs&& outputs) {
  using moved = moved_payload<ValueIt, V, Index>;
  using P = typename moved::P;
  constexpr bool keys_as_given = std::is_integral_v<K> && std::is_pointer_v<KeyIt>;
  constexpr bool payload_as_given = moved::as_given;
  bool written = keys_out != nullptr && values_out != nullptr;
  cudaStream_t s = stream.get();
  carve parts;
  const std::size_t at_norm = parts.add(keys_as_given ? 0 : n * sizeof(K));
  const std::size_t at_sorted = parts.add(n * sizeof(K));
  const std::size_t at_payload = parts.add(payload_as_given ? 0 : n * sizeof(P));
  const std::size_t at_order = parts.add(n * sizeof(P));
  temp_storage storage(mr, parts.total, stream);
  auto* base = static_cast<unsigned char*>(storage.get());
  K* norm = keys_as_given ? nullptr : reinterpret_cast<K*>(base + at_norm);
  auto* sorted = reinterpret_cast<K*>(base + at_sorted);
  P* staged = payload_as_given ? nullptr : reinterpret_cast<P*>(base + at_payload);
  auto* order = reinterpret_cast<P*>(base + at_order);
  if (norm != nullptr || staged != nullptr) {
    const std::size_t blocks = (n + 255) / 256;
    const int grid = static_cast<int>(blocks < 65536 ? blocks : 65536);
    sort_inputs_kernel<<<grid, 256, 0, s>>>(keys, moved::getter(values), n, norm, staged);
    check_cuda(cudaGetLastError(), fn);
  }
  const K* sort_keys = nullptr;
  if constexpr (keys_as_given) {
    sort_keys = keys;
  } else {
    sort_keys = norm;
  }
  const P* sort_values = nullptr;
  if constexpr (payload_as_given) {
    sort_values = moved::source(values);
  } else {
    sort_values = staged;
  }
  sort_pairs(sort_keys, sorted, sort_values, order, n, stream, mr);
  std::optional<temp_storage> groups;
  std::size_t runs = n;
  if (!written) {
    runs = count_runs(fn, sorted, sizeof(K), n, stream, mr);
    require_max_groups(fn, max_groups, false, runs);
    const auto to = outputs(runs);
    keys_out = to.first;
    values_out = to.second;
    written = keys_out != nullptr && values_out != nullptr;
    if (!written) {
      carve out;
      const std::size_t at_keys = out.add(runs * sizeof(K));
      const std::size_t at_values = out.add(runs * sizeof(V));
      groups.emplace(mr, out.total, stream);
      keys_out = reinterpret_cast<K*>(static_cast<unsigned char*>(groups->get()) + at_keys);
      values_out = reinterpret_cast<V*>(static_cast<unsigned char*>(groups->get()) + at_values);
    }
  }
  const auto sorted_values = moved::read_back(values, static_cast<const P*>(order));
  const std::size_t count =
      reduce_by_key_count(static_cast<const K*>(sorted), sorted_values, keys_out, values_out, n, op,
                          hash::same_key_bits{}, stream, mr);
  require_max_groups(fn, max_groups, false, count);
  if (count > runs) {
    throw std::logic_error(std::string(fn) + ": reduce_by_key found " + std::to_string(count) +
                           " groups where the sorted keys have " + std::to_string(runs) + " runs");
  }
  found_groups<K, V> g;
  g.keys = keys_out;
  g.values = values_out;
  g.count = count;
  g.written = written;
  emit(g);
}

/// Aggregates into a global table sized from max_groups or from the expected groups (grown, and
/// the rows aggregated again, when that was low), compacts its ready slots and calls
/// emit(found_groups) with them. `aggregate(table, mask, overflow, partials, partial_count)`
/// launches the aggregation into the zeroed table (`partial_slots` sizes its partials). With
/// `appended`, the aggregation appends each group once to the table's first slots
/// (hash::append_groups): the table is sized for the groups alone, neither cleared nor compacted.
/// Returns false, having emitted nothing, when a block's table filled (hash::block_full).
/// Synchronises the stream once a try; throws std::length_error beyond a non-zero max_groups.
template <class K, class V, class Emit, class Aggregate>
bool table_groups(const char* fn, std::size_t n, std::size_t max_groups, double expected,
                  std::size_t partial_slots, bool appended, stream_ref stream, memory_resource& mr,
                  Emit&& emit, Aggregate&& aggregate) {
  using slot = hash::slot<K, V>;
  cudaStream_t s = stream.get();
  std::size_t capacity = appended ? appended_capacity(n, max_groups, expected)
                                  : hash_capacity(n, max_groups, expected);
  for (;;) {
    carve parts;
    const std::size_t at_table = parts.add(capacity * sizeof(slot));
    const std::size_t at_index = parts.add(capacity * sizeof(std::uint64_t));
    const std::size_t at_counts = parts.add(3 * sizeof(std::uint64_t));
    const std::size_t at_partials = parts.add(partial_slots * sizeof(slot));
    // CUB's select of the ready slots, sized with the final pointers' types (an appended table
    // has no slots to find).
    std::size_t select_bytes = 0;
    const slot_is_ready<K, V> ready_probe{nullptr};
    if (!appended) {
      check_cuda(cub::DeviceSelect::If(
                     nullptr, select_bytes, thrust::counting_iterator<std::uint64_t>(0),
                     static_cast<std::uint64_t*>(nullptr), static_cast<std::uint64_t*>(nullptr),
                     static_cast<std::int64_t>(capacity), ready_probe, s),
                 "cub::DeviceSelect::If");
    }
    const std::size_t at_select = parts.add(select_bytes);
    temp_storage storage(mr, parts.total, stream);
    auto* base = static_cast<unsigned char*>(storage.get());
    auto* table = reinterpret_cast<slot*>(base + at_table);
    auto* index = reinterpret_cast<std::uint64_t*>(base + at_index);
    // counts: [0] groups, [1] the overflow flags, [2] the partial groups of a first pass
    auto* counts = reinterpret_cast<std::uint64_t*>(base + at_counts);
    auto* partials = partial_slots != 0 ? reinterpret_cast<slot*>(base + at_partials) : nullptr;
    auto* overflow = reinterpret_cast<unsigned int*>(counts + 1);
    auto* partial_count = reinterpret_cast<unsigned long long*>(counts + 2);
    if (!appended) check_cuda(cudaMemsetAsync(table, 0, capacity * sizeof(slot), s), fn);
    check_cuda(cudaMemsetAsync(counts, 0, 3 * sizeof(std::uint64_t), s), fn);
    aggregate(table, static_cast<unsigned long long>(capacity - 1), overflow, partials,
              partial_count);
    check_cuda(cudaGetLastError(), fn);
    if (appended) {
      const std::size_t blocks = (capacity + 255) / 256;
      hash::appended_index_kernel<<<static_cast<int>(blocks < 4096 ? blocks : 4096), 256, 0, s>>>(
          overflow + 1, static_cast<unsigned long long>(capacity), index, counts);
      check_cuda(cudaGetLastError(), fn);
    } else {
      check_cuda(
          cub::DeviceSelect::If(base + at_select, select_bytes,
                                thrust::counting_iterator<std::uint64_t>(0), index, counts,
                                static_cast<std::int64_t>(capacity), slot_is_ready<K, V>{table}, s),
          "cub::DeviceSelect::If");
    }
    std::uint64_t host_counts[2] = {0, 0};
    check_cuda(cudaMemcpyAsync(host_counts, counts, sizeof(host_counts), cudaMemcpyDeviceToHost, s),
               fn);
    // A fault of the operator is reported here, named after the call.
    check_cuda(cudaStreamSynchronize(s), fn);
    const unsigned int flags = static_cast<unsigned int>(host_counts[1] & 0xffffffffu);
    if ((flags & hash::block_full) != 0) return false;
    const bool overflowed = flags != 0;
    const std::size_t count = static_cast<std::size_t>(host_counts[0]);
    require_max_groups(fn, max_groups, overflowed, count);
    if (overflowed) {
      // The estimate was low: aggregate again in a table with room for every row's key.
      capacity = grown_capacity(capacity, n);
      if (capacity == 0) throw std::logic_error(std::string(fn) + ": hash table overflow");
      continue;
    }
    found_groups<K, V> g;
    g.table = table;
    g.index = index;
    g.count = count;
    emit(g);
    return true;
  }
}

/// The hash method: aggregates rows [0, n) in the warps' tables in shared memory in front of the
/// global table (table_groups), the warps' groups through a second pass when few.
template <class K, class V, class KeyIt, class ValueIt, class Op, class Emit>
void hash_aggregate(const char* fn, KeyIt keys, ValueIt values, std::size_t n, Op op,
                    std::size_t max_groups, double expected, stream_ref stream, memory_resource& mr,
                    Emit&& emit) {
  using slot = hash::slot<K, V>;
  constexpr int threads = hash_threads;
  constexpr int warp_slots = hash_warp_slots<K, V>;
  cudaStream_t s = stream.get();
  const auto aggregate =
      hash::aggregate_kernel<threads, warp_slots, KeyIt, ValueIt, K, V, Op, std::size_t>;
  // Few groups (each warp's private table holds them all): the warps' groups go through a
  // second pass with a small grid instead of thousands of updates on each global slot, the first
  // pass's grid capped so that the warps' groups stay far fewer than the rows (plan_hash_pass).
  const hash_pass pass =
      plan_hash_pass(n, expected, threads, warp_slots, resident_grid(aggregate, threads, n, fn),
                     current_multiprocessor_count());
  (void)table_groups<K, V>(
      fn, n, max_groups, expected, pass.partial_slots, false, stream, mr, emit,
      [&](slot* table, unsigned long long mask, unsigned int* overflow, slot* partials,
          unsigned long long* partial_count) {
        aggregate<<<pass.grid, threads, 0, s>>>(keys, values, n, nullptr, table, mask, op, overflow,
                                                partials, partial_count);
        if (!pass.second_pass) return;
        check_cuda(cudaGetLastError(), fn);
        const auto second = hash::aggregate_kernel<threads, warp_slots, hash::slot_keys<K, V>,
                                                   hash::slot_values<K, V>, K, V, Op, std::size_t>;
        second<<<16, threads, 0, s>>>(hash::slot_keys<K, V>{partials},
                                      hash::slot_values<K, V>{partials}, pass.partial_slots,
                                      partial_count, table, mask, op, overflow, nullptr, nullptr);
      });
}

/// The table method: each block aggregates its rows in a table in shared memory and adds its
/// groups to the global table once; beyond what a table holds, the rows are first partitioned by
/// a bijective mix of their keys (one radix sort of the mixed keys' low bits with a payload, as
/// the sort route's) so that each block sees one part's keys. Calls emit with the global
/// table's groups and returns true, or returns false, having emitted nothing, when the plan does
/// not serve `expected` groups or a block's table filled (the estimate was far too low).
/// Synchronises the stream.
template <class K, class V, class Index, class KeyIt, class ValueIt, class Op, class Emit>
bool table_aggregate(const char* fn, KeyIt keys, ValueIt values, std::size_t n, Op op,
                     std::size_t max_groups, double expected, stream_ref stream,
                     memory_resource& mr, Emit&& emit) {
  using slot = hash::slot<K, V>;
  using W = hash::part_word<K>;
  constexpr int threads = 1024;
  constexpr int unroll = sizeof(V) <= 16 ? 4 : 1;
  constexpr std::size_t slot_bytes = hash::block_table<K, V>::slot_bytes;
  const unsigned int slots =
      block_table_slots(slot_bytes, static_cast<std::size_t>(current_shared_memory_optin()));
  const std::size_t table_bytes = block_table_bytes(slots, slot_bytes);
  const int sms = current_multiprocessor_count();
  table_plan plan = plan_tables(n, expected, slots, sms);
  if (!plan.serves) return false;
  cudaStream_t s = stream.get();

  // The kernel for the rows as given or partitioned, its occupancy, and a launch of it.
  const auto prepare = [&](auto kernel) {
    check_cuda(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    static_cast<int>(table_bytes)),
               fn);
    int occupancy = 0;
    check_cuda(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occupancy, kernel, threads, table_bytes),
        fn);
    return occupancy;
  };

  // Partitioned rows live in this storage until the aggregation ends.
  using moved = moved_payload<ValueIt, V, Index>;
  using P = typename moved::P;
  constexpr bool payload_as_given = moved::as_given;
  const std::size_t rows = plan.bits == 0 ? 0 : n;
  carve staged_parts;
  const std::size_t at_mixed = staged_parts.add(rows * sizeof(W));
  const std::size_t at_sorted = staged_parts.add(rows * sizeof(W));
  const std::size_t at_payload = staged_parts.add(payload_as_given ? 0 : rows * sizeof(P));
  const std::size_t at_order = staged_parts.add(rows * sizeof(P));
  const std::size_t at_starts =
      staged_parts.add(plan.bits == 0 ? 0 : (plan.parts + 1) * sizeof(unsigned long long));
  temp_storage staged(mr, staged_parts.total, stream);
  auto* staged_base = static_cast<unsigned char*>(staged.get());
  auto* sorted = reinterpret_cast<W*>(staged_base + at_sorted);
  auto* order = reinterpret_cast<P*>(staged_base + at_order);
  auto* starts = reinterpret_cast<unsigned long long*>(staged_base + at_starts);
  if (plan.bits != 0) {
    auto* mixed = reinterpret_cast<W*>(staged_base + at_mixed);
    P* copied = payload_as_given ? nullptr : reinterpret_cast<P*>(staged_base + at_payload);
    const std::size_t blocks = (n + 255) / 256;
    const int grid = static_cast<int>(blocks < 65536 ? blocks : 65536);
    hash::mix_inputs_kernel<K><<<grid, 256, 0, s>>>(keys, moved::getter(values), n, mixed, copied);
    check_cuda(cudaGetLastError(), fn);
    const P* sort_values = nullptr;
    if constexpr (payload_as_given) {
      sort_values = moved::source(values);
    } else {
      sort_values = copied;
    }
    sort_pairs(static_cast<const W*>(mixed), sorted, sort_values, order, n,
               radix_options{sort_order::ascending, 0, plan.bits}, stream, mr);
    hash::part_starts_kernel<<<(plan.parts + 1 + 255) / 256, 256, 0, s>>>(
        static_cast<const W*>(sorted), n, plan.parts, starts);
    check_cuda(cudaGetLastError(), fn);
  }
  const auto part_values = moved::read_back(values, static_cast<const P*>(order));
  using direct = hash::direct_rows<K, V, KeyIt, ValueIt>;
  using mixed_rows = hash::mixed_rows<K, V, std::remove_cv_t<decltype(part_values)>>;
  const auto direct_kernel = hash::block_table_kernel<threads, unroll, K, V, direct, Op>;
  const auto mixed_kernel = hash::block_table_kernel<threads, unroll, K, V, mixed_rows, Op>;
  const int occupancy = plan.bits == 0 ? prepare(direct_kernel) : prepare(mixed_kernel);
  if (occupancy == 0) return false;
  plan = plan_tables(n, expected, slots, sms * occupancy);
  if (plan.bits == 0) {
    // As many blocks as keep the GPU busy, none without rows.
    const std::size_t chunks = (n + threads * unroll - 1) / (threads * unroll);
    if (plan.blocks_per_part > chunks) plan.blocks_per_part = static_cast<unsigned int>(chunks);
  }
  const unsigned int grid = plan.parts * plan.blocks_per_part;

  const int shift = plan.bits;
  return table_groups<K, V>(fn, n, max_groups, expected, 0, plan_appends(plan), stream, mr, emit,
                            [&](slot* table, unsigned long long mask, unsigned int* overflow, slot*,
                                unsigned long long*) {
                              if (plan.bits == 0) {
                                direct_kernel<<<grid, threads, table_bytes, s>>>(
                                    direct{keys, values}, n, nullptr, plan.blocks_per_part, slots,
                                    0, table, mask, op, overflow);
                              } else {
                                mixed_kernel<<<grid, threads, table_bytes, s>>>(
                                    mixed_rows{static_cast<const W*>(sorted), part_values}, n,
                                    starts, plan.blocks_per_part, slots, shift, table, mask, op,
                                    overflow);
                              }
                            });
}

/// Aggregates rows [0, n) into found_groups and calls emit with them (synchronises the stream): by
/// the method `asked`, automatic taking the sort route below group_by_sort_below_rows rows
/// (method_for_rows) and otherwise choosing from max_groups or a HyperLogLog sketch of the keys.
/// The sort route writes the groups to keys_out / values_out directly when they are given (room
/// for n), else where `outputs(count)` says once it counted them (sort_aggregate).
template <class K, class V, class KeyIt, class ValueIt, class Op, class Emit,
          class Outputs = no_outputs>
void aggregate_groups(const char* fn, KeyIt keys, ValueIt values, std::size_t n, Op op,
                      std::size_t max_groups, group_by_method asked, K* keys_out, V* values_out,
                      stream_ref stream, memory_resource& mr, Emit&& emit, Outputs&& outputs = {}) {
  // Before any sketch; a build without the key's type keeps the hash routes.
  const group_by_method method = method_for_rows(asked, n, library_sorts(scalar_of<K>()));
  double estimate = -1;  // unknown
  if (max_groups == 0 && method != group_by_method::sort)
    estimate = sketch_groups(fn, keys, n, stream, mr);
  const double expected = expected_groups(n, max_groups, estimate);
  if (method != group_by_method::sort && expected > static_cast<double>(hash_limit<K, V>)) {
    const bool done = n <= 0xffffffffu
                          ? table_aggregate<K, V, std::uint32_t>(
                                fn, keys, values, n, op, max_groups, expected, stream, mr, emit)
                          : table_aggregate<K, V, std::uint64_t>(
                                fn, keys, values, n, op, max_groups, expected, stream, mr, emit);
    if (done) return;
  }
  if (by_sort(method, expected, hash_limit<K, V>)) {
    if (n <= 0xffffffffu) {
      sort_aggregate<K, V, std::uint32_t>(fn, keys, values, n, op, max_groups, keys_out, values_out,
                                          stream, mr, emit, outputs);
    } else {
      sort_aggregate<K, V, std::uint64_t>(fn, keys, values, n, op, max_groups, keys_out, values_out,
                                          stream, mr, emit, outputs);
    }
    return;
  }
  hash_aggregate<K, V>(fn, keys, values, n, op, max_groups, expected, stream, mr, emit);
}

/// Writes the groups to keys_out / values_out (device pointers, room for groups.count), sorted by
/// key when `sorted`.
template <class K, class V>
void write_groups(const char* fn, const found_groups<K, V>& g, K* keys_out, V* values_out,
                  bool sorted, stream_ref stream, memory_resource& mr) {
  if (g.count == 0 || g.written) return;
  cudaStream_t s = stream.get();
  if (g.table == nullptr) {  // the sort route's arrays, already in key order
    check_cuda(cudaMemcpyAsync(keys_out, g.keys, g.count * sizeof(K), cudaMemcpyDeviceToDevice, s),
               fn);
    check_cuda(
        cudaMemcpyAsync(values_out, g.values, g.count * sizeof(V), cudaMemcpyDeviceToDevice, s),
        fn);
    return;
  }
  const int threads = 256;
  const std::size_t blocks = (g.count + threads - 1) / threads;
  const int grid = static_cast<int>(blocks < 65536 ? blocks : 65536);
  const auto gather = hash::gather_groups_kernel<K, V, std::uint64_t, K*, V*>;
  if (!sorted) {
    gather<<<grid, threads, 0, s>>>(g.table, g.index, g.count, keys_out, values_out);
    check_cuda(cudaGetLastError(), fn);
    return;
  }
  carve parts;
  const std::size_t at_keys = parts.add(g.count * sizeof(K));
  const std::size_t at_values = parts.add(g.count * sizeof(V));
  temp_storage storage(mr, parts.total, stream);
  auto* base = static_cast<unsigned char*>(storage.get());
  auto* keys = reinterpret_cast<K*>(base + at_keys);
  auto* values = reinterpret_cast<V*>(base + at_values);
  gather<<<grid, threads, 0, s>>>(g.table, g.index, g.count, keys, values);
  check_cuda(cudaGetLastError(), fn);
  sort_pairs(static_cast<const K*>(keys), keys_out, static_cast<const V*>(values), values_out,
             g.count, stream, mr);
}

template <class KeyIt, class ValueIt, class Op>
void check_group_by(const char* fn, KeyIt keys, ValueIt values, std::size_t n) {
  using K = std::remove_cv_t<it_value_t<KeyIt>>;
  using V = std::remove_cv_t<it_value_t<ValueIt>>;
  static_assert(is_scalar_v<K>,
                "cupar::group_by: keys are arithmetic (integers of 1-8 bytes, float, "
                "double)");
  static_assert(std::is_trivially_copyable_v<V>,
                "cupar::group_by: values must be trivially copyable");
  require_size(fn, n, sizeof(K) + sizeof(V));
  require_range(fn, "d_keys", keys, n);
  require_range(fn, "d_values", values, n);
}

template <class KeyIt, class ValueIt>
void check_group_by_keys(const char* fn, KeyIt keys, ValueIt values, std::size_t n,
                         const group_by_options& options) {
  using K = std::remove_cv_t<it_value_t<KeyIt>>;
  using V = std::remove_cv_t<it_value_t<ValueIt>>;
  static_assert(std::is_trivially_copyable_v<K>,
                "cupar::group_by: keys must be trivially copyable");
  static_assert(std::is_trivially_copyable_v<V>,
                "cupar::group_by: values must be trivially copyable");
  require_size(fn, n, sizeof(K) + sizeof(V) + 8);
  require_range(fn, "d_keys", keys, n);
  require_range(fn, "d_values", values, n);
  if (options.sort_by_key) {
    throw_invalid_argument(fn,
                           "keys under a hash and an equality have no order: options.sort_by_key "
                           "is for arithmetic keys (sort the groups by a comparator after)");
  }
}

/// Outputs of a group_by on keys under a hash and an equality must not overlap the keys: the
/// groups' keys are read from the rows' keys after the values are written.
template <class KeyIt, class K, class V>
void require_outputs_apart_from_keys(const char* fn, KeyIt keys, std::size_t n, const K* keys_out,
                                     const V* values_out, std::size_t room) {
  if constexpr (std::is_pointer_v<KeyIt>) {
    require_disjoint(fn, "d_keys", keys, n * sizeof(K), "d_keys_out", keys_out, room * sizeof(K));
    require_disjoint(fn, "d_keys", keys, n * sizeof(K), "d_values_out", values_out,
                     room * sizeof(V));
  }
}

/// GROUP BY on keys under a hash and an equality (group_by's overloads taking them): the rows'
/// representatives (device/key_table.cuh: the first row of each key to claim a slot of a table
/// sized from max_groups or a sketch of the hashes), grouped as 4- or 8-byte integer keys with
/// the values (every method of the arithmetic path, max_groups the exact count), then the groups'
/// keys read from their representatives' rows. `take(count)` returns the outputs (K*, V*) for
/// `count` groups, called once before anything is written.
template <class R, class KeyIt, class ValueIt, class Hash, class Eq, class Op, class Take>
void group_by_keys(const char* fn, KeyIt keys, ValueIt values, std::size_t n, Hash hash, Eq eq,
                   Op op, group_by_method method, std::size_t max_groups, stream_ref stream,
                   memory_resource& mr, Take&& take) {
  using V = std::remove_cv_t<it_value_t<ValueIt>>;
  cudaStream_t s = stream.get();
  temp_storage reps(mr, n * sizeof(R), stream);
  auto* d_reps = static_cast<R*>(reps.get());
  double estimate = -1;
  if (max_groups == 0) {
    estimate = sketch_groups(fn, keys::hashed_keys<KeyIt, Hash>{keys, hash}, n, stream, mr);
  }
  const auto encode = keys::encode_kernel<KeyIt, Hash, Eq, R>;
  const int grid = resident_grid(encode, keys::encode_threads, n, fn);
  const double expected = expected_groups(n, max_groups, estimate);
  const std::size_t count = encode_distinct_keys(
      fn, n, max_groups, expected, stream, mr,
      [&](unsigned long long* table, unsigned long long mask, unsigned long long* counts) {
        encode<<<grid, keys::encode_threads, 0, s>>>(keys, n, table, mask, hash, eq, d_reps,
                                                     counts);
        check_cuda(cudaGetLastError(), fn);
      });
  const auto outputs = take(count);
  if (count == 0) return;
  temp_storage group_reps(mr, count * sizeof(R), stream);
  auto* d_group_reps = static_cast<R*>(group_reps.get());
  aggregate_groups<R, V>(fn, static_cast<const R*>(d_reps), values, n, op, count, method,
                         static_cast<R*>(nullptr), static_cast<V*>(nullptr), stream, mr,
                         [&](const found_groups<R, V>& g) {
                           if (g.count != count) {
                             throw std::logic_error(std::string(fn) +
                                                    ": the groups of the keys' representatives "
                                                    "differ from their count");
                           }
                           write_groups(fn, g, d_group_reps, outputs.second, false, stream, mr);
                         });
  const int threads = 256;
  const int blocks =
      static_cast<int>(std::min<std::size_t>((count + threads - 1) / threads, 65536));
  keys::gather_kernel<<<blocks, threads, 0, s>>>(keys, static_cast<const R*>(d_group_reps),
                                                 static_cast<unsigned long long>(count),
                                                 outputs.first);
  check_cuda(cudaGetLastError(), fn);
}

template <class KeyIt, class ValueIt, class Hash, class Eq, class Op, class Take>
void group_by_keys_of(const char* fn, KeyIt keys, ValueIt values, std::size_t n, Hash hash, Eq eq,
                      Op op, const group_by_options& options, stream_ref stream,
                      memory_resource& mr, Take&& take) {
  if (n == 0) {
    (void)take(0);
    return;
  }
  // Representatives of 4 bytes while every row fits them (all ones is the table's empty word).
  if (n < 0xffffffffull) {
    group_by_keys<std::uint32_t>(fn, keys, values, n, hash, eq, op, options.method,
                                 options.max_groups, stream, mr, take);
  } else {
    group_by_keys<std::uint64_t>(fn, keys, values, n, hash, eq, op, options.method,
                                 options.max_groups, stream, mr, take);
  }
}

}  // namespace detail

/// GROUP BY: for each distinct key of d_keys[0, n), the key and the values d_values[i] of its rows
/// combined with `op`. Keys and values need not be sorted or grouped. Three methods
/// (options.method; automatic by default: the sort route below group_by_sort_below_rows = 2^21
/// rows, from there the method by the number of groups: options.max_groups, else a HyperLogLog
/// sketch of the keys, one extra read of them):
/// - hash (up to group_by_hash_limit = 128 groups, fewer above 32-byte groups): one pass over the
///   rows, the rows of a warp with equal keys combined in registers first, each warp's groups in
///   its table in shared memory, then the warps' groups combined by a second, small pass;
/// - tables a block (above; without a partition up to 0.6 of a table: about 2,400 groups of
///   8-byte keys and 16-byte accumulators, 4,900 of 4-byte keys, 9,800 of 4-byte keys and 4-byte
///   accumulators): each block of 1,024 threads aggregates its share of the rows in a table in
///   shared memory (a compare-and-swap of the accumulator's word, lock-free up to 16 bytes) and
///   adds its groups to a global table once; beyond that, with at least 3 rows a group, the rows
///   first partitioned into 2 to 4,096 parts by a bijective mix of their keys (one radix sort of
///   its low bits with the payload the sort route would move), each block aggregating one part's
///   keys and appending its groups to the global table;
/// - sort (otherwise): the keys radix-sorted with the values (up to 8 bytes; for a
///   thrust::transform_iterator, its underlying values when those are up to 8 bytes, the
///   transform applied after the sort) or else with the rows' positions, then a reduce by key
///   over the runs (what sort_pairs and reduce_by_key by hand do).
///
/// On an H200 (bench/group_by.cu, 2^26 rows, a 16-byte count/sum/min/max; 2026-11-30): 100
/// groups 1.7x, 1,024 and 4,096 groups 3.4x, 2^15 1.7x, 2^20 2.2x, 16.5 million 1.3x faster
/// than sort_pairs and reduce_by_key by hand; about a row a group (the sort route) at 0.87 of it
/// (docs/PERFORMANCE_NOTES.md).
///
///   // COUNT, SUM, MIN, MAX of x per key: stats {count, sum, min, max}, functors to_stats
///   // (float -> stats) and merge_stats (stats x stats -> stats)
///   auto g = cupar::group_by(d_keys, thrust::make_transform_iterator(d_x, to_stats{}),
///                            n, merge_stats{}, stream);  // g.keys, g.values, g.size()
///
/// Keys: arithmetic; -0.0 and +0.0 are one key, all NaNs are one key (stored as +0.0 and a
/// canonical NaN). Values: any trivially copyable type V (d_values' value type), a struct
/// accumulator included; `op(V, V) -> V` must be associative and commutative (the hash method
/// combines a group's rows in no fixed order: floating-point aggregates may differ in their last
/// bits from run to run; integer ones are exact). A group's first value is its initial
/// accumulator, so no identity is needed. Groups come in the hash table's order or (the sort
/// method) by key; options.sort_by_key sorts them by key in either case.
///
/// Memory (temporary, given back before return): hash: 2 to 4.4 slots per distinct key (at least
/// 1,024), each 4 + sizeof(K) + the accumulator's word (4, 8 or 16 bytes, or sizeof(V) above 16)
/// rounded to its alignment, plus 8 bytes a slot for the compaction (with options.max_groups: 2 to
/// 4 slots per max_groups), and for up to 128 expected groups 1,024 slots per block of the first
/// pass (the warps' groups for a second pass; at most a resident grid, about 30 MB on an H100, and
/// at most n / (64 x the expected groups) blocks or one an SM, whichever is more); tables a block:
/// the global table as hash's, and when partitioned n * (2 sizeof(W) + 2 sizeof(P)) bytes (W the 4-
/// or 8-byte mixed key, P as below; one sizeof(P) less when the payload is an array already) plus
/// the radix sort's own; sort: at most n * (2 sizeof(K) + 2 sizeof(P)) bytes, P the payload sorted
/// with the keys (the values, a transform iterator's underlying values, or a 4- or 8-byte row
/// position), plus the radix sort's and the reduce's own (less where the keys or the payload are
/// arrays already); the groups are counted in the sorted keys (one more read of them) and written
/// where they go, except into caller arrays when the values are read through the positions (a
/// temporary of the groups first, copied).
///
/// @param d_keys, d_values  device inputs (pointers, null only when n == 0, or iterators)
/// @param n        rows (64-bit)
/// @param op       combining operator (functor or extended __device__ lambda)
/// @param options  group_by_options (max_groups, sort_by_key, method)
/// @returns the groups in device buffers of exactly their number (allocated from `mr` on
///          `stream`)
/// @throws std::invalid_argument for null inputs with n > 0 (before anything runs)
/// @throws std::length_error when options.max_groups is set and the keys have more distinct
///         values (after the aggregation; nothing is returned)
/// @throws cupar::out_of_memory, cupar::cuda_error
/// Synchronises `stream` (to learn the number of groups; once more for the sketch, made without
/// options.max_groups by the hash method, and by the automatic method from
/// group_by_sort_below_rows rows).
template <class KeyIt, class ValueIt, class Op,
          std::enable_if_t<detail::is_iterator_v<KeyIt> && detail::is_iterator_v<ValueIt> &&
                               detail::is_callable_op_v<Op>,
                           int> = 0>
groups<std::remove_cv_t<detail::it_value_t<KeyIt>>, std::remove_cv_t<detail::it_value_t<ValueIt>>>
group_by(KeyIt d_keys, ValueIt d_values, std::size_t n, Op op, stream_ref stream,
         group_by_options options = {}, memory_resource& mr = default_resource()) {
  using K = std::remove_cv_t<detail::it_value_t<KeyIt>>;
  using V = std::remove_cv_t<detail::it_value_t<ValueIt>>;
  constexpr const char* fn = "cupar::group_by";
  const detail::device_guard device(stream);
  detail::check_group_by<KeyIt, ValueIt, Op>(fn, d_keys, d_values, n);
  groups<K, V> out;
  if (n == 0) return out;
  detail::aggregate_groups<K, V>(
      fn, d_keys, d_values, n, op, options.max_groups, options.method, static_cast<K*>(nullptr),
      static_cast<V*>(nullptr), stream, mr,
      [&](const detail::found_groups<K, V>& g) {
        if (g.written) return;  // by the sort route, into the buffers made below
        out.keys = device_buffer<K>(g.count, stream, mr);
        out.values = device_buffer<V>(g.count, stream, mr);
        detail::write_groups(fn, g, out.keys.data(), out.values.data(), options.sort_by_key, stream,
                             mr);
      },
      [&](std::size_t count) {
        out.keys = device_buffer<K>(count, stream, mr);
        out.values = device_buffer<V>(count, stream, mr);
        return std::pair<K*, V*>(out.keys.data(), out.values.data());
      });
  return out;
}

/// As above, writing the groups to caller arrays with room for `out_capacity` groups, and
/// returning their number. Throws std::length_error, writing nothing, when there are more groups
/// than out_capacity (the count is in the message).
/// @throws as above; std::invalid_argument also for null outputs
/// Synchronises `stream`.
template <class KeyIt, class ValueIt, class Op,
          std::enable_if_t<detail::is_iterator_v<KeyIt> && detail::is_iterator_v<ValueIt> &&
                               detail::is_callable_op_v<Op>,
                           int> = 0>
std::size_t group_by(KeyIt d_keys, ValueIt d_values,
                     std::remove_cv_t<detail::it_value_t<KeyIt>>* d_keys_out,
                     std::remove_cv_t<detail::it_value_t<ValueIt>>* d_values_out,
                     std::size_t out_capacity, std::size_t n, Op op, stream_ref stream,
                     group_by_options options = {}, memory_resource& mr = default_resource()) {
  using K = std::remove_cv_t<detail::it_value_t<KeyIt>>;
  using V = std::remove_cv_t<detail::it_value_t<ValueIt>>;
  constexpr const char* fn = "cupar::group_by";
  const detail::device_guard device(stream);
  detail::check_group_by<KeyIt, ValueIt, Op>(fn, d_keys, d_values, n);
  if (n > 0 && out_capacity > 0) {
    detail::require_pointer(fn, "d_keys_out", d_keys_out);
    detail::require_pointer(fn, "d_values_out", d_values_out);
  }
  if (n == 0) return 0;
  std::size_t count = 0;
  // With room for every row's group, the sort route writes the groups in place (unless it reads
  // the values through the sorted positions after the sort: the arrays may overlap them).
  const bool direct = out_capacity >= n && options.max_groups == 0 &&
                      detail::sort_payload_of<ValueIt, V>::kind != detail::sort_payload::positions;
  const auto fit = [&](std::size_t groups) {
    if (groups > out_capacity) {
      throw std::length_error(std::string(fn) + ": " + std::to_string(groups) +
                              " groups do not fit out_capacity = " + std::to_string(out_capacity));
    }
  };
  detail::aggregate_groups<K, V>(
      fn, d_keys, d_values, n, op, options.max_groups, options.method,
      direct ? d_keys_out : nullptr, direct ? d_values_out : nullptr, stream, mr,
      [&](const detail::found_groups<K, V>& g) {
        fit(g.count);
        detail::write_groups(fn, g, d_keys_out, d_values_out, options.sort_by_key, stream, mr);
        count = g.count;
      },
      [&](std::size_t groups) {
        // The sort route's counted groups: into the caller's arrays, unless it reads the values
        // through the sorted positions as it writes them (the arrays may overlap the values).
        fit(groups);
        if (detail::sort_payload_of<ValueIt, V>::kind == detail::sort_payload::positions)
          return std::pair<K*, V*>(nullptr, nullptr);
        return std::pair<K*, V*>(d_keys_out, d_values_out);
      });
  return count;
}

/// GROUP BY on keys of any type under a hash and an equality: composite keys (a struct of several
/// columns) or keys equal by a rule of the caller's. `hash(key) -> unsigned long long` (the
/// library mixes it, so its bits need not be spread, but keys that `eq` calls equal must hash
/// equal, and distinct keys should rarely share a value: keys sharing one are compared one by
/// one, so a hash of a few values over many keys makes the call quadratic) and
/// `eq(key, key) -> bool` define the groups; the values are combined with `op` as by the
/// overload above. Each row is first mapped to a representative row of its key (the first of its
/// key to claim a slot of a hash table of 8-byte words, 2.2 to 4.4 a distinct key, sized from
/// options.max_groups or a sketch of the hashes), then the representatives (4-byte integers
/// below 2^32 - 1 rows) are grouped with the values by the overload above's methods, and the
/// groups' keys read from the representatives' rows.
///
///   struct day_store { unsigned day, store; };
///   struct hash_day_store {  // the key's two columns in one 64-bit value
///     __device__ unsigned long long operator()(day_store k) const {
///       return (static_cast<unsigned long long>(k.day) << 32) | k.store;
///     }
///   };
///   struct same_day_store {
///     __device__ bool operator()(day_store a, day_store b) const {
///       return a.day == b.day && a.store == b.store;
///     }
///   };
///   // sales per (day, store): g.keys (day_store), g.values (float), g.size()
///   auto g = cupar::group_by(d_keys, d_sales, n, hash_day_store{}, same_day_store{},
///                            cuda::std::plus<float>{}, stream);
///
/// Groups come in the table's order; options.sort_by_key is refused (the keys have no order:
/// sort the groups by a comparator after, e.g. sort_pairs). Memory (temporary): n 4- or 8-byte
/// representatives, the table, the sketch's, and the overload above's for the representatives.
/// @param d_keys   keys (a device pointer or an iterator), n of them
/// @param hash, eq the keys' hash and equality (functors or extended __device__ lambdas)
/// @throws std::invalid_argument for null inputs with n > 0, options.sort_by_key, or (pointer
///         keys) outputs overlapping the keys; std::length_error as the overload above
/// @throws cupar::out_of_memory, cupar::cuda_error
/// Synchronises `stream` (the sketch, the encoding, the groups' count).
template <class KeyIt, class ValueIt, class Hash, class Eq, class Op,
          std::enable_if_t<detail::is_iterator_v<KeyIt> && detail::is_iterator_v<ValueIt> &&
                               detail::is_callable_op_v<Hash> && detail::is_callable_op_v<Eq> &&
                               detail::is_callable_op_v<Op>,
                           int> = 0>
groups<std::remove_cv_t<detail::it_value_t<KeyIt>>, std::remove_cv_t<detail::it_value_t<ValueIt>>>
group_by(KeyIt d_keys, ValueIt d_values, std::size_t n, Hash hash, Eq eq, Op op, stream_ref stream,
         group_by_options options = {}, memory_resource& mr = default_resource()) {
  using K = std::remove_cv_t<detail::it_value_t<KeyIt>>;
  using V = std::remove_cv_t<detail::it_value_t<ValueIt>>;
  constexpr const char* fn = "cupar::group_by";
  const detail::device_guard device(stream);
  detail::check_group_by_keys(fn, d_keys, d_values, n, options);
  groups<K, V> out;
  detail::group_by_keys_of(fn, d_keys, d_values, n, hash, eq, op, options, stream, mr,
                           [&](std::size_t count) {
                             out.keys = device_buffer<K>(count, stream, mr);
                             out.values = device_buffer<V>(count, stream, mr);
                             return std::pair<K*, V*>{out.keys.data(), out.values.data()};
                           });
  return out;
}

/// As above, writing the groups to caller arrays with room for `out_capacity` groups and
/// returning their number. Throws std::length_error, writing nothing, when there are more groups
/// than out_capacity (the count is in the message). The outputs may overlap the values, not the
/// keys (pointer keys are checked) nor each other.
/// @throws as above; std::invalid_argument also for null outputs
/// Synchronises `stream`.
template <class KeyIt, class ValueIt, class Hash, class Eq, class Op,
          std::enable_if_t<detail::is_iterator_v<KeyIt> && detail::is_iterator_v<ValueIt> &&
                               detail::is_callable_op_v<Hash> && detail::is_callable_op_v<Eq> &&
                               detail::is_callable_op_v<Op>,
                           int> = 0>
std::size_t group_by(KeyIt d_keys, ValueIt d_values,
                     std::remove_cv_t<detail::it_value_t<KeyIt>>* d_keys_out,
                     std::remove_cv_t<detail::it_value_t<ValueIt>>* d_values_out,
                     std::size_t out_capacity, std::size_t n, Hash hash, Eq eq, Op op,
                     stream_ref stream, group_by_options options = {},
                     memory_resource& mr = default_resource()) {
  using K = std::remove_cv_t<detail::it_value_t<KeyIt>>;
  using V = std::remove_cv_t<detail::it_value_t<ValueIt>>;
  constexpr const char* fn = "cupar::group_by";
  const detail::device_guard device(stream);
  detail::check_group_by_keys(fn, d_keys, d_values, n, options);
  const std::size_t room = out_capacity < n ? out_capacity : n;
  if (n > 0 && out_capacity > 0) {
    detail::require_pointer(fn, "d_keys_out", d_keys_out);
    detail::require_pointer(fn, "d_values_out", d_values_out);
    detail::require_disjoint(fn, "d_keys_out", d_keys_out, room * sizeof(K), "d_values_out",
                             d_values_out, room * sizeof(V));
    detail::require_outputs_apart_from_keys(fn, d_keys, n, d_keys_out, d_values_out, room);
  }
  std::size_t count = 0;
  detail::group_by_keys_of(
      fn, d_keys, d_values, n, hash, eq, op, options, stream, mr, [&](std::size_t groups) {
        if (groups > out_capacity) {
          throw std::length_error(
              std::string(fn) + ": " + std::to_string(groups) +
              " groups do not fit out_capacity = " + std::to_string(out_capacity));
        }
        count = groups;
        return std::pair<K*, V*>{d_keys_out, d_values_out};
      });
  return count;
}

}  // namespace cupar
