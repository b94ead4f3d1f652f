// cupar: element-wise transforms with a C++ operator (compiled by nvcc).
#pragma once

#include <cupar/detail/checks.hpp>
#include <cupar/detail/cuda_check.hpp>
#include <cupar/detail/device_guard.hpp>
#include <cupar/detail/iterators.cuh>
#include <cupar/detail/op_wrap.cuh>
#include <cupar/stream.hpp>

#include <cub/device/device_transform.cuh>

#include <cuda/std/tuple>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace cupar {

/// d_out[i] = op(d_in[i]) for i in [0, n). The output type may differ from the input type: the
/// operator's result is converted to Out, the output's value type (the input's value type for an
/// output that has none, such as Thrust's discard_iterator).
///
/// @param d_in   device input: a pointer (null only when n == 0) or any random-access input
///               iterator CUB takes (Thrust's fancy iterators, user-written ones)
/// @param d_out  device output: a pointer or an output iterator; a pointer may be the same range
///               as a pointer d_in (in place, same element size) and must not otherwise overlap it
/// @param n      number of elements (64-bit)
/// @param op     unary operator In -> Out (functor or extended __device__ lambda)
/// @param stream stream the transform runs on
/// @throws std::invalid_argument for null pointers with n > 0 or a partial overlap
/// @throws cupar::cuda_error
/// Asynchronous; needs no temporary storage.
template <class InIt, class OutIt, class Op,
          std::enable_if_t<detail::is_iterator_v<InIt> && detail::is_iterator_v<OutIt> &&
                               detail::is_callable_op_v<Op>,
                           int> = 0>
void transform(InIt d_in, OutIt d_out, std::size_t n, Op op, stream_ref stream) {
  using In = detail::it_value_t<InIt>;
  using Out = detail::out_value_t<OutIt, In>;
  constexpr const char* fn = "cupar::transform";
  const detail::device_guard device(stream);
  detail::require_size(fn, n, sizeof(In) > sizeof(Out) ? sizeof(In) : sizeof(Out));
  detail::require_range(fn, "d_in", d_in, n);
  detail::require_range(fn, "d_out", d_out, n);
  detail::require_same_or_disjoint(fn, "d_in", detail::range_address(d_in), n * sizeof(In), "d_out",
                                   detail::range_address(d_out), n * sizeof(Out));
  if (n == 0) return;
  detail::check_cuda(
      cub::DeviceTransform::Transform(d_in, d_out, static_cast<std::int64_t>(n),
                                      detail::with_result_type<Out>(op), stream.get()),
      "cub::DeviceTransform::Transform");
}

/// d_out[i] = op(d_a[i], d_b[i]) for i in [0, n). Parameters as the unary transform (iterators
/// included); the output may be the same range as either input.
template <class AIt, class BIt, class OutIt, class Op,
          std::enable_if_t<detail::is_iterator_v<AIt> && detail::is_iterator_v<BIt> &&
                               detail::is_iterator_v<OutIt> && detail::is_callable_op_v<Op>,
                           int> = 0>
void transform(AIt d_a, BIt d_b, OutIt d_out, std::size_t n, Op op, stream_ref stream) {
  using A = detail::it_value_t<AIt>;
  using B = detail::it_value_t<BIt>;
  using Out = detail::out_value_t<OutIt, A>;
  constexpr const char* fn = "cupar::transform";
  const detail::device_guard device(stream);
  detail::require_size(fn, n,
                       sizeof(A) > sizeof(B) ? (sizeof(A) > sizeof(Out) ? sizeof(A) : sizeof(Out))
                                             : (sizeof(B) > sizeof(Out) ? sizeof(B) : sizeof(Out)));
  detail::require_range(fn, "d_a", d_a, n);
  detail::require_range(fn, "d_b", d_b, n);
  detail::require_range(fn, "d_out", d_out, n);
  const void* out = detail::range_address(d_out);
  detail::require_same_or_disjoint(fn, "d_a", detail::range_address(d_a), n * sizeof(A), "d_out",
                                   out, n * sizeof(Out));
  detail::require_same_or_disjoint(fn, "d_b", detail::range_address(d_b), n * sizeof(B), "d_out",
                                   out, n * sizeof(Out));
  if (n == 0) return;
  detail::check_cuda(cub::DeviceTransform::Transform(
                         ::cuda::std::make_tuple(d_a, d_b), d_out, static_cast<std::int64_t>(n),
                         detail::with_result_type<Out>(op), stream.get()),
                     "cub::DeviceTransform::Transform");
}

}  // namespace cupar
