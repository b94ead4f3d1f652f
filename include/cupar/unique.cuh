// cupar: removing consecutive duplicates with C++ equalities (compiled by nvcc in the caller's
// translation unit): unique, unique_by_key. The forms without an equality, and run_length_encode,
// are in unique.hpp (see there for what a run is).
#pragma once

#include <cupar/detail/device_guard.hpp>
#include <cupar/detail/count_width.hpp>
#include <cupar/detail/counted.hpp>
#include <cupar/detail/dp_checks.hpp>
#include <cupar/detail/op_traits.hpp>
#include <cupar/memory.hpp>
#include <cupar/stream.hpp>
#include <cupar/unique.hpp>

#include <cub/device/device_select.cuh>
#include <cub/device/dispatch/dispatch_select_if.cuh>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace cupar {
namespace detail {

template <class T, class Eq>
void unique_impl(const char* fn, const T* d_in, T* d_out, std::size_t* d_count,
                 std::size_t* host_count, std::size_t n, Eq eq, stream_ref stream,
                 memory_resource& mr) {
  const device_guard on_device(stream);  // run on the stream's device
  static_assert(std::is_trivially_copyable_v<T>, "cupar::unique: T must be trivially copyable");
  check_select(fn, d_in, d_out, d_count, host_count != nullptr, n, sizeof(T), false);
  // DeviceSelect::Unique with the caller's equality (CUB's entry point takes only ==).
  using dispatch = cub::DispatchSelectIf<const T*, cub::NullType*, T*, std::size_t*, cub::NullType,
                                         Eq, std::int64_t, cub::SelectImpl::Select>;
  run_counted("cub::DeviceSelect::Unique", mr, stream, {n}, d_count, host_count, 1,
              [&](void* temp, std::size_t& bytes, std::size_t* counts) {
                return dispatch::Dispatch(temp, bytes, d_in, nullptr, d_out, counts,
                                          cub::NullType{}, eq, static_cast<std::int64_t>(n),
                                          stream.get());
              });
}

template <class K, class V, class Eq>
void unique_by_key_impl(const char* fn, const K* d_keys_in, const V* d_values_in, K* d_keys_out,
                        V* d_values_out, std::size_t* d_count, std::size_t* host_count,
                        std::size_t n, Eq eq, stream_ref stream, memory_resource& mr) {
  const device_guard on_device(stream);  // run on the stream's device
  static_assert(std::is_trivially_copyable_v<K> && std::is_trivially_copyable_v<V>,
                "cupar::unique_by_key: keys and values must be trivially copyable");
  const dp_range in[2] = {{"d_keys_in", d_keys_in, sizeof(K)},
                          {"d_values_in", d_values_in, sizeof(V)}};
  const dp_range out[2] = {{"d_keys_out", d_keys_out, sizeof(K)},
                           {"d_values_out", d_values_out, sizeof(V)}};
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

}  // namespace detail

/// Copies the first item of each run of consecutive items that `eq` finds equal from d_in[0, n)
/// to d_out, in input order, and writes their number to *d_num_selected.
///
/// @param d_in           device input (may be null when n == 0)
/// @param d_out          device output with room for n items; must not overlap d_in
/// @param d_num_selected device count (one std::size_t)
/// @param eq             equality T x T -> bool (a functor or an extended __device__ lambda); an
///                       equivalence relation
/// @throws std::invalid_argument for null pointers with n > 0, a null d_num_selected or
///         overlapping ranges
/// @throws cupar::out_of_memory, cupar::cuda_error
/// Asynchronous: does not synchronise the stream.
template <class T, class Eq, std::enable_if_t<detail::is_callable_op_v<Eq>, int> = 0>
void unique(const T* d_in, T* d_out, std::size_t* d_num_selected, std::size_t n, Eq eq,
            stream_ref stream, memory_resource& mr = default_resource()) {
  detail::unique_impl("cupar::unique", d_in, d_out, d_num_selected, nullptr, n, eq, stream, mr);
}

/// As unique, and returns the number of items kept. Synchronises `stream` (only it).
template <class T, class Eq, std::enable_if_t<detail::is_callable_op_v<Eq>, int> = 0>
std::size_t unique_count(const T* d_in, T* d_out, std::size_t n, Eq eq, stream_ref stream,
                         memory_resource& mr = default_resource()) {
  std::size_t count = 0;
  detail::unique_impl("cupar::unique_count", d_in, d_out, nullptr, &count, n, eq, stream, mr);
  return count;
}

/// Copies the first key of each run of consecutive keys of d_keys_in[0, n) that `eq` finds equal
/// to d_keys_out and the value at the same position of d_values_in to d_values_out, in input
/// order, and writes the number of runs to *d_num_selected. n == 0 writes 0 and nothing else.
///
/// @param d_keys_in, d_values_in    device inputs of n keys and n values (may be null when
///                                  n == 0)
/// @param d_keys_out, d_values_out  device outputs with room for one item per run (n at most);
///                                  no output may overlap an input or the other output
/// @param d_num_selected            device count (one std::size_t)
/// @param eq                        equality K x K -> bool (a functor or an extended __device__
///                                  lambda), applied to adjacent keys; an equivalence relation
/// @throws std::invalid_argument for null pointers with n > 0, a null d_num_selected or
///         overlapping ranges
/// @throws cupar::out_of_memory, cupar::cuda_error
/// Asynchronous: does not synchronise the stream.
template <class K, class V, class Eq, std::enable_if_t<detail::is_callable_op_v<Eq>, int> = 0>
void unique_by_key(const K* d_keys_in, const V* d_values_in, K* d_keys_out, V* d_values_out,
                   std::size_t* d_num_selected, std::size_t n, Eq eq, stream_ref stream,
                   memory_resource& mr = default_resource()) {
  detail::unique_by_key_impl("cupar::unique_by_key", d_keys_in, d_values_in, d_keys_out,
                             d_values_out, d_num_selected, nullptr, n, eq, stream, mr);
}

/// As unique_by_key, and returns the number of runs. Synchronises `stream` (only it).
template <class K, class V, class Eq, std::enable_if_t<detail::is_callable_op_v<Eq>, int> = 0>
std::size_t unique_by_key_count(const K* d_keys_in, const V* d_values_in, K* d_keys_out,
                                V* d_values_out, std::size_t n, Eq eq, stream_ref stream,
                                memory_resource& mr = default_resource()) {
  std::size_t count = 0;
  detail::unique_by_key_impl("cupar::unique_by_key_count", d_keys_in, d_values_in, d_keys_out,
                             d_values_out, nullptr, &count, n, eq, stream, mr);
  return count;
}

}  // namespace cupar
