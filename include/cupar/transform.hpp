// cupar: element-wise transforms with a run-time operator (any host compiler). The overloads
// taking C++ callables are in transform.cuh; both behave the same.
#pragma once

#include <cupar/detail/jit_entry.hpp>
#include <cupar/jit.hpp>
#include <cupar/jit_iterator.hpp>
#include <cupar/memory.hpp>
#include <cupar/stream.hpp>

#include <cstddef>

namespace cupar::detail {
// The library operations this header calls (jit_entry.hpp).
CUPAR_JIT_CALL(transform)
}  // namespace cupar::detail

namespace cupar {

/// d_out[i] = op(d_in[i]) with a run-time operator of argument `x` (e.g. "x * s + t" with
/// parameters s and t); the result is converted to Out. d_out may be the same range as d_in.
/// Types whose CUB transform kernels the library precompiled (T -> T for the arithmetic types,
/// struct classes) run CUB's kernels; other combinations (mixed types, other structs) run the
/// "for_each" kernels below, ready in tens of milliseconds instead of a build from source.
/// @throws std::invalid_argument, cupar::jit_error, cupar::cuda_error
/// Asynchronous; needs no temporary storage.
template <class In, class Out>
void transform(const In* d_in, Out* d_out, std::size_t n, const jit::op& op, stream_ref stream) {
  detail::jit_args a{"cupar::transform",
                     &detail::transform_call(),
                     {&detail::jit_type_of<In>(), &detail::jit_type_of<Out>()},
                     {d_in}};
  a.out[0] = d_out;
  a.n = n;
  a.ops[0] = &op;
  detail::jit_run(a, stream, default_resource());
}

/// out[i] = op(in[i]) over run-time expressions (jit_iterator.hpp): `in` an iterator expression
/// or an array, `out` an output expression (an array, jit::discard(), jit::transform_output) or
/// an array; op's result converted to what `out` takes. One fused pass: the library's "for_each"
/// kernels call code generated for the expressions' shape, so any combination of types (structs
/// included) is ready in tens of milliseconds and compiles no kernels; the same shape over other
/// arrays compiles nothing. Where `in` and `out` are both plain arrays they may be the same range
/// but not overlap otherwise; ranges inside other expressions are not checked.
/// @throws std::invalid_argument (a null array with n > 0, overlapping arrays, an expression's
///         state over cupar::jit::max_expression_state_bytes), cupar::jit_error, cupar::cuda_error
/// Asynchronous; needs no temporary storage.
inline void transform(const jit::iterator& in, const jit::output& out, std::size_t n,
                      const jit::op& op, stream_ref stream) {
  detail::jit_args a{"cupar::transform", &detail::transform_call()};
  a.in_iter[0] = &in;
  a.out_iter[0] = &out;
  a.n = n;
  a.ops[0] = &op;
  detail::jit_run(a, stream, default_resource());
}

/// out[i] = op(a[i], b[i]) over run-time expressions (arguments `a`, `b`), as the unary form.
inline void transform(const jit::iterator& a, const jit::iterator& b, const jit::output& out,
                      std::size_t n, const jit::op& op, stream_ref stream) {
  detail::jit_args args{"cupar::transform", &detail::transform_call()};
  args.in_iter[0] = &a;
  args.in_iter[1] = &b;
  args.out_iter[0] = &out;
  args.n = n;
  args.ops[0] = &op;
  detail::jit_run(args, stream, default_resource());
}

/// d_out[i] = op(d_a[i], d_b[i]) with a run-time operator of arguments `a`, `b`.
template <class A, class B, class Out>
void transform(const A* d_a, const B* d_b, Out* d_out, std::size_t n, const jit::op& op,
               stream_ref stream) {
  detail::jit_args a{
      "cupar::transform",
      &detail::transform_call(),
      {&detail::jit_type_of<A>(), &detail::jit_type_of<B>(), &detail::jit_type_of<Out>()},
      {d_a, d_b}};
  a.out[0] = d_out;
  a.n = n;
  a.ops[0] = &op;
  detail::jit_run(a, stream, default_resource());
}

namespace jit {

// Compile-only builds (jit_compile.hpp says what they are for).

/// As compile_reduce (reduce.hpp), for a unary transform In -> Out (CUB's transform kernels).
template <class In, class Out>
build_report compile_transform(const op& o, int arch = 90, bool optimized = true) {
  return ::cupar::detail::jit_compile_call(
      ::cupar::detail::transform_call(), &::cupar::detail::jit_type_of<In>(),
      &::cupar::detail::jit_type_of<Out>(), &o, nullptr, arch, optimized);
}

/// As compile_reduce, for transform over expressions: `in` an iterator expression (or an
/// array), `out` an output expression (or an array), `o` unary (argument x). What transform runs
/// for them: the "for_each" set with the code generated for their shape (also what a call on
/// pointers runs for types without precompiled CUB transform kernels; the typed
/// compile_transform<In, Out> builds CUB's kernels, which plans use). Null arrays are allowed.
inline build_report compile_transform(const iterator& in, const output& out, const op& o,
                                      int arch = 90, bool optimized = true) {
  return ::cupar::detail::jit_compile_call(::cupar::detail::transform_call(), nullptr, nullptr, &o,
                                           nullptr, arch, optimized, &in, &out);
}

/// As above, for a binary transform (arguments a, b) of two expressions.
inline build_report compile_transform(const iterator& a, const iterator& b, const output& out,
                                      const op& o, int arch = 90, bool optimized = true) {
  ::cupar::detail::jit_args args{"cupar::jit::compile", &::cupar::detail::transform_call(), {}};
  args.ops[0] = &o;
  args.in_iter[0] = &a;
  args.in_iter[1] = &b;
  args.out_iter[0] = &out;
  return ::cupar::detail::jit_compile(args, arch, optimized);
}

/// As compile_reduce, for a binary transform (A, B) -> Out.
template <class A, class B, class Out>
build_report compile_transform2(const op& o, int arch = 90, bool optimized = true) {
  ::cupar::detail::jit_args a{
      "cupar::jit::compile",
      &::cupar::detail::transform_call(),
      {&::cupar::detail::jit_type_of<A>(), &::cupar::detail::jit_type_of<B>(),
       &::cupar::detail::jit_type_of<Out>()}};
  a.ops[0] = &o;
  return ::cupar::detail::jit_compile(a, arch, optimized);
}

}  // namespace jit

}  // namespace cupar
