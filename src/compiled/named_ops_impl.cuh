// cupar internal: named-operator reduce and scan, instantiated per element type.
#pragma once

#include "named_ops.hpp"

#include <cupar/detail/atomic_reduce.cuh>
#include <cupar/detail/checks.hpp>
#include <cupar/detail/count_width.hpp>
#include <cupar/detail/op_wrap.cuh>
#include <cupar/detail/temp_storage.hpp>

#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>

#include <cuda/functional>
#include <cuda/std/functional>

#include <type_traits>

namespace cupar::detail {

template <class T, class F>
void with_named_functor(cupar::jit::named_op named, F&& f) {
  switch (named) {
    case cupar::jit::named_op::plus:
      return f(::cuda::std::plus<T>{});
    case cupar::jit::named_op::multiplies:
      return f(::cuda::std::multiplies<T>{});
    case cupar::jit::named_op::minimum:
      return f(::cuda::minimum<T>{});
    case cupar::jit::named_op::maximum:
      return f(::cuda::maximum<T>{});
    default:
      break;
  }
  if constexpr (std::is_integral_v<T>) {
    switch (named) {
      case cupar::jit::named_op::bit_and:
        return f(::cuda::std::bit_and<T>{});
      case cupar::jit::named_op::bit_or:
        return f(::cuda::std::bit_or<T>{});
      case cupar::jit::named_op::bit_xor:
        return f(::cuda::std::bit_xor<T>{});
      default:
        break;
    }
  }
  throw_invalid_argument("cupar::jit", "named operator has no precompiled instantiation here");
}

template <class T>
void named_reduce(cupar::jit::named_op named, const T* d_in, T* d_out, std::size_t n, T init,
                  bool any_order, stream_ref stream, memory_resource& mr) {
  if constexpr (atomic_addable_v<T>) {
    // The output is zeroed before the input is read: one inside the input takes CUB's reduce.
    if (any_order && named == cupar::jit::named_op::plus &&
        !ranges_overlap(d_in, n * sizeof(T), d_out, sizeof(T))) {
      check_cuda(atomic_sum(d_in, d_out, n, init, stream.get()), "cupar::reduce");
      return;
    }
  }
  with_named_functor<T>(named, [&](auto functor) {
    const auto op = transparent_op<T>(functor);
    run_with_temp_storage("cub::DeviceReduce::Reduce", mr, stream, {n},
                          [&](void* temp, std::size_t& bytes) {
                            return with_count_width(n, [&](auto count) {
                              return cub::DeviceReduce::Reduce(temp, bytes, d_in, d_out, count, op,
                                                               init, stream.get());
                            });
                          });
  });
}

template <class T>
void named_scan(cupar::jit::named_op named, const T* d_in, T* d_out, std::size_t n, const T* init,
                stream_ref stream, memory_resource& mr) {
  with_named_functor<T>(named, [&](auto functor) {
    const auto op = transparent_op<T>(functor);
    if (init == nullptr) {
      run_with_temp_storage(
          "cub::DeviceScan::InclusiveScan", mr, stream, {n}, [&](void* temp, std::size_t& bytes) {
            return cub::DeviceScan::InclusiveScan(temp, bytes, d_in, d_out, op, n, stream.get());
          });
    } else {
      const T value = *init;
      run_with_temp_storage("cub::DeviceScan::ExclusiveScan", mr, stream, {n},
                            [&](void* temp, std::size_t& bytes) {
                              return cub::DeviceScan::ExclusiveScan(temp, bytes, d_in, d_out, op,
                                                                    value, n, stream.get());
                            });
    }
  });
}

}  // namespace cupar::detail
