// cupar: comparison sorts (CUB merge sort) with a C++ comparator, compiled by nvcc. Radix sorts
// of arithmetic keys are in sort.hpp.
#pragma once

#include <cupar/detail/checks.hpp>
#include <cupar/detail/count_width.hpp>
#include <cupar/detail/cuda_check.hpp>
#include <cupar/detail/device_guard.hpp>
#include <cupar/detail/iterators.cuh>
#include <cupar/detail/op_wrap.cuh>
#include <cupar/detail/temp_storage.hpp>
#include <cupar/memory.hpp>
#include <cupar/sort.hpp>
#include <cupar/stream.hpp>

#include <cub/device/device_merge_sort.cuh>
#include <cub/device/device_transform.cuh>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace cupar {
namespace detail {

/// The identity on device values (libcu++ 3.0.1 has no public cuda::std::identity).
struct identity_op {
  template <class T>
  __device__ __forceinline__ T operator()(const T& x) const {
    return x;
  }
};

/// Copies n items from an iterator to a pointer on `stream` (a memcpy for a pointer source).
template <class InIt, class T>
void copy_to(const char* fn, InIt d_in, T* d_out, std::size_t n, stream_ref stream) {
  if constexpr (std::is_pointer_v<InIt>) {
    if (same_pointer(d_in, d_out)) return;
    check_cuda(cudaMemcpyAsync(d_out, d_in, n * sizeof(T), cudaMemcpyDeviceToDevice, stream.get()),
               "cudaMemcpyAsync");
  } else {
    check_cuda(cub::DeviceTransform::Transform(d_in, d_out, static_cast<std::int64_t>(n),
                                               identity_op{}, stream.get()),
               fn);
  }
}

template <class KeyInIt, class Key, class Compare>
void merge_sort_keys(const char* fn, bool stable, KeyInIt d_keys_in, Key* d_keys_out, std::size_t n,
                     Compare comp, stream_ref stream, memory_resource& mr) {
  static_assert(std::is_trivially_copyable_v<Key>, "cupar: sort keys must be trivially copyable");
  const device_guard device(stream);
  require_size(fn, n, sizeof(Key));
  require_range(fn, "d_keys_in", d_keys_in, n);
  require_data(fn, "d_keys_out", d_keys_out, n);
  require_same_or_disjoint(fn, "d_keys_in", range_address(d_keys_in), n * sizeof(Key), "d_keys_out",
                           d_keys_out, n * sizeof(Key));
  if (n == 0) return;
  auto cub_comp = with_result_type<bool>(comp);
  const bool in_place = same_pointer(d_keys_in, d_keys_out);
  run_with_temp_storage(
      stable ? "cub::DeviceMergeSort::StableSortKeys" : "cub::DeviceMergeSort::SortKeys", mr,
      stream, {n, std::uint64_t(stable) * 2 + std::uint64_t(in_place)},
      [&](void* temp, std::size_t& bytes) {
        return with_count_width(n, [&](auto count) {
          using cub::DeviceMergeSort;
          if (in_place) {
            return stable ? DeviceMergeSort::StableSortKeys(temp, bytes, d_keys_out, count,
                                                            cub_comp, stream.get())
                          : DeviceMergeSort::SortKeys(temp, bytes, d_keys_out, count, cub_comp,
                                                      stream.get());
          }
          return stable ? DeviceMergeSort::StableSortKeysCopy(temp, bytes, d_keys_in, d_keys_out,
                                                              count, cub_comp, stream.get())
                        : DeviceMergeSort::SortKeysCopy(temp, bytes, d_keys_in, d_keys_out, count,
                                                        cub_comp, stream.get());
        });
      });
}

template <class KeyInIt, class Key, class ValueInIt, class Value, class Compare>
void merge_sort_pairs(const char* fn, bool stable, KeyInIt d_keys_in, Key* d_keys_out,
                      ValueInIt d_values_in, Value* d_values_out, std::size_t n, Compare comp,
                      stream_ref stream, memory_resource& mr) {
  static_assert(std::is_trivially_copyable_v<Key>, "cupar: sort keys must be trivially copyable");
  static_assert(std::is_trivially_copyable_v<Value>,
                "cupar: sort values must be trivially copyable");
  const device_guard device(stream);
  require_size(fn, n, sizeof(Key) > sizeof(Value) ? sizeof(Key) : sizeof(Value));
  require_range(fn, "d_keys_in", d_keys_in, n);
  require_data(fn, "d_keys_out", d_keys_out, n);
  require_range(fn, "d_values_in", d_values_in, n);
  require_data(fn, "d_values_out", d_values_out, n);
  const std::size_t kb = n * sizeof(Key), vb = n * sizeof(Value);
  const void* keys_in = range_address(d_keys_in);
  const void* values_in = range_address(d_values_in);
  require_same_or_disjoint(fn, "d_keys_in", keys_in, kb, "d_keys_out", d_keys_out, kb);
  require_same_or_disjoint(fn, "d_values_in", values_in, vb, "d_values_out", d_values_out, vb);
  require_disjoint(fn, "d_keys_out", d_keys_out, kb, "d_values_out", d_values_out, vb);
  require_disjoint(fn, "d_keys_out", d_keys_out, kb, "d_values_in", values_in, vb);
  require_disjoint(fn, "d_keys_in", keys_in, kb, "d_values_out", d_values_out, vb);
  if (n == 0) return;
  auto cub_comp = with_result_type<bool>(comp);
  const bool in_place =
      same_pointer(d_keys_in, d_keys_out) && same_pointer(d_values_in, d_values_out);
  if (stable || in_place) {
    // CUB's stability guarantee is given for its in-place interface: bring the input to the
    // output first where it is elsewhere.
    copy_to(fn, d_keys_in, d_keys_out, n, stream);
    copy_to(fn, d_values_in, d_values_out, n, stream);
    run_with_temp_storage(
        stable ? "cub::DeviceMergeSort::StableSortPairs" : "cub::DeviceMergeSort::SortPairs", mr,
        stream, {n, std::uint64_t(stable)}, [&](void* temp, std::size_t& bytes) {
          return with_count_width(n, [&](auto count) {
            return stable
                       ? cub::DeviceMergeSort::StableSortPairs(
                             temp, bytes, d_keys_out, d_values_out, count, cub_comp, stream.get())
                       : cub::DeviceMergeSort::SortPairs(temp, bytes, d_keys_out, d_values_out,
                                                         count, cub_comp, stream.get());
          });
        });
    return;
  }
  run_with_temp_storage(
      "cub::DeviceMergeSort::SortPairsCopy", mr, stream, {n}, [&](void* temp, std::size_t& bytes) {
        return with_count_width(n, [&](auto count) {
          return cub::DeviceMergeSort::SortPairsCopy(temp, bytes, d_keys_in, d_values_in,
                                                     d_keys_out, d_values_out, count, cub_comp,
                                                     stream.get());
        });
      });
}

}  // namespace detail

