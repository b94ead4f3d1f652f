// cupar: segmented algorithms (any host compiler): segmented_reduce, segmented_inclusive_scan and
// segmented_exclusive_scan with run-time operators; segmented_sort_keys / segmented_sort_pairs
// (radix, no operator) and check_segments, served by the library for every caller. The overloads
// taking C++ callables are in segmented.cuh; both behave the same.
//
// Segments. A call works on data of n items and num_segments segments given by two device arrays
// of offsets, as CUB takes them: segment s is [d_begin_offsets[s], d_end_offsets[s]). For offsets
// in one array, pass d_begin_offsets = offsets and d_end_offsets = offsets + 1. Every call takes
// them as jit::offsets: arrays of 64-bit offsets, as they are, or 32-bit ones (signed or not),
// unsigned 64-bit ones and iterator expressions (fixed-size segments: jit::transform(
// jit::counting(0ll), jit::op("x * 256"))), written to temporary 64-bit arrays first (one pass of
// num_segments elements). The rules:
//   - every segment:   0 <= d_begin_offsets[s] <= d_end_offsets[s] <= n. Empty segments
//                      (begin == end) are allowed anywhere;
//   - segmented_reduce: nothing more; segments may overlap and come in any order;
//   - segmented scans:  the segments are in increasing order and disjoint:
//                      d_end_offsets[s] <= d_begin_offsets[s + 1] (empty segments included);
//   - segmented sorts:  the segments are disjoint (any order).
// Items outside every segment (gaps, before the first, after the last) are read by the scans
// (they load whole tiles of d_in[0, n)) but never written by any call: the outputs keep what they
// held there (in-place calls therefore keep the input there).
//
// The offsets live in device memory, so the calls do not check them (that would cost a pass over
// them and a synchronisation per call): offsets that break the rules give undefined results, and
// for segmented_reduce and the sorts possibly reads and writes outside the arrays. Validate
// untrusted offsets once with cupar::check_segments. What is checked on the host, before anything
// is queued, throws std::invalid_argument: null pointers with a non-zero count, overlapping
// inputs and outputs, counts that do not fit 64 bits. num_segments > 0 with n == 0 is valid (all
// segments are then empty); num_segments == 0 and n == 0 write nothing.
#pragma once

#include <cupar/detail/jit_entry.hpp>
#include <cupar/detail/type_id.hpp>
#include <cupar/jit.hpp>
#include <cupar/jit_iterator.hpp>
#include <cupar/memory.hpp>
#include <cupar/stream.hpp>
#include <cupar/types.hpp>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace cupar::detail {
// The library operations this header calls (jit_entry.hpp).
CUPAR_JIT_CALL(segmented_reduce)
CUPAR_JIT_CALL(segmented_inclusive_scan)
CUPAR_JIT_CALL(segmented_exclusive_scan)
}  // namespace cupar::detail

