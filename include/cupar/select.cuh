// cupar: stream compaction and partitioning with C++ predicates (compiled by nvcc in the caller's
// translation unit): select_if, partition, three_way_partition. select_flagged takes no operator
// and is in select.hpp (served by the library for both kinds of caller).
#pragma once

#include <cupar/detail/counted.hpp>
#include <cupar/detail/device_guard.hpp>
#include <cupar/detail/dp_checks.hpp>
#include <cupar/detail/iterators.cuh>
#include <cupar/detail/op_traits.hpp>
#include <cupar/memory.hpp>
#include <cupar/select.hpp>
#include <cupar/stream.hpp>

#include <cub/device/device_partition.cuh>
#include <cub/device/device_select.cuh>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace cupar {
namespace detail {

template <class InIt, class OutIt, class Pred>
void select_if_impl(const char* fn, InIt d_in, OutIt d_out, std::size_t* d_count,
                    std::size_t* host_count, std::size_t n, Pred pred, stream_ref stream,
                    memory_resource& mr) {
  using T = it_value_t<InIt>;
  const device_guard on_device(stream);  // run on the stream's device
  static_assert(std::is_trivially_copyable_v<T>, "cupar::select_if: T must be trivially copyable");
  check_select(fn, range_address(d_in), range_address(d_out), d_count, host_count != nullptr, n,
               sizeof(T), true);
  const bool in_place = same_pointer(d_in, d_out);
  run_counted(
      "cub::DeviceSelect::If", mr, stream, {n, in_place}, d_count, host_count, 1,
      [&](void* temp, std::size_t& bytes, std::size_t* counts) {
        const auto items = static_cast<std::int64_t>(n);
        if constexpr (std::is_pointer_v<InIt> && std::is_pointer_v<OutIt>) {
          if (in_place) {
            return cub::DeviceSelect::If(temp, bytes, d_out, counts, items, pred, stream.get());
          }
        }
        return cub::DeviceSelect::If(temp, bytes, d_in, d_out, counts, items, pred, stream.get());
      });
}

template <class InIt, class OutIt, class Pred>
void partition_impl(const char* fn, InIt d_in, OutIt d_out, std::size_t* d_count,
                    std::size_t* host_count, std::size_t n, Pred pred, stream_ref stream,
                    memory_resource& mr) {
  using T = it_value_t<InIt>;
  const device_guard on_device(stream);  // run on the stream's device
  static_assert(std::is_trivially_copyable_v<T>, "cupar::partition: T must be trivially copyable");
  check_select(fn, range_address(d_in), range_address(d_out), d_count, host_count != nullptr, n,
               sizeof(T), false);
  run_counted("cub::DevicePartition::If", mr, stream, {n}, d_count, host_count, 1,
              [&](void* temp, std::size_t& bytes, std::size_t* counts) {
                return cub::DevicePartition::If(temp, bytes, d_in, d_out, counts,
                                                static_cast<std::int64_t>(n), pred, stream.get());
              });
}

template <class InIt, class FirstIt, class SecondIt, class UnselectedIt, class First, class Second>
void three_way_impl(const char* fn, InIt d_in, FirstIt d_first, SecondIt d_second,
                    UnselectedIt d_unselected, std::size_t* d_counts, std::size_t* host_counts,
                    std::size_t n, First first, Second second, stream_ref stream,
                    memory_resource& mr) {
  using T = it_value_t<InIt>;
  const device_guard on_device(stream);  // run on the stream's device
  static_assert(std::is_trivially_copyable_v<T>,
                "cupar::three_way_partition: T must be trivially copyable");
  const void* outs[3] = {range_address(d_first), range_address(d_second),
                         range_address(d_unselected)};
  check_three_way(fn, range_address(d_in), outs, d_counts, host_counts != nullptr, n, sizeof(T));
  run_counted("cub::DevicePartition::If", mr, stream, {n}, d_counts, host_counts, 2,
              [&](void* temp, std::size_t& bytes, std::size_t* counts) {
                return cub::DevicePartition::If(temp, bytes, d_in, d_first, d_second, d_unselected,
                                                counts, static_cast<std::int64_t>(n), first, second,
                                                stream.get());
              });
}

template <class InIt, class FlagIt, class OutIt>
void select_flagged_impl(const char* fn, InIt d_in, FlagIt d_flags, OutIt d_out,
                         std::size_t* d_count, std::size_t* host_count, std::size_t n,
                         stream_ref stream, memory_resource& mr) {
  using T = it_value_t<InIt>;
  using Flag = it_value_t<FlagIt>;
  const device_guard on_device(stream);  // run on the stream's device
  static_assert(std::is_trivially_copyable_v<T>,
                "cupar::select_flagged: T must be trivially copyable");
  static_assert(std::is_integral_v<Flag>,
                "cupar::select_flagged: flags are integers or bool (non-zero selects)");
  check_select(fn, range_address(d_in), range_address(d_out), d_count, host_count != nullptr, n,
               sizeof(T), true);
  check_flags(fn, range_address(d_flags), n, sizeof(Flag), range_address(d_out), sizeof(T));
  run_counted("cub::DeviceSelect::Flagged", mr, stream, {n}, d_count, host_count, 1,
              [&](void* temp, std::size_t& bytes, std::size_t* counts) {
                return cub::DeviceSelect::Flagged(temp, bytes, d_in, d_flags, d_out, counts,
                                                  static_cast<std::int64_t>(n), stream.get());
              });
}

}  // namespace detail

