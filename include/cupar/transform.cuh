// cupar: element-wise transforms with a C++ operator (compiled by nvcc).
#pragma once

#include <cupar/detail/checks.hpp>
#include <cupar/detail/cuda_check.hpp>
#include <cupar/detail/device_guard.hpp>
#include <cupar/detail/op_wrap.cuh>
#include <cupar/stream.hpp>

#include <cub/device/device_transform.cuh>

#include <cuda/std/tuple>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace cupar {

/// d_out[i] = op(d_in[i]) for i in [0, n). The output type may differ from the input type: the
/// operator's result is converted to Out.
///
/// @param d_in   device input (may be null when n == 0)
/// @param d_out  device output; may be the same range as d_in (in place, same element size),
///               must not otherwise overlap it
/// @param n      number of elements (64-bit)
/// @param op     unary operator In -> Out (functor or extended __device__ lambda)
/// @param stream stream the transform runs on
/// @throws std::invalid_argument for null pointers with n > 0 or a partial overlap
/// @throws cupar::cuda_error
/// Asynchronous; needs no temporary storage.
template <class In, class Out, class Op, std::enable_if_t<detail::is_callable_op_v<Op>, int> = 0>
void transform(const In* d_in, Out* d_out, std::size_t n, Op op, stream_ref stream) {
  constexpr const char* fn = "cupar::transform";
  const detail::device_guard device(stream);
  detail::require_size(fn, n, sizeof(In) > sizeof(Out) ? sizeof(In) : sizeof(Out));
  detail::require_data(fn, "d_in", d_in, n);
  detail::require_data(fn, "d_out", d_out, n);
  detail::require_same_or_disjoint(fn, "d_in", d_in, n * sizeof(In), "d_out", d_out,
                                   n * sizeof(Out));
  if (n == 0) return;
  detail::check_cuda(
      cub::DeviceTransform::Transform(d_in, d_out, static_cast<std::int64_t>(n),
                                      detail::with_result_type<Out>(op), stream.get()),
      "cub::DeviceTransform::Transform");
}

/// d_out[i] = op(d_a[i], d_b[i]) for i in [0, n). Parameters as the unary transform; the output
/// may be the same range as either input.
template <class A, class B, class Out, class Op,
          std::enable_if_t<detail::is_callable_op_v<Op>, int> = 0>
void transform(const A* d_a, const B* d_b, Out* d_out, std::size_t n, Op op, stream_ref stream) {
  constexpr const char* fn = "cupar::transform";
  const detail::device_guard device(stream);
  detail::require_size(fn, n,
                       sizeof(A) > sizeof(B) ? (sizeof(A) > sizeof(Out) ? sizeof(A) : sizeof(Out))
                                             : (sizeof(B) > sizeof(Out) ? sizeof(B) : sizeof(Out)));
  detail::require_data(fn, "d_a", d_a, n);
  detail::require_data(fn, "d_b", d_b, n);
  detail::require_data(fn, "d_out", d_out, n);
  detail::require_same_or_disjoint(fn, "d_a", d_a, n * sizeof(A), "d_out", d_out, n * sizeof(Out));
  detail::require_same_or_disjoint(fn, "d_b", d_b, n * sizeof(B), "d_out", d_out, n * sizeof(Out));
  if (n == 0) return;
  detail::check_cuda(cub::DeviceTransform::Transform(
                         ::cuda::std::make_tuple(d_a, d_b), d_out, static_cast<std::int64_t>(n),
                         detail::with_result_type<Out>(op), stream.get()),
                     "cub::DeviceTransform::Transform");
}

}  // namespace cupar
