// cupar: stream compaction and partitioning with run-time operators (any host compiler):
// select_if, select_flagged, partition, three_way_partition. The overloads taking C++ callables
// are in select.cuh; both behave the same.
//
// Counts: every function writes the number of items it selected to device memory (`std::size_t`,
// so counts above 2^32 work) and does not synchronise; its `_count` form returns that number to
// the host instead, synchronising the stream (only it).
#pragma once

#include <cupar/detail/jit_entry.hpp>
#include <cupar/jit.hpp>
#include <cupar/jit_iterator.hpp>
#include <cupar/memory.hpp>
#include <cupar/stream.hpp>

#include <cstddef>
#include <type_traits>

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
jit_dp_args dp_args(const char* fn, dp_op what, std::size_t n) {
  jit_dp_args a{fn, what};
  a.types[0] = &jit_type_of<T>();
  a.n = n;
  return a;
}
}  // namespace detail

/// Copies the items x of d_in[0, n) for which the run-time predicate `pred` (argument `x`, e.g.
/// "x > t" with a parameter t) is true to d_out, in their input order (stable), and writes their
/// number to *d_num_selected. d_out must have room for n items.
///
/// @param d_in           device input, or an iterator expression read by the kernels in the same
///                       pass (jit::input; e.g. jit::transform(d_x, "x * 2.0f")); may be null
///                       when n == 0
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
  auto a = detail::dp_args<T>("cupar::select_if", detail::dp_op::select_if, n);
  detail::set_input(a, 0, d_in);
  a.out[0] = d_out;
  a.d_count = d_num_selected;
  a.ops[0] = &pred;
  detail::jit_data_processing(a, stream, mr);
}

/// As select_if, and returns the number of items selected. Synchronises `stream` (only it).
template <class T>
std::size_t select_if_count(jit::input_t<T> d_in, T* d_out, std::size_t n, const jit::op& pred,
                            stream_ref stream, memory_resource& mr = default_resource()) {
  std::size_t count = 0;
  auto a = detail::dp_args<T>("cupar::select_if_count", detail::dp_op::select_if, n);
  detail::set_input(a, 0, d_in);
  a.out[0] = d_out;
  a.host_count = &count;
  a.ops[0] = &pred;
  detail::jit_data_processing(a, stream, mr);
  return count;
}

/// Copies the items of d_in[0, n) whose flag d_flags[i] is non-zero to d_out, in their input
/// order, and writes their number to *d_num_selected. No operator: served by kernels precompiled
/// in the library for every arithmetic T and 1- or 4-byte flags (other flag and item types are
/// compiled once at run time and cached).
///
/// @param d_in           device input, or an iterator expression written to a temporary array of
///                       n items first (jit::input); may be null when n == 0
/// @param d_flags        device flags, an integer type or bool (may be null when n == 0); must
///                       not overlap d_out
/// @param d_out          device output; may equal d_in (in place), must not otherwise overlap it
/// @param d_num_selected device count (one std::size_t)
/// @throws std::invalid_argument, cupar::jit_error, cupar::out_of_memory, cupar::cuda_error
/// Asynchronous.
template <class T, class Flag>
void select_flagged(jit::input_t<T> d_in, const Flag* d_flags, T* d_out,
                    std::size_t* d_num_selected, std::size_t n, stream_ref stream,
                    memory_resource& mr = default_resource()) {
  static_assert(std::is_integral_v<Flag>,
                "cupar::select_flagged: flags are integers or bool (non-zero selects)");
  auto a = detail::dp_args<T>("cupar::select_flagged", detail::dp_op::select_flagged, n);
  a.types[1] = &detail::flag_type<Flag>();
  detail::set_input(a, 0, d_in);
  a.in[1] = d_flags;
  a.out[0] = d_out;
  a.d_count = d_num_selected;
  detail::jit_data_processing(a, stream, mr);
}

/// As select_flagged, and returns the number of items selected. Synchronises `stream`.
template <class T, class Flag>
std::size_t select_flagged_count(jit::input_t<T> d_in, const Flag* d_flags, T* d_out, std::size_t n,
                                 stream_ref stream, memory_resource& mr = default_resource()) {
  static_assert(std::is_integral_v<Flag>,
                "cupar::select_flagged_count: flags are integers or bool (non-zero selects)");
  std::size_t count = 0;
  auto a = detail::dp_args<T>("cupar::select_flagged_count", detail::dp_op::select_flagged, n);
  a.types[1] = &detail::flag_type<Flag>();
  detail::set_input(a, 0, d_in);
  a.in[1] = d_flags;
  a.out[0] = d_out;
  a.host_count = &count;
  detail::jit_data_processing(a, stream, mr);
  return count;
}

/// Partitions d_in[0, n) (an array or an iterator expression, read in the same pass as for
/// select_if) into d_out by the run-time predicate `pred` (argument `x`): the items
/// for which it is true first, in their input order, then the others in REVERSE input order (CUB's
/// single-pass partition writes them from the back; keeping their order would take another pass
/// over them, docs/NOTES.md). Writes the number selected to *d_num_selected.
///
/// @param d_out  device output of n items; must not overlap d_in
/// Other parameters, exceptions and synchronisation as select_if.
template <class T>
void partition(jit::input_t<T> d_in, T* d_out, std::size_t* d_num_selected, std::size_t n,
               const jit::op& pred, stream_ref stream, memory_resource& mr = default_resource()) {
  auto a = detail::dp_args<T>("cupar::partition", detail::dp_op::partition, n);
  detail::set_input(a, 0, d_in);
  a.out[0] = d_out;
  a.d_count = d_num_selected;
  a.ops[0] = &pred;
  detail::jit_data_processing(a, stream, mr);
}

/// As partition, and returns the number of items selected. Synchronises `stream`.
template <class T>
std::size_t partition_count(jit::input_t<T> d_in, T* d_out, std::size_t n, const jit::op& pred,
                            stream_ref stream, memory_resource& mr = default_resource()) {
  std::size_t count = 0;
  auto a = detail::dp_args<T>("cupar::partition_count", detail::dp_op::partition, n);
  detail::set_input(a, 0, d_in);
  a.out[0] = d_out;
  a.host_count = &count;
  a.ops[0] = &pred;
  detail::jit_data_processing(a, stream, mr);
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
  auto a = detail::dp_args<T>("cupar::three_way_partition", detail::dp_op::three_way_partition, n);
  detail::set_input(a, 0, d_in);
  a.out[0] = d_first_out;
  a.out[1] = d_second_out;
  a.out[2] = d_unselected_out;
  a.d_count = d_counts;
  a.ops[0] = &first;
  a.ops[1] = &second;
  detail::jit_data_processing(a, stream, mr);
}

/// As three_way_partition, and returns the sizes of the first two parts. Synchronises `stream`.
template <class T>
partition_counts three_way_partition_counts(jit::input_t<T> d_in, T* d_first_out, T* d_second_out,
                                            T* d_unselected_out, std::size_t n,
                                            const jit::op& first, const jit::op& second,
                                            stream_ref stream,
                                            memory_resource& mr = default_resource()) {
  std::size_t counts[2] = {0, 0};
  auto a = detail::dp_args<T>("cupar::three_way_partition_counts",
                              detail::dp_op::three_way_partition, n);
  detail::set_input(a, 0, d_in);
  a.out[0] = d_first_out;
  a.out[1] = d_second_out;
  a.out[2] = d_unselected_out;
  a.host_count = counts;
  a.ops[0] = &first;
  a.ops[1] = &second;
  detail::jit_data_processing(a, stream, mr);
  return {counts[0], counts[1]};
}

}  // namespace cupar
