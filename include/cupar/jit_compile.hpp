// cupar: compile-only builds of run-time operators. They run the whole pipeline up to, not
// including, loading (NVRTC, then nvJitLink to a cubin for the given architecture) and need no
// GPU: use them to validate operators ahead of time, or in tests on machines without a GPU. They
// throw cupar::jit_error exactly as the algorithms would.
#pragma once

#include <cupar/detail/jit_entry.hpp>
#include <cupar/jit.hpp>

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
  } kind;
  const jit_type* types[3];
  scalar level;
  std::size_t counter_size;
  const ::cupar::jit::op* op;
  int arch;
  bool optimized;
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

}  // namespace jit
}  // namespace cupar
