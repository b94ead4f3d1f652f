// cupar: removing consecutive duplicates with C++ equalities (compiled by nvcc in the caller's
// translation unit): unique, unique_by_key. The forms without an equality, and run_length_encode,
// are in unique.hpp (see there for what a run is).
#pragma once

#include <cupar/detail/count_width.hpp>
#include <cupar/detail/counted.hpp>
#include <cupar/detail/device_guard.hpp>
#include <cupar/detail/dp_checks.hpp>
#include <cupar/detail/iterators.cuh>
#include <cupar/detail/op_traits.hpp>
#include <cupar/memory.hpp>
#include <cupar/stream.hpp>
#include <cupar/unique.hpp>

#include <cub/device/device_run_length_encode.cuh>
#include <cub/device/device_select.cuh>
#include <cub/device/dispatch/dispatch_select_if.cuh>

#include <cuda/std/functional>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace cupar {
namespace detail {

template <class InIt, class OutIt, class Eq>
void unique_impl(const char* fn, InIt d_in, OutIt d_out, std::size_t* d_count,
                 std::size_t* host_count, std::size_t n, Eq eq, stream_ref stream,
                 memory_resource& mr) {
  using T = it_value_t<InIt>;
  const device_guard on_device(stream);  // run on the stream's device
  static_assert(std::is_trivially_copyable_v<T>, "cupar::unique: T must be trivially copyable");
  check_select(fn, range_address(d_in), range_address(d_out), d_count, host_count != nullptr, n,
               sizeof(T), false);
  // DeviceSelect::Unique with the caller's equality (CUB's entry point takes only ==).
  using dispatch = cub::DispatchSelectIf<InIt, cub::NullType*, OutIt, std::size_t*, cub::NullType,
                                         Eq, std::int64_t, cub::SelectImpl::Select>;
  run_counted("cub::DeviceSelect::Unique", mr, stream, {n}, d_count, host_count, 1,
              [&](void* temp, std::size_t& bytes, std::size_t* counts) {
                return dispatch::Dispatch(temp, bytes, d_in, nullptr, d_out, counts,
                                          cub::NullType{}, eq, static_cast<std::int64_t>(n),
                                          stream.get());
              });
}

template <class KeyInIt, class ValueInIt, class KeyOutIt, class ValueOutIt, class Eq>
void unique_by_key_impl(const char* fn, KeyInIt d_keys_in, ValueInIt d_values_in,
                        KeyOutIt d_keys_out, ValueOutIt d_values_out, std::size_t* d_count,
                        std::size_t* host_count, std::size_t n, Eq eq, stream_ref stream,
                        memory_resource& mr) {
  using K = it_value_t<KeyInIt>;
  using V = it_value_t<ValueInIt>;
  const device_guard on_device(stream);  // run on the stream's device
  static_assert(std::is_trivially_copyable_v<K> && std::is_trivially_copyable_v<V>,
                "cupar::unique_by_key: keys and values must be trivially copyable");
  const dp_range in[2] = {{"d_keys_in", range_address(d_keys_in), sizeof(K)},
                          {"d_values_in", range_address(d_values_in), sizeof(V)}};
  const dp_range out[2] = {{"d_keys_out", range_address(d_keys_out), sizeof(K)},
                           {"d_values_out", range_address(d_values_out), sizeof(V)}};
  check_by_key_compaction(fn, n, in, out, "d_num_selected", d_count, host_count != nullptr);
  // An int count below 2^31 (CUB then counts with 32-bit offsets: 64-bit ones made unique by key
  // 1.8x slower on 2^28 u32/f32 pairs, H100), a 64-bit one above; the run-time-operator path
  // switches at the same n.
  run_counted("cub::DeviceSelect::UniqueByKey", mr, stream, {n}, d_count, host_count, 1,
              [&](void* temp, std::size_t& bytes, std::size_t* counts) {
                return with_count_width(n, [&](auto count) {
                  return cub::DeviceSelect::UniqueByKey(temp, bytes, d_keys_in, d_values_in,
                                                        d_keys_out, d_values_out, counts, count, eq,
                                                        stream.get());
                });
              });
}

template <class InIt, class UniqueIt, class CountIt>
void run_length_encode_impl(const char* fn, InIt d_in, UniqueIt d_unique_out, CountIt d_counts_out,
                            std::size_t* d_count, std::size_t* host_count, std::size_t n,
                            stream_ref stream, memory_resource& mr) {
  using K = it_value_t<InIt>;
  using Count = out_value_t<CountIt, std::size_t>;
  const device_guard on_device(stream);  // run on the stream's device
  static_assert(std::is_trivially_copyable_v<K>,
                "cupar::run_length_encode: items must be trivially copyable");
  static_assert(is_run_length_count_v<Count>,
                "cupar::run_length_encode: counts are 4- or 8-byte integers");
  const dp_range in[1] = {{"d_in", range_address(d_in), sizeof(K)}};
  const dp_range out[2] = {{"d_unique_out", range_address(d_unique_out), sizeof(K)},
                           {"d_counts_out", range_address(d_counts_out), sizeof(Count)}};
  check_by_key_compaction(fn, n, in, out, "d_num_runs", d_count, host_count != nullptr);
  run_counted("cub::DeviceRunLengthEncode::Encode", mr, stream, {n}, d_count, host_count, 1,
              [&](void* temp, std::size_t& bytes, std::size_t* counts) {
                return cub::DeviceRunLengthEncode::Encode(
                    temp, bytes, d_in, d_unique_out, d_counts_out, counts,
                    static_cast<std::int64_t>(n), stream.get());
              });
}

}  // namespace detail

