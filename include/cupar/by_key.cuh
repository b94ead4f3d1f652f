// cupar: reductions and scans by key with C++ operators (compiled by nvcc in the caller's
// translation unit): reduce_by_key, inclusive_scan_by_key, exclusive_scan_by_key. The semantics
// (runs, default equality, NaN and signed zeros, operator requirements) are those of by_key.hpp,
// which has the run-time-operator forms. The forms without an equality use
// cuda::std::equal_to<> (==) on the keys.
#pragma once

#include <cupar/by_key.hpp>
#include <cupar/detail/count_width.hpp>
#include <cupar/detail/counted.hpp>
#include <cupar/detail/device_guard.hpp>
#include <cupar/detail/dp_checks.hpp>
#include <cupar/detail/iterators.cuh>
#include <cupar/detail/op_traits.hpp>
#include <cupar/detail/op_wrap.cuh>
#include <cupar/detail/temp_storage.hpp>
#include <cupar/memory.hpp>
#include <cupar/stream.hpp>

#include <cub/detail/choose_offset.cuh>
#include <cub/device/dispatch/dispatch_reduce_by_key.cuh>
#include <cub/device/dispatch/dispatch_scan_by_key.cuh>
#include <cub/util_type.cuh>

#include <cuda/std/functional>

#include <cstddef>
#include <type_traits>

