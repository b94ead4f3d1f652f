// cupar: top-k selection of arithmetic keys, with their values or positions (any host compiler;
// precompiled in the library for the ten arithmetic key types).
//
// top_k(d_keys, d_out, n, k, order) writes what the first k keys of a stable radix sort of the n
// keys in `order` would be (cupar::sort_keys), without sorting the n keys: the k smallest keys
// ascending (sort_order::ascending), or the k largest descending (sort_order::descending). Equal
// keys keep their input order: among keys that tie, the lower positions come first and are the
// ones taken when not all of them fit. Floating-point keys are ordered as the radix sort orders
// them (sort.hpp): -0.0 and +0.0 are equal keys, NaNs by bit pattern at the ends. top_k_pairs also
// writes the values of the chosen items; top_k_positions their positions in d_keys (the
// ORDER BY ... LIMIT k of a query engine, whose other columns are then gathered by position).
//
// How: a radix select. Each pass counts one 8-bit digit of the keys' order-preserving bits among
// the keys still in contention (those whose higher digits are the ones chosen so far): one pass
// per byte of the key, then, only where the k-th key ties with keys that do not all fit, one pass
// per byte of the positions, to take the lowest positions among the ties. From 2^16 keys with
// k <= n / 64 a sampled threshold comes first: one block selects, among 4,096 evenly spaced keys,
// one that the k-th key precedes with a wide margin, and one pass copies the keys up to it to a
// buffer (a few per thousand of the keys for small k); the passes then read only the buffer, so
// the n keys are read once. Where the buffer holds fewer than k keys or overflows (a sample far
// from the keys' distribution, or many keys equal to the threshold), which the device decides,
// the passes read the keys instead, and as soon as the keys in contention are at most n / 16 one
// pass copies them to the buffer. Each pass's last block to finish chooses its digit (no kernel
// of its own); a warp stages the items it copies to the buffer in shared memory and takes the
// buffer's slots with one atomic. The passes after the sampling run in one cooperative launch, a
// grid-wide barrier between them (while the stream captures a graph, or where the device has no
// cooperative launch, one launch a pass). Up to 512 chosen items are then ordered by one block
// that counts each one's rank and writes their keys and positions; more are sorted (k items, not
// n) and their keys, values or positions gathered. Below 2^16 keys one block does all of it in one
// launch (from 2^12 keys with k <= 2,048, and from 2^10 with k <= 512, where it orders the k items
// by counting each one's rank); below that, or for more k, one radix sort of every (key, position)
// item. k = 1 is one reduction to the smallest (key, position) item. Nothing synchronises: every
// choice is made on the device. On an H100 (bench rows top_k_*, 2026-12-07): the 100 largest of
// 2^28 32-bit keys in 0.44 ms where sorting them takes 6.4 ms, of 2^28 64-bit keys in 0.81 ms
// against 16.8; of 2^20 keys in 56 us against 79; of 2^14 keys in 22 us against 47; the largest
// of 2^28 keys in 0.35 ms; for k close to n, sort_keys is faster.
//
//   // the 100 largest prices and their rows
//   cupar::top_k_positions(d_price, d_top_price, d_rows, n, 100, cupar::sort_order::descending,
//                          stream);
//
// With a run-time comparator (the overloads taking a jit::op: "a.price > b.price", keys of any
// CUPAR_JIT_TYPE struct or arithmetic type): the first k keys of a stable sort by the comparator
// (cupar::stable_sort_keys, sort_jit.hpp). How: a sample of the keys (2^16 of them, evenly
// spaced) is sorted and a threshold taken from it, so that the keys not after the threshold
// hold the first k with a margin; one pass selects those keys' positions (select_if, whose
// predicate calls the comparator), and only they are sorted, then the first k kept. Where k >
// n / 16, n < 2^16, or the threshold selected fewer than k keys (very unlikely unless many keys
// tie), every key is sorted instead. cupar::jit::less and greater on arithmetic keys take the
// radix select above. These synchronise the stream (the number of selected keys sizes their
// sort). On an H200 (bench rows top_k_100 / top_k_65536, cupar_jit): f32 keys by "a > b", k =
// 100 of 2^24 / 2^28 keys in 0.14 / 0.68 ms, k = 65,536 in 0.18 / 0.70 ms, where sorting them
// all by the same comparator takes 0.78 / 12.1 ms.
//
//   // the 10 orders with the largest totals (a struct of CUPAR_JIT_TYPE), and their rows
//   cupar::top_k_positions(d_orders, d_top, d_rows, n, 10,
//                          cupar::jit::op("a.total > b.total"), stream);
#pragma once

#include <cupar/config.hpp>
#include <cupar/detail/jit_entry.hpp>
#include <cupar/detail/type_id.hpp>
#include <cupar/jit.hpp>
#include <cupar/memory.hpp>
#include <cupar/sort_jit.hpp>
#include <cupar/stream.hpp>
#include <cupar/types.hpp>