/// Sorts `n` keys by a comparator (CUB merge sort; not guaranteed stable, see stable_sort_keys).
///
/// @param d_keys_in  device input keys: a pointer (null only when n == 0) or any random-access
///                   input iterator whose values convert to Key (a Thrust transform iterator
///                   sorts computed keys without writing them first)
/// @param d_keys_out device output keys (any trivially copyable type), a pointer: merge sort reads
///                   its output back; may equal a pointer d_keys_in, must not otherwise overlap it
/// @param n          number of keys (64-bit)
/// @param comp       strict weak ordering Key x Key -> bool ("a comes before b"), e.g. an extended
///                   __device__ lambda. With floating-point keys, `a < b` is not a strict weak
///                   ordering once NaNs are present: order NaNs explicitly if they can occur.
/// @param stream     stream the sort runs on
/// @param mr         resource for temporary storage
/// @throws std::invalid_argument for null pointers with n > 0 or a partial overlap
/// @throws cupar::out_of_memory, cupar::cuda_error
/// Asynchronous: does not synchronise the stream.
template <
    class KeyInIt, class Key, class Compare,
    std::enable_if_t<detail::is_iterator_v<KeyInIt> && detail::is_callable_op_v<Compare>, int> = 0>
void sort_keys(KeyInIt d_keys_in, Key* d_keys_out, std::size_t n, Compare comp, stream_ref stream,
               memory_resource& mr = default_resource()) {
  detail::merge_sort_keys("cupar::sort_keys", false, d_keys_in, d_keys_out, n, comp, stream, mr);
}

/// As sort_keys with a comparator, and stable: equal keys keep their input order.
template <
    class KeyInIt, class Key, class Compare,
    std::enable_if_t<detail::is_iterator_v<KeyInIt> && detail::is_callable_op_v<Compare>, int> = 0>
void stable_sort_keys(KeyInIt d_keys_in, Key* d_keys_out, std::size_t n, Compare comp,
                      stream_ref stream, memory_resource& mr = default_resource()) {
  detail::merge_sort_keys("cupar::stable_sort_keys", true, d_keys_in, d_keys_out, n, comp, stream,
                          mr);
}

/// Sorts `n` key-value pairs by key with a comparator (not guaranteed stable). Values may be any
/// trivially copyable type; inputs may be sorted in place (out == in) but ranges must not
/// otherwise overlap. Other parameters as sort_keys with a comparator.
template <
    class KeyInIt, class Key, class ValueInIt, class Value, class Compare,
    std::enable_if_t<
        detail::are_iterators_v<KeyInIt, ValueInIt> && detail::is_callable_op_v<Compare>, int> = 0>
void sort_pairs(KeyInIt d_keys_in, Key* d_keys_out, ValueInIt d_values_in, Value* d_values_out,
                std::size_t n, Compare comp, stream_ref stream,
                memory_resource& mr = default_resource()) {
  detail::merge_sort_pairs("cupar::sort_pairs", false, d_keys_in, d_keys_out, d_values_in,
                           d_values_out, n, comp, stream, mr);
}

/// As sort_pairs with a comparator, and stable. When the output is not the input, the input is
/// first copied to the output (CUB's stable merge sort works in place).
template <
    class KeyInIt, class Key, class ValueInIt, class Value, class Compare,
    std::enable_if_t<
        detail::are_iterators_v<KeyInIt, ValueInIt> && detail::is_callable_op_v<Compare>, int> = 0>
void stable_sort_pairs(KeyInIt d_keys_in, Key* d_keys_out, ValueInIt d_values_in,
                       Value* d_values_out, std::size_t n, Compare comp, stream_ref stream,
                       memory_resource& mr = default_resource()) {
  detail::merge_sort_pairs("cupar::stable_sort_pairs", true, d_keys_in, d_keys_out, d_values_in,
                           d_values_out, n, comp, stream, mr);
}

}  // namespace cupar