namespace cupar {
namespace detail {

/// The scans by key count with the 64-bit offsets CUB chooses for a 64-bit count at every n, as
/// the run-time-operator kernels do (their tile state holds no offsets: 32-bit ones measured no
/// faster, and one instantiation serves every n).
using by_key_offset = unsigned long long;

template <class KeyInIt, class ValueInIt, class KeyOutIt, class AggOutIt, class Op, class Eq>
void reduce_by_key_impl(const char* fn, KeyInIt d_keys_in, ValueInIt d_values_in,
                        KeyOutIt d_keys_out, AggOutIt d_aggregates_out, std::size_t* d_count,
                        std::size_t* host_count, std::size_t n, Op op, Eq eq, stream_ref stream,
                        memory_resource& mr) {
  using K = it_value_t<KeyInIt>;
  using V = it_value_t<ValueInIt>;
  const device_guard on_device(stream);  // run on the stream's device
  static_assert(std::is_trivially_copyable_v<K> && std::is_trivially_copyable_v<V>,
                "cupar::reduce_by_key: keys and values must be trivially copyable");
  const dp_range in[2] = {{"d_keys_in", range_address(d_keys_in), sizeof(K)},
                          {"d_values_in", range_address(d_values_in), sizeof(V)}};
  const dp_range out[2] = {{"d_keys_out", range_address(d_keys_out), sizeof(K)},
                           {"d_aggregates_out", range_address(d_aggregates_out), sizeof(V)}};
  check_by_key_compaction(fn, n, in, out, "d_num_runs", d_count, host_count != nullptr);
  auto cub_op = with_result_type<V>(transparent_op<V>(op));
  // DeviceReduce::ReduceByKey takes only ==; its dispatch takes any equality. The accumulator is
  // V (the operator is V x V -> V), whatever CUB would deduce from the operator. The offsets are
  // those CUB chooses for an int count below 2^31 (32 bits: 64-bit ones made reduce by key 1.4x
  // slower on 2^28 u32/f32 pairs, H100) and for a 64-bit count above; the run-time-operator path
  // switches at the same n.
  run_counted("cub::DeviceReduce::ReduceByKey", mr, stream, {n}, d_count, host_count, 1,
              [&](void* temp, std::size_t& bytes, std::size_t* counts) {
                return with_count_width(n, [&](auto count) {
                  using offset = cub::detail::choose_offset_t<decltype(count)>;
                  using dispatch =
                      cub::DispatchReduceByKey<KeyInIt, KeyOutIt, ValueInIt, AggOutIt, std::size_t*,
                                               Eq, decltype(cub_op), offset, V>;
                  return dispatch::Dispatch(temp, bytes, d_keys_in, d_keys_out, d_values_in,
                                            d_aggregates_out, counts, eq, cub_op,
                                            static_cast<offset>(n), stream.get());
                });
              });
}

/// Inclusive (Init = cub::NullType) or exclusive scan by key.
template <class KeyIt, class ValueIt, class OutIt, class Op, class Eq, class Init>
void scan_by_key_impl(const char* fn, KeyIt d_keys, ValueIt d_values, OutIt d_out, std::size_t n,
                      Op op, Init init, Eq eq, stream_ref stream, memory_resource& mr) {
  using K = it_value_t<KeyIt>;
  using V = it_value_t<ValueIt>;
  const device_guard on_device(stream);  // run on the stream's device
  static_assert(std::is_trivially_copyable_v<K> && std::is_trivially_copyable_v<V>,
                "cupar: keys and values of a scan by key must be trivially copyable");
  check_scan_by_key(fn, range_address(d_keys), sizeof(K), range_address(d_values),
                    range_address(d_out), sizeof(V), n);
  if (n == 0) return;  // nothing to write (CUB launches nothing either)
  auto cub_op = with_result_type<V>(transparent_op<V>(op));
  using dispatch =
      cub::DispatchScanByKey<KeyIt, ValueIt, OutIt, Eq, decltype(cub_op), Init, by_key_offset, V>;
  run_with_temp_storage(std::is_same_v<Init, cub::NullType> ? "cub::DeviceScan::InclusiveScanByKey"
                                                            : "cub::DeviceScan::ExclusiveScanByKey",
                        mr, stream, {n}, [&](void* temp, std::size_t& bytes) {
                          return dispatch::Dispatch(temp, bytes, d_keys, d_values, d_out, eq,
                                                    cub_op, init, static_cast<by_key_offset>(n),
                                                    stream.get());
                        });
}

}  // namespace detail

/// Reduces each run of equal consecutive keys of d_keys_in[0, n) (equality `eq`, applied to
/// adjacent keys): writes the run's last key to d_keys_out[r] and v_first op ... op v_last of its
/// values to d_aggregates_out[r], runs in input order, and the number of runs to *d_num_runs.
/// n == 0 writes 0 and nothing else.
///
/// @param d_keys_in, d_values_in       device inputs of n keys and n values: pointers (null only
///                                     when n == 0) or random-access input iterators (a Thrust
///                                     transform iterator computing the keys, a constant
///                                     iterator of ones to count ...); V is the values' value type
/// @param d_keys_out, d_aggregates_out device outputs with room for one item per run (n at most):
///                                     pointers or output iterators (a discard_iterator when the
///                                     keys are not wanted); no pointer output may overlap a
///                                     pointer input or the other output
/// @param d_num_runs                   device count (one std::size_t)
/// @param op                           binary operator V x V -> V (associative, need not be
///                                     commutative): a functor, a cuda::std function object or an
///                                     extended __device__ lambda (no trailing return type needed)
/// @param eq                           equality K x K -> bool (default: cuda::std::equal_to<>)
/// @param stream                       stream the reduction runs on
/// @param mr                           resource for temporary storage
/// @throws std::invalid_argument for null pointers with n > 0, a null d_num_runs or
///         overlapping ranges
/// @throws cupar::out_of_memory, cupar::cuda_error
/// Asynchronous: does not synchronise the stream.
template <class KeyInIt, class ValueInIt, class KeyOutIt, class AggOutIt, class Op, class Eq,
          std::enable_if_t<detail::are_iterators_v<KeyInIt, ValueInIt, KeyOutIt, AggOutIt> &&
                               detail::is_callable_op_v<Op> && detail::is_callable_op_v<Eq>,
                           int> = 0>
void reduce_by_key(KeyInIt d_keys_in, ValueInIt d_values_in, KeyOutIt d_keys_out,
                   AggOutIt d_aggregates_out, std::size_t* d_num_runs, std::size_t n, Op op, Eq eq,
                   stream_ref stream, memory_resource& mr = default_resource()) {
  detail::reduce_by_key_impl("cupar::reduce_by_key", d_keys_in, d_values_in, d_keys_out,
                             d_aggregates_out, d_num_runs, nullptr, n, op, eq, stream, mr);
}

/// reduce_by_key with == on the keys.
template <class KeyInIt, class ValueInIt, class KeyOutIt, class AggOutIt, class Op,
          std::enable_if_t<detail::are_iterators_v<KeyInIt, ValueInIt, KeyOutIt, AggOutIt> &&
                               detail::is_callable_op_v<Op>,
                           int> = 0>
void reduce_by_key(KeyInIt d_keys_in, ValueInIt d_values_in, KeyOutIt d_keys_out,
                   AggOutIt d_aggregates_out, std::size_t* d_num_runs, std::size_t n, Op op,
                   stream_ref stream, memory_resource& mr = default_resource()) {
  detail::reduce_by_key_impl("cupar::reduce_by_key", d_keys_in, d_values_in, d_keys_out,
                             d_aggregates_out, d_num_runs, nullptr, n, op,
                             ::cuda::std::equal_to<>{}, stream, mr);
}

/// As reduce_by_key, and returns the number of runs. Synchronises `stream` (only it).
template <class KeyInIt, class ValueInIt, class KeyOutIt, class AggOutIt, class Op, class Eq,
          std::enable_if_t<detail::are_iterators_v<KeyInIt, ValueInIt, KeyOutIt, AggOutIt> &&
                               detail::is_callable_op_v<Op> && detail::is_callable_op_v<Eq>,
                           int> = 0>
std::size_t reduce_by_key_count(KeyInIt d_keys_in, ValueInIt d_values_in, KeyOutIt d_keys_out,
                                AggOutIt d_aggregates_out, std::size_t n, Op op, Eq eq,
                                stream_ref stream, memory_resource& mr = default_resource()) {
  std::size_t count = 0;
  detail::reduce_by_key_impl("cupar::reduce_by_key_count", d_keys_in, d_values_in, d_keys_out,
                             d_aggregates_out, nullptr, &count, n, op, eq, stream, mr);
  return count;
}

/// reduce_by_key_count with == on the keys.
template <class KeyInIt, class ValueInIt, class KeyOutIt, class AggOutIt, class Op,
          std::enable_if_t<detail::are_iterators_v<KeyInIt, ValueInIt, KeyOutIt, AggOutIt> &&
                               detail::is_callable_op_v<Op>,
                           int> = 0>
std::size_t reduce_by_key_count(KeyInIt d_keys_in, ValueInIt d_values_in, KeyOutIt d_keys_out,
                                AggOutIt d_aggregates_out, std::size_t n, Op op, stream_ref stream,
                                memory_resource& mr = default_resource()) {
  std::size_t count = 0;
  detail::reduce_by_key_impl("cupar::reduce_by_key_count", d_keys_in, d_values_in, d_keys_out,
                             d_aggregates_out, nullptr, &count, n, op, ::cuda::std::equal_to<>{},
                             stream, mr);
  return count;
}

/// Inclusive scan of each run of equal consecutive keys (equality `eq`, applied to adjacent
/// keys): d_out[i] = v[h] op v[h + 1] op ... op v[i], h the first position of i's run.
/// n == 0 writes nothing.
///
/// @param d_keys, d_values  device inputs of n keys and n values: pointers (null only when
///                          n == 0) or random-access input iterators
/// @param d_out             device output of n values: a pointer or an output iterator; a pointer
///                          may be a pointer d_values (in place) or d_keys (when keys and values
///                          have the same size: the keys are overwritten), must not otherwise
///                          overlap either (CUB's rule)
/// @param op                binary operator V x V -> V (associative, need not be commutative)
/// @param eq                equality K x K -> bool (default: cuda::std::equal_to<>)
/// @throws std::invalid_argument for null pointers with n > 0 or partial overlaps
/// @throws cupar::out_of_memory, cupar::cuda_error
/// Asynchronous: does not synchronise the stream. Floating-point scans may differ from run to
/// run by rounding (CUB's decoupled look-back).
template <class KeyIt, class ValueIt, class OutIt, class Op, class Eq,
          std::enable_if_t<detail::are_iterators_v<KeyIt, ValueIt, OutIt> &&
                               detail::is_callable_op_v<Op> && detail::is_callable_op_v<Eq>,
                           int> = 0>
void inclusive_scan_by_key(KeyIt d_keys, ValueIt d_values, OutIt d_out, std::size_t n, Op op, Eq eq,
                           stream_ref stream, memory_resource& mr = default_resource()) {
  detail::scan_by_key_impl("cupar::inclusive_scan_by_key", d_keys, d_values, d_out, n, op,
                           cub::NullType{}, eq, stream, mr);
}

/// inclusive_scan_by_key with == on the keys.
template <
    class KeyIt, class ValueIt, class OutIt, class Op,
    std::enable_if_t<detail::are_iterators_v<KeyIt, ValueIt, OutIt> && detail::is_callable_op_v<Op>,
                     int> = 0>
void inclusive_scan_by_key(KeyIt d_keys, ValueIt d_values, OutIt d_out, std::size_t n, Op op,
                           stream_ref stream, memory_resource& mr = default_resource()) {
  detail::scan_by_key_impl("cupar::inclusive_scan_by_key", d_keys, d_values, d_out, n, op,
                           cub::NullType{}, ::cuda::std::equal_to<>{}, stream, mr);
}

/// Exclusive scan of each run of equal consecutive keys, seeded with `init` in every run:
/// d_out[h] = init at the first position h of each run, d_out[i] = init op (v[h] op ... op
/// v[i - 1]) after it. Parameters, exceptions and synchronisation as inclusive_scan_by_key.
template <class KeyIt, class ValueIt, class OutIt, class Op, class Eq,
          std::enable_if_t<detail::are_iterators_v<KeyIt, ValueIt, OutIt> &&
                               detail::is_callable_op_v<Op> && detail::is_callable_op_v<Eq>,
                           int> = 0>
void exclusive_scan_by_key(KeyIt d_keys, ValueIt d_values, OutIt d_out, std::size_t n, Op op,
                           detail::it_value_t<ValueIt> init, Eq eq, stream_ref stream,
                           memory_resource& mr = default_resource()) {
  detail::scan_by_key_impl("cupar::exclusive_scan_by_key", d_keys, d_values, d_out, n, op, init, eq,
                           stream, mr);
}

/// exclusive_scan_by_key with == on the keys.
template <
    class KeyIt, class ValueIt, class OutIt, class Op,
    std::enable_if_t<detail::are_iterators_v<KeyIt, ValueIt, OutIt> && detail::is_callable_op_v<Op>,
                     int> = 0>
void exclusive_scan_by_key(KeyIt d_keys, ValueIt d_values, OutIt d_out, std::size_t n, Op op,
                           detail::it_value_t<ValueIt> init, stream_ref stream,
                           memory_resource& mr = default_resource()) {
  detail::scan_by_key_impl("cupar::exclusive_scan_by_key", d_keys, d_values, d_out, n, op, init,
                           ::cuda::std::equal_to<>{}, stream, mr);
}

}  // namespace cupar