/// Copies the first item of each run of consecutive items that `eq` finds equal from d_in[0, n)
/// to d_out, in input order, and writes their number to *d_num_selected.
///
/// @param d_in           device input: a pointer (null only when n == 0) or any random-access
///                       input iterator CUB takes
/// @param d_out          device output with room for n items: a pointer or an output iterator;
///                       a pointer must not overlap a pointer d_in
/// @param d_num_selected device count (one std::size_t)
/// @param eq             equality T x T -> bool (a functor or an extended __device__ lambda); an
///                       equivalence relation
/// @throws std::invalid_argument for null pointers with n > 0, a null d_num_selected or
///         overlapping ranges
/// @throws cupar::out_of_memory, cupar::cuda_error
/// Asynchronous: does not synchronise the stream.
template <
    class InIt, class OutIt, class Eq,
    std::enable_if_t<detail::are_iterators_v<InIt, OutIt> && detail::is_callable_op_v<Eq>, int> = 0>
void unique(InIt d_in, OutIt d_out, std::size_t* d_num_selected, std::size_t n, Eq eq,
            stream_ref stream, memory_resource& mr = default_resource()) {
  detail::unique_impl("cupar::unique", d_in, d_out, d_num_selected, nullptr, n, eq, stream, mr);
}

/// As unique, and returns the number of items kept. Synchronises `stream` (only it).
template <
    class InIt, class OutIt, class Eq,
    std::enable_if_t<detail::are_iterators_v<InIt, OutIt> && detail::is_callable_op_v<Eq>, int> = 0>
std::size_t unique_count(InIt d_in, OutIt d_out, std::size_t n, Eq eq, stream_ref stream,
                         memory_resource& mr = default_resource()) {
  std::size_t count = 0;
  detail::unique_impl("cupar::unique_count", d_in, d_out, nullptr, &count, n, eq, stream, mr);
  return count;
}

/// Copies the first key of each run of consecutive keys of d_keys_in[0, n) that `eq` finds equal
/// to d_keys_out and the value at the same position of d_values_in to d_values_out, in input
/// order, and writes the number of runs to *d_num_selected. n == 0 writes 0 and nothing else.
///
/// @param d_keys_in, d_values_in    device inputs of n keys and n values: pointers (null only
///                                  when n == 0) or random-access input iterators
/// @param d_keys_out, d_values_out  device outputs with room for one item per run (n at most):
///                                  pointers or output iterators (a discard_iterator for the
///                                  values keeps only the keys); no pointer output may overlap a
///                                  pointer input or the other output
/// @param d_num_selected            device count (one std::size_t)
/// @param eq                        equality K x K -> bool (a functor or an extended __device__
///                                  lambda), applied to adjacent keys; an equivalence relation
/// @throws std::invalid_argument for null pointers with n > 0, a null d_num_selected or
///         overlapping ranges
/// @throws cupar::out_of_memory, cupar::cuda_error
/// Asynchronous: does not synchronise the stream.
template <class KeyInIt, class ValueInIt, class KeyOutIt, class ValueOutIt, class Eq,
          std::enable_if_t<detail::are_iterators_v<KeyInIt, ValueInIt, KeyOutIt, ValueOutIt> &&
                               detail::is_callable_op_v<Eq>,
                           int> = 0>
void unique_by_key(KeyInIt d_keys_in, ValueInIt d_values_in, KeyOutIt d_keys_out,
                   ValueOutIt d_values_out, std::size_t* d_num_selected, std::size_t n, Eq eq,
                   stream_ref stream, memory_resource& mr = default_resource()) {
  detail::unique_by_key_impl("cupar::unique_by_key", d_keys_in, d_values_in, d_keys_out,
                             d_values_out, d_num_selected, nullptr, n, eq, stream, mr);
}

