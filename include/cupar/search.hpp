// cupar: vectorised binary search (any host compiler): lower_bound and upper_bound of many needles
// in one sorted range, with a run-time comparator or the default `<`. The overloads taking C++
// comparators are in search.cuh; both behave the same.
//
// Meaning (Thrust's vectorised lower_bound / upper_bound, std::lower_bound per needle): for each
// needle j, d_out[j] is the first position p in [0, n] such that
//   lower_bound: !comp(d_sorted[p], needle)   (the first element not before the needle)
//   upper_bound:  comp(needle, d_sorted[p])   (the first element after the needle)
// or n when no element qualifies. d_sorted must be sorted by `comp`, a strict weak ordering
// (default: a < b). With duplicates, lower_bound gives the first of the equal elements and
// upper_bound one past the last.
//
// Floating point with the default `<`: -0.0 and +0.0 are equivalent. NaN is not ordered by `<`
// (every comparison with it is false): a NaN needle gets position 0 from lower_bound and n from
// upper_bound, and a range holding NaNs is not sorted by `<` (results unspecified). To search a
// range with NaNs at its end (as cupar::sort_keys puts +NaN, after +inf), pass a comparator that
// orders them there, such as cupar::jit::op("a < b || (a == a && b != b)").
//
// Positions are written as Index, an integer type of 4 or 8 bytes that holds n (kernels are
// precompiled in the library for every arithmetic T with 4- and 8-byte positions, and for
// records (CUPAR_JIT_STRUCT) of the data-processing struct classes, CUPAR_JIT_STRUCT_DP_CLASSES:
// a comparator on a record's fields, such as "a.day < b.day || (a.day == b.day && a.id < b.id)",
// is then all that compiles; records of other sizes compile the search kernel once).
#pragma once

#include <cupar/detail/dp_checks.hpp>
#include <cupar/detail/jit_entry.hpp>
#include <cupar/jit.hpp>
#include <cupar/jit_iterator.hpp>
#include <cupar/memory.hpp>
#include <cupar/stream.hpp>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace cupar::detail {
// The library operations this header calls (jit_entry.hpp).
CUPAR_JIT_CALL(lower_bound)
CUPAR_JIT_CALL(upper_bound)
}  // namespace cupar::detail

