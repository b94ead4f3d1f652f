// cupar: stream compaction and partitioning with run-time operators (any host compiler):
// select_if, select_flagged, partition, three_way_partition. The overloads taking C++ callables
// are in select.cuh; both behave the same.
//
// Counts: every function writes the number of items it selected to device memory (`std::size_t`,
// so counts above 2^32 work) and does not synchronise; its `_count` form returns that number to
// the host instead, synchronising the stream (only it).
//
// Output expressions: every function has an overload whose outputs are jit::output (an array of
// any type the items convert to, jit::transform_output, jit::discard(); jit_iterator.hpp) and
// whose element types are named, since nothing deduces them: cupar::select_if<float>(d_x,
// jit::transform_output<float>(d_y, jit::op("x * 2.0f")), ...). select_if, partition and unique
// (also unique in unique.hpp) on arithmetic types, and select_if and partition on structs of the
// data-processing struct classes, store through the expression as they compact, in one pass,
// when the output writes no array the call reads; otherwise (an output over the input, a
// gather's values or other arrays the input reads; other structs; select_flagged and
// three_way_partition) the kernels write a temporary array of n items (from `mr`), which one more
// pass stores through the expression, only the items the call wrote (the pass reads the count on
// the device: nothing synchronises); a discard() output then costs the temporary alone. The
// operators must not read what the output writes. An output expression that is a plain array of
// the call's type is that array: no temporary, no pass.
#pragma once

#include <cupar/detail/jit_entry.hpp>
#include <cupar/jit.hpp>
#include <cupar/jit_iterator.hpp>
#include <cupar/memory.hpp>
#include <cupar/stream.hpp>

#include <cstddef>
#include <type_traits>

namespace cupar::detail {
// The library operations this header calls (jit_entry.hpp).
CUPAR_JIT_CALL(select_if)
CUPAR_JIT_CALL(select_flagged)
CUPAR_JIT_CALL(partition)
CUPAR_JIT_CALL(three_way_partition)
}  // namespace cupar::detail