/// Copies the items x of d_in[0, n) for which pred(x) is true to d_out, in their input order
/// (stable), and writes their number to *d_num_selected. d_out must have room for n items.
///
/// @param d_in           device input: a pointer (null only when n == 0) or any random-access
///                       input iterator CUB takes (Thrust's fancy iterators, user-written ones)
/// @param d_out          device output: a pointer or an output iterator (Thrust's discard or
///                       transform_output iterators); a pointer may equal a pointer d_in
///                       (compaction in place) and must not otherwise overlap it
/// @param d_num_selected device count (one std::size_t), always written (0 when n == 0)
/// @param n              number of items (64-bit)
/// @param pred           predicate T -> bool: a functor or an extended __device__ lambda
/// @param stream         stream the selection runs on
/// @param mr             resource for temporary storage
/// @throws std::invalid_argument for null pointers with n > 0, a null d_num_selected or a partial
///         overlap
/// @throws cupar::out_of_memory, cupar::cuda_error
/// Asynchronous: does not synchronise the stream.
template <class InIt, class OutIt, class Pred,
          std::enable_if_t<detail::are_iterators_v<InIt, OutIt> && detail::is_callable_op_v<Pred>,
                           int> = 0>
void select_if(InIt d_in, OutIt d_out, std::size_t* d_num_selected, std::size_t n, Pred pred,
               stream_ref stream, memory_resource& mr = default_resource()) {
  detail::select_if_impl("cupar::select_if", d_in, d_out, d_num_selected, nullptr, n, pred, stream,
                         mr);
}

/// As select_if, and returns the number of items selected. Synchronises `stream` (only it).
template <class InIt, class OutIt, class Pred,
          std::enable_if_t<detail::are_iterators_v<InIt, OutIt> && detail::is_callable_op_v<Pred>,
                           int> = 0>
std::size_t select_if_count(InIt d_in, OutIt d_out, std::size_t n, Pred pred, stream_ref stream,
                            memory_resource& mr = default_resource()) {
  std::size_t count = 0;
  detail::select_if_impl("cupar::select_if_count", d_in, d_out, nullptr, &count, n, pred, stream,
                         mr);
  return count;
}

/// Partitions d_in[0, n) into d_out by `pred`: the items for which it is true first, in their
/// input order, then the others in REVERSE input order (CUB's single-pass partition writes them
/// from the back). Writes the number selected to *d_num_selected.
///
/// @param d_out  device output of n items; must not overlap d_in
/// Other parameters, exceptions and synchronisation as select_if.
template <class InIt, class OutIt, class Pred,
          std::enable_if_t<detail::are_iterators_v<InIt, OutIt> && detail::is_callable_op_v<Pred>,
                           int> = 0>
void partition(InIt d_in, OutIt d_out, std::size_t* d_num_selected, std::size_t n, Pred pred,
               stream_ref stream, memory_resource& mr = default_resource()) {
  detail::partition_impl("cupar::partition", d_in, d_out, d_num_selected, nullptr, n, pred, stream,
                         mr);
}

/// As partition, and returns the number of items selected. Synchronises `stream` (only it).
template <class InIt, class OutIt, class Pred,
          std::enable_if_t<detail::are_iterators_v<InIt, OutIt> && detail::is_callable_op_v<Pred>,
                           int> = 0>
std::size_t partition_count(InIt d_in, OutIt d_out, std::size_t n, Pred pred, stream_ref stream,
                            memory_resource& mr = default_resource()) {
  std::size_t count = 0;
  detail::partition_impl("cupar::partition_count", d_in, d_out, nullptr, &count, n, pred, stream,
                         mr);
  return count;
}

