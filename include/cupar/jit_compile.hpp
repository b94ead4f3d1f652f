// cupar: compile-only builds of run-time operators. They run the whole pipeline up to, not
// including, loading (NVRTC, then nvJitLink to a cubin for the given architecture) and need no
// GPU: use them to validate operators ahead of time, or in tests on machines without a GPU. They
// throw cupar::jit_error exactly as the algorithms would.
#pragma once

#include <cupar/detail/jit_entry.hpp>
#include <cupar/jit.hpp>
#include <cupar/jit_iterator.hpp>

#include <memory>

namespace cupar {
namespace detail {
struct jit_compile_args {
  enum kind_t {
    reduce,
    scan_inclusive,
    scan_exclusive,
    transform_unary,
    transform_binary,
    sort_keys,
    sort_pairs,
    histogram_even,
    histogram_range,
    data_processing,   // `what` says which
    transform_reduce,  // types {In, Acc}; op: the reduction, op2: the transform
  } kind;
  const jit_type* types[3];
  scalar level;
  std::size_t counter_size;
  const ::cupar::jit::op* op;
  int arch;
  bool optimized;
  dp_op what = dp_op::select_if;
  const ::cupar::jit::op* op2 = nullptr;         // data_processing: the second slot's operator
  const ::cupar::jit::iterator* iter = nullptr;  // reduce, scans: an iterator expression input
  // transform over expressions (the "for_each" set): the output, and the second input
  const ::cupar::jit::output* out = nullptr;
  const ::cupar::jit::iterator* iter2 = nullptr;
};
CUPAR_EXPORT ::cupar::jit::build_report jit_compile(const jit_compile_args& args);
/// Builds (or finds) what a plan runs, for the current device (see plan.hpp).
CUPAR_EXPORT std::shared_ptr<plan_state> jit_make_plan(const jit_compile_args& args);
}  // namespace detail

namespace jit {

/// Builds `op` as reduce's operator on T for sm_<arch>. `optimized`: the inlined (LTO) build,
/// else the quick out-of-line one. Throws cupar::jit_error.
template <class T>
build_report compile_reduce(const op& o, int arch = 90, bool optimized = true) {
  return ::cupar::detail::jit_compile({::cupar::detail::jit_compile_args::reduce,
                                       {&::cupar::detail::jit_type_of<T>(), nullptr, nullptr},
                                       ::cupar::detail::scalar{},
                                       0,
                                       &o,
                                       arch,
                                       optimized});
}

namespace detail {
/// A compile-only build of `kind` over expressions: reduce or a scan of `in` into `type` (with an
/// output expression `out`: a scan written through it), or transform (`type` null) of `in` (and
/// `in2`) into `out`.
inline build_report compile_over(::cupar::detail::jit_compile_args::kind_t kind,
                                 const ::cupar::detail::jit_type* type, const iterator& in,
                                 const iterator* in2, const output* out, const op& o, int arch,
                                 bool optimized) {
  ::cupar::detail::jit_compile_args a{
      kind, {type, nullptr, nullptr}, ::cupar::detail::scalar{}, 0, &o, arch, optimized};
  a.iter = &in;
  a.iter2 = in2;
  a.out = out;
  return ::cupar::detail::jit_compile(a);
}
template <class T>
build_report compile_over(::cupar::detail::jit_compile_args::kind_t kind, const iterator& in,
                          const op& o, int arch, bool optimized) {
  return compile_over(kind, &::cupar::detail::jit_type_of<T>(), in, nullptr, nullptr, o, arch,
                      optimized);
}
}  // namespace detail

/// As compile_reduce, for a reduce over the iterator expression `in` into T (the expression's
/// code and the operator built together, linked to the "+index" kernels). Null arrays are
/// allowed (nothing runs).
template <class T>
build_report compile_reduce(const iterator& in, const op& o, int arch = 90, bool optimized = true) {
  return detail::compile_over<T>(::cupar::detail::jit_compile_args::reduce, in, o, arch, optimized);
}

/// As compile_scan, for a scan of the iterator expression `in` into T (the "+index" scan sets).
template <class T>
build_report compile_scan(const iterator& in, const op& o, bool inclusive, int arch = 90,
                          bool optimized = true) {
  return detail::compile_over<T>(inclusive ? ::cupar::detail::jit_compile_args::scan_inclusive
                                           : ::cupar::detail::jit_compile_args::scan_exclusive,
                                 in, o, arch, optimized);
}

/// As compile_scan, for a scan of the iterator expression `in` into the output expression `out`
/// with values of type T (the "+io" scan sets).
template <class T>
build_report compile_scan(const iterator& in, const output& out, const op& o, bool inclusive,
                          int arch = 90, bool optimized = true) {
  return detail::compile_over(inclusive ? ::cupar::detail::jit_compile_args::scan_inclusive
                                        : ::cupar::detail::jit_compile_args::scan_exclusive,
                              &::cupar::detail::jit_type_of<T>(), in, nullptr, &out, o, arch,
                              optimized);
}

/// As compile_reduce, for transform_reduce: `transform` (In -> Acc, argument `x`) and the
/// reduction `op` (Acc x Acc -> Acc) built together.
template <class In, class Acc>
build_report compile_transform_reduce(const op& transform, const op& o, int arch = 90,
                                      bool optimized = true) {
  ::cupar::detail::jit_compile_args a{
      ::cupar::detail::jit_compile_args::transform_reduce,
      {&::cupar::detail::jit_type_of<In>(), &::cupar::detail::jit_type_of<Acc>(), nullptr},
      ::cupar::detail::scalar{},
      0,
      &o,
      arch,
      optimized};
  a.op2 = &transform;
  return ::cupar::detail::jit_compile(a);
}

/// As compile_reduce, for an inclusive or exclusive scan's operator.
template <class T>
build_report compile_scan(const op& o, bool inclusive, int arch = 90, bool optimized = true) {
  return ::cupar::detail::jit_compile({inclusive
                                           ? ::cupar::detail::jit_compile_args::scan_inclusive
                                           : ::cupar::detail::jit_compile_args::scan_exclusive,
                                       {&::cupar::detail::jit_type_of<T>(), nullptr, nullptr},
                                       ::cupar::detail::scalar{},
                                       0,
                                       &o,
                                       arch,
                                       optimized});
}

/// As compile_reduce, for a unary transform In -> Out.
template <class In, class Out>
build_report compile_transform(const op& o, int arch = 90, bool optimized = true) {
  return ::cupar::detail::jit_compile(
      {::cupar::detail::jit_compile_args::transform_unary,
       {&::cupar::detail::jit_type_of<In>(), &::cupar::detail::jit_type_of<Out>(), nullptr},
       ::cupar::detail::scalar{},
       0,
       &o,
       arch,
       optimized});
}

/// As compile_reduce, for transform over expressions (transform.hpp): `in` an iterator
/// expression (or an array), `out` an output expression (or an array), `o` unary (argument x).
/// What transform runs for them: the "for_each" set with the code generated for their shape (also
/// what a call on pointers runs for types without precompiled CUB transform kernels; the typed
/// compile_transform<In, Out> builds CUB's kernels, which plans use). Null arrays are allowed.
inline build_report compile_transform(const iterator& in, const output& out, const op& o,
                                      int arch = 90, bool optimized = true) {
  return detail::compile_over(::cupar::detail::jit_compile_args::transform_unary, nullptr, in,
                              nullptr, &out, o, arch, optimized);
}
/// As above, for a binary transform (arguments a, b) of two expressions.
inline build_report compile_transform(const iterator& a, const iterator& b, const output& out,
                                      const op& o, int arch = 90, bool optimized = true) {
  return detail::compile_over(::cupar::detail::jit_compile_args::transform_binary, nullptr, a, &b,
                              &out, o, arch, optimized);
}

/// As compile_reduce, for a binary transform (A, B) -> Out.
template <class A, class B, class Out>
build_report compile_transform2(const op& o, int arch = 90, bool optimized = true) {
  return ::cupar::detail::jit_compile(
      {::cupar::detail::jit_compile_args::transform_binary,
       {&::cupar::detail::jit_type_of<A>(), &::cupar::detail::jit_type_of<B>(),
        &::cupar::detail::jit_type_of<Out>()},
       ::cupar::detail::scalar{},
       0,
       &o,
       arch,
       optimized});
}

/// As compile_reduce, for a comparator sorting keys of type K (with values of type V).
template <class K, class V = void>
build_report compile_sort(const op& o, int arch = 90, bool optimized = true) {
  if constexpr (std::is_void_v<V>) {
    return ::cupar::detail::jit_compile({::cupar::detail::jit_compile_args::sort_keys,
                                         {&::cupar::detail::jit_type_of<K>(), nullptr, nullptr},
                                         ::cupar::detail::scalar{},
                                         0,
                                         &o,
                                         arch,
                                         optimized});
  } else {
    return ::cupar::detail::jit_compile(
        {::cupar::detail::jit_compile_args::sort_pairs,
         {&::cupar::detail::jit_type_of<K>(), &::cupar::detail::jit_type_of<V>(), nullptr},
         ::cupar::detail::scalar{},
         0,
         &o,
         arch,
         optimized});
  }
}

/// As compile_reduce, for a histogram's sample operator Sample -> Level with Counter counters.
template <class Sample, class Level, class Counter = unsigned int>
build_report compile_histogram(const op& o, bool even, int arch = 90, bool optimized = true) {
  static_assert(::cupar::detail::is_scalar_v<Level>, "histogram levels are arithmetic");
  return ::cupar::detail::jit_compile({even ? ::cupar::detail::jit_compile_args::histogram_even
                                            : ::cupar::detail::jit_compile_args::histogram_range,
                                       {&::cupar::detail::jit_type_of<Sample>(), nullptr, nullptr},
                                       ::cupar::detail::scalar_of<Level>(),
                                       sizeof(Counter),
                                       &o,
                                       arch,
                                       optimized});
}

namespace detail {
template <class T, class U = void>
build_report compile_dp(::cupar::detail::dp_op what, const op* first, const op* second, int arch,
                        bool optimized) {
  const ::cupar::detail::jit_type* u = nullptr;
  if constexpr (!std::is_void_v<U>) u = &::cupar::detail::jit_type_of<U>();
  ::cupar::detail::jit_compile_args a{::cupar::detail::jit_compile_args::data_processing,
                                      {&::cupar::detail::jit_type_of<T>(), u, nullptr},
                                      ::cupar::detail::scalar{},
                                      0,
                                      first,
                                      arch,
                                      optimized};
  a.what = what;
  a.op2 = second;
  return ::cupar::detail::jit_compile(a);
}
}  // namespace detail

// Compile-only builds of the data-processing families' operators (see compile_reduce). A null
// equality or comparator stands for the default (==, <), whose precompiled object is linked.

namespace detail {
template <class T>
build_report compile_dp_over(::cupar::detail::dp_op what, const iterator& in, const output* out,
                             const op* o, int arch, bool optimized) {
  ::cupar::detail::jit_compile_args a{::cupar::detail::jit_compile_args::data_processing,
                                      {&::cupar::detail::jit_type_of<T>(), nullptr, nullptr},
                                      ::cupar::detail::scalar{},
                                      0,
                                      o,
                                      arch,
                                      optimized};
  a.what = what;
  a.iter = &in;
  a.out = out;
  return ::cupar::detail::jit_compile(a);
}
}  // namespace detail

/// select_if, partition and unique reading the iterator expression `in` as elements of T (the
/// "+index" stream compaction sets: the expression's code and the operator built together).
template <class T>
build_report compile_select_if(const iterator& in, const op& pred, int arch = 90,
                               bool optimized = true) {
  return detail::compile_dp_over<T>(::cupar::detail::dp_op::select_if, in, nullptr, &pred, arch,
                                    optimized);
}
template <class T>
build_report compile_partition(const iterator& in, const op& pred, int arch = 90,
                               bool optimized = true) {
  return detail::compile_dp_over<T>(::cupar::detail::dp_op::partition, in, nullptr, &pred, arch,
                                    optimized);
}
/// unique over an expression; a null equality stands for ==.
template <class T>
build_report compile_unique(const iterator& in, const op* eq, int arch = 90,
                            bool optimized = true) {
  return detail::compile_dp_over<T>(::cupar::detail::dp_op::unique, in, nullptr, eq, arch,
                                    optimized);
}
/// select_if, partition and unique reading `in` and storing through the output expression `out`
/// as they compact (the "+io" stream compaction sets, which a call uses when its output writes
/// nothing it reads; an array input is the expression of that array).
template <class T>
build_report compile_select_if(const iterator& in, const output& out, const op& pred, int arch = 90,
                               bool optimized = true) {
  return detail::compile_dp_over<T>(::cupar::detail::dp_op::select_if, in, &out, &pred, arch,
                                    optimized);
}
template <class T>
build_report compile_partition(const iterator& in, const output& out, const op& pred, int arch = 90,
                               bool optimized = true) {
  return detail::compile_dp_over<T>(::cupar::detail::dp_op::partition, in, &out, &pred, arch,
                                    optimized);
}
template <class T>
build_report compile_unique(const iterator& in, const output& out, const op* eq, int arch = 90,
                            bool optimized = true) {
  return detail::compile_dp_over<T>(::cupar::detail::dp_op::unique, in, &out, eq, arch, optimized);
}

/// select_if's predicate on T.
template <class T>
build_report compile_select_if(const op& pred, int arch = 90, bool optimized = true) {
  return detail::compile_dp<T>(::cupar::detail::dp_op::select_if, &pred, nullptr, arch, optimized);
}
/// partition's predicate on T.
template <class T>
build_report compile_partition(const op& pred, int arch = 90, bool optimized = true) {
  return detail::compile_dp<T>(::cupar::detail::dp_op::partition, &pred, nullptr, arch, optimized);
}
/// three_way_partition's two predicates on T.
template <class T>
build_report compile_three_way_partition(const op& first, const op& second, int arch = 90,
                                         bool optimized = true) {
  return detail::compile_dp<T>(::cupar::detail::dp_op::three_way_partition, &first, &second, arch,
                               optimized);
}
/// unique's equality on T.
template <class T>
build_report compile_unique(const op* eq, int arch = 90, bool optimized = true) {
  return detail::compile_dp<T>(::cupar::detail::dp_op::unique, eq, nullptr, arch, optimized);
}
/// unique_by_key's equality on keys K with values V.
template <class K, class V>
build_report compile_unique_by_key(const op* eq, int arch = 90, bool optimized = true) {
  return detail::compile_dp<K, V>(::cupar::detail::dp_op::unique_by_key, eq, nullptr, arch,
                                  optimized);
}
/// run_length_encode on keys K with Count counts (a 4- or 8-byte integer): no operator of the
/// caller's; the precompiled equal_to of K is linked (structs compile their operator== from
/// source).
template <class K, class Count>
build_report compile_run_length_encode(int arch = 90, bool optimized = true) {
  static_assert(std::is_integral_v<Count> && (sizeof(Count) == 4 || sizeof(Count) == 8),
                "run_length_encode counts are 4- or 8-byte integers");
  return detail::compile_dp<K, Count>(::cupar::detail::dp_op::run_length_encode, nullptr, nullptr,
                                      arch, optimized);
}
/// reduce_by_key's operator on values V and equality on keys K.
template <class K, class V>
build_report compile_reduce_by_key(const op& reduction, const op* eq, int arch = 90,
                                   bool optimized = true) {
  return detail::compile_dp<K, V>(::cupar::detail::dp_op::reduce_by_key, &reduction, eq, arch,
                                  optimized);
}
/// An inclusive or exclusive scan-by-key's operator on values V and equality on keys K.
template <class K, class V>
build_report compile_scan_by_key(const op& scan, const op* eq, bool inclusive, int arch = 90,
                                 bool optimized = true) {
  return detail::compile_dp<K, V>(inclusive ? ::cupar::detail::dp_op::inclusive_scan_by_key
                                            : ::cupar::detail::dp_op::exclusive_scan_by_key,
                                  &scan, eq, arch, optimized);
}
/// segmented_reduce's operator on T.
template <class T>
build_report compile_segmented_reduce(const op& reduction, int arch = 90, bool optimized = true) {
  return detail::compile_dp<T>(::cupar::detail::dp_op::segmented_reduce, &reduction, nullptr, arch,
                               optimized);
}
/// A segmented inclusive or exclusive scan's operator on T.
template <class T>
build_report compile_segmented_scan(const op& scan, bool inclusive, int arch = 90,
                                    bool optimized = true) {
  return detail::compile_dp<T>(inclusive ? ::cupar::detail::dp_op::segmented_inclusive_scan
                                         : ::cupar::detail::dp_op::segmented_exclusive_scan,
                               &scan, nullptr, arch, optimized);
}
/// lower_bound / upper_bound's comparator on T, writing Index positions.
template <class T, class Index>
build_report compile_binary_search(const op* comp, int arch = 90, bool optimized = true) {
  return detail::compile_dp<T, Index>(::cupar::detail::dp_op::lower_bound, comp, nullptr, arch,
                                      optimized);
}

}  // namespace jit
}  // namespace cupar
