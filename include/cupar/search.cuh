// cupar: vectorised binary search with C++ comparators (compiled by nvcc in the caller's
// translation unit). The meaning, the NaN rules and the forms with the default `<` are in
// search.hpp (served by the library for every caller).
#pragma once

#include <cupar/detail/cuda_check.hpp>
#include <cupar/detail/device/binary_search.cuh>
#include <cupar/detail/device_guard.hpp>
#include <cupar/detail/dp_checks.hpp>
#include <cupar/detail/dp_dispatch.cuh>
#include <cupar/detail/iterators.cuh>
#include <cupar/detail/op_traits.hpp>
#include <cupar/search.hpp>
#include <cupar/stream.hpp>

#include <cub/detail/launcher/cuda_runtime.cuh>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace cupar {
namespace detail {

template <class SortedIt, class NeedleIt, class OutIt, class Comp>
void search_impl(const char* fn, SortedIt d_sorted, std::size_t n, NeedleIt d_needles,
                 std::size_t m, OutIt d_out, Comp comp, bool upper, stream_ref stream) {
  using T = it_value_t<NeedleIt>;
  using Index = out_value_t<OutIt, std::size_t>;
  const device_guard on_device(stream);  // run on the stream's device
  static_assert(std::is_trivially_copyable_v<T>, "cupar: T must be trivially copyable");
  static_assert(is_search_index_v<Index>,
                "cupar::lower_bound / upper_bound: positions are 4- or 8-byte integers");
  static_assert(std::is_trivially_copyable_v<Comp>,
                "cupar: the comparator must be trivially copyable (it is passed to the GPU by "
                "value); capture by value, not by reference to host objects");
  check_binary_search(fn, range_address(d_sorted), n, range_address(d_needles), m,
                      range_address(d_out), sizeof(T), sizeof(Index),
                      static_cast<std::uint64_t>(std::numeric_limits<Index>::max()));
  if (m == 0) return;
  int device = 0, sms = 0;
  check_cuda(cudaGetDevice(&device), "cudaGetDevice");
  check_cuda(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device),
             "cudaDeviceGetAttribute");
  if constexpr (std::is_pointer_v<SortedIt> && std::is_pointer_v<NeedleIt> &&
                std::is_pointer_v<OutIt> &&
                std::is_same_v<std::remove_cv_t<it_value_t<SortedIt>>, T>) {
    check_cuda(
        bsearch::dispatch(&bsearch::kernel<cub::NullType, T, Index, Comp>,
                          cub::detail::TripleChevronFactory{}, bsearch::block_threads, sms,
                          static_cast<const T*>(d_sorted), n, static_cast<const T*>(d_needles), m,
                          d_out, comp, upper, stream.get()),
        "cupar binary search kernel launch");
  } else {
    check_cuda(
        bsearch::dispatch(
            &bsearch::iterator_kernel<cub::NullType, T, Index, Comp, SortedIt, NeedleIt, OutIt>,
            cub::detail::TripleChevronFactory{}, bsearch::block_threads, sms, d_sorted, n,
            d_needles, m, d_out, comp, upper, stream.get()),
        "cupar binary search kernel launch");
  }
}

}  // namespace detail

/// For each of the m needles, the position of the first element of d_sorted[0, n) that is not
/// less than it under `comp` (comp(a, b): a comes before b), or n (see search.hpp).
///
/// @param d_sorted   device range sorted by comp: a pointer (null only when n == 0) or any
///                   random-access iterator
/// @param n          number of elements of the range (64-bit)
/// @param d_needles  device needles: a pointer (null only when m == 0) or any random-access
///                   iterator (a Thrust counting iterator searches for 0, 1, 2, ...)
/// @param m          number of needles (64-bit)
/// @param d_out      device positions (a 4- or 8-byte integer type holding n), m of them: a
///                   pointer or an output iterator (std::size_t positions where it has no value
///                   type); a pointer must not overlap pointers d_sorted or d_needles
/// @param comp       strict weak ordering T x T -> bool: a functor or an extended __device__
///                   lambda
/// @param stream     stream the search runs on
/// @throws std::invalid_argument for null pointers with non-zero counts, overlapping outputs, or
///         n larger than Index holds
/// @throws cupar::cuda_error
/// Asynchronous: does not synchronise the stream; needs no temporary storage.
template <class SortedIt, class NeedleIt, class OutIt, class Comp,
          std::enable_if_t<detail::are_iterators_v<SortedIt, NeedleIt, OutIt> &&
                               detail::is_callable_op_v<Comp>,
                           int> = 0>
void lower_bound(SortedIt d_sorted, std::size_t n, NeedleIt d_needles, std::size_t m, OutIt d_out,
                 Comp comp, stream_ref stream) {
  detail::search_impl("cupar::lower_bound", d_sorted, n, d_needles, m, d_out, comp, false, stream);
}

/// For each of the m needles, the position of the first element of d_sorted[0, n) that the needle
/// is less than under `comp`, or n. Parameters, exceptions and synchronisation as lower_bound.
template <class SortedIt, class NeedleIt, class OutIt, class Comp,
          std::enable_if_t<detail::are_iterators_v<SortedIt, NeedleIt, OutIt> &&
                               detail::is_callable_op_v<Comp>,
                           int> = 0>
void upper_bound(SortedIt d_sorted, std::size_t n, NeedleIt d_needles, std::size_t m, OutIt d_out,
                 Comp comp, stream_ref stream) {
  detail::search_impl("cupar::upper_bound", d_sorted, n, d_needles, m, d_out, comp, true, stream);
}

/// For each of the m needles, the range [d_lower[j], d_upper[j]) of the elements of d_sorted[0, n)
/// equivalent to it under `comp`: lower_bound's position and upper_bound's (two searches).
/// Parameters as lower_bound; d_lower and d_upper (pointers or output iterators of one type) must
/// not overlap each other, d_sorted or d_needles when they are pointers.
/// @throws std::invalid_argument for null pointers with non-zero counts, overlapping outputs, or
///         n larger than the positions' type holds (before anything runs)
/// @throws cupar::cuda_error
/// Asynchronous: does not synchronise the stream; needs no temporary storage.
template <class SortedIt, class NeedleIt, class OutIt, class Comp,
          std::enable_if_t<detail::are_iterators_v<SortedIt, NeedleIt, OutIt> &&
                               detail::is_callable_op_v<Comp>,
                           int> = 0>
void equal_range(SortedIt d_sorted, std::size_t n, NeedleIt d_needles, std::size_t m, OutIt d_lower,
                 OutIt d_upper, Comp comp, stream_ref stream) {
  using T = detail::it_value_t<NeedleIt>;
  using Index = detail::out_value_t<OutIt, std::size_t>;
  const char* fn = "cupar::equal_range";
  detail::check_equal_range(fn, detail::range_address(d_sorted), n,
                            detail::range_address(d_needles), m, detail::range_address(d_lower),
                            detail::range_address(d_upper), sizeof(T), sizeof(Index),
                            static_cast<std::uint64_t>(std::numeric_limits<Index>::max()));
  detail::search_impl(fn, d_sorted, n, d_needles, m, d_lower, comp, false, stream);
  detail::search_impl(fn, d_sorted, n, d_needles, m, d_upper, comp, true, stream);
}

}  // namespace cupar
