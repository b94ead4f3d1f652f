// cupar: element-wise transforms with a run-time operator (any host compiler). The overloads
// taking C++ callables are in transform.cuh; both behave the same.
#pragma once

#include <cupar/detail/jit_entry.hpp>
#include <cupar/jit.hpp>
#include <cupar/stream.hpp>

#include <cstddef>

namespace cupar {

/// d_out[i] = op(d_in[i]) with a run-time operator of argument `x` (e.g. "x * s + t" with
/// parameters s and t); the result is converted to Out. d_out may be the same range as d_in.
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