#include <cstddef>
#include <type_traits>

namespace cupar {
namespace detail {

struct top_k_args {
  const char* function;  // public name for messages
  scalar key;
  const void* keys_in;
  void* keys_out;          // may be null in top_k_positions
  std::size_t value_size;  // 0: no values
  std::size_t value_align;
  const void* values_in;
  void* values_out;
  void* positions_out;        // null: no positions
  std::size_t position_size;  // 4 or 8
  bool position_signed;
  std::size_t n;
  std::size_t k;
  sort_order order;
};

CUPAR_EXPORT void top_k(const top_k_args& args, stream_ref stream, memory_resource& mr);

// The library operation of the overloads with a run-time comparator (jit_entry.hpp).
CUPAR_JIT_CALL(top_k_by)

/// top_k with a run-time comparator: types {Key, the values as moved (or null), Position (or
/// null)}; in {keys, values}; out {keys (or null), values, positions}; n; m = k; ops {comp}.
template <class Key>
jit_args top_k_by_args(const char* fn, const Key* keys, Key* keys_out, std::size_t n, std::size_t k,
                       const ::cupar::jit::op& comp) {
  static_assert(is_scalar_v<Key> || has_type_source<Key>::value,
                "cupar::top_k with a run-time comparator: Key is arithmetic or a struct described "
                "with CUPAR_JIT_TYPE");
  jit_args a{fn, &top_k_by_call(), {&jit_type_of<Key>()}, {keys}};
  a.out[0] = keys_out;
  a.n = n;
  a.m = k;
  a.ops[0] = &comp;
  return a;
}

template <class Key>
constexpr void check_top_k_key() {
  static_assert(is_scalar_v<Key>,
                "cupar::top_k: the keys are arithmetic (integers of 1-8 bytes, float, double)");
}

}  // namespace detail

/// Writes the first k keys of a stable sort of d_keys[0, n) in `order` to d_keys_out[0, k): the
/// k smallest ascending, or the k largest descending; among equal keys the lower positions first
/// (see the top of top_k.hpp).
///
/// @param d_keys      device keys (may be null when n == 0)
/// @param d_keys_out  device output of k keys; must not overlap d_keys (may be null when k == 0)
/// @param n           number of keys (64-bit counts)
/// @param k           how many to keep, 0 <= k <= n
/// @param order       sort_order::ascending (smallest) or sort_order::descending (largest)
/// @param stream      stream the selection runs on
/// @param mr          resource for the temporary storage: n/16 (key, position) pairs (8 to 16
///                    bytes each), about three times that per kept item, 2 KB and CUB's
///                    storage to sort k items
/// @throws std::invalid_argument for k > n, null arrays where items are read or written,
///         overlapping arrays, an unknown order, or a Key the library was built without
///         (CUPAR_LIBRARY_TYPES; every type by default); before anything runs
/// @throws cupar::out_of_memory, cupar::cuda_error
/// Asynchronous: does not synchronise the stream.
template <class Key>
void top_k(const Key* d_keys, Key* d_keys_out, std::size_t n, std::size_t k, sort_order order,
           stream_ref stream, memory_resource& mr = default_resource()) {
  detail::check_top_k_key<Key>();
  detail::top_k({"cupar::top_k", detail::scalar_of<Key>(), d_keys, d_keys_out, 0, 0, nullptr,
                 nullptr, nullptr, 0, false, n, k, order},
                stream, mr);
}

/// As top_k, and writes the chosen items' values (d_values at their positions) to
/// d_values_out[0, k). Value: any trivially copyable type.
///
/// @param d_values      device values, n of them (may be null when n == 0)
/// @param d_values_out  device output of k values; must not overlap the other arrays
/// Other parameters, exceptions and synchronisation as top_k.
template <class Key, class Value>
void top_k_pairs(const Key* d_keys, const Value* d_values, Key* d_keys_out, Value* d_values_out,
                 std::size_t n, std::size_t k, sort_order order, stream_ref stream,
                 memory_resource& mr = default_resource()) {
  detail::check_top_k_key<Key>();
  static_assert(std::is_trivially_copyable_v<Value>,
                "cupar::top_k_pairs: Value must be trivially copyable (it is moved bytewise)");
  detail::top_k({"cupar::top_k_pairs", detail::scalar_of<Key>(), d_keys, d_keys_out, sizeof(Value),
                 alignof(Value), d_values, d_values_out, nullptr, 0, false, n, k, order},
                stream, mr);
}

/// As top_k, and writes the chosen items' positions in d_keys (0-based) to d_positions[0, k);
/// d_keys_out may be null when only the positions are wanted.
///
/// @param d_keys_out   device output of k keys, or null
/// @param d_positions  device output of k positions; Position: a 4- or 8-byte integer that holds
///                     n - 1
/// @throws std::invalid_argument also when Position cannot hold n - 1
/// Other parameters, exceptions and synchronisation as top_k.
template <class Key, class Position>
void top_k_positions(const Key* d_keys, Key* d_keys_out, Position* d_positions, std::size_t n,
                     std::size_t k, sort_order order, stream_ref stream,
                     memory_resource& mr = default_resource()) {
  detail::check_top_k_key<Key>();
  static_assert(std::is_integral_v<Position> && !std::is_same_v<Position, bool> &&
                    (sizeof(Position) == 4 || sizeof(Position) == 8),
                "cupar::top_k_positions: positions are 4- or 8-byte integers");
  detail::top_k(
      {"cupar::top_k_positions", detail::scalar_of<Key>(), d_keys, d_keys_out, 0, 0, nullptr,
       nullptr, d_positions, sizeof(Position), std::is_signed_v<Position>, n, k, order},
      stream, mr);
}

/// Writes the first k keys of a stable sort of d_keys[0, n) by the run-time comparator `comp`
/// (arguments a, b: true when a goes before b, a strict weak order; e.g. "a.price > b.price") to
/// d_keys_out[0, k), without sorting the n keys where k <= n / 16 (see the top of top_k.hpp).
///
/// @param d_keys      device keys (may be null when n == 0); Key arithmetic or a struct described
///                    with CUPAR_JIT_TYPE
/// @param d_keys_out  device output of k keys; must not overlap d_keys (may be null when k == 0)
/// @param n           number of keys (64-bit counts)
/// @param k           how many to keep, 0 <= k <= n
/// @param comp        the comparator (text over a and b, or cupar::jit::less / greater)
/// @param stream      stream the selection runs on
/// @param mr          resource for the temporary storage: n keys and n 4- or 8-byte positions
///                    (the candidates' room), a sample of 2^16 keys, and the sorts' storage
/// @throws std::invalid_argument for k > n, null arrays where items are read or written,
///         overlapping arrays, a comparator whose parameters take more than
///         cupar::jit::max_param_bytes less 16; before anything runs
/// @throws cupar::jit_error when the comparator does not compile (log and line inside)
/// @throws cupar::out_of_memory, cupar::cuda_error
/// Synchronises `stream` (except for less / greater on arithmetic keys).
template <class Key>
void top_k(const Key* d_keys, Key* d_keys_out, std::size_t n, std::size_t k, const jit::op& comp,
           stream_ref stream, memory_resource& mr = default_resource()) {
  const detail::jit_args a = detail::top_k_by_args("cupar::top_k", d_keys, d_keys_out, n, k, comp);
  detail::jit_run(a, stream, mr);
}

/// As top_k with a run-time comparator, and writes the chosen keys' values (d_values at their
/// positions) to d_values_out[0, k). Value: any trivially copyable type.
///
/// @param d_values      device values, n of them (may be null when n == 0)
/// @param d_values_out  device output of k values; must not overlap the other arrays
/// Other parameters, exceptions and synchronisation as top_k with a comparator.
template <class Key, class Value>
void top_k_pairs(const Key* d_keys, const Value* d_values, Key* d_keys_out, Value* d_values_out,
                 std::size_t n, std::size_t k, const jit::op& comp, stream_ref stream,
                 memory_resource& mr = default_resource()) {
  static_assert(std::is_trivially_copyable_v<Value>,
                "cupar::top_k_pairs: Value must be trivially copyable (it is moved bytewise)");
  detail::jit_args a = detail::top_k_by_args("cupar::top_k_pairs", d_keys, d_keys_out, n, k, comp);
  a.types[1] = &detail::payload_type<Value>();
  a.in[1] = d_values;
  a.out[1] = d_values_out;
  detail::jit_run(a, stream, mr);
}

/// As top_k with a run-time comparator, and writes the chosen keys' positions in d_keys
/// (0-based) to d_positions[0, k); d_keys_out may be null when only the positions are wanted.
///
/// @param d_keys_out   device output of k keys, or null
/// @param d_positions  device output of k positions; Position: a 4- or 8-byte integer that holds
///                     n - 1
/// @throws std::invalid_argument also when Position cannot hold n - 1
/// Other parameters, exceptions and synchronisation as top_k with a comparator.
template <class Key, class Position>
void top_k_positions(const Key* d_keys, Key* d_keys_out, Position* d_positions, std::size_t n,
                     std::size_t k, const jit::op& comp, stream_ref stream,
                     memory_resource& mr = default_resource()) {
  static_assert(std::is_integral_v<Position> && !std::is_same_v<Position, bool> &&
                    (sizeof(Position) == 4 || sizeof(Position) == 8),
                "cupar::top_k_positions: positions are 4- or 8-byte integers");
  detail::jit_args a =
      detail::top_k_by_args("cupar::top_k_positions", d_keys, d_keys_out, n, k, comp);
  a.types[2] = &detail::jit_type_of<Position>();
  a.out[2] = d_positions;
  detail::jit_run(a, stream, mr);
}

}  // namespace cupar
