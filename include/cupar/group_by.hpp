// cupar: GROUP BY (cupar::group_by): unsorted keys and values in, one group per distinct key out
// with its values combined. This header: the options, the groups returned, and the overloads
// taking a run-time combining operator (any host compiler); the overloads taking C++ callables
// are in group_by.cuh.
#pragma once

#include <cupar/buffer.hpp>
#include <cupar/detail/jit_entry.hpp>
#include <cupar/jit.hpp>
#include <cupar/jit_iterator.hpp>
#include <cupar/memory.hpp>
#include <cupar/stream.hpp>

#include <cstddef>

namespace cupar {

/// How cupar::group_by aggregates.
enum class group_by_method {
  /// Below group_by_sort_below_rows rows (2^21) the sort route, whatever the number of groups
  /// (no sketch of arithmetic keys is made; keys under a hash and an equality still have their
  /// hashes sketched, to size the table of their representatives). From there by the number of
  /// groups (options.max_groups, else the sketch of the keys): the warps' hash tables up to
  /// group_by_hash_limit groups (fewer for groups above 32 bytes: as many as half a warp's table
  /// in shared memory holds); above, the table method (a table a block in shared memory, the
  /// rows partitioned by a hash of their keys beyond what one table holds) while it has 3 rows or
  /// more a group and at most 4,096 parts of up to 0.6 of a table (about 6-20 million groups by
  /// the groups' size); the sort route beyond.
  automatic,
  /// A hash table whatever the number of groups: the warps' tables up to group_by_hash_limit
  /// groups, the table method above, and where that does not serve, the global table behind the
  /// warps' tables (rows that miss them contend for its slots: on an H200 2^24 rows of 2^24
  /// groups take 2.9 ms where the sort route takes 1.0; bench/group_by.cu).
  hash,
  /// The keys radix-sorted with the rows' positions, then one reduce by key over the runs (the
  /// values read through the sorted positions); groups come sorted by key.
  sort
};

/// The most groups for which group_by_method::automatic takes the warps' hash tables: groups that
/// every warp's table in shared memory holds, so the rows never reach the global table and the
/// warps' groups are combined by a second pass (from the H200's group-by rows, bench/group_by.cu:
/// 100 groups 1.05x / 1.6x faster than the sort route by hand at 2^24 / 2^26 rows).
inline constexpr std::size_t group_by_hash_limit = 128;

/// The fewest rows for which group_by_method::automatic chooses by the number of groups; below,
/// it takes the sort route without the sketch of the keys (one read of them and a
/// synchronisation fewer). On an H100 (bench/group_by.cu, 2026-12-07, u32 keys, 100 to 2^20
/// groups) automatic took 55-57 us at 2^10 rows and 152-167 us at 2^20, where choosing by the
/// groups had taken 109-130 and 238-426 us (1.5-2.8x); the sort route by hand (sort_pairs, then
/// reduce_by_key) took 31-33 and 124-137 us (0.56-0.82x of it: the library's count of the groups
/// and its synchronisation). At 2^22 rows the routes by the groups run 0.64x (100 groups) to 1.20x
/// (1,024 groups) of the sort route by hand; 2^21 itself is not measured
/// (docs/PERFORMANCE_NOTES.md, "Group-by below 2^22 rows").
inline constexpr std::size_t group_by_sort_below_rows = std::size_t(1) << 21;

/// Options of group_by.
struct group_by_options {
  /// An upper bound on the number of distinct keys, when the caller knows one: the table is then
  /// sized from it (2 to 4 slots a group) and no pass over the keys estimates their number (the
  /// sort route, automatic's below group_by_sort_below_rows rows, counts the groups in the sorted
  /// keys and checks them against it). A call that finds more distinct keys throws
  /// std::length_error (nothing is written). 0: the table is sized from an estimate (a
  /// HyperLogLog sketch of the keys, one more read of them), and grown and the rows aggregated
  /// again in the rare case the estimate was too low.
  std::size_t max_groups = 0;
  /// Sort the groups by key, ascending (a radix sort of the keys; the values follow). Otherwise
  /// the groups come in the tables' order, which depends on the keys and on the order the GPU's
  /// threads and blocks reached the tables: it may differ from one call to the next.
  bool sort_by_key = false;
  /// The strategy (group_by_method::automatic chooses by the number of rows, then of groups).
  group_by_method method = group_by_method::automatic;
};

/// The groups of a hash aggregation: keys[i] and values[i] for i < size(), on the device.
template <class K, class V>
struct groups {
  device_buffer<K> keys;
  device_buffer<V> values;
  std::size_t size() const noexcept { return keys.size(); }
};

namespace detail {
// The library operation the run-time overloads call (jit_entry.hpp).
CUPAR_JIT_CALL(group_by)

/// jit_args::params of the "group_by" operation.
struct group_by_params {
  group_by_options options;
  /// Room of the caller's arrays (jit_args::out), in groups; unused with `allocate`.
  std::size_t out_capacity = 0;
  /// Exact-size outputs: called once, before anything is written, with the number of groups;
  /// sets *keys and *values to device arrays of room for them. Null: the caller's arrays.
  void (*allocate)(void* context, std::size_t groups, void** keys, void** values) = nullptr;
  void* context = nullptr;
  /// Set to the number of groups.
  std::size_t* groups = nullptr;
  /// Keys of any type under a hash and an equality (both set, or neither: arithmetic keys).
  const ::cupar::jit::op* key_hash = nullptr;
  const ::cupar::jit::op* key_eq = nullptr;
};

template <class K, class V>
struct group_buffers {
  groups<K, V>* out;
  stream_ref stream;
  memory_resource* mr;
  static void allocate(void* context, std::size_t count, void** keys, void** values) {
    auto& self = *static_cast<group_buffers*>(context);
    self.out->keys = device_buffer<K>(count, self.stream, *self.mr);
    self.out->values = device_buffer<V>(count, self.stream, *self.mr);
    *keys = self.out->keys.data();
    *values = self.out->values.data();
  }
};

/// The groups in exact-size buffers: `call(params)` runs the operation with params whose
/// allocate callback makes them (options as given).
template <class K, class V, class Call>
groups<K, V> exact_groups(const group_by_options& options, stream_ref stream, memory_resource& mr,
                          Call&& call) {
  groups<K, V> out;
  group_buffers<K, V> buffers{&out, stream, &mr};
  group_by_params p;
  p.options = options;
  p.allocate = &group_buffers<K, V>::allocate;
  p.context = &buffers;
  call(p);
  return out;
}

template <class K, class V>
std::size_t group_by_call(const ::cupar::jit::input<K>& keys, const ::cupar::jit::input<V>& values,
                          K* keys_out, V* values_out, std::size_t n, const ::cupar::jit::op& op,
                          group_by_params& params, stream_ref stream, memory_resource& mr) {
  jit_args a{"cupar::group_by", &group_by_call()};
  a.types[0] = &jit_type_of<K>();
  a.types[1] = &jit_type_of<V>();
  a.n = n;
  set_input(a, 0, keys);
  set_input(a, 1, values);
  a.out[0] = keys_out;
  a.out[1] = values_out;
  a.ops[0] = &op;
  std::size_t count = 0;
  params.groups = &count;
  a.params = &params;
  jit_run(a, stream, mr);
  return count;
}
}  // namespace detail

/// GROUP BY with a run-time combining operator: for each distinct key of d_keys[0, n), the key and
/// the values of its rows combined with `op` (text over `a` and `b`, or a named operator), in
/// device buffers of exactly the groups. Keys and values need not be sorted or grouped. The
/// methods, the options and the memory are those of the C++ overload (group_by.cuh): a hash
/// table in shared memory for up to group_by_hash_limit groups (fewer above 32-byte groups),
/// tables a block above (the rows partitioned by a mix of their keys first for more groups than
/// a block's table holds), the keys radix-sorted with the values and reduce_by_key over the runs
/// beyond (more groups than a third of the rows, or than 4,096 tables hold) and, by the automatic
/// method, below group_by_sort_below_rows rows whatever the groups; the operator linked
/// into the precompiled kernels of the keys' and values' size classes (one NVRTC compile of the
/// operator, tens of milliseconds).
///
///   CUPAR_JIT_STRUCT(agg, unsigned count; float sum; float min; float max;)
///   const cupar::jit::op merge(
///       "agg{a.count + b.count, a.sum + b.sum, fminf(a.min, b.min), fmaxf(a.max, b.max)}");
///   auto g = cupar::group_by<unsigned, agg>(
///       d_keys, cupar::jit::transform<agg>(d_x, cupar::jit::op("agg{1u, x, x, x}")), n,
///       merge, stream);  // g.keys, g.values, g.size()
///
/// Keys: arithmetic (K deduced from d_keys; -0.0 and +0.0 are one key, all NaNs one key, stored
/// as +0.0 and a canonical NaN). Values: an arithmetic type or a struct declared with
/// CUPAR_JIT_TYPE (V deduced from d_values, or named with an iterator expression: the hash
/// method and the block tables read it in their kernels, with 4- and 8-byte keys; where the rows
/// are reordered (partitioned rows, the sort route) an expression of one array read at the row's
/// index moves that array and is read over the moved copy; other expressions and other keys get
/// it written to a temporary array of V first). `op(V, V) -> V` must be associative and commutative
/// (the hash method combines a group's rows in no fixed order); a group's first value is its
/// initial accumulator. Groups come in the hash table's order, or by key (the sort route, or
/// options.sort_by_key).
///
/// @param d_keys, d_values  device inputs of n rows (null only when n == 0)
/// @param n        rows (64-bit)
/// @param op       combining operator V x V -> V
/// @param options  group_by_options (max_groups, sort_by_key, method)
/// @returns the groups in device buffers of exactly their number (allocated from `mr` on
///          `stream`)
/// @throws std::invalid_argument for null inputs with n > 0 (before anything runs)
/// @throws std::length_error when options.max_groups is set and the keys have more distinct
///         values (after the aggregation; nothing is returned)
/// @throws cupar::jit_error when the operator does not compile (log and line inside)
/// @throws cupar::out_of_memory, cupar::cuda_error
/// Synchronises `stream` (to learn the number of groups; once more for the sketch, made without
/// options.max_groups by the hash method, and by the automatic method from
/// group_by_sort_below_rows rows).
template <class K, class V>
groups<K, V> group_by(jit::input_t<K> d_keys, jit::input_t<V> d_values, std::size_t n,
                      const jit::op& op, stream_ref stream, group_by_options options = {},
                      memory_resource& mr = default_resource()) {
  static_assert(detail::is_scalar_v<K>,
                "cupar::group_by: keys are arithmetic (integers of 1-8 bytes, float, double); "
                "struct keys take a hash and an equality (the overloads below)");
  return detail::exact_groups<K, V>(options, stream, mr, [&](detail::group_by_params& p) {
    detail::group_by_call<K, V>(d_keys, d_values, nullptr, nullptr, n, op, p, stream, mr);
  });
}

/// As above, with the keys and the values arrays (K and V deduced).
template <class K, class V>
groups<K, V> group_by(const K* d_keys, const V* d_values, std::size_t n, const jit::op& op,
                      stream_ref stream, group_by_options options = {},
                      memory_resource& mr = default_resource()) {
  return group_by<K, V>(jit::input<K>(d_keys), jit::input<V>(d_values), n, op, stream, options, mr);
}
/// As above, writing the groups to caller arrays with room for `out_capacity` groups and returning
/// their number. Throws std::length_error, writing nothing, when there are more groups than
/// out_capacity (the count is in the message). The outputs may overlap the inputs (the rows are
/// read before any group is written), not each other.
/// @throws as above; std::invalid_argument also for null outputs or outputs that overlap
/// Synchronises `stream`.
template <class K, class V>
std::size_t group_by(jit::input_t<K> d_keys, jit::input_t<V> d_values, K* d_keys_out,
                     V* d_values_out, std::size_t out_capacity, std::size_t n, const jit::op& op,
                     stream_ref stream, group_by_options options = {},
                     memory_resource& mr = default_resource()) {
  static_assert(detail::is_scalar_v<K>,
                "cupar::group_by: keys are arithmetic (integers of 1-8 bytes, float, double); "
                "struct keys take a hash and an equality (the overloads below)");
  detail::group_by_params p;
  p.options = options;
  p.out_capacity = out_capacity;
  return detail::group_by_call<K, V>(d_keys, d_values, d_keys_out, d_values_out, n, op, p, stream,
                                     mr);
}

/// GROUP BY on keys of any type under a run-time hash and equality (text, as the joins take
/// them, join.hpp): composite keys (a struct of CUPAR_JIT_TYPE) or keys equal by a rule of the
/// caller's. `hash` maps a key `x` to an unsigned 64-bit value (keys that `eq` calls equal must
/// hash equal; the library mixes the value, so its bits need not be spread, but distinct keys
/// should rarely share one: keys sharing a value are compared one by one, so a hash of a few
/// values over many keys makes the call quadratic); `eq` compares keys `a` and `b`; `combine`
/// combines values as the overloads above. Each row is first mapped to a representative row of its
/// key (the first of its key to claim a slot of a hash table of 8-byte words, 2.2 to 4.4 a distinct
/// key, sized from options.max_groups or a sketch of the hashes), then the representatives (4-byte
/// integers below 2^32 - 1 rows) are grouped with the values by the arithmetic overloads' methods,
/// and the groups' keys read from the representatives' rows. The kernels are precompiled for the
/// struct classes (CUPAR_JIT_STRUCT_CLASSES: the joins' sets, whose hash and equality these are)
/// and for the values' classes: only the three operators compile (tens of milliseconds;
/// jit::compile_join<K>(hash, eq) and jit::compile_group_by<std::uint32_t, V>(combine) build them
/// ahead of time).
///
///   CUPAR_JIT_STRUCT(day_store, unsigned day; unsigned store;)
///   const cupar::jit::op hash("(static_cast<unsigned long long>(x.day) << 32) | x.store");
///   const cupar::jit::op same("a.day == b.day && a.store == b.store");
///   auto g = cupar::group_by(d_day_store, d_sales, n, hash, same, cupar::jit::op("a + b"),
///                            stream);  // g.keys: day_store, g.values: float
///
/// Groups come in the table's order; options.sort_by_key is refused (the keys have no order:
/// sort the groups by a comparator after, e.g. sort_pairs with a run-time comparator).
/// Memory (temporary): n 4- or 8-byte representatives, the table, and the arithmetic overloads'
/// for the representatives.
/// Keys kept as separate columns are given as an expression of K, for instance
/// `jit::transform<day_store>(jit::zip(d_day, d_store), jit::op("day_store{x._0, x._1}"))`:
/// written to a temporary array of K first (n * sizeof(K) bytes, one fused pass).
///
/// @param d_keys   keys: a device array of n keys (null only when n == 0) or an iterator
///                 expression (elements of K)
/// @param d_values values: an array or an iterator expression (elements of V)
/// @param hash, eq the keys' hash and equality; `combine`: V x V -> V
/// @returns the groups in device buffers of exactly their number (from `mr`, on `stream`)
/// @throws std::invalid_argument for null inputs with n > 0 or options.sort_by_key (before
///         anything runs); std::length_error when options.max_groups is set and the keys have
///         more distinct values; cupar::jit_error when an operator does not compile
/// @throws cupar::out_of_memory, cupar::cuda_error
/// Synchronises `stream` (the sketch, the encoding, the groups' count).
template <class K, class V>
groups<K, V> group_by(jit::input_t<K> d_keys, jit::input_t<V> d_values, std::size_t n,
                      const jit::op& hash, const jit::op& eq, const jit::op& combine,
                      stream_ref stream, group_by_options options = {},
                      memory_resource& mr = default_resource()) {
  return detail::exact_groups<K, V>(options, stream, mr, [&](detail::group_by_params& p) {
    p.key_hash = &hash;
    p.key_eq = &eq;
    detail::group_by_call<K, V>(d_keys, d_values, nullptr, nullptr, n, combine, p, stream, mr);
  });
}

/// As above, with the keys and the values arrays (K and V deduced).
template <class K, class V>
groups<K, V> group_by(const K* d_keys, const V* d_values, std::size_t n, const jit::op& hash,
                      const jit::op& eq, const jit::op& combine, stream_ref stream,
                      group_by_options options = {}, memory_resource& mr = default_resource()) {
  return group_by<K, V>(jit::input<K>(d_keys), jit::input<V>(d_values), n, hash, eq, combine,
                        stream, options, mr);
}

/// As above, writing the groups to caller arrays with room for `out_capacity` groups and
/// returning their number. Throws std::length_error, writing nothing, when there are more groups
/// than out_capacity (the count is in the message). The outputs may overlap the values, not the
/// keys (an array of them) nor each other.
/// @throws as above; std::invalid_argument also for null outputs or outputs that overlap the
///         keys or each other
/// Synchronises `stream`.
template <class K, class V>
std::size_t group_by(jit::input_t<K> d_keys, jit::input_t<V> d_values, K* d_keys_out,
                     V* d_values_out, std::size_t out_capacity, std::size_t n, const jit::op& hash,
                     const jit::op& eq, const jit::op& combine, stream_ref stream,
                     group_by_options options = {}, memory_resource& mr = default_resource()) {
  detail::group_by_params p;
  p.options = options;
  p.out_capacity = out_capacity;
  p.key_hash = &hash;
  p.key_eq = &eq;
  return detail::group_by_call<K, V>(d_keys, d_values, d_keys_out, d_values_out, n, combine, p,
                                     stream, mr);
}

namespace jit {

/// A compile-only build (jit_compile.hpp says what they are for) of group_by's hash method for
/// keys K and values V with the combining operator `combine`: the set of K's and V's size
/// classes (floating-point keys by their bits), precompiled for 4- and 8-byte keys with every
/// value class and the data-processing struct classes, so that only the operator compiles. The
/// sort route (above group_by_hash_limit groups, or below group_by_sort_below_rows rows) runs
/// reduce_by_key with the same operator on the keys' unsigned integer:
/// compile_reduce_by_key<unsigned of K's size, V>(combine, nullptr) builds that one.
/// @throws std::invalid_argument for struct keys; cupar::jit_error when the operator does not
///         compile. Needs no GPU.
template <class K, class V>
build_report compile_group_by(const op& combine, int arch = 90, bool optimized = true) {
  static_assert(::cupar::detail::is_scalar_v<K>,
                "cupar::jit::compile_group_by: keys are arithmetic (integers of 1-8 bytes, "
                "float, double)");
  return ::cupar::detail::jit_compile_call(
      ::cupar::detail::group_by_call(), &::cupar::detail::jit_type_of<K>(),
      &::cupar::detail::jit_type_of<V>(), &combine, nullptr, arch, optimized);
}

/// compile_group_by with the values read as the iterator expression `values` (elements of V):
/// the "+index" set, whose hash method and block tables read the expression in their kernels.
template <class K, class V>
build_report compile_group_by(const iterator& values, const op& combine, int arch = 90,
                              bool optimized = true) {
  static_assert(::cupar::detail::is_scalar_v<K>,
                "cupar::jit::compile_group_by: keys are arithmetic (integers of 1-8 bytes, "
                "float, double)");
  return ::cupar::detail::jit_compile_call(::cupar::detail::group_by_call(),
                                           &::cupar::detail::jit_type_of<K>(),
                                           &::cupar::detail::jit_type_of<V>(), &combine, nullptr,
                                           arch, optimized, nullptr, nullptr, false, &values);
}

}  // namespace jit

}  // namespace cupar
