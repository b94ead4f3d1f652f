// cupar: hash joins of arithmetic keys (cupar::inner_join, semi_join, anti_join): a hash table
// built on one table's keys, probed with the other's. This header (any host compiler): the pairs
// inner_join returns, and the joins of two device arrays of keys, served by the library (its
// kernels compiled for the key types of CUPAR_LIBRARY_TYPES). join.cuh (nvcc): the same joins of
// any iterators of keys.
#pragma once

#include <cupar/buffer.hpp>
#include <cupar/config.hpp>
#include <cupar/detail/checks.hpp>
#include <cupar/detail/jit_entry.hpp>
#include <cupar/detail/type_id.hpp>
#include <cupar/jit.hpp>
#include <cupar/memory.hpp>
#include <cupar/stream.hpp>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

namespace cupar {

/// The matches of an inner join: build_rows[i] and probe_rows[i] for i < size() are the
/// positions of a build row and a probe row with equal keys, on the device.
template <class Index>
struct join_pairs {
  device_buffer<Index> build_rows;
  device_buffer<Index> probe_rows;
  std::size_t size() const noexcept { return probe_rows.size(); }
};

namespace detail {

template <class Index>
void require_index_type(const char* fn, std::size_t nb, std::size_t np) {
  static_assert(std::is_integral_v<Index> && !std::is_same_v<Index, bool> &&
                    (sizeof(Index) == 4 || sizeof(Index) == 8),
                "cupar joins: row positions are 4- or 8-byte integers");
  const std::size_t most = nb > np ? nb : np;
  if (most > 0 && static_cast<unsigned long long>(most - 1) >
                      static_cast<unsigned long long>(std::numeric_limits<Index>::max())) {
    throw std::length_error(std::string(fn) + ": " + std::to_string(most) +
                            " rows do not fit the position type (" +
                            std::to_string(sizeof(Index) * 8) + "-bit)");
  }
}

/// The caller-array inner join's outputs: not null when they have room.
inline void require_join_outputs(const char* fn, const void* build_rows, const void* probe_rows,
                                 std::size_t out_capacity) {
  if (out_capacity > 0) {
    require_pointer(fn, "d_build_rows", build_rows);
    require_pointer(fn, "d_probe_rows", probe_rows);
  }
}

/// std::length_error when `total` pairs do not fit `out_capacity`.
inline void require_join_room(const char* fn, std::size_t total, std::size_t out_capacity) {
  if (total > out_capacity) {
    throw std::length_error(std::string(fn) + ": " + std::to_string(total) +
                            " pairs do not fit out_capacity = " + std::to_string(out_capacity));
  }
}

/// A join of two device arrays of keys, as the library runs it (join_arrays).
struct join_args {
  const char* function;
  scalar key;
  std::size_t index_size;  // 4 or 8 (the positions' unsigned integer)
  const void* build;
  std::size_t nb;
  const void* probe;
  std::size_t np;
  /// 0: inner join, its outputs from allocate(context, total, &build_rows, &probe_rows), called
  /// once with the number of pairs before anything is written (it may throw); 1: semi join,
  /// 2: anti join, their probe rows to rows_out.
  int kind;
  void (*allocate)(void* context, std::size_t total, void** build_rows, void** probe_rows);
  void* context;
  void* rows_out;
};

/// Runs a join of arrays (the checks first); returns the number of pairs or rows. Throws as the
/// public functions say, and std::invalid_argument for a key type the library was built without.
CUPAR_EXPORT std::size_t join_arrays(const join_args& a, stream_ref stream, memory_resource& mr);

template <class Index, class K>
join_args join_args_of(const char* fn, const K* build, std::size_t nb, const K* probe,
                       std::size_t np, int kind) {
  static_assert(is_scalar_v<K>,
                "cupar joins: keys are arithmetic (integers of 1-8 bytes, float, double)");
  require_index_type<Index>(fn, nb, np);
  join_args a{};
  a.function = fn;
  a.key = scalar_of<K>();
  a.index_size = sizeof(Index);
  a.build = build;
  a.nb = nb;
  a.probe = probe;
  a.np = np;
  a.kind = kind;
  return a;
}

template <class Index>
struct join_buffers {
  join_pairs<Index>* out;
  stream_ref stream;
  memory_resource* mr;
  static void allocate(void* context, std::size_t total, void** build_rows, void** probe_rows) {
    auto& self = *static_cast<join_buffers*>(context);
    self.out->build_rows = device_buffer<Index>(total, self.stream, *self.mr);
    self.out->probe_rows = device_buffer<Index>(total, self.stream, *self.mr);
    *build_rows = self.out->build_rows.data();
    *probe_rows = self.out->probe_rows.data();
  }
};

template <class Index>
struct join_room {
  Index* build_rows;
  Index* probe_rows;
  std::size_t capacity;
  static void allocate(void* context, std::size_t total, void** build_rows, void** probe_rows) {
    auto& self = *static_cast<join_room*>(context);
    require_join_room("cupar::inner_join", total, self.capacity);
    *build_rows = self.build_rows;
    *probe_rows = self.probe_rows;
  }
};

}  // namespace detail

/// INNER JOIN on equal keys: every pair (b, p) of a build row b of d_build_keys[0, nb) and a
/// probe row p of d_probe_keys[0, np) whose keys are equal, duplicates on both sides included
/// (a key found k times among the build rows and m times among the probe rows gives k * m
/// pairs). A hash table is built on the build keys (put the smaller table there), then probed
/// with each probe key: one read of each table, and the probe rows read twice (to count their
/// matches, then to write them).
///
///   // rows of orders (d_order_cust) and customers (d_cust_id) with the same customer id
///   auto m = cupar::inner_join(d_cust_id, n_cust, d_order_cust, n_orders, stream);
///   // m.build_rows[i]: a customer row, m.probe_rows[i]: an order row, i < m.size()
///
/// Keys: arithmetic, both tables of the same type, equal by value as group_by compares them
/// (-0.0 equals +0.0; NaN equals NaN). The pairs come grouped by probe row, in probe-row order;
/// a probe row's build rows come in the table's order, which may differ from run to run (sort
/// the pairs if an order is needed). Arrays of keys (this header) are joined by the library's
/// kernels, compiled for the key types of CUPAR_LIBRARY_TYPES (every type by default); any
/// iterators of keys by the templates of join.cuh (nvcc).
///
/// Memory (temporary, given back before return): 2 to 4 slots a build row (at least 1,024) of
/// a 4-byte row word (8 from 2^32 - 1 build rows) and the key, padded to the larger of the two
/// (8 bytes for 4-byte keys, 16 for 8-byte ones), 16 bytes a probe row, CUB's scan's.
///
/// @tparam Index   the positions' type: a 4- or 8-byte integer (default std::uint64_t)
/// @param d_build_keys, d_probe_keys  device arrays (null only for 0 rows); nb, np: their rows
///                 (64-bit)
/// @returns the pairs in device buffers of exactly their number (from `mr`, on `stream`)
/// @throws std::invalid_argument for null inputs with rows, or a key type the library was built
///         without; std::length_error when a table has more rows than Index can count (before
///         anything runs)
/// @throws cupar::out_of_memory, cupar::cuda_error
/// Synchronises `stream` (to learn the number of pairs) unless a table is empty.
template <class Index = std::uint64_t, class K>
join_pairs<Index> inner_join(const K* d_build_keys, std::size_t nb, const K* d_probe_keys,
                             std::size_t np, stream_ref stream,
                             memory_resource& mr = default_resource()) {
  join_pairs<Index> out;
  detail::join_buffers<Index> buffers{&out, stream, &mr};
  auto a = detail::join_args_of<Index>("cupar::inner_join", d_build_keys, nb, d_probe_keys, np, 0);
  a.allocate = &detail::join_buffers<Index>::allocate;
  a.context = &buffers;
  detail::join_arrays(a, stream, mr);
  return out;
}

/// As above, writing the pairs to caller arrays with room for `out_capacity` pairs and returning
/// their number. Throws std::length_error, writing nothing, when there are more pairs than
/// out_capacity (the count is in the message).
/// @throws as above; std::invalid_argument also for null outputs
/// Synchronises `stream` unless a table is empty.
template <class Index, class K>
std::size_t inner_join(const K* d_build_keys, std::size_t nb, const K* d_probe_keys, std::size_t np,
                       Index* d_build_rows, Index* d_probe_rows, std::size_t out_capacity,
                       stream_ref stream, memory_resource& mr = default_resource()) {
  detail::require_join_outputs("cupar::inner_join", d_build_rows, d_probe_rows, out_capacity);
  detail::join_room<Index> room{d_build_rows, d_probe_rows, out_capacity};
  auto a = detail::join_args_of<Index>("cupar::inner_join", d_build_keys, nb, d_probe_keys, np, 0);
  a.allocate = &detail::join_room<Index>::allocate;
  a.context = &room;
  return detail::join_arrays(a, stream, mr);
}

/// LEFT SEMI JOIN: the positions of the probe rows whose key is among the build keys, ascending,
/// written to d_probe_rows (room for np); returns their number. Keys as inner_join.
/// @throws as inner_join; std::invalid_argument for a null output with np > 0
/// Synchronises `stream` unless np == 0.
template <class Index, class K>
std::size_t semi_join(const K* d_build_keys, std::size_t nb, const K* d_probe_keys, std::size_t np,
                      Index* d_probe_rows, stream_ref stream,
                      memory_resource& mr = default_resource()) {
  auto a = detail::join_args_of<Index>("cupar::semi_join", d_build_keys, nb, d_probe_keys, np, 1);
  a.rows_out = d_probe_rows;
  return detail::join_arrays(a, stream, mr);
}

/// LEFT ANTI JOIN: the positions of the probe rows whose key is not among the build keys,
/// ascending, written to d_probe_rows (room for np); returns their number (np when nb == 0).
/// @throws as semi_join
/// Synchronises `stream` unless np == 0.
template <class Index, class K>
std::size_t anti_join(const K* d_build_keys, std::size_t nb, const K* d_probe_keys, std::size_t np,
                      Index* d_probe_rows, stream_ref stream,
                      memory_resource& mr = default_resource()) {
  auto a = detail::join_args_of<Index>("cupar::anti_join", d_build_keys, nb, d_probe_keys, np, 2);
  a.rows_out = d_probe_rows;
  return detail::join_arrays(a, stream, mr);
}

namespace detail {
// The library operation of the joins with operators (jit_entry.hpp).
CUPAR_JIT_CALL(join)

/// jit_args::params of the "join" operation.
struct join_op_params {
  /// 0: inner join (outputs from allocate, as join_args says), 1: semi join, 2: anti join.
  int kind = 0;
  std::size_t index_size = 8;
  void (*allocate)(void* context, std::size_t total, void** build_rows,
                   void** probe_rows) = nullptr;
  void* context = nullptr;
  void* rows_out = nullptr;
  std::size_t* count = nullptr;
};

template <class Index, class K>
std::size_t join_with_ops(const char* fn, const K* build, std::size_t nb, const K* probe,
                          std::size_t np, const ::cupar::jit::op& hash, const ::cupar::jit::op& eq,
                          join_op_params& p, stream_ref stream, memory_resource& mr) {
  require_index_type<Index>(fn, nb, np);
  jit_args a{fn, &join_call()};
  a.types[0] = &jit_type_of<K>();
  a.in[0] = build;
  a.in[1] = probe;
  a.n = nb;
  a.m = np;
  a.ops[0] = &hash;
  a.ops[1] = &eq;
  std::size_t count = 0;
  p.count = &count;
  p.index_size = sizeof(Index);
  a.params = &p;
  jit_run(a, stream, mr);
  return count;
}
}  // namespace detail

/// INNER JOIN on keys of any type with a run-time hash and equality (text, as any run-time
/// operator): composite keys (a struct of CUPAR_JIT_TYPE), or keys equal by a rule of the
/// caller's. `hash` maps a key `x` to an unsigned 64-bit value (keys that `eq` calls equal must
/// hash equal; the library mixes the value, so its bits need not be spread, but distinct keys
/// should rarely share one: build keys sharing a value are compared one by one); `eq` compares
/// keys `a` and `b`. Otherwise as the overloads above: every matching pair, duplicates on both
/// sides, grouped by probe row in probe-row order. The kernels of the struct classes
/// (CUPAR_JIT_STRUCT_CLASSES) are precompiled: only the operators compile (tens of milliseconds);
/// other key types compile the kernels with them once (seconds; cached on disk).
///
///   CUPAR_JIT_STRUCT(day_store, unsigned day; unsigned store;)
///   const cupar::jit::op hash("(static_cast<unsigned long long>(x.day) << 32) | x.store");
///   const cupar::jit::op same("a.day == b.day && a.store == b.store");
///   auto m = cupar::inner_join(d_plan, n_plan, d_sales, n_sales, hash, same, stream);
///
/// @throws std::invalid_argument for null inputs with rows; std::length_error when a table has
///         more rows than Index can count (before anything runs); cupar::jit_error when an
///         operator does not compile
/// @throws cupar::out_of_memory, cupar::cuda_error
/// Synchronises `stream` unless a table is empty.
template <class Index = std::uint64_t, class K>
join_pairs<Index> inner_join(const K* d_build_keys, std::size_t nb, const K* d_probe_keys,
                             std::size_t np, const jit::op& hash, const jit::op& eq,
                             stream_ref stream, memory_resource& mr = default_resource()) {
  join_pairs<Index> out;
  detail::join_buffers<Index> buffers{&out, stream, &mr};
  detail::join_op_params p;
  p.allocate = &detail::join_buffers<Index>::allocate;
  p.context = &buffers;
  detail::join_with_ops<Index>("cupar::inner_join", d_build_keys, nb, d_probe_keys, np, hash, eq, p,
                               stream, mr);
  return out;
}

/// As above, into caller arrays with room for `out_capacity` pairs (std::length_error, nothing
/// written, when there are more); returns the number of pairs.
template <class Index, class K>
std::size_t inner_join(const K* d_build_keys, std::size_t nb, const K* d_probe_keys, std::size_t np,
                       Index* d_build_rows, Index* d_probe_rows, std::size_t out_capacity,
                       const jit::op& hash, const jit::op& eq, stream_ref stream,
                       memory_resource& mr = default_resource()) {
  detail::require_join_outputs("cupar::inner_join", d_build_rows, d_probe_rows, out_capacity);
  detail::join_room<Index> room{d_build_rows, d_probe_rows, out_capacity};
  detail::join_op_params p;
  p.allocate = &detail::join_room<Index>::allocate;
  p.context = &room;
  return detail::join_with_ops<Index>("cupar::inner_join", d_build_keys, nb, d_probe_keys, np, hash,
                                      eq, p, stream, mr);
}

/// LEFT SEMI JOIN with a run-time hash and equality: the probe rows with a match, ascending.
template <class Index, class K>
std::size_t semi_join(const K* d_build_keys, std::size_t nb, const K* d_probe_keys, std::size_t np,
                      Index* d_probe_rows, const jit::op& hash, const jit::op& eq,
                      stream_ref stream, memory_resource& mr = default_resource()) {
  detail::join_op_params p;
  p.kind = 1;
  p.rows_out = d_probe_rows;
  return detail::join_with_ops<Index>("cupar::semi_join", d_build_keys, nb, d_probe_keys, np, hash,
                                      eq, p, stream, mr);
}

/// LEFT ANTI JOIN with a run-time hash and equality: the probe rows without a match, ascending.
template <class Index, class K>
std::size_t anti_join(const K* d_build_keys, std::size_t nb, const K* d_probe_keys, std::size_t np,
                      Index* d_probe_rows, const jit::op& hash, const jit::op& eq,
                      stream_ref stream, memory_resource& mr = default_resource()) {
  detail::join_op_params p;
  p.kind = 2;
  p.rows_out = d_probe_rows;
  return detail::join_with_ops<Index>("cupar::anti_join", d_build_keys, nb, d_probe_keys, np, hash,
                                      eq, p, stream, mr);
}

namespace jit {
/// A compile-only build (jit_compile.hpp) of the joins with a hash and an equality on keys K.
/// Needs no GPU.
template <class K>
build_report compile_join(const op& hash, const op& eq, int arch = 90, bool optimized = true) {
  return ::cupar::detail::jit_compile_call(::cupar::detail::join_call(),
                                           &::cupar::detail::jit_type_of<K>(), nullptr, &hash, &eq,
                                           arch, optimized);
}
}  // namespace jit

}  // namespace cupar