namespace cupar {
namespace detail {

template <class Index>
inline constexpr bool is_search_index_v =
    std::is_integral_v<Index> && !std::is_same_v<Index, bool> &&
    (sizeof(Index) == 4 || sizeof(Index) == 8);

/// equal_range's checks (dp_checks.hpp) before its first search writes anything; an expression's
/// needles are checked when they are written.
template <class T, class Index>
void check_equal_range(const T* d_sorted, std::size_t n, const ::cupar::jit::input<T>& needles,
                       std::size_t m, const Index* d_lower, const Index* d_upper) {
  check_equal_range("cupar::equal_range", d_sorted, n,
                    needles.expression() != nullptr ? unchecked_range() : needles.array(), m,
                    d_lower, d_upper, sizeof(T), sizeof(Index),
                    static_cast<std::uint64_t>(std::numeric_limits<Index>::max()));
}

template <class T, class Index, class Out>
void jit_search(const char* fn, const jit_call& what, const ::cupar::jit::input<T>& sorted,
                std::size_t n, const ::cupar::jit::input<T>& d_needles, std::size_t m,
                const Out& out, const ::cupar::jit::op* comp, stream_ref stream,
                memory_resource& mr) {
  static_assert(is_search_index_v<Index>,
                "cupar::lower_bound / upper_bound: positions are 4- or 8-byte integers");
  jit_args a{fn, &what};
  a.types[0] = &jit_type_of<T>();
  a.types[1] = &jit_type_of<Index>();
  set_input(a, 0, sorted);
  set_input(a, 1, d_needles);
  set_output(a, 0, out);
  a.n = n;
  a.m = m;
  a.ops[0] = comp;
  jit_run(a, stream, mr);
}

}  // namespace detail

/// For each of the m needles, the position of the first element of d_sorted[0, n) that is not
/// less than it under the run-time comparator `comp` (arguments `a`, `b`: "a < b" means a comes
/// before b), or n (see the top of this file).
///
/// @param d_sorted   device range sorted by comp (may be null when n == 0)
/// @param n          number of elements of the range (64-bit)
/// @param d_needles  device needles, or an iterator expression written to a temporary array of m
///                   needles first (jit::input; memory from `mr`); may be null when m == 0
/// @param m          number of needles (64-bit)
/// @param d_out      device positions, m of them; must not overlap d_sorted or d_needles
/// @param comp       strict weak ordering T x T -> bool; cupar::jit::less / greater compile
///                   nothing
/// @param stream     stream the search runs on
/// @param mr         where the temporaries of expression inputs and outputs come from (an array
///                   search with array positions needs none)
/// @throws std::invalid_argument for null pointers with non-zero counts, overlapping outputs, or
///         n larger than Index holds
/// @throws cupar::jit_error when the comparator does not compile (log and line inside)
/// @throws cupar::out_of_memory, cupar::cuda_error
/// Asynchronous: does not synchronise the stream.
template <class T, class Index>
void lower_bound(const T* d_sorted, std::size_t n, jit::input_t<T> d_needles, std::size_t m,
                 Index* d_out, const jit::op& comp, stream_ref stream,
                 memory_resource& mr = default_resource()) {
  detail::jit_search<T, Index>("cupar::lower_bound", detail::lower_bound_call(), d_sorted, n,
                               d_needles, m, d_out, &comp, stream, mr);
}
/// lower_bound with the sorted range an array or an iterator expression (written to a temporary
/// array of n elements first) and the positions written through an output expression (an array
/// of any integer type, jit::transform_output; see select.hpp's top); T and Index named.
template <class T, class Index>
void lower_bound(jit::input_t<T> sorted, std::size_t n, jit::input_t<T> d_needles, std::size_t m,
                 const jit::output& out, const jit::op& comp, stream_ref stream,
                 memory_resource& mr = default_resource()) {
  detail::jit_search<T, Index>("cupar::lower_bound", detail::lower_bound_call(), sorted, n,
                               d_needles, m, out, &comp, stream, mr);
}

/// lower_bound with the default comparator `<` on T (served by the library: kernels and the
/// comparator precompiled for arithmetic T; a struct needs a device-side operator< in its
/// CUPAR_JIT_TYPE definition).
template <class T, class Index>
void lower_bound(const T* d_sorted, std::size_t n, jit::input_t<T> d_needles, std::size_t m,
                 Index* d_out, stream_ref stream, memory_resource& mr = default_resource()) {
  detail::jit_search<T, Index>("cupar::lower_bound", detail::lower_bound_call(), d_sorted, n,
                               d_needles, m, d_out, nullptr, stream, mr);
}
/// lower_bound with `<` over expressions, T and Index named.
template <class T, class Index>
void lower_bound(jit::input_t<T> sorted, std::size_t n, jit::input_t<T> d_needles, std::size_t m,
                 const jit::output& out, stream_ref stream,
                 memory_resource& mr = default_resource()) {
  detail::jit_search<T, Index>("cupar::lower_bound", detail::lower_bound_call(), sorted, n,
                               d_needles, m, out, nullptr, stream, mr);
}

/// For each of the m needles, the position of the first element of d_sorted[0, n) that the needle
/// is less than under `comp`, or n. Parameters, exceptions and synchronisation as lower_bound.
template <class T, class Index>
void upper_bound(const T* d_sorted, std::size_t n, jit::input_t<T> d_needles, std::size_t m,
                 Index* d_out, const jit::op& comp, stream_ref stream,
                 memory_resource& mr = default_resource()) {
  detail::jit_search<T, Index>("cupar::upper_bound", detail::upper_bound_call(), d_sorted, n,
                               d_needles, m, d_out, &comp, stream, mr);
}
/// upper_bound over expressions, T and Index named (see lower_bound).
template <class T, class Index>
void upper_bound(jit::input_t<T> sorted, std::size_t n, jit::input_t<T> d_needles, std::size_t m,
                 const jit::output& out, const jit::op& comp, stream_ref stream,
                 memory_resource& mr = default_resource()) {
  detail::jit_search<T, Index>("cupar::upper_bound", detail::upper_bound_call(), sorted, n,
                               d_needles, m, out, &comp, stream, mr);
}

/// upper_bound with the default comparator `<` on T (see lower_bound).
template <class T, class Index>
void upper_bound(const T* d_sorted, std::size_t n, jit::input_t<T> d_needles, std::size_t m,
                 Index* d_out, stream_ref stream, memory_resource& mr = default_resource()) {
  detail::jit_search<T, Index>("cupar::upper_bound", detail::upper_bound_call(), d_sorted, n,
                               d_needles, m, d_out, nullptr, stream, mr);
}
/// upper_bound with `<` over expressions, T and Index named.
template <class T, class Index>
void upper_bound(jit::input_t<T> sorted, std::size_t n, jit::input_t<T> d_needles, std::size_t m,
                 const jit::output& out, stream_ref stream,
                 memory_resource& mr = default_resource()) {
  detail::jit_search<T, Index>("cupar::upper_bound", detail::upper_bound_call(), sorted, n,
                               d_needles, m, out, nullptr, stream, mr);
}

/// For each of the m needles, the range of the elements of d_sorted[0, n) equivalent to it under
/// `comp`: d_lower[j] as lower_bound gives it, d_upper[j] as upper_bound does (the equivalent
/// elements are [d_lower[j], d_upper[j]), empty when the needle is not there). Two searches: a
/// needle expression is evaluated (written to a temporary array) for each.
///
/// @param d_sorted   device range sorted by comp (may be null when n == 0)
/// @param n          number of elements of the range (64-bit)
/// @param d_needles  device needles or an iterator expression (jit::input); may be null when
///                   m == 0
/// @param m          number of needles (64-bit)
/// @param d_lower    device positions, m of them (4- or 8-byte integers holding n)
/// @param d_upper    device positions, m of them; neither output may overlap the other, d_sorted
///                   or d_needles
/// @param comp       strict weak ordering T x T -> bool; cupar::jit::less / greater compile
///                   nothing
/// @param stream     stream the searches run on
/// @param mr         where the temporaries of expression needles come from
/// @throws std::invalid_argument for null pointers with non-zero counts, overlapping outputs, or
///         n larger than Index holds (before anything runs)
/// @throws cupar::jit_error when the comparator does not compile (log and line inside)
/// @throws cupar::out_of_memory, cupar::cuda_error
/// Asynchronous: does not synchronise the stream.
template <class T, class Index>
void equal_range(const T* d_sorted, std::size_t n, jit::input_t<T> d_needles, std::size_t m,
                 Index* d_lower, Index* d_upper, const jit::op& comp, stream_ref stream,
                 memory_resource& mr = default_resource()) {
  detail::check_equal_range<T, Index>(d_sorted, n, d_needles, m, d_lower, d_upper);
  detail::jit_search<T, Index>("cupar::equal_range", detail::lower_bound_call(), d_sorted, n,
                               d_needles, m, d_lower, &comp, stream, mr);
  detail::jit_search<T, Index>("cupar::equal_range", detail::upper_bound_call(), d_sorted, n,
                               d_needles, m, d_upper, &comp, stream, mr);
}

/// equal_range with the default comparator `<` on T (see lower_bound).
template <class T, class Index>
void equal_range(const T* d_sorted, std::size_t n, jit::input_t<T> d_needles, std::size_t m,
                 Index* d_lower, Index* d_upper, stream_ref stream,
                 memory_resource& mr = default_resource()) {
  detail::check_equal_range<T, Index>(d_sorted, n, d_needles, m, d_lower, d_upper);
  detail::jit_search<T, Index>("cupar::equal_range", detail::lower_bound_call(), d_sorted, n,
                               d_needles, m, d_lower, nullptr, stream, mr);
  detail::jit_search<T, Index>("cupar::equal_range", detail::upper_bound_call(), d_sorted, n,
                               d_needles, m, d_upper, nullptr, stream, mr);
}

namespace jit {

// Compile-only builds (jit_compile.hpp says what they are for).

/// As compile_reduce (reduce.hpp), for lower_bound / upper_bound's comparator on T (null: <),
/// writing Index positions.
template <class T, class Index>
build_report compile_binary_search(const op* comp, int arch = 90, bool optimized = true) {
  return ::cupar::detail::jit_compile_call(
      ::cupar::detail::lower_bound_call(), &::cupar::detail::jit_type_of<T>(),
      &::cupar::detail::jit_type_of<Index>(), comp, nullptr, arch, optimized);
}

}  // namespace jit

}  // namespace cupar