/// Splits d_in[0, n) three ways, each part in input order: the items for which `first` is true
/// go to d_first_out, the others for which `second` is true to d_second_out, the rest to
/// d_unselected_out. Writes the sizes of the first two parts to d_counts[0] and d_counts[1].
///
/// @param d_first_out, d_second_out, d_unselected_out  device outputs, each with room for the
///                   items it may receive (n at most): pointers or output iterators (a
///                   discard_iterator for a part that is not wanted); pointers disjoint from a
///                   pointer d_in and from each other
/// @param d_counts   device array of two std::size_t
/// Other parameters, exceptions and synchronisation as select_if.
template <class InIt, class FirstIt, class SecondIt, class UnselectedIt, class First, class Second,
          std::enable_if_t<detail::are_iterators_v<InIt, FirstIt, SecondIt, UnselectedIt> &&
                               detail::is_callable_op_v<First> && detail::is_callable_op_v<Second>,
                           int> = 0>
void three_way_partition(InIt d_in, FirstIt d_first_out, SecondIt d_second_out,
                         UnselectedIt d_unselected_out, std::size_t* d_counts, std::size_t n,
                         First first, Second second, stream_ref stream,
                         memory_resource& mr = default_resource()) {
  detail::three_way_impl("cupar::three_way_partition", d_in, d_first_out, d_second_out,
                         d_unselected_out, d_counts, nullptr, n, first, second, stream, mr);
}

/// As three_way_partition, and returns the sizes of the first two parts. Synchronises `stream`.
template <class InIt, class FirstIt, class SecondIt, class UnselectedIt, class First, class Second,
          std::enable_if_t<detail::are_iterators_v<InIt, FirstIt, SecondIt, UnselectedIt> &&
                               detail::is_callable_op_v<First> && detail::is_callable_op_v<Second>,
                           int> = 0>
partition_counts three_way_partition_counts(InIt d_in, FirstIt d_first_out, SecondIt d_second_out,
                                            UnselectedIt d_unselected_out, std::size_t n,
                                            First first, Second second, stream_ref stream,
                                            memory_resource& mr = default_resource()) {
  std::size_t counts[2] = {0, 0};
  detail::three_way_impl("cupar::three_way_partition_counts", d_in, d_first_out, d_second_out,
                         d_unselected_out, nullptr, counts, n, first, second, stream, mr);
  return {counts[0], counts[1]};
}

/// select_flagged (select.hpp) for iterator arguments: copies the items of d_in[0, n) whose flag
/// is non-zero to d_out in input order and writes their number to *d_num_selected. The library's
/// form serves pointers; this one any other random-access iterator (a Thrust transform iterator
/// computing the flags, a discard output ...), compiled in the caller's translation unit with
/// CUB's DeviceSelect::Flagged. Parameters, exceptions and synchronisation as there.
template <class InIt, class FlagIt, class OutIt,
          std::enable_if_t<detail::are_iterators_v<InIt, FlagIt, OutIt> &&
                               !(std::is_pointer_v<InIt> && std::is_pointer_v<FlagIt> &&
                                 std::is_pointer_v<OutIt>),
                           int> = 0>
void select_flagged(InIt d_in, FlagIt d_flags, OutIt d_out, std::size_t* d_num_selected,
                    std::size_t n, stream_ref stream, memory_resource& mr = default_resource()) {
  detail::select_flagged_impl("cupar::select_flagged", d_in, d_flags, d_out, d_num_selected,
                              nullptr, n, stream, mr);
}

/// As select_flagged for iterator arguments, and returns the number of items selected.
/// Synchronises `stream` (only it).
template <class InIt, class FlagIt, class OutIt,
          std::enable_if_t<detail::are_iterators_v<InIt, FlagIt, OutIt> &&
                               !(std::is_pointer_v<InIt> && std::is_pointer_v<FlagIt> &&
                                 std::is_pointer_v<OutIt>),
                           int> = 0>
std::size_t select_flagged_count(InIt d_in, FlagIt d_flags, OutIt d_out, std::size_t n,
                                 stream_ref stream, memory_resource& mr = default_resource()) {
  std::size_t count = 0;
  detail::select_flagged_impl("cupar::select_flagged_count", d_in, d_flags, d_out, nullptr, &count,
                              n, stream, mr);
  return count;
}

}  // namespace cupar