/// As unique_by_key, and returns the number of runs. Synchronises `stream` (only it).
template <class KeyInIt, class ValueInIt, class KeyOutIt, class ValueOutIt, class Eq,
          std::enable_if_t<detail::are_iterators_v<KeyInIt, ValueInIt, KeyOutIt, ValueOutIt> &&
                               detail::is_callable_op_v<Eq>,
                           int> = 0>
std::size_t unique_by_key_count(KeyInIt d_keys_in, ValueInIt d_values_in, KeyOutIt d_keys_out,
                                ValueOutIt d_values_out, std::size_t n, Eq eq, stream_ref stream,
                                memory_resource& mr = default_resource()) {
  std::size_t count = 0;
  detail::unique_by_key_impl("cupar::unique_by_key_count", d_keys_in, d_values_in, d_keys_out,
                             d_values_out, nullptr, &count, n, eq, stream, mr);
  return count;
}

/// unique with == (cuda::std::equal_to<>: NaN is unequal to itself, -0.0 == +0.0, as the library's
/// form of unique.hpp) for iterator arguments: the library's form serves pointers, this one any
/// other random-access iterator, compiled in the caller's translation unit.
template <class InIt, class OutIt,
          std::enable_if_t<detail::are_iterators_v<InIt, OutIt> &&
                               !(std::is_pointer_v<InIt> && std::is_pointer_v<OutIt>),
                           int> = 0>
void unique(InIt d_in, OutIt d_out, std::size_t* d_num_selected, std::size_t n, stream_ref stream,
            memory_resource& mr = default_resource()) {
  detail::unique_impl("cupar::unique", d_in, d_out, d_num_selected, nullptr, n,
                      ::cuda::std::equal_to<>{}, stream, mr);
}

/// unique_count with == for iterator arguments (see unique above).
template <class InIt, class OutIt,
          std::enable_if_t<detail::are_iterators_v<InIt, OutIt> &&
                               !(std::is_pointer_v<InIt> && std::is_pointer_v<OutIt>),
                           int> = 0>
std::size_t unique_count(InIt d_in, OutIt d_out, std::size_t n, stream_ref stream,
                         memory_resource& mr = default_resource()) {
  std::size_t count = 0;
  detail::unique_impl("cupar::unique_count", d_in, d_out, nullptr, &count, n,
                      ::cuda::std::equal_to<>{}, stream, mr);
  return count;
}

/// run_length_encode (unique.hpp) for iterator arguments: the library's form serves pointers,
/// this one any other random-access iterator (a discard output for the items or the counts ...),
/// compiled in the caller's translation unit with CUB's DeviceRunLengthEncode::Encode.
/// Parameters, exceptions and synchronisation as there; counts are 4- or 8-byte integers
/// (std::size_t for an output without a value type).
template <class InIt, class UniqueIt, class CountIt,
          std::enable_if_t<detail::are_iterators_v<InIt, UniqueIt, CountIt> &&
                               !(std::is_pointer_v<InIt> && std::is_pointer_v<UniqueIt> &&
                                 std::is_pointer_v<CountIt>),
                           int> = 0>
void run_length_encode(InIt d_in, UniqueIt d_unique_out, CountIt d_counts_out,
                       std::size_t* d_num_runs, std::size_t n, stream_ref stream,
                       memory_resource& mr = default_resource()) {
  detail::run_length_encode_impl("cupar::run_length_encode", d_in, d_unique_out, d_counts_out,
                                 d_num_runs, nullptr, n, stream, mr);
}

/// As run_length_encode for iterator arguments, and returns the number of runs. Synchronises
/// `stream` (only it).
template <class InIt, class UniqueIt, class CountIt,
          std::enable_if_t<detail::are_iterators_v<InIt, UniqueIt, CountIt> &&
                               !(std::is_pointer_v<InIt> && std::is_pointer_v<UniqueIt> &&
                                 std::is_pointer_v<CountIt>),
                           int> = 0>
std::size_t run_length_encode_count(InIt d_in, UniqueIt d_unique_out, CountIt d_counts_out,
                                    std::size_t n, stream_ref stream,
                                    memory_resource& mr = default_resource()) {
  std::size_t count = 0;
  detail::run_length_encode_impl("cupar::run_length_encode_count", d_in, d_unique_out, d_counts_out,
                                 nullptr, &count, n, stream, mr);
  return count;
}

}  // namespace cupar
