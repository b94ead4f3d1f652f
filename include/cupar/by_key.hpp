// cupar: reductions and scans by key with run-time operators (any host compiler): reduce_by_key,
// inclusive_scan_by_key, exclusive_scan_by_key. The overloads taking C++ callables are in
// by_key.cuh; both behave the same. unique_by_key and run_length_encode are in unique.hpp.
//
// Runs (segments): a run is a maximal group of consecutive keys in which the equality holds
// between each key and the one before it (it is applied to adjacent keys only, as CUB and Thrust
// do; it should be an equivalence relation). Keys need not be sorted: equal keys that are not
// adjacent start new runs. The default equality is `a == b` on the key type, so for floating-point
// keys NaN != NaN (each NaN is its own run) and -0.0 == +0.0 (one run). A null or absent equality
// is that default (precompiled in the library for every arithmetic key type).
//
// The key reduce_by_key writes for a run is the run's LAST key (CUB writes each run's key when it
// finds the head of the next one; Thrust's reduce_by_key writes the first). With `==` all keys of
// a run are equal except that a run may mix -0.0 and +0.0; with a user equality that groups
// different keys, take the first key from unique_by_key if it matters.
//
// Operators: `op` combines two values (arguments `a`, `b`) into a value of the same type and must
// be associative; it need not be commutative (operands keep their order). Floating-point
// reductions and scans combine in CUB's tree order, so they may differ from a sequential loop by
// rounding (and scans from run to run). Named operators (cupar::jit::plus, minimum, maximum, ...)
// on arithmetic values compile nothing; snippets compile once (see jit.hpp). User structs as
// values (described with CUPAR_JIT_TYPE) are served by their class's sets or compiled once at run
// time. Struct keys of no class under a text equality compile only the operators: one more pass
// marks each row's run start from the equality and the call runs on the marks, the keys gathered
// from the runs' rows after it (docs/JIT.md).
//
// Counts are written to device memory as std::size_t; the `_count` forms return them to the host
// instead, synchronising the stream (only it). All sizes are 64-bit. With run-time operators,
// reduce_by_key's kernels for 2^31 items and more (64-bit offsets; 32-bit ones below, as CUB uses
// for an int count) are not precompiled: they are compiled once from source at the first such
// call (a few seconds, then cached on disk; CCCL's headers are needed, see README.md).
#pragma once

#include <cupar/detail/jit_entry.hpp>
#include <cupar/detail/type_id.hpp>
#include <cupar/jit.hpp>
#include <cupar/jit_iterator.hpp>
#include <cupar/memory.hpp>
#include <cupar/select.hpp>
#include <cupar/stream.hpp>
#include <cupar/unique.hpp>

#include <cstddef>

namespace cupar::detail {
// The library operations this header calls (jit_entry.hpp).
CUPAR_JIT_CALL(reduce_by_key)
CUPAR_JIT_CALL(inclusive_scan_by_key)
CUPAR_JIT_CALL(exclusive_scan_by_key)
}  // namespace cupar::detail