namespace cupar {

/// What cupar::check_segments checks besides 0 <= begin <= end <= n for every segment.
enum class segment_rules {
  bounds,   ///< nothing more (segmented_reduce's rule)
  ordered,  ///< d_end_offsets[s] <= d_begin_offsets[s + 1]: in order and disjoint (the scans')
};

namespace detail {

struct segment_check_args {
  const char* function;
  const std::int64_t* begin_offsets;
  const std::int64_t* end_offsets;
  std::size_t num_segments;
  std::size_t n;
  segment_rules rules;
};
CUPAR_EXPORT void check_segments(const segment_check_args& args, stream_ref stream,
                                 memory_resource& mr);

struct segmented_sort_args {
  const char* function;  // public name for messages
  scalar key;
  const void* keys_in;
  void* keys_out;
  std::size_t value_size;  // 0: keys only
  std::size_t value_align;
  const void* values_in;
  void* values_out;
  std::size_t n;
  std::size_t num_segments;
  const std::int64_t* begin_offsets;
  const std::int64_t* end_offsets;
  radix_options options;
  /// Offsets given as iterator expressions (other integer types, computed offsets): written to
  /// temporary 64-bit arrays first. Null where the arrays above are given.
  const ::cupar::jit::iterator* begin_expression = nullptr;
  const ::cupar::jit::iterator* end_expression = nullptr;
};
CUPAR_EXPORT void segmented_sort(const segmented_sort_args& args, stream_ref stream,
                                 memory_resource& mr);

/// The segmented families with run-time operators: input, output (an array or an output
/// expression), offsets (arrays or expressions).
template <class T, class Out>
void segmented_call(const char* fn, const jit_call& what, const ::cupar::jit::input<T>& d_in,
                    const Out& out, std::size_t n, std::size_t num_segments,
                    const ::cupar::jit::offsets& begin, const ::cupar::jit::offsets& end,
                    const ::cupar::jit::op& op, const T* init, stream_ref stream,
                    memory_resource& mr) {
  jit_args a{fn, &what};
  a.types[0] = &jit_type_of<T>();
  set_input(a, 0, d_in);
  set_output(a, 0, out);
  a.n = n;
  a.m = num_segments;
  a.begin_offsets = begin.array();
  a.end_offsets = end.array();
  a.offsets_iter[0] = begin.expression();
  a.offsets_iter[1] = end.expression();
  a.ops[0] = &op;
  a.init = init;
  jit_run(a, stream, mr);
}

}  // namespace detail

/// Checks segment offsets against the rules above and throws std::invalid_argument naming the
/// first segment that breaks them, with its offsets ("cupar::check_segments: segment 7 = [12, 9)
/// has begin > end"). A small kernel finds it; the call synchronises `stream` (only it).
///
/// @param d_begin_offsets, d_end_offsets  device arrays of num_segments offsets
/// @param num_segments  number of segments
/// @param n             number of items of the data the segments index
/// @param rules         segment_rules::ordered (default: what the scans need, and enough for the
///                      sorts) or segment_rules::bounds (segmented_reduce). Disjoint segments in
///                      another order (which the sorts accept) are not checked as such.
/// @throws std::invalid_argument for a segment breaking the rules, or null offsets with
///         num_segments > 0
/// @throws cupar::out_of_memory, cupar::cuda_error
inline void check_segments(const std::int64_t* d_begin_offsets, const std::int64_t* d_end_offsets,
                           std::size_t num_segments, std::size_t n, stream_ref stream,
                           segment_rules rules = segment_rules::ordered,
                           memory_resource& mr = default_resource()) {
  detail::check_segments(
      {"cupar::check_segments", d_begin_offsets, d_end_offsets, num_segments, n, rules}, stream,
      mr);
}

/// Reduces each segment s of d_in with the run-time operator `op` (arguments `a`, `b`), starting
/// from `init`, into d_out[s]: init op x_begin op ... op x_end-1 in CUB's order (op must be
/// associative; its operands keep their order). An empty segment gets init.
///
/// @param d_in          device values, or an iterator expression written to a temporary array of
///                      n values first (jit::input); may be null when n == 0
/// @param d_out         device results, one per segment; must not overlap d_in or the offsets.
///                      The overload with T named takes an output expression
/// @param n             number of values d_in holds (the segments index [0, n))
/// @param num_segments  number of segments (may exceed 2^31)
/// @param d_begin_offsets, d_end_offsets  the segments (see the rules at the top of this file:
///                      any order, overlaps allowed): arrays of 32- or 64-bit integers, signed or
///                      not, or iterator expressions (e.g. fixed-size segments:
///                      jit::transform(jit::counting(0ll), jit::op("x * 64"))); all but an int64
///                      array are written to temporary arrays of num_segments 64-bit offsets
///                      first (jit::offsets)
/// @param op            binary operator T x T -> T, e.g. cupar::jit::op("a + b") or
///                      cupar::jit::plus (named operators compile nothing)
/// @param init          initial value of every segment
/// @param stream        stream the reduction runs on
/// @param mr            resource for temporary storage
/// @throws std::invalid_argument for null pointers with non-zero counts or overlapping arrays
/// @throws cupar::jit_error when the operator does not compile (log and line inside)
/// @throws cupar::out_of_memory, cupar::cuda_error
/// Asynchronous. The first call with a new operator compiles it (see jit.hpp).
template <class T>
void segmented_reduce(jit::input_t<T> d_in, T* d_out, std::size_t n, std::size_t num_segments,
                      jit::offsets d_begin_offsets, jit::offsets d_end_offsets, const jit::op& op,
                      detail::type_identity_t<T> init, stream_ref stream,
                      memory_resource& mr = default_resource()) {
  detail::segmented_call<T>("cupar::segmented_reduce", detail::segmented_reduce_call(), d_in, d_out,
                            n, num_segments, d_begin_offsets, d_end_offsets, op, &init, stream, mr);
}
/// segmented_reduce into an output expression (one result per segment), T named.
template <class T>
void segmented_reduce(jit::input_t<T> d_in, const jit::output& out, std::size_t n,
                      std::size_t num_segments, jit::offsets d_begin_offsets,
                      jit::offsets d_end_offsets, const jit::op& op,
                      detail::type_identity_t<T> init, stream_ref stream,
                      memory_resource& mr = default_resource()) {
  detail::segmented_call<T>("cupar::segmented_reduce", detail::segmented_reduce_call(), d_in, out,
                            n, num_segments, d_begin_offsets, d_end_offsets, op, &init, stream, mr);
}

/// Inclusive scan of each segment with the run-time operator `op` (arguments `a`, `b`): for an
/// item i of segment s, d_out[i] = d_in[begin_s] op ... op d_in[i]; each segment starts afresh.
/// Items outside every segment are not written.
///
/// @param d_in          device values, or an iterator expression written to a temporary array of
///                      n values first (jit::input); may be null when n == 0
/// @param d_out         device output of n items; may equal d_in (in place), must not otherwise
///                      overlap it, nor overlap the offsets. The overloads with T named take an
///                      output expression: every item is stored through it, those outside every
///                      segment with the input's value (the scan runs in place in a temporary
///                      copy of the input)
/// @param n             number of items (64-bit)
/// @param num_segments  number of segments
/// @param d_begin_offsets, d_end_offsets  the segments: in increasing order and disjoint
///                      (d_end_offsets[s] <= d_begin_offsets[s + 1])
/// @param op            associative binary operator T x T -> T
/// Exceptions and synchronisation as segmented_reduce. Floating-point results may differ from a
/// sequential scan by rounding (the scan runs in parallel), and between runs.
template <class T>
void segmented_inclusive_scan(jit::input_t<T> d_in, T* d_out, std::size_t n,
                              std::size_t num_segments, jit::offsets d_begin_offsets,
                              jit::offsets d_end_offsets, const jit::op& op, stream_ref stream,
                              memory_resource& mr = default_resource()) {
  detail::segmented_call<T>("cupar::segmented_inclusive_scan",
                            detail::segmented_inclusive_scan_call(), d_in, d_out, n, num_segments,
                            d_begin_offsets, d_end_offsets, op, nullptr, stream, mr);
}
/// segmented_inclusive_scan into an output expression, T named.
template <class T>
void segmented_inclusive_scan(jit::input_t<T> d_in, const jit::output& out, std::size_t n,
                              std::size_t num_segments, jit::offsets d_begin_offsets,
                              jit::offsets d_end_offsets, const jit::op& op, stream_ref stream,
                              memory_resource& mr = default_resource()) {
  detail::segmented_call<T>("cupar::segmented_inclusive_scan",
                            detail::segmented_inclusive_scan_call(), d_in, out, n, num_segments,
                            d_begin_offsets, d_end_offsets, op, nullptr, stream, mr);
}

/// Exclusive scan of each segment with the run-time operator `op`, each segment starting from
/// `init`: d_out[begin_s] = init, and for a later item i of segment s
/// d_out[i] = init op d_in[begin_s] op ... op d_in[i - 1]. Items outside every segment are not
/// written. Parameters, exceptions and synchronisation as segmented_inclusive_scan.
template <class T>
void segmented_exclusive_scan(jit::input_t<T> d_in, T* d_out, std::size_t n,
                              std::size_t num_segments, jit::offsets d_begin_offsets,
                              jit::offsets d_end_offsets, const jit::op& op,
                              detail::type_identity_t<T> init, stream_ref stream,
                              memory_resource& mr = default_resource()) {
  detail::segmented_call<T>("cupar::segmented_exclusive_scan",
                            detail::segmented_exclusive_scan_call(), d_in, d_out, n, num_segments,
                            d_begin_offsets, d_end_offsets, op, &init, stream, mr);
}
/// segmented_exclusive_scan into an output expression, T named.
template <class T>
void segmented_exclusive_scan(jit::input_t<T> d_in, const jit::output& out, std::size_t n,
                              std::size_t num_segments, jit::offsets d_begin_offsets,
                              jit::offsets d_end_offsets, const jit::op& op,
                              detail::type_identity_t<T> init, stream_ref stream,
                              memory_resource& mr = default_resource()) {
  detail::segmented_call<T>("cupar::segmented_exclusive_scan",
                            detail::segmented_exclusive_scan_call(), d_in, out, n, num_segments,
                            d_begin_offsets, d_end_offsets, op, &init, stream, mr);
}

/// Sorts the keys of each segment, ascending or descending (arithmetic keys; precompiled in the
/// library for every key type; no operator). Items outside every segment are not written.
///
/// Stable: keys that compare equal keep their input order, in both directions (CUB's
/// DeviceSegmentedSort::StableSortKeys[Descending]: radix sorts for large segments, merge sorts
/// for small ones after partitioning the segments by size, so many small segments sort quickly).
/// Floating point: -0.0 and +0.0 are equal keys. NaN is not ordered: CUB sorts small segments by
/// comparing keys with < (>), under which NaN compares false with everything, so a segment
/// holding NaN keeps its keys but in an unspecified order (its other keys need not come out
/// sorted either); large segments, radix-sorted, would put NaN by bit pattern as sort.hpp does,
/// but which segments count as large is CUB's choice. Sort NaN-free keys, or map NaN to an
/// infinity first. Comparator-based segmented sorts are not offered: CUB 3.0.1 has no segmented
/// sort taking a comparator (its merge sorts here are internal), so one would mean writing it.
///
/// @param d_keys_in     device input keys (may be null when n == 0)
/// @param d_keys_out    device output keys; may equal d_keys_in (sorted in place, through a copy
///                      of the input in temporary storage), must not otherwise overlap it
/// @param n             number of keys the arrays hold (64-bit)
/// @param num_segments  number of segments
/// @param d_begin_offsets, d_end_offsets  the segments: disjoint, any order; many small segments
///                      are sorted efficiently (one warp or block per segment)
/// @param options       cupar::ascending (default) or cupar::descending; the whole key is sorted
///                      on (a partial bit range is refused: CUB's segmented sort has none)
/// @param stream        stream the sort runs on
/// @param mr            resource for temporary storage (about n keys, more when in place)
/// @throws std::invalid_argument for null pointers with non-zero counts, partial overlaps, the
///         outputs overlapping the offsets, a partial bit range, or a key type the library was
///         built without (CUPAR_LIBRARY_TYPES; every type by default)
/// @throws cupar::out_of_memory, cupar::cuda_error
/// Synchronises `stream`: CUB 3.0.1's DeviceSegmentedSort splits the segments by size on the
/// device and reads the sizes of the groups back to the host (a cudaMemcpyAsync and a stream
/// synchronisation inside every call), so the call cannot be captured into a CUDA graph either.
template <class Key>
void segmented_sort_keys(const Key* d_keys_in, Key* d_keys_out, std::size_t n,
                         std::size_t num_segments, jit::offsets d_begin_offsets,
                         jit::offsets d_end_offsets, radix_options options, stream_ref stream,
                         memory_resource& mr = default_resource()) {
  static_assert(detail::is_scalar_v<Key>,
                "cupar::segmented_sort_keys: the radix sort needs an arithmetic key type "
                "(integers of 1-8 bytes, float, double)");
  detail::segmented_sort(
      {"cupar::segmented_sort_keys", detail::scalar_of<Key>(), d_keys_in, d_keys_out, 0, 0, nullptr,
       nullptr, n, num_segments, d_begin_offsets.array(), d_end_offsets.array(), options,
       d_begin_offsets.expression(), d_end_offsets.expression()},
      stream, mr);
}

/// segmented_sort_keys, ascending.
template <class Key>
void segmented_sort_keys(const Key* d_keys_in, Key* d_keys_out, std::size_t n,
                         std::size_t num_segments, jit::offsets d_begin_offsets,
                         jit::offsets d_end_offsets, stream_ref stream,
                         memory_resource& mr = default_resource()) {
  segmented_sort_keys(d_keys_in, d_keys_out, n, num_segments, d_begin_offsets, d_end_offsets,
                      ascending, stream, mr);
}

/// Sorts key-value pairs by key within each segment (stable, as segmented_sort_keys). Values may
/// be any trivially copyable type: 4- and 8-byte values (aligned) are moved by the sort itself;
/// others are moved by a gather after sorting (key, index) pairs.
///
/// @param d_values_in, d_values_out  device values; like the keys they may be sorted in place
///                   (out == in) but must not otherwise overlap, nor overlap the keys
/// Other parameters, exceptions and synchronisation as segmented_sort_keys.
template <class Key, class Value>
void segmented_sort_pairs(const Key* d_keys_in, Key* d_keys_out, const Value* d_values_in,
                          Value* d_values_out, std::size_t n, std::size_t num_segments,
                          jit::offsets d_begin_offsets, jit::offsets d_end_offsets,
                          radix_options options, stream_ref stream,
                          memory_resource& mr = default_resource()) {
  static_assert(detail::is_scalar_v<Key>,
                "cupar::segmented_sort_pairs: the radix sort needs an arithmetic key type "
                "(integers of 1-8 bytes, float, double)");
  static_assert(std::is_trivially_copyable_v<Value>,
                "cupar::segmented_sort_pairs: Value must be trivially copyable");
  detail::segmented_sort({"cupar::segmented_sort_pairs", detail::scalar_of<Key>(), d_keys_in,
                          d_keys_out, sizeof(Value), alignof(Value), d_values_in, d_values_out, n,
                          num_segments, d_begin_offsets.array(), d_end_offsets.array(), options,
                          d_begin_offsets.expression(), d_end_offsets.expression()},
                         stream, mr);
}

/// segmented_sort_pairs, ascending.
template <class Key, class Value>
void segmented_sort_pairs(const Key* d_keys_in, Key* d_keys_out, const Value* d_values_in,
                          Value* d_values_out, std::size_t n, std::size_t num_segments,
                          jit::offsets d_begin_offsets, jit::offsets d_end_offsets,
                          stream_ref stream, memory_resource& mr = default_resource()) {
  segmented_sort_pairs(d_keys_in, d_keys_out, d_values_in, d_values_out, n, num_segments,
                       d_begin_offsets, d_end_offsets, ascending, stream, mr);
}

namespace jit {

// Compile-only builds (jit_compile.hpp says what they are for).

/// As compile_reduce (reduce.hpp), for segmented_reduce's operator on T.
template <class T>
build_report compile_segmented_reduce(const op& reduction, int arch = 90, bool optimized = true) {
  return ::cupar::detail::jit_compile_call(::cupar::detail::segmented_reduce_call(),
                                           &::cupar::detail::jit_type_of<T>(), nullptr, &reduction,
                                           nullptr, arch, optimized);
}

/// A segmented inclusive or exclusive scan's operator on T.
template <class T>
build_report compile_segmented_scan(const op& scan, bool inclusive, int arch = 90,
                                    bool optimized = true) {
  return ::cupar::detail::jit_compile_call(
      (inclusive ? ::cupar::detail::segmented_inclusive_scan_call()
                 : ::cupar::detail::segmented_exclusive_scan_call()),
      &::cupar::detail::jit_type_of<T>(), nullptr, &scan, nullptr, arch, optimized);
}

}  // namespace jit

}  // namespace cupar
