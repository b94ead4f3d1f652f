// cupar: removing consecutive duplicates with run-time operators (any host compiler): unique,
// unique_by_key, run_length_encode. The overloads taking C++ callables are in unique.cuh; the
// forms without an equality use ==, served by the library for both kinds of caller
// (run_length_encode has only that form).
//
// Runs: a run is a maximal group of consecutive items (keys) in which the equality holds between
// each item and the one before it (CUB applies it to adjacent items only; it should be an
// equivalence relation). Equality: by default `a == b` on the element type, so for floating
// point NaN != NaN (each NaN is its own run) and -0.0 == +0.0 (one run, represented by its first
// item, whose bits are kept; run_length_encode keeps its last). Counts are written to device
// memory as std::size_t; the `_count` forms return them to the host instead, synchronising the
// stream (only it).
//
// unique_by_key on struct keys of no class under a text equality compiles only the equality: one
// more pass marks each row's run start from it, the call runs on the marks, and each run's first
// key is gathered after it (docs/JIT.md).
//
// unique_by_key and run_length_encode with run-time operators or none: their kernels for 2^31
// items and more (64-bit offsets; 32-bit ones below, as CUB uses for an int count) are not
// precompiled: they are compiled once from source at the first such call (a few seconds, then
// cached on disk; CCCL's headers are needed, see README.md).
#pragma once

#include <cupar/detail/jit_entry.hpp>
#include <cupar/jit.hpp>
#include <cupar/jit_iterator.hpp>
#include <cupar/memory.hpp>
#include <cupar/select.hpp>
#include <cupar/stream.hpp>

#include <cstddef>
#include <type_traits>

namespace cupar::detail {
// The library operations this header calls (jit_entry.hpp).
CUPAR_JIT_CALL(unique)
CUPAR_JIT_CALL(unique_by_key)
CUPAR_JIT_CALL(run_length_encode)
}  // namespace cupar::detail

