// cupar: GROUP BY vocabulary: the options of cupar::group_by and the groups it returns. The
// overloads taking C++ callables are in group_by.cuh.
#pragma once

#include <cupar/buffer.hpp>

#include <cstddef>

namespace cupar {

/// How cupar::group_by aggregates.
enum class group_by_method {
  /// By the number of groups (options.max_groups, else the sketch of the keys): the hash table
  /// up to group_by_hash_limit groups (fewer for groups above 32 bytes: as many as half a warp's
  /// table in shared memory holds), the sort route above.
  automatic,
  /// The hash table whatever the number of groups. Past a few hundred groups the rows that miss
  /// the warps' tables in shared memory contend for the global table's slots: on an H200, 2^24
  /// rows of 1,024 groups take 16 ms where the sort route takes 0.9 ms (4,096 groups: 4.2 ms,
  /// 2^15 and more: 1.5-2.8x the sort route's time; bench/group_by.cu).
  hash,
  /// The keys radix-sorted with the rows' positions, then one reduce by key over the runs (the
  /// values read through the sorted positions); groups come sorted by key.
  sort
};

/// The most groups for which group_by_method::automatic takes the hash table: groups that every
/// warp's table in shared memory holds, so the rows never reach the global table and the warps'
/// groups are combined by a second pass (from the H200's group-by rows, bench/group_by.cu: 100
/// groups 1.07x / 1.6x faster than the sort route at 2^24 / 2^26 rows; 1,024 groups 17x slower).
inline constexpr std::size_t group_by_hash_limit = 128;

/// Options of group_by.
struct group_by_options {
  /// An upper bound on the number of distinct keys, when the caller knows one: the table is then
  /// sized from it (2 to 4 slots a group) and no pass over the keys estimates their number. A
  /// call that finds more distinct keys throws std::length_error (nothing is written). 0: the
  /// table is sized from an estimate (a HyperLogLog sketch of the keys, one more read of them),
  /// and grown and the rows aggregated again in the rare case the estimate was too low.
  std::size_t max_groups = 0;
  /// Sort the groups by key, ascending (a radix sort of the keys; the values follow). Otherwise
  /// the groups come in the table's order, which depends on the keys and, where keys collide,
  /// on the order the GPU's threads reached the table.
  bool sort_by_key = false;
  /// The strategy (group_by_method::automatic chooses by the number of groups).
  group_by_method method = group_by_method::automatic;
};

/// The groups of a hash aggregation: keys[i] and values[i] for i < size(), on the device.
template <class K, class V>
struct groups {
  device_buffer<K> keys;
  device_buffer<V> values;
  std::size_t size() const noexcept { return keys.size(); }
};

}  // namespace cupar
