// cupar: gather and scatter by index arrays (any host compiler), with a policy for indices out of
// range. Precompiled in the library for every trivially copyable element type (moved as words of
// 1, 2, 4, 8 or 16 bytes, the widest that the arrays' alignment and the element's size allow) and
// for 4- and 8-byte indices, signed or unsigned.
//
//   gather:   d_out[i] = d_values[d_indices[i]]       for i < n, d_values holding `extent` items
//   scatter:  d_out[d_indices[i]] = d_values[i]       for i < n, d_out holding `extent` items
//
// An index is in range when 0 <= index < extent (a negative signed index never is). What happens
// to the others is the call's `bounds` policy:
//
//   bounds::unchecked  nothing is checked: the caller promises every index is in range (the
//                      fastest; an index out of range reads or writes outside the array)
//   bounds::skip       gather leaves d_out[i] as it was; scatter does not write the item
//   bounds::fill       gather writes the fill value to d_out[i] (T{} unless given); not for scatter
//   bounds::error      every index is checked before anything is written: one out of range throws
//                      std::out_of_range naming the first such position and its index, and
//                      nothing is written. Synchronises the stream (the check is read back).
//
// Scatter with duplicate indices: one of the items lands (which one is unspecified); an element
// moved in more than one word (wider than 16 bytes, or less aligned than its size) may then mix
// the words of several items.
//
//   // rows of a join's right table, -1 where the left row found no match: a null of 0
//   cupar::gather(d_price, n_right, d_match, n_left, d_joined_price, cupar::bounds::fill, 0.0,
//                 stream);
#pragma once

#include <cupar/config.hpp>
#include <cupar/detail/type_id.hpp>
#include <cupar/memory.hpp>
#include <cupar/stream.hpp>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace cupar {

/// What gather and scatter do with an index outside [0, extent) (see the top of gather.hpp).
enum class bounds : std::uint8_t { unchecked, skip, fill, error };

namespace detail {

struct gather_args {
  const char* function;  // public name for messages
  bool scatter;
  const void* values;  // gather: extent items; scatter: n items
  const void* indices;
  std::size_t index_size;  // 4 or 8
  bool index_signed;
  void* out;  // gather: n items; scatter: extent items
  std::size_t n;
  std::size_t extent;
  std::size_t value_size;
  std::size_t value_align;
  bounds policy;
  const void* fill;  // host address of one item (bounds::fill), else null
};

CUPAR_EXPORT void gather(const gather_args& args, stream_ref stream, memory_resource& mr);

template <class T, class Index>
gather_args make_gather_args(const char* fn, bool scatter, const T* values, const Index* indices,
                             T* out, std::size_t n, std::size_t extent, bounds policy,
                             const T* fill) {
  static_assert(std::is_trivially_copyable_v<T>,
                "cupar::gather / scatter: T must be trivially copyable (it is moved bytewise)");
  static_assert(std::is_integral_v<Index> && !std::is_same_v<Index, bool> &&
                    (sizeof(Index) == 4 || sizeof(Index) == 8),
                "cupar::gather / scatter: indices are 4- or 8-byte integers");
  return gather_args{fn,  scatter, values, indices,   sizeof(Index), std::is_signed_v<Index>,
                     out, n,       extent, sizeof(T), alignof(T),    policy,
                     fill};
}

}  // namespace detail