namespace cupar {

/// Copies the first item of each run of consecutive items that the run-time equality `eq`
/// (arguments `a`, `b`; e.g. "a.id == b.id") finds equal from d_in[0, n) to d_out, in input
/// order, and writes their number to *d_num_selected.
///
/// @param d_in           device input, or an iterator expression read by the kernels in the same
///                       pass (jit::input; e.g. jit::transform(d_x, jit::op("x * 2.0f")));
///                       may be null when n == 0
/// @param d_out          device output with room for n items; must not overlap d_in. The
///                       overloads with T named take an output expression (select.hpp's top)
/// @param d_num_selected device count (one std::size_t)
/// @param eq             equality T x T -> bool; an equivalence relation
/// @throws std::invalid_argument for null pointers with n > 0, a null d_num_selected or
///         overlapping ranges
/// @throws cupar::jit_error when the equality does not compile (log and line inside)
/// @throws cupar::out_of_memory, cupar::cuda_error
/// Asynchronous.
template <class T>
void unique(jit::input_t<T> d_in, T* d_out, std::size_t* d_num_selected, std::size_t n,
            const jit::op& eq, stream_ref stream, memory_resource& mr = default_resource()) {
  detail::compaction_call("cupar::unique", detail::unique_call(), d_in, d_out, d_num_selected,
                          nullptr, n, &eq, stream, mr);
}
/// unique through an output expression, T named.
template <class T>
void unique(jit::input_t<T> d_in, const jit::output& out, std::size_t* d_num_selected,
            std::size_t n, const jit::op& eq, stream_ref stream,
            memory_resource& mr = default_resource()) {
  detail::compaction_call("cupar::unique", detail::unique_call(), d_in, out, d_num_selected,
                          nullptr, n, &eq, stream, mr);
}

/// unique with `==` as the equality. T: an arithmetic type (kernels precompiled in the library)
/// or a struct described with CUPAR_JIT_TYPE that has an operator== in its device definition.
template <class T>
void unique(jit::input_t<T> d_in, T* d_out, std::size_t* d_num_selected, std::size_t n,
            stream_ref stream, memory_resource& mr = default_resource()) {
  detail::compaction_call("cupar::unique", detail::unique_call(), d_in, d_out, d_num_selected,
                          nullptr, n, nullptr, stream, mr);
}
/// unique with `==` through an output expression, T named.
template <class T>
void unique(jit::input_t<T> d_in, const jit::output& out, std::size_t* d_num_selected,
            std::size_t n, stream_ref stream, memory_resource& mr = default_resource()) {
  detail::compaction_call("cupar::unique", detail::unique_call(), d_in, out, d_num_selected,
                          nullptr, n, nullptr, stream, mr);
}

/// As unique, and returns the number of items kept. Synchronises `stream` (only it).
template <class T>
std::size_t unique_count(jit::input_t<T> d_in, T* d_out, std::size_t n, const jit::op& eq,
                         stream_ref stream, memory_resource& mr = default_resource()) {
  std::size_t count = 0;
  detail::compaction_call("cupar::unique_count", detail::unique_call(), d_in, d_out, nullptr,
                          &count, n, &eq, stream, mr);
  return count;
}
/// unique_count through an output expression, T named.
template <class T>
std::size_t unique_count(jit::input_t<T> d_in, const jit::output& out, std::size_t n,
                         const jit::op& eq, stream_ref stream,
                         memory_resource& mr = default_resource()) {
  std::size_t count = 0;
  detail::compaction_call("cupar::unique_count", detail::unique_call(), d_in, out, nullptr, &count,
                          n, &eq, stream, mr);
  return count;
}

/// unique_count with `==` as the equality.
template <class T>
std::size_t unique_count(jit::input_t<T> d_in, T* d_out, std::size_t n, stream_ref stream,
                         memory_resource& mr = default_resource()) {
  std::size_t count = 0;
  detail::compaction_call("cupar::unique_count", detail::unique_call(), d_in, d_out, nullptr,
                          &count, n, nullptr, stream, mr);
  return count;
}
/// unique_count with `==` through an output expression, T named.
template <class T>
std::size_t unique_count(jit::input_t<T> d_in, const jit::output& out, std::size_t n,
                         stream_ref stream, memory_resource& mr = default_resource()) {
  std::size_t count = 0;
  detail::compaction_call("cupar::unique_count", detail::unique_call(), d_in, out, nullptr, &count,
                          n, nullptr, stream, mr);
  return count;
}

namespace detail {
/// unique_by_key, run_length_encode and reduce_by_key: keys and (values) in, two outputs (arrays
/// or output expressions), a count to device memory or to the host.
template <class K, class V, class KOut, class VOut>
void by_key_compaction(const char* fn, const jit_call& what, const ::cupar::jit::input<K>& keys,
                       const ::cupar::jit::input<V>* values, const KOut& keys_out,
                       const VOut& second_out, std::size_t* d_count, std::size_t* host_count,
                       std::size_t n, const ::cupar::jit::op* op0, const ::cupar::jit::op* op1,
                       stream_ref stream, memory_resource& mr) {
  auto a = dp_args<K>(fn, what, n);
  a.types[1] = &jit_type_of<V>();
  set_input(a, 0, keys);
  if (values != nullptr) set_input(a, 1, *values);
  set_output(a, 0, keys_out);
  set_output(a, 1, second_out);
  a.d_count = d_count;
  a.host_count = host_count;
  a.ops[0] = op0;
  a.ops[1] = op1;
  jit_run(a, stream, mr);
}
}  // namespace detail

/// Copies the first key of each run of equal consecutive keys of d_keys_in[0, n) (equality `eq`,
/// arguments `a`, `b`, e.g. "a.id == b.id") to d_keys_out and the value at the same position of
/// d_values_in to d_values_out, in input order, and writes the number of runs to
/// *d_num_selected. n == 0 writes 0 and nothing else.
///
/// @param d_keys_in, d_values_in    device inputs of n keys and n values, each an array or an
///                                  iterator expression written to a temporary array first
///                                  (jit::input; may be null when
///                                  n == 0)
/// @param d_keys_out, d_values_out  device outputs with room for one item per run (n at most);
///                                  no output may overlap an input or the other output (CUB
///                                  does not compact in place). The overloads with K and V named
///                                  take output expressions (select.hpp's top)
/// @param d_num_selected            device count (one std::size_t)
/// @param eq                        equality K x K -> bool
/// @throws std::invalid_argument for null pointers with n > 0, a null d_num_selected or
///         overlapping ranges
/// @throws cupar::jit_error when the equality does not compile (log and line inside)
/// @throws cupar::out_of_memory, cupar::cuda_error
/// Asynchronous.
template <class K, class V>
void unique_by_key(jit::input_t<K> d_keys_in, jit::input_t<V> d_values_in, K* d_keys_out,
                   V* d_values_out, std::size_t* d_num_selected, std::size_t n, const jit::op& eq,
                   stream_ref stream, memory_resource& mr = default_resource()) {
  detail::by_key_compaction<K, V>("cupar::unique_by_key", detail::unique_by_key_call(), d_keys_in,
                                  &d_values_in, d_keys_out, d_values_out, d_num_selected, nullptr,
                                  n, &eq, nullptr, stream, mr);
}
/// unique_by_key through output expressions, K and V named.
template <class K, class V>
void unique_by_key(jit::input_t<K> d_keys_in, jit::input_t<V> d_values_in,
                   const jit::output& keys_out, const jit::output& values_out,
                   std::size_t* d_num_selected, std::size_t n, const jit::op& eq, stream_ref stream,
                   memory_resource& mr = default_resource()) {
  detail::by_key_compaction<K, V>("cupar::unique_by_key", detail::unique_by_key_call(), d_keys_in,
                                  &d_values_in, keys_out, values_out, d_num_selected, nullptr, n,
                                  &eq, nullptr, stream, mr);
}

/// unique_by_key with `==` on the keys. K: an arithmetic type (kernels precompiled in the
/// library for every arithmetic K and V) or a struct described with CUPAR_JIT_TYPE that has an
/// operator== in its device definition; V: any type.
template <class K, class V>
void unique_by_key(jit::input_t<K> d_keys_in, jit::input_t<V> d_values_in, K* d_keys_out,
                   V* d_values_out, std::size_t* d_num_selected, std::size_t n, stream_ref stream,
                   memory_resource& mr = default_resource()) {
  detail::by_key_compaction<K, V>("cupar::unique_by_key", detail::unique_by_key_call(), d_keys_in,
                                  &d_values_in, d_keys_out, d_values_out, d_num_selected, nullptr,
                                  n, nullptr, nullptr, stream, mr);
}
/// unique_by_key with `==` through output expressions, K and V named.
template <class K, class V>
void unique_by_key(jit::input_t<K> d_keys_in, jit::input_t<V> d_values_in,
                   const jit::output& keys_out, const jit::output& values_out,
                   std::size_t* d_num_selected, std::size_t n, stream_ref stream,
                   memory_resource& mr = default_resource()) {
  detail::by_key_compaction<K, V>("cupar::unique_by_key", detail::unique_by_key_call(), d_keys_in,
                                  &d_values_in, keys_out, values_out, d_num_selected, nullptr, n,
                                  nullptr, nullptr, stream, mr);
}

/// As unique_by_key, and returns the number of runs. Synchronises `stream` (only it).
template <class K, class V>
std::size_t unique_by_key_count(jit::input_t<K> d_keys_in, jit::input_t<V> d_values_in,
                                K* d_keys_out, V* d_values_out, std::size_t n, const jit::op& eq,
                                stream_ref stream, memory_resource& mr = default_resource()) {
  std::size_t count = 0;
  detail::by_key_compaction<K, V>("cupar::unique_by_key_count", detail::unique_by_key_call(),
                                  d_keys_in, &d_values_in, d_keys_out, d_values_out, nullptr,
                                  &count, n, &eq, nullptr, stream, mr);
  return count;
}
/// unique_by_key_count through output expressions, K and V named.
template <class K, class V>
std::size_t unique_by_key_count(jit::input_t<K> d_keys_in, jit::input_t<V> d_values_in,
                                const jit::output& keys_out, const jit::output& values_out,
                                std::size_t n, const jit::op& eq, stream_ref stream,
                                memory_resource& mr = default_resource()) {
  std::size_t count = 0;
  detail::by_key_compaction<K, V>("cupar::unique_by_key_count", detail::unique_by_key_call(),
                                  d_keys_in, &d_values_in, keys_out, values_out, nullptr, &count, n,
                                  &eq, nullptr, stream, mr);
  return count;
}

/// unique_by_key_count with `==` on the keys.
template <class K, class V>
std::size_t unique_by_key_count(jit::input_t<K> d_keys_in, jit::input_t<V> d_values_in,
                                K* d_keys_out, V* d_values_out, std::size_t n, stream_ref stream,
                                memory_resource& mr = default_resource()) {
  std::size_t count = 0;
  detail::by_key_compaction<K, V>("cupar::unique_by_key_count", detail::unique_by_key_call(),
                                  d_keys_in, &d_values_in, d_keys_out, d_values_out, nullptr,
                                  &count, n, nullptr, nullptr, stream, mr);
  return count;
}
/// unique_by_key_count with `==` through output expressions, K and V named.
template <class K, class V>
std::size_t unique_by_key_count(jit::input_t<K> d_keys_in, jit::input_t<V> d_values_in,
                                const jit::output& keys_out, const jit::output& values_out,
                                std::size_t n, stream_ref stream,
                                memory_resource& mr = default_resource()) {
  std::size_t count = 0;
  detail::by_key_compaction<K, V>("cupar::unique_by_key_count", detail::unique_by_key_call(),
                                  d_keys_in, &d_values_in, keys_out, values_out, nullptr, &count, n,
                                  nullptr, nullptr, stream, mr);
  return count;
}

namespace detail {
template <class Count>
inline constexpr bool is_run_length_count_v =
    std::is_integral_v<Count> && !std::is_same_v<Count, bool> &&
    (sizeof(Count) == 4 || sizeof(Count) == 8);
}  // namespace detail

/// Run-length encoding: for each run of equal consecutive items of d_in[0, n) (`==`), writes one
/// of its items to d_unique_out (its last, as CUB's reduce-by-key does: they are all equal, but a
/// run may mix -0.0 and +0.0) and its length to d_counts_out, in input order, and the number of
/// runs to *d_num_runs. n == 0 writes 0 and nothing else. No operator: served by kernels
/// precompiled in the library for every arithmetic K with 4- and 8-byte counts (structs with an
/// operator== in their CUPAR_JIT_TYPE definition are compiled once at run time).
///
/// @param d_in          device input, or an iterator expression written to a temporary array of
///                      n keys first (jit::input); may be null when n == 0
/// @param d_unique_out  device output with room for one item per run (n at most)
/// @param d_counts_out  device output with room for one count per run. Count: a 4- or 8-byte
///                      integer type; a run longer than it holds wraps around (only possible for
///                      4-byte counts and n > 2^31 (signed) or 2^32 (unsigned)). No output may
///                      overlap d_in or the other output.
/// @param d_num_runs    device count (one std::size_t)
/// @throws std::invalid_argument for null pointers with n > 0, a null d_num_runs or overlapping
///         ranges
/// @throws cupar::jit_error (a struct K whose operator== does not compile),
///         cupar::out_of_memory, cupar::cuda_error
/// Asynchronous. CUB's DeviceRunLengthEncode::Encode, with 64-bit item counts.
template <class K, class Count>
void run_length_encode(jit::input_t<K> d_in, K* d_unique_out, Count* d_counts_out,
                       std::size_t* d_num_runs, std::size_t n, stream_ref stream,
                       memory_resource& mr = default_resource()) {
  static_assert(detail::is_run_length_count_v<Count>,
                "cupar::run_length_encode: counts are 4- or 8-byte integers");
  detail::by_key_compaction<K, Count>("cupar::run_length_encode", detail::run_length_encode_call(),
                                      d_in, nullptr, d_unique_out, d_counts_out, d_num_runs,
                                      nullptr, n, nullptr, nullptr, stream, mr);
}
/// run_length_encode through output expressions (e.g. jit::discard() for the items when only the
/// lengths matter), K and Count named.
template <class K, class Count>
void run_length_encode(jit::input_t<K> d_in, const jit::output& unique_out,
                       const jit::output& counts_out, std::size_t* d_num_runs, std::size_t n,
                       stream_ref stream, memory_resource& mr = default_resource()) {
  static_assert(detail::is_run_length_count_v<Count>,
                "cupar::run_length_encode: counts are 4- or 8-byte integers");
  detail::by_key_compaction<K, Count>("cupar::run_length_encode", detail::run_length_encode_call(),
                                      d_in, nullptr, unique_out, counts_out, d_num_runs, nullptr, n,
                                      nullptr, nullptr, stream, mr);
}

/// As run_length_encode, and returns the number of runs. Synchronises `stream` (only it).
template <class K, class Count>
std::size_t run_length_encode_count(jit::input_t<K> d_in, K* d_unique_out, Count* d_counts_out,
                                    std::size_t n, stream_ref stream,
                                    memory_resource& mr = default_resource()) {
  static_assert(detail::is_run_length_count_v<Count>,
                "cupar::run_length_encode_count: counts are 4- or 8-byte integers");
  std::size_t count = 0;
  detail::by_key_compaction<K, Count>(
      "cupar::run_length_encode_count", detail::run_length_encode_call(), d_in, nullptr,
      d_unique_out, d_counts_out, nullptr, &count, n, nullptr, nullptr, stream, mr);
  return count;
}
/// run_length_encode_count through output expressions, K and Count named.
template <class K, class Count>
std::size_t run_length_encode_count(jit::input_t<K> d_in, const jit::output& unique_out,
                                    const jit::output& counts_out, std::size_t n, stream_ref stream,
                                    memory_resource& mr = default_resource()) {
  static_assert(detail::is_run_length_count_v<Count>,
                "cupar::run_length_encode_count: counts are 4- or 8-byte integers");
  std::size_t count = 0;
  detail::by_key_compaction<K, Count>("cupar::run_length_encode_count",
                                      detail::run_length_encode_call(), d_in, nullptr, unique_out,
                                      counts_out, nullptr, &count, n, nullptr, nullptr, stream, mr);
  return count;
}

namespace jit {

// Compile-only builds (jit_compile.hpp says what they are for).

/// As compile_reduce (reduce.hpp), for unique's equality on T (null: ==, whose precompiled
/// object is linked).
template <class T>
build_report compile_unique(const op* eq, int arch = 90, bool optimized = true) {
  return ::cupar::detail::jit_compile_call(::cupar::detail::unique_call(),
                                           &::cupar::detail::jit_type_of<T>(), nullptr, eq, nullptr,
                                           arch, optimized);
}

/// unique over an expression (as compile_select_if, select.hpp).
template <class T>
build_report compile_unique(const iterator& in, const op* eq, int arch = 90,
                            bool optimized = true) {
  return ::cupar::detail::jit_compile_call(::cupar::detail::unique_call(),
                                           &::cupar::detail::jit_type_of<T>(), nullptr, eq, nullptr,
                                           arch, optimized, &in);
}

/// unique over an expression into an output expression (as compile_select_if).
template <class T>
build_report compile_unique(const iterator& in, const output& out, const op* eq, int arch = 90,
                            bool optimized = true) {
  return ::cupar::detail::jit_compile_call(::cupar::detail::unique_call(),
                                           &::cupar::detail::jit_type_of<T>(), nullptr, eq, nullptr,
                                           arch, optimized, &in, &out);
}

/// unique_by_key's equality on keys K with values V (null: ==).
template <class K, class V>
build_report compile_unique_by_key(const op* eq, int arch = 90, bool optimized = true) {
  return ::cupar::detail::jit_compile_call(
      ::cupar::detail::unique_by_key_call(), &::cupar::detail::jit_type_of<K>(),
      &::cupar::detail::jit_type_of<V>(), eq, nullptr, arch, optimized);
}

/// run_length_encode on keys K with Count counts (a 4- or 8-byte integer): no operator of the
/// caller's; the precompiled equal_to of K is linked (structs compile their operator== from
/// source).
template <class K, class Count>
build_report compile_run_length_encode(int arch = 90, bool optimized = true) {
  static_assert(std::is_integral_v<Count> && (sizeof(Count) == 4 || sizeof(Count) == 8),
                "run_length_encode counts are 4- or 8-byte integers");
  return ::cupar::detail::jit_compile_call(
      ::cupar::detail::run_length_encode_call(), &::cupar::detail::jit_type_of<K>(),
      &::cupar::detail::jit_type_of<Count>(), nullptr, nullptr, arch, optimized);
}

}  // namespace jit

}  // namespace cupar