namespace cupar {

/// The sizes of the first two parts of a three-way partition (the third has n - first - second).
struct partition_counts {
  std::size_t first = 0;
  std::size_t second = 0;
};

namespace detail {
/// Flags are tested for non-zero, so a bool flag is its byte.
template <class Flag>
const jit_type& flag_type() {
  if constexpr (std::is_same_v<Flag, bool>) {
    return jit_type_of<unsigned char>();
  } else {
    return jit_type_of<Flag>();
  }
}

template <class T>
jit_args dp_args(const char* fn, const jit_call& what, std::size_t n) {
  jit_args a{fn, &what};
  a.types[0] = &jit_type_of<T>();
  a.n = n;
  return a;
}

/// select_if, partition, unique: one input, one output (an array or an output expression), a
/// count to device memory or (host_count) to the host, the family's operator (null: default).
template <class T, class Out>
void compaction_call(const char* fn, const jit_call& what, const ::cupar::jit::input<T>& in,
                     const Out& out, std::size_t* d_count, std::size_t* host_count, std::size_t n,
                     const ::cupar::jit::op* op, stream_ref stream, memory_resource& mr) {
  auto a = dp_args<T>(fn, what, n);
  set_input(a, 0, in);
  set_output(a, 0, out);
  a.d_count = d_count;
  a.host_count = host_count;
  a.ops[0] = op;
  jit_run(a, stream, mr);
}

template <class T, class Flag, class Out>
void flagged_call(const char* fn, const ::cupar::jit::input<T>& in,
                  const ::cupar::jit::input<Flag>& flags, const Out& out, std::size_t* d_count,
                  std::size_t* host_count, std::size_t n, stream_ref stream, memory_resource& mr) {
  static_assert(std::is_integral_v<Flag>,
                "cupar::select_flagged: flags are integers or bool (non-zero selects)");
  auto a = dp_args<T>(fn, select_flagged_call(), n);
  a.types[1] = &flag_type<Flag>();
  set_input(a, 0, in);
  set_input(a, 1, flags);
  set_output(a, 0, out);
  a.d_count = d_count;
  a.host_count = host_count;
  jit_run(a, stream, mr);
}

template <class T, class Out>
void three_way_call(const char* fn, const ::cupar::jit::input<T>& in, const Out& first_out,
                    const Out& second_out, const Out& unselected_out, std::size_t* d_counts,
                    std::size_t* host_counts, std::size_t n, const ::cupar::jit::op& first,
                    const ::cupar::jit::op& second, stream_ref stream, memory_resource& mr) {
  auto a = dp_args<T>(fn, three_way_partition_call(), n);
  set_input(a, 0, in);
  set_output(a, 0, first_out);
  set_output(a, 1, second_out);
  set_output(a, 2, unselected_out);
  a.d_count = d_counts;
  a.host_count = host_counts;
  a.ops[0] = &first;
  a.ops[1] = &second;
  jit_run(a, stream, mr);
}
}  // namespace detail

/// Copies the items x of d_in[0, n) for which the run-time predicate `pred` (argument `x`, e.g.
/// "x > t" with a parameter t) is true to d_out, in their input order (stable), and writes their
/// number to *d_num_selected. d_out must have room for n items.
///
/// @param d_in           device input, or an iterator expression read by the kernels in the same
///                       pass (jit::input; e.g. jit::transform(d_x, jit::op("x * 2.0f")));
///                       may be null when n == 0
/// @param d_out          device output; may equal d_in (compaction in place), must not otherwise
///                       overlap it (nor be an array an expression d_in reads)
/// @param d_num_selected device count (one std::size_t), always written (0 when n == 0)
/// @param n              number of items (64-bit)
/// @param pred           predicate T -> bool (converted to bool)
/// @throws std::invalid_argument for null pointers with n > 0, a null d_num_selected or a partial
///         overlap
/// @throws cupar::jit_error when the predicate does not compile (log and line inside)
/// @throws cupar::out_of_memory, cupar::cuda_error
/// Asynchronous. The first call with a new predicate compiles it (see jit.hpp).
template <class T>
void select_if(jit::input_t<T> d_in, T* d_out, std::size_t* d_num_selected, std::size_t n,
               const jit::op& pred, stream_ref stream, memory_resource& mr = default_resource()) {
  detail::compaction_call("cupar::select_if", detail::select_if_call(), d_in, d_out, d_num_selected,
                          nullptr, n, &pred, stream, mr);
}
/// select_if through an output expression (see the top of this file), T named.
template <class T>
void select_if(jit::input_t<T> d_in, const jit::output& out, std::size_t* d_num_selected,
               std::size_t n, const jit::op& pred, stream_ref stream,
               memory_resource& mr = default_resource()) {
  detail::compaction_call("cupar::select_if", detail::select_if_call(), d_in, out, d_num_selected,
                          nullptr, n, &pred, stream, mr);
}

/// As select_if, and returns the number of items selected. Synchronises `stream` (only it).
template <class T>
std::size_t select_if_count(jit::input_t<T> d_in, T* d_out, std::size_t n, const jit::op& pred,
                            stream_ref stream, memory_resource& mr = default_resource()) {
  std::size_t count = 0;
  detail::compaction_call("cupar::select_if_count", detail::select_if_call(), d_in, d_out, nullptr,
                          &count, n, &pred, stream, mr);
  return count;
}
/// select_if_count through an output expression, T named; the stores are done when it returns.
template <class T>
std::size_t select_if_count(jit::input_t<T> d_in, const jit::output& out, std::size_t n,
                            const jit::op& pred, stream_ref stream,
                            memory_resource& mr = default_resource()) {
  std::size_t count = 0;
  detail::compaction_call("cupar::select_if_count", detail::select_if_call(), d_in, out, nullptr,
                          &count, n, &pred, stream, mr);
  return count;
}

/// Copies the items of d_in[0, n) whose flag d_flags[i] is non-zero to d_out, in their input
/// order, and writes their number to *d_num_selected. No operator: served by kernels precompiled
/// in the library for every arithmetic T, and records of the data-processing struct classes
/// (CUPAR_JIT_STRUCT_DP_CLASSES; in place through a temporary copy of the items), with 1- or
/// 4-byte flags (other flag and item types are compiled once at run time and cached).
///
/// @param d_in           device input, or an iterator expression (jit::input), read by the kernels
///                       (fused) with 1- and 4-byte flags, written to a temporary array of n items
///                       first with others; may be null when n == 0
/// @param d_flags        device flags, an integer type or bool (may be null when n == 0); must
///                       not overlap d_out. In the overload with Flag named, an iterator
///                       expression too (its values tested for non-zero, written to a
///                       temporary array of n bytes first)
/// @param d_out          device output; may equal d_in (in place), must not otherwise overlap it
/// @param d_num_selected device count (one std::size_t)
/// @throws std::invalid_argument, cupar::jit_error, cupar::out_of_memory, cupar::cuda_error
/// Asynchronous.
template <class T, class Flag>
void select_flagged(jit::input_t<T> d_in, const Flag* d_flags, T* d_out,
                    std::size_t* d_num_selected, std::size_t n, stream_ref stream,
                    memory_resource& mr = default_resource()) {
  detail::flagged_call<T, Flag>("cupar::select_flagged", d_in, d_flags, d_out, d_num_selected,
                                nullptr, n, stream, mr);
}
/// select_flagged with the flags an array or an iterator expression and the output an array or
/// an output expression (see the top of this file); T and Flag named
/// (cupar::select_flagged<float, unsigned char>(d_x, jit::transform<unsigned char>(d_y,
/// jit::op("x > 0")), d_out, ...)).
template <class T, class Flag>
void select_flagged(jit::input_t<T> d_in, jit::input_t<Flag> flags, const jit::output& out,
                    std::size_t* d_num_selected, std::size_t n, stream_ref stream,
                    memory_resource& mr = default_resource()) {
  detail::flagged_call<T, Flag>("cupar::select_flagged", d_in, flags, out, d_num_selected, nullptr,
                                n, stream, mr);
}

/// As select_flagged, and returns the number of items selected. Synchronises `stream`.
template <class T, class Flag>
std::size_t select_flagged_count(jit::input_t<T> d_in, const Flag* d_flags, T* d_out, std::size_t n,
                                 stream_ref stream, memory_resource& mr = default_resource()) {
  std::size_t count = 0;
  detail::flagged_call<T, Flag>("cupar::select_flagged_count", d_in, d_flags, d_out, nullptr,
                                &count, n, stream, mr);
  return count;
}
/// select_flagged_count with flags and output expressions, T and Flag named.
template <class T, class Flag>
std::size_t select_flagged_count(jit::input_t<T> d_in, jit::input_t<Flag> flags,
                                 const jit::output& out, std::size_t n, stream_ref stream,
                                 memory_resource& mr = default_resource()) {
  std::size_t count = 0;
  detail::flagged_call<T, Flag>("cupar::select_flagged_count", d_in, flags, out, nullptr, &count, n,
                                stream, mr);
  return count;
}

/// Partitions d_in[0, n) (an array or an iterator expression, read in the same pass as for
/// select_if) into d_out by the run-time predicate `pred` (argument `x`): the items
/// for which it is true first, in their input order, then the others in REVERSE input order (CUB's
/// single-pass partition writes them from the back; keeping their order would take another pass
/// over them, docs/CUB_NOTES.md). Writes the number selected to *d_num_selected.
///
/// @param d_out  device output of n items; must not overlap d_in
/// Other parameters, exceptions and synchronisation as select_if.
template <class T>
void partition(jit::input_t<T> d_in, T* d_out, std::size_t* d_num_selected, std::size_t n,
               const jit::op& pred, stream_ref stream, memory_resource& mr = default_resource()) {
  detail::compaction_call("cupar::partition", detail::partition_call(), d_in, d_out, d_num_selected,
                          nullptr, n, &pred, stream, mr);
}
/// partition through an output expression (all n items are stored), T named.
template <class T>
void partition(jit::input_t<T> d_in, const jit::output& out, std::size_t* d_num_selected,
               std::size_t n, const jit::op& pred, stream_ref stream,
               memory_resource& mr = default_resource()) {
  detail::compaction_call("cupar::partition", detail::partition_call(), d_in, out, d_num_selected,
                          nullptr, n, &pred, stream, mr);
}

/// As partition, and returns the number of items selected. Synchronises `stream`.
template <class T>
std::size_t partition_count(jit::input_t<T> d_in, T* d_out, std::size_t n, const jit::op& pred,
                            stream_ref stream, memory_resource& mr = default_resource()) {
  std::size_t count = 0;
  detail::compaction_call("cupar::partition_count", detail::partition_call(), d_in, d_out, nullptr,
                          &count, n, &pred, stream, mr);
  return count;
}
/// partition_count through an output expression, T named.
template <class T>
std::size_t partition_count(jit::input_t<T> d_in, const jit::output& out, std::size_t n,
                            const jit::op& pred, stream_ref stream,
                            memory_resource& mr = default_resource()) {
  std::size_t count = 0;
  detail::compaction_call("cupar::partition_count", detail::partition_call(), d_in, out, nullptr,
                          &count, n, &pred, stream, mr);
  return count;
}

/// Splits d_in[0, n) (an array, or an iterator expression written to a temporary array first)
/// three ways, each part in input order: items for which `first` (argument `x`)
/// is true go to d_first_out, the others for which `second` is true to d_second_out, the rest to
/// d_unselected_out. Writes the sizes of the first two parts to d_counts[0] and d_counts[1].
///
/// @param d_first_out, d_second_out, d_unselected_out  device outputs, each with room for the
///                   items it may receive (n at most); disjoint from d_in and from each other
/// @param d_counts   device array of two std::size_t
/// Other parameters, exceptions and synchronisation as select_if.
template <class T>
void three_way_partition(jit::input_t<T> d_in, T* d_first_out, T* d_second_out, T* d_unselected_out,
                         std::size_t* d_counts, std::size_t n, const jit::op& first,
                         const jit::op& second, stream_ref stream,
                         memory_resource& mr = default_resource()) {
  detail::three_way_call<T, T*>("cupar::three_way_partition", d_in, d_first_out, d_second_out,
                                d_unselected_out, d_counts, nullptr, n, first, second, stream, mr);
}
/// three_way_partition through output expressions (each part's items stored), T named.
template <class T>
void three_way_partition(jit::input_t<T> d_in, const jit::output& first_out,
                         const jit::output& second_out, const jit::output& unselected_out,
                         std::size_t* d_counts, std::size_t n, const jit::op& first,
                         const jit::op& second, stream_ref stream,
                         memory_resource& mr = default_resource()) {
  detail::three_way_call<T, jit::output>("cupar::three_way_partition", d_in, first_out, second_out,
                                         unselected_out, d_counts, nullptr, n, first, second,
                                         stream, mr);
}

/// As three_way_partition, and returns the sizes of the first two parts. Synchronises `stream`.
template <class T>
partition_counts three_way_partition_counts(jit::input_t<T> d_in, T* d_first_out, T* d_second_out,
                                            T* d_unselected_out, std::size_t n,
                                            const jit::op& first, const jit::op& second,
                                            stream_ref stream,
                                            memory_resource& mr = default_resource()) {
  std::size_t counts[2] = {0, 0};
  detail::three_way_call<T, T*>("cupar::three_way_partition_counts", d_in, d_first_out,
                                d_second_out, d_unselected_out, nullptr, counts, n, first, second,
                                stream, mr);
  return {counts[0], counts[1]};
}
/// three_way_partition_counts through output expressions, T named.
template <class T>
partition_counts three_way_partition_counts(jit::input_t<T> d_in, const jit::output& first_out,
                                            const jit::output& second_out,
                                            const jit::output& unselected_out, std::size_t n,
                                            const jit::op& first, const jit::op& second,
                                            stream_ref stream,
                                            memory_resource& mr = default_resource()) {
  std::size_t counts[2] = {0, 0};
  detail::three_way_call<T, jit::output>("cupar::three_way_partition_counts", d_in, first_out,
                                         second_out, unselected_out, nullptr, counts, n, first,
                                         second, stream, mr);
  return {counts[0], counts[1]};
}

namespace jit {

// Compile-only builds (jit_compile.hpp says what they are for).

/// As compile_reduce (reduce.hpp), for select_if's predicate on T.
template <class T>
build_report compile_select_if(const op& pred, int arch = 90, bool optimized = true) {
  return ::cupar::detail::jit_compile_call(::cupar::detail::select_if_call(),
                                           &::cupar::detail::jit_type_of<T>(), nullptr, &pred,
                                           nullptr, arch, optimized);
}

/// select_if reading the iterator expression `in` as elements of T (the "+index" stream
/// compaction sets: the expression's code and the operator built together).
template <class T>
build_report compile_select_if(const iterator& in, const op& pred, int arch = 90,
                               bool optimized = true) {
  return ::cupar::detail::jit_compile_call(::cupar::detail::select_if_call(),
                                           &::cupar::detail::jit_type_of<T>(), nullptr, &pred,
                                           nullptr, arch, optimized, &in);
}

/// select_if reading `in` and storing through the output expression `out` as it compacts (the
/// "+io" stream compaction sets, which a call uses when its output writes nothing it reads; an
/// array input is the expression of that array).
template <class T>
build_report compile_select_if(const iterator& in, const output& out, const op& pred, int arch = 90,
                               bool optimized = true) {
  return ::cupar::detail::jit_compile_call(::cupar::detail::select_if_call(),
                                           &::cupar::detail::jit_type_of<T>(), nullptr, &pred,
                                           nullptr, arch, optimized, &in, &out);
}

/// select_flagged reading its items as the iterator expression `in` (elements of T), with flags
/// of type Flag: the "+index" set (flags of 1 or 4 bytes), the expression's code built for it.
template <class T, class Flag>
build_report compile_select_flagged(const iterator& in, int arch = 90, bool optimized = true) {
  return ::cupar::detail::jit_compile_call(
      ::cupar::detail::select_flagged_call(), &::cupar::detail::jit_type_of<T>(),
      &::cupar::detail::jit_type_of<Flag>(), nullptr, nullptr, arch, optimized, &in);
}

/// partition's predicate on T.
template <class T>
build_report compile_partition(const op& pred, int arch = 90, bool optimized = true) {
  return ::cupar::detail::jit_compile_call(::cupar::detail::partition_call(),
                                           &::cupar::detail::jit_type_of<T>(), nullptr, &pred,
                                           nullptr, arch, optimized);
}

/// partition over an expression (as compile_select_if).
template <class T>
build_report compile_partition(const iterator& in, const op& pred, int arch = 90,
                               bool optimized = true) {
  return ::cupar::detail::jit_compile_call(::cupar::detail::partition_call(),
                                           &::cupar::detail::jit_type_of<T>(), nullptr, &pred,
                                           nullptr, arch, optimized, &in);
}

/// partition over an expression into an output expression (as compile_select_if).
template <class T>
build_report compile_partition(const iterator& in, const output& out, const op& pred, int arch = 90,
                               bool optimized = true) {
  return ::cupar::detail::jit_compile_call(::cupar::detail::partition_call(),
                                           &::cupar::detail::jit_type_of<T>(), nullptr, &pred,
                                           nullptr, arch, optimized, &in, &out);
}

/// three_way_partition's two predicates on T.
template <class T>
build_report compile_three_way_partition(const op& first, const op& second, int arch = 90,
                                         bool optimized = true) {
  return ::cupar::detail::jit_compile_call(::cupar::detail::three_way_partition_call(),
                                           &::cupar::detail::jit_type_of<T>(), nullptr, &first,
                                           &second, arch, optimized);
}

}  // namespace jit

}  // namespace cupar