namespace cupar {

namespace detail {
/// The scans by key: keys and values in (arrays or expressions), one output.
template <class K, class V, class Out>
void scan_by_key_call(const char* fn, const jit_call& what, const ::cupar::jit::input<K>& keys,
                      const ::cupar::jit::input<V>& values, const Out& out, std::size_t n,
                      const ::cupar::jit::op& op, const V* init, const ::cupar::jit::op* eq,
                      stream_ref stream, memory_resource& mr) {
  jit_args a = dp_args<K>(fn, what, n);
  a.types[1] = &jit_type_of<V>();
  set_input(a, 0, keys);
  set_input(a, 1, values);
  set_output(a, 0, out);
  a.ops[0] = &op;
  a.ops[1] = eq;
  a.init = init;
  jit_run(a, stream, mr);
}
}  // namespace detail

/// Reduces each run of equal consecutive keys of d_keys_in[0, n): writes the run's last key to
/// d_keys_out[r] and v_first op ... op v_last of its values to d_aggregates_out[r], runs in input
/// order, and the number of runs to *d_num_runs. n == 0 writes 0 and nothing else.
///
/// @param d_keys_in, d_values_in       device inputs of n keys and n values, each an array or an
///                                     iterator expression (jit::input; e.g. the values
///                                     jit::transform<double>(jit::zip(d_a, d_b),
///                                     jit::op("x._0 * x._1"))); may be null when n == 0. A
///                                     values expression is read by the kernels (fused: no
///                                     temporary) for 4- and 8-byte keys below 2^31 items; a keys
///                                     expression, and values otherwise, are written to a
///                                     temporary array first
/// @param d_keys_out, d_aggregates_out device outputs with room for one item per run (n at most);
///                                     no output may overlap an input or the other output
/// @param d_num_runs                   device count (one std::size_t)
/// @param op                           binary operator V x V -> V on the values (associative)
/// @param eq                           equality K x K -> bool on the keys (default: ==)
/// @throws std::invalid_argument for null pointers with n > 0, a null d_num_runs or
///         overlapping ranges
/// @throws cupar::jit_error when an operator does not compile (the message says which:
///         "operator" or "equality", with the log and the offending line)
/// @throws cupar::out_of_memory, cupar::cuda_error
/// Asynchronous. CUB's DeviceReduce::ReduceByKey with 64-bit counts.
template <class K, class V>
void reduce_by_key(jit::input_t<K> d_keys_in, jit::input_t<V> d_values_in, K* d_keys_out,
                   V* d_aggregates_out, std::size_t* d_num_runs, std::size_t n, const jit::op& op,
                   const jit::op& eq, stream_ref stream, memory_resource& mr = default_resource()) {
  detail::by_key_compaction<K, V>("cupar::reduce_by_key", detail::reduce_by_key_call(), d_keys_in,
                                  &d_values_in, d_keys_out, d_aggregates_out, d_num_runs, nullptr,
                                  n, &op, &eq, stream, mr);
}
/// reduce_by_key through output expressions (e.g. jit::discard() for the keys), K and V named.
template <class K, class V>
void reduce_by_key(jit::input_t<K> d_keys_in, jit::input_t<V> d_values_in,
                   const jit::output& keys_out, const jit::output& aggregates_out,
                   std::size_t* d_num_runs, std::size_t n, const jit::op& op, const jit::op& eq,
                   stream_ref stream, memory_resource& mr = default_resource()) {
  detail::by_key_compaction<K, V>("cupar::reduce_by_key", detail::reduce_by_key_call(), d_keys_in,
                                  &d_values_in, keys_out, aggregates_out, d_num_runs, nullptr, n,
                                  &op, &eq, stream, mr);
}

/// reduce_by_key with `==` on the keys.
template <class K, class V>
void reduce_by_key(jit::input_t<K> d_keys_in, jit::input_t<V> d_values_in, K* d_keys_out,
                   V* d_aggregates_out, std::size_t* d_num_runs, std::size_t n, const jit::op& op,
                   stream_ref stream, memory_resource& mr = default_resource()) {
  detail::by_key_compaction<K, V>("cupar::reduce_by_key", detail::reduce_by_key_call(), d_keys_in,
                                  &d_values_in, d_keys_out, d_aggregates_out, d_num_runs, nullptr,
                                  n, &op, nullptr, stream, mr);
}
/// reduce_by_key with `==` through output expressions, K and V named.
template <class K, class V>
void reduce_by_key(jit::input_t<K> d_keys_in, jit::input_t<V> d_values_in,
                   const jit::output& keys_out, const jit::output& aggregates_out,
                   std::size_t* d_num_runs, std::size_t n, const jit::op& op, stream_ref stream,
                   memory_resource& mr = default_resource()) {
  detail::by_key_compaction<K, V>("cupar::reduce_by_key", detail::reduce_by_key_call(), d_keys_in,
                                  &d_values_in, keys_out, aggregates_out, d_num_runs, nullptr, n,
                                  &op, nullptr, stream, mr);
}

/// As reduce_by_key, and returns the number of runs. Synchronises `stream` (only it).
template <class K, class V>
std::size_t reduce_by_key_count(jit::input_t<K> d_keys_in, jit::input_t<V> d_values_in,
                                K* d_keys_out, V* d_aggregates_out, std::size_t n,
                                const jit::op& op, const jit::op& eq, stream_ref stream,
                                memory_resource& mr = default_resource()) {
  std::size_t count = 0;
  detail::by_key_compaction<K, V>("cupar::reduce_by_key_count", detail::reduce_by_key_call(),
                                  d_keys_in, &d_values_in, d_keys_out, d_aggregates_out, nullptr,
                                  &count, n, &op, &eq, stream, mr);
  return count;
}
/// reduce_by_key_count through output expressions, K and V named.
template <class K, class V>
std::size_t reduce_by_key_count(jit::input_t<K> d_keys_in, jit::input_t<V> d_values_in,
                                const jit::output& keys_out, const jit::output& aggregates_out,
                                std::size_t n, const jit::op& op, const jit::op& eq,
                                stream_ref stream, memory_resource& mr = default_resource()) {
  std::size_t count = 0;
  detail::by_key_compaction<K, V>("cupar::reduce_by_key_count", detail::reduce_by_key_call(),
                                  d_keys_in, &d_values_in, keys_out, aggregates_out, nullptr,
                                  &count, n, &op, &eq, stream, mr);
  return count;
}

/// reduce_by_key_count with `==` on the keys.
template <class K, class V>
std::size_t reduce_by_key_count(jit::input_t<K> d_keys_in, jit::input_t<V> d_values_in,
                                K* d_keys_out, V* d_aggregates_out, std::size_t n,
                                const jit::op& op, stream_ref stream,
                                memory_resource& mr = default_resource()) {
  std::size_t count = 0;
  detail::by_key_compaction<K, V>("cupar::reduce_by_key_count", detail::reduce_by_key_call(),
                                  d_keys_in, &d_values_in, d_keys_out, d_aggregates_out, nullptr,
                                  &count, n, &op, nullptr, stream, mr);
  return count;
}
/// reduce_by_key_count with `==` through output expressions, K and V named.
template <class K, class V>
std::size_t reduce_by_key_count(jit::input_t<K> d_keys_in, jit::input_t<V> d_values_in,
                                const jit::output& keys_out, const jit::output& aggregates_out,
                                std::size_t n, const jit::op& op, stream_ref stream,
                                memory_resource& mr = default_resource()) {
  std::size_t count = 0;
  detail::by_key_compaction<K, V>("cupar::reduce_by_key_count", detail::reduce_by_key_call(),
                                  d_keys_in, &d_values_in, keys_out, aggregates_out, nullptr,
                                  &count, n, &op, nullptr, stream, mr);
  return count;
}

/// Inclusive scan of each run of equal consecutive keys: d_out[i] = v[h] op v[h + 1] op ... op
/// v[i], h the first position of i's run. n == 0 writes nothing.
///
/// @param d_keys, d_values  device inputs of n keys and n values (may be null when n == 0); the
///                          values may be an iterator expression, written to a temporary array
///                          first (jit::input); so may the keys in the overloads with K and V
///                          named, which take an output expression too (select.hpp's top)
/// @param d_out             device output of n values; may be d_values (in place) or d_keys (when
///                          keys and values have the same size: the keys are overwritten), must
///                          not otherwise overlap either (CUB's rule)
/// @param op                binary operator V x V -> V on the values (associative)
/// @param eq                equality K x K -> bool on the keys (default: ==)
/// @throws std::invalid_argument for null pointers with n > 0 or partial overlaps
/// @throws cupar::jit_error ("operator" or "equality"), cupar::out_of_memory, cupar::cuda_error
/// Asynchronous. CUB's DeviceScan::InclusiveScanByKey with 64-bit counts.
template <class K, class V>
void inclusive_scan_by_key(const K* d_keys, jit::input_t<V> d_values, V* d_out, std::size_t n,
                           const jit::op& op, const jit::op& eq, stream_ref stream,
                           memory_resource& mr = default_resource()) {
  detail::scan_by_key_call<K, V>("cupar::inclusive_scan_by_key",
                                 detail::inclusive_scan_by_key_call(), d_keys, d_values, d_out, n,
                                 op, nullptr, &eq, stream, mr);
}
/// inclusive_scan_by_key over key expressions into an output expression, K and V named.
template <class K, class V>
void inclusive_scan_by_key(jit::input_t<K> keys, jit::input_t<V> values, const jit::output& out,
                           std::size_t n, const jit::op& op, const jit::op& eq, stream_ref stream,
                           memory_resource& mr = default_resource()) {
  detail::scan_by_key_call<K, V>("cupar::inclusive_scan_by_key",
                                 detail::inclusive_scan_by_key_call(), keys, values, out, n, op,
                                 nullptr, &eq, stream, mr);
}

/// inclusive_scan_by_key with `==` on the keys.
template <class K, class V>
void inclusive_scan_by_key(const K* d_keys, jit::input_t<V> d_values, V* d_out, std::size_t n,
                           const jit::op& op, stream_ref stream,
                           memory_resource& mr = default_resource()) {
  detail::scan_by_key_call<K, V>("cupar::inclusive_scan_by_key",
                                 detail::inclusive_scan_by_key_call(), d_keys, d_values, d_out, n,
                                 op, nullptr, nullptr, stream, mr);
}
/// inclusive_scan_by_key with `==`, over expressions, K and V named.
template <class K, class V>
void inclusive_scan_by_key(jit::input_t<K> keys, jit::input_t<V> values, const jit::output& out,
                           std::size_t n, const jit::op& op, stream_ref stream,
                           memory_resource& mr = default_resource()) {
  detail::scan_by_key_call<K, V>("cupar::inclusive_scan_by_key",
                                 detail::inclusive_scan_by_key_call(), keys, values, out, n, op,
                                 nullptr, nullptr, stream, mr);
}

/// Exclusive scan of each run of equal consecutive keys, seeded with `init` in every run:
/// d_out[h] = init at the first position h of each run, d_out[i] = init op (v[h] op ... op
/// v[i - 1]) after it. Parameters, exceptions and synchronisation as inclusive_scan_by_key.
template <class K, class V>
void exclusive_scan_by_key(const K* d_keys, jit::input_t<V> d_values, V* d_out, std::size_t n,
                           const jit::op& op, detail::type_identity_t<V> init, const jit::op& eq,
                           stream_ref stream, memory_resource& mr = default_resource()) {
  detail::scan_by_key_call<K, V>("cupar::exclusive_scan_by_key",
                                 detail::exclusive_scan_by_key_call(), d_keys, d_values, d_out, n,
                                 op, &init, &eq, stream, mr);
}
/// exclusive_scan_by_key over expressions, K and V named.
template <class K, class V>
void exclusive_scan_by_key(jit::input_t<K> keys, jit::input_t<V> values, const jit::output& out,
                           std::size_t n, const jit::op& op, detail::type_identity_t<V> init,
                           const jit::op& eq, stream_ref stream,
                           memory_resource& mr = default_resource()) {
  detail::scan_by_key_call<K, V>("cupar::exclusive_scan_by_key",
                                 detail::exclusive_scan_by_key_call(), keys, values, out, n, op,
                                 &init, &eq, stream, mr);
}

/// exclusive_scan_by_key with `==` on the keys.
template <class K, class V>
void exclusive_scan_by_key(const K* d_keys, jit::input_t<V> d_values, V* d_out, std::size_t n,
                           const jit::op& op, detail::type_identity_t<V> init, stream_ref stream,
                           memory_resource& mr = default_resource()) {
  detail::scan_by_key_call<K, V>("cupar::exclusive_scan_by_key",
                                 detail::exclusive_scan_by_key_call(), d_keys, d_values, d_out, n,
                                 op, &init, nullptr, stream, mr);
}
/// exclusive_scan_by_key with `==`, over expressions, K and V named.
template <class K, class V>
void exclusive_scan_by_key(jit::input_t<K> keys, jit::input_t<V> values, const jit::output& out,
                           std::size_t n, const jit::op& op, detail::type_identity_t<V> init,
                           stream_ref stream, memory_resource& mr = default_resource()) {
  detail::scan_by_key_call<K, V>("cupar::exclusive_scan_by_key",
                                 detail::exclusive_scan_by_key_call(), keys, values, out, n, op,
                                 &init, nullptr, stream, mr);
}

namespace jit {

// Compile-only builds (jit_compile.hpp says what they are for).

/// As compile_reduce (reduce.hpp), for reduce_by_key's operator on values V and equality on
/// keys K (null: ==).
template <class K, class V>
build_report compile_reduce_by_key(const op& reduction, const op* eq, int arch = 90,
                                   bool optimized = true) {
  return ::cupar::detail::jit_compile_call(
      ::cupar::detail::reduce_by_key_call(), &::cupar::detail::jit_type_of<K>(),
      &::cupar::detail::jit_type_of<V>(), &reduction, eq, arch, optimized);
}

/// reduce_by_key with its values read as the iterator expression `values` (elements of V): the
/// "+index" set whose kernels read it (4- and 8-byte keys), the expression's code and the
/// operators built together.
template <class K, class V>
build_report compile_reduce_by_key(const iterator& values, const op& reduction, const op* eq,
                                   int arch = 90, bool optimized = true) {
  return ::cupar::detail::jit_compile_call(::cupar::detail::reduce_by_key_call(),
                                           &::cupar::detail::jit_type_of<K>(),
                                           &::cupar::detail::jit_type_of<V>(), &reduction, eq, arch,
                                           optimized, nullptr, nullptr, false, &values);
}

/// An inclusive or exclusive scan-by-key's operator on values V and equality on keys K.
template <class K, class V>
build_report compile_scan_by_key(const op& scan, const op* eq, bool inclusive, int arch = 90,
                                 bool optimized = true) {
  return ::cupar::detail::jit_compile_call(
      (inclusive ? ::cupar::detail::inclusive_scan_by_key_call()
                 : ::cupar::detail::exclusive_scan_by_key_call()),
      &::cupar::detail::jit_type_of<K>(), &::cupar::detail::jit_type_of<V>(), &scan, eq, arch,
      optimized);
}

}  // namespace jit

}  // namespace cupar