/// d_out[i] = d_values[d_indices[i]] for i < n, with an index out of range treated as `policy`
/// says (bounds::fill writes T{}, for a T that has one; the overload below takes the value).
///
/// @param d_values   device items, `extent` of them (may be null when extent == 0)
/// @param extent     number of items of d_values (64-bit); an index is in range below it
/// @param d_indices  device indices, n of them: a 4- or 8-byte integer type, signed or not
/// @param n          number of items gathered (64-bit)
/// @param d_out      device output, n items; must not overlap d_values or d_indices
/// @param policy     indices out of range: bounds::unchecked (default), skip, fill or error
/// @param stream     stream the gather runs on
/// @param mr         where bounds::error's check keeps its result (8 bytes); unused otherwise
/// @throws std::invalid_argument for null pointers with non-zero counts, overlapping arrays, an
///         unknown policy, bounds::fill for a T without a default value, or n > 0 with
///         extent == 0 under bounds::unchecked (no index can be in range)
/// @throws std::out_of_range under bounds::error, before anything is written
/// @throws cupar::out_of_memory, cupar::cuda_error
/// Asynchronous, except under bounds::error, which synchronises the stream.
template <class T, class Index>
void gather(const T* d_values, std::size_t extent, const Index* d_indices, std::size_t n, T* d_out,
            bounds policy, stream_ref stream, memory_resource& mr = default_resource()) {
  if constexpr (std::is_default_constructible_v<T>) {
    const T fill{};
    detail::gather(detail::make_gather_args("cupar::gather", false, d_values, d_indices, d_out, n,
                                            extent, policy, &fill),
                   stream, mr);
  } else {  // bounds::fill is then refused: it needs the overload with a value
    detail::gather(detail::make_gather_args("cupar::gather", false, d_values, d_indices, d_out, n,
                                            extent, policy, static_cast<const T*>(nullptr)),
                   stream, mr);
  }
}

/// gather with bounds::fill and the item written for indices out of range; as gather otherwise.
template <class T, class Index>
void gather(const T* d_values, std::size_t extent, const Index* d_indices, std::size_t n, T* d_out,
            bounds policy, detail::type_identity_t<T> fill, stream_ref stream,
            memory_resource& mr = default_resource()) {
  detail::gather(detail::make_gather_args("cupar::gather", false, d_values, d_indices, d_out, n,
                                          extent, policy, &fill),
                 stream, mr);
}

/// gather with bounds::unchecked: every index must be in range. As gather otherwise.
template <class T, class Index>
void gather(const T* d_values, std::size_t extent, const Index* d_indices, std::size_t n, T* d_out,
            stream_ref stream, memory_resource& mr = default_resource()) {
  gather(d_values, extent, d_indices, n, d_out, bounds::unchecked, stream, mr);
}

/// d_out[d_indices[i]] = d_values[i] for i < n, with an index out of range treated as `policy`
/// says (bounds::skip: not written; bounds::fill is refused). Duplicate indices: see the top of
/// gather.hpp.
///
/// @param d_values   device items, n of them (may be null when n == 0)
/// @param n          number of items scattered (64-bit)
/// @param d_indices  device indices, n of them: a 4- or 8-byte integer type, signed or not
/// @param d_out      device output, `extent` items (those no index names keep their value); must
///                   not overlap d_values or d_indices
/// @param extent     number of items of d_out (64-bit); an index is in range below it
/// @param policy     indices out of range: bounds::unchecked (default), skip or error
/// @param stream     stream the scatter runs on
/// @param mr         where bounds::error's check keeps its result (8 bytes); unused otherwise
/// @throws std::invalid_argument for null pointers with non-zero counts, overlapping arrays,
///         bounds::fill or an unknown policy, or n > 0 with extent == 0 under bounds::unchecked
/// @throws std::out_of_range under bounds::error, before anything is written
/// @throws cupar::out_of_memory, cupar::cuda_error
/// Asynchronous, except under bounds::error, which synchronises the stream.
template <class T, class Index>
void scatter(const T* d_values, std::size_t n, const Index* d_indices, T* d_out, std::size_t extent,
             bounds policy, stream_ref stream, memory_resource& mr = default_resource()) {
  detail::gather(detail::make_gather_args("cupar::scatter", true, d_values, d_indices, d_out, n,
                                          extent, policy, static_cast<const T*>(nullptr)),
                 stream, mr);
}

/// scatter with bounds::unchecked: every index must be in range. As scatter otherwise.
template <class T, class Index>
void scatter(const T* d_values, std::size_t n, const Index* d_indices, T* d_out, std::size_t extent,
             stream_ref stream, memory_resource& mr = default_resource()) {
  scatter(d_values, n, d_indices, d_out, extent, bounds::unchecked, stream, mr);
}

}  // namespace cupar
