// cupar: element-wise transforms with a run-time operator (any host compiler). The overloads
// taking C++ callables are in transform.cuh; both behave the same.
#pragma once

#include <cupar/detail/jit_entry.hpp>
#include <cupar/jit.hpp>
#include <cupar/jit_iterator.hpp>
#include <cupar/stream.hpp>

#include <cstddef>

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
  detail::jit_transform({"cupar::transform",
                         1,
                         {&detail::jit_type_of<In>(), nullptr},
                         {d_in, nullptr},
                         &detail::jit_type_of<Out>(),
                         d_out,
                         n,
                         &op},
                        stream);
}

/// out[i] = op(in[i]) over run-time expressions (jit_iterator.hpp): `in` an iterator expression
/// or an array, `out` an output expression (an array, jit::discard(), jit::transform_output) or
/// an array; op's result converted to what `out` takes. One fused pass: the library's "for_each"
/// kernels call code generated for the expressions' shape, so any combination of types (structs
/// included) is ready in tens of milliseconds and compiles no kernels; the same shape over other
/// arrays compiles nothing. Where `in` and `out` are both plain arrays they may be the same range
/// but not overlap otherwise; ranges inside other expressions are not checked.
/// @throws std::invalid_argument (a null array with n > 0, overlapping arrays, an expression's
///         state over cupar::jit::max_param_bytes), cupar::jit_error, cupar::cuda_error
/// Asynchronous; needs no temporary storage.
inline void transform(const jit::iterator& in, const jit::output& out, std::size_t n,
                      const jit::op& op, stream_ref stream) {
  const jit::iterator* ins[2] = {&in, nullptr};
  detail::jit_transform_apply({"cupar::transform", 1, {ins[0], ins[1]}, &out, n, &op}, stream);
}

/// out[i] = op(a[i], b[i]) over run-time expressions (arguments `a`, `b`), as the unary form.
inline void transform(const jit::iterator& a, const jit::iterator& b, const jit::output& out,
                      std::size_t n, const jit::op& op, stream_ref stream) {
  detail::jit_transform_apply({"cupar::transform", 2, {&a, &b}, &out, n, &op}, stream);
}

/// d_out[i] = op(d_a[i], d_b[i]) with a run-time operator of arguments `a`, `b`.
template <class A, class B, class Out>
void transform(const A* d_a, const B* d_b, Out* d_out, std::size_t n, const jit::op& op,
               stream_ref stream) {
  detail::jit_transform({"cupar::transform",
                         2,
                         {&detail::jit_type_of<A>(), &detail::jit_type_of<B>()},
                         {d_a, d_b},
                         &detail::jit_type_of<Out>(),
                         d_out,
                         n,
                         &op},
                        stream);
}

}  // namespace cupar
