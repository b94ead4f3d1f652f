// cupar: radix sort of arithmetic keys (and key-value pairs), precompiled in the library.
//
// Radix sort takes no operator, so the same compiled code serves C++ callers built by nvcc and by
// any host compiler. Comparator-based sorts (merge sort) are in sort.cuh (C++ comparators) and
// jit.hpp (run-time comparators).
//
// Ordering of floating-point keys (ascending; descending is the exact reverse):
//   -NaN (by bit pattern) < -inf < ... < -0.0 == +0.0 < ... < +inf < +NaN (by bit pattern).
// -0.0 and +0.0 are equal keys: they keep their input order (radix sort is stable).
// With a partial bit range (radix_options), a floating-point key's digits are those of its
// order-preserving transform; -0.0 and +0.0 then take the digits of one of the two zeros, which
// one being CUB's choice (it differs between its single-tile and multi-pass paths and between the
// two directions, docs/CUB_NOTES.md): where zeros go among keys that tie on the other bits of the
// range is unspecified.
#pragma once

#include <cupar/detail/type_id.hpp>
#include <cupar/memory.hpp>
#include <cupar/stream.hpp>
#include <cupar/types.hpp>

#include <cstddef>
#include <type_traits>

namespace cupar {
namespace detail {

struct radix_sort_args {
  const char* function;  // public name for messages
  scalar key;
  const void* keys_in;
  void* keys_out;
  std::size_t value_size;  // 0: keys only
  std::size_t value_align;
  const void* values_in;
  void* values_out;
  std::size_t n;
  radix_options options;
};

CUPAR_EXPORT void radix_sort(const radix_sort_args& args, stream_ref stream, memory_resource& mr);

/// Whether the compiled library is built for `key` (CUPAR_LIBRARY_TYPES): what radix_sort and
/// the calls on it accept. Lets header code (group_by.cuh) avoid a route the build lacks.
CUPAR_EXPORT bool library_sorts(scalar key) noexcept;

}  // namespace detail

/// Radix-sorts `n` keys from `d_keys_in` into `d_keys_out` (stable).
///
/// @param d_keys_in   device input keys (may be null when n == 0)
/// @param d_keys_out  device output keys; may equal d_keys_in (sorted in place), must not
///                    otherwise overlap it
/// @param n           number of keys (64-bit: counts above 2^31 are supported)
/// @param options     direction and key bit range (see radix_options); default ascending, all bits
/// @param stream      stream the sort runs on
/// @param mr          resource for temporary storage (and the alternate buffer when in place)
/// @throws std::invalid_argument for null pointers with n > 0, a partial overlap, or a bit range
///         with begin_bit < 0, begin_bit >= end_bit or end_bit > 8 * sizeof(Key), or a Key the
///         library was built without (CUPAR_LIBRARY_TYPES; every type by default)
/// @throws cupar::out_of_memory, cupar::cuda_error
/// Asynchronous: does not synchronise the stream.
template <class Key>
void sort_keys(const Key* d_keys_in, Key* d_keys_out, std::size_t n, radix_options options,
               stream_ref stream, memory_resource& mr = default_resource()) {
  static_assert(detail::is_scalar_v<Key>,
                "cupar::sort_keys: radix sort needs an arithmetic key type (integers of 1-8 "
                "bytes, float, double); sort other types with a comparator");
  detail::radix_sort({"cupar::sort_keys", detail::scalar_of<Key>(), d_keys_in, d_keys_out, 0, 0,
                      nullptr, nullptr, n, options},
                     stream, mr);
}

/// Radix-sorts keys ascending on all bits. See the overload taking radix_options.
template <class Key>
void sort_keys(const Key* d_keys_in, Key* d_keys_out, std::size_t n, stream_ref stream,
               memory_resource& mr = default_resource()) {
  sort_keys(d_keys_in, d_keys_out, n, ascending, stream, mr);
}

/// Radix-sorts `n` key-value pairs by key (stable). Values may be any trivially copyable type;
/// values of 1, 2, 4, 8 or 16 bytes are moved by the sort itself, others (and all values when
/// n > 2^32 - 1) through a sorted index and a gather.
///
/// @param d_values_in/d_values_out  device values; like the keys they may be sorted in place
///                    (out == in) but must not otherwise overlap, nor overlap the keys
/// Other parameters, exceptions and synchronisation as sort_keys.
template <class Key, class Value>
void sort_pairs(const Key* d_keys_in, Key* d_keys_out, const Value* d_values_in,
                Value* d_values_out, std::size_t n, radix_options options, stream_ref stream,
                memory_resource& mr = default_resource()) {
  static_assert(detail::is_scalar_v<Key>,
                "cupar::sort_pairs: radix sort needs an arithmetic key type (integers of 1-8 "
                "bytes, float, double); sort other types with a comparator");
  static_assert(std::is_trivially_copyable_v<Value>,
                "cupar::sort_pairs: Value must be trivially copyable");
  detail::radix_sort({"cupar::sort_pairs", detail::scalar_of<Key>(), d_keys_in, d_keys_out,
                      sizeof(Value), alignof(Value), d_values_in, d_values_out, n, options},
                     stream, mr);
}

/// Radix-sorts pairs ascending on all key bits. See the overload taking radix_options.
template <class Key, class Value>
void sort_pairs(const Key* d_keys_in, Key* d_keys_out, const Value* d_values_in,
                Value* d_values_out, std::size_t n, stream_ref stream,
                memory_resource& mr = default_resource()) {
  sort_pairs(d_keys_in, d_keys_out, d_values_in, d_values_out, n, ascending, stream, mr);
}

}  // namespace cupar
