// cupar internal: iterator arguments of the C++-operator algorithms (.cuh). Every range argument
// of those algorithms is a random-access iterator as CUB takes it: a pointer, one of Thrust's
// fancy iterators (counting, constant, transform, zip, permutation, reverse, discard, transform
// output) or a user-written one. Value types are deduced as CUB deduces them
// (cuda::std::iterator_traits). The argument checks that only make sense for pointers (null,
// overlap, in place) see a pointer's address and, for any other iterator, unchecked_range().
#pragma once

#include <cupar/detail/checks.hpp>

#include <cub/util_type.cuh>

#include <thrust/iterator/transform_iterator.h>

#include <cuda/std/iterator>
#include <cuda/std/type_traits>

#include <cstddef>
#include <type_traits>

namespace cupar::detail {

/// The value type of an input iterator, as CUB deduces it.
template <class It>
using it_value_t = cub::detail::it_value_t<It>;

/// The value type of an output iterator, or `Fallback` where it has none (void, or Thrust's
/// discard_iterator), as CUB decides it.
template <class It, class Fallback>
using out_value_t = cub::detail::non_void_value_t<It, Fallback>;

template <class It, class = void>
struct is_iterator : std::false_type {};
template <class It>
struct is_iterator<It, std::void_t<typename ::cuda::std::iterator_traits<It>::difference_type,
                                   typename ::cuda::std::iterator_traits<It>::reference>>
    : std::true_type {};

/// A Thrust transform iterator's parts: its underlying iterator (`base`), and the same transform
/// over another iterator (`rebind`). group_by's sort route sorts the underlying values and applies
/// the transform after the sort.
template <class It>
struct transform_parts : std::false_type {};
template <class F, class It, class R, class Vt>
struct transform_parts<thrust::transform_iterator<F, It, R, Vt>> : std::true_type {
  using base = It;
  template <class P>
  static thrust::transform_iterator<F, P, R, Vt> rebind(
      const thrust::transform_iterator<F, It, R, Vt>& it, P p) {
    return thrust::transform_iterator<F, P, R, Vt>(p, it.functor());
  }
};

/// A Thrust transform iterator over a pointer: reduced with CUB's TransformReduce on the pointer
/// itself, whose agent loads vectors and applies the transform in registers. CUB's Reduce over
/// the iterator loads element by element (vector loads are for pointers only): the sum of squares
/// of 2^28 floats took 363 us against the plain reduce's 349 us (H100, 2026-11-23).
template <class It, class = void>
struct transform_of_pointer : std::false_type {};
template <class It>
struct transform_of_pointer<It, std::enable_if_t<transform_parts<It>::value>>
    : std::bool_constant<std::is_pointer_v<typename transform_parts<It>::base>> {};

/// True for the types a range argument takes: pointers and classes with iterator traits.
template <class It>
inline constexpr bool is_iterator_v = std::is_pointer_v<std::decay_t<It>> ||
                                      (std::is_class_v<std::decay_t<It>> &&
                                       is_iterator<std::decay_t<It>>::value);

template <class... Its>
inline constexpr bool are_iterators_v = (is_iterator_v<Its> && ...);

/// The address the argument checks see: the pointer itself (checked for null and overlap) or,
/// for any other iterator, unchecked_range().
template <class It>
const void* range_address(const It& it) noexcept {
  if constexpr (std::is_pointer_v<It>) {
    return static_cast<const void*>(it);
  } else {
    return unchecked_range();
  }
}

/// True when `in` and `out` are pointers to the same address (an operation in place).
template <class In, class Out>
bool same_pointer(const In& in, const Out& out) noexcept {
  if constexpr (std::is_pointer_v<In> && std::is_pointer_v<Out>) {
    return static_cast<const void*>(in) == static_cast<const void*>(out);
  } else {
    return false;
  }
}

/// `ptr` may be null only when n == 0: pointers only (any other iterator is not checked).
template <class It>
void require_range(const char* function, const char* name, const It& it, std::size_t n) {
  require_data(function, name, range_address(it), n);
}

}  // namespace cupar::detail
