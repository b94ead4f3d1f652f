// cupar: reduce with a C++ operator (compiled by nvcc in the caller's translation unit).
#pragma once

#include <cupar/detail/atomic_reduce.cuh>
#include <cupar/detail/checks.hpp>
#include <cupar/detail/count_width.hpp>
#include <cupar/detail/device_guard.hpp>
#include <cupar/detail/iterators.cuh>
#include <cupar/detail/op_wrap.cuh>
#include <cupar/detail/temp_storage.hpp>
#include <cupar/memory.hpp>
#include <cupar/stream.hpp>
#include <cupar/types.hpp>

#include <cub/device/device_reduce.cuh>

#include <cstddef>
#include <type_traits>

namespace cupar {
namespace detail {

/// reduce's CUB call over d_in[0, n) as a two-phase functor (temp, bytes, d_out) -> cudaError_t
/// (temp == nullptr sizes it), shared by reduce() and reduce_value().
template <class InIt, class Op, class T>
auto reduce_call(InIt d_in, std::size_t n, Op op, T init, stream_ref stream) {
  auto cub_op = with_result_type<T>(transparent_op<T>(op));
  return [=](void* temp, std::size_t& bytes, auto d_out) {
    return with_count_width(n, [&](auto count) {
      if constexpr (transform_of_pointer<InIt>::value) {
        return cub::DeviceReduce::TransformReduce(temp, bytes, d_in.base(), d_out, count, cub_op,
                                                  d_in.functor(), init, stream.get());
      } else {
        return cub::DeviceReduce::Reduce(temp, bytes, d_in, d_out, count, cub_op, init,
                                         stream.get());
      }
    });
  };
}

/// transform_reduce's CUB call, as reduce_call (shared by transform_reduce() and
/// transform_reduce_value()).
template <class Acc, class InIt, class Transform, class Op>
auto transform_reduce_call(InIt d_in, std::size_t n, Transform transform, Op op, Acc init,
                           stream_ref stream) {
  auto cub_op = with_result_type<Acc>(transparent_op<Acc>(op));
  auto cub_transform = always_returning<Acc>(transform);
  return [=](void* temp, std::size_t& bytes, Acc* d_out) {
    return with_count_width(n, [&](auto count) {
      return cub::DeviceReduce::TransformReduce(temp, bytes, d_in, d_out, count, cub_op,
                                                cub_transform, init, stream.get());
    });
  };
}

/// A cupar::device_value as CUB's reduce kernels take an initial value: read when they run (the
/// last kernel applies it to the total, or stores it when n == 0).
template <class T>
struct device_init {
  const T* ptr;
  __host__ __device__ __forceinline__ operator T() const { return *ptr; }
};

/// The reduction operator with an initial value read from device memory: `op` on values of T, and
/// on the device_init CUB passes first (it is read then).
template <class T, class Op>
struct with_device_init {
  Op op;
  __device__ __forceinline__ T operator()(const T& a, const T& b) const { return op(a, b); }
  __device__ __forceinline__ T operator()(const device_init<T>& a, const T& b) const {
    return op(static_cast<T>(a), b);
  }
};

/// reduce's CUB call with an initial value in device memory, as reduce_call. CUB's dispatch with
/// the initial value's type (DeviceReduce::Reduce takes only host values), the tuning of the
/// operator itself.
template <class InIt, class Op, class T>
auto reduce_device_init_call(InIt d_in, std::size_t n, Op op, const T* init, stream_ref stream) {
  auto cub_op = with_result_type<T>(transparent_op<T>(op));
  using reading = with_device_init<T, decltype(cub_op)>;
  return [=](void* temp, std::size_t& bytes, auto d_out) {
    return with_count_width(n, [&](auto count) {
      using offset = cub::detail::choose_offset_t<decltype(count)>;
      using dispatch =
          cub::DispatchReduce<InIt, decltype(d_out), offset, reading, device_init<T>, T,
                              ::cuda::std::__identity,
                              cub::detail::reduce::policy_hub<T, offset, decltype(cub_op)>>;
      return dispatch::Dispatch(temp, bytes, d_in, d_out, static_cast<offset>(count),
                                reading{cub_op}, device_init<T>{init}, stream.get());
    });
  };
}

/// Runs `run(temp, bytes, d_out)`, a CUB-style two-phase reduction writing one T to d_out, with
/// the result slot and CUB's temporary storage in one allocation, and returns the result to the
/// host, synchronising `stream` (a fault of an operator is reported here, named `fn`).
template <class T, class Run>
T reduce_to_host(const char* fn, const char* call, std::size_t n, stream_ref stream,
                 memory_resource& mr, Run&& run) {
  T* d_out = nullptr;
  auto sized = [&](void* temp, std::size_t& bytes) { return run(temp, bytes, d_out); };
  std::size_t cub_bytes = required_temp_bytes(call, {n}, sized);
  const std::size_t slot = align_up(sizeof(T), 256);
  temp_storage temp(mr, slot + cub_bytes, stream);
  d_out = static_cast<T*>(temp.get());
  check_cuda(sized(static_cast<unsigned char*>(temp.get()) + slot, cub_bytes), call);
  T result;
  check_cuda(cudaMemcpyAsync(&result, d_out, sizeof(T), cudaMemcpyDeviceToHost, stream.get()), fn);
  check_cuda(cudaStreamSynchronize(stream.get()), fn);
  return result;
}

}  // namespace detail

/// Reduces `d_in[0, n)` with `op`, starting from `init`, into `*d_out` (device memory).
///
/// `d_in` is any random-access input iterator CUB takes (a device pointer, a Thrust counting,
/// transform, zip, permutation ... iterator, or a user-written one): a transform iterator fuses
/// the transform into the reduction (one pass, no temporary array). T is its value type;
/// `d_out` is a pointer or an output iterator.
///
/// The result combines init and every element in CUB's tree order: `op` must be associative and
/// commutative. CUB's reduction reads the elements in its own order (threads take strided
/// items), so an operator that is not commutative gives a different result for another n or
/// another split of the data (seen with an affine-map composition, docs/DISTRIBUTED.md); use an
/// inclusive scan's last element for an ordered fold. For floating-point sums the result
/// differs from a sequential sum by rounding, but is the same from run to run on one GPU.
///
/// @param d_in   device input (a null pointer only when n == 0)
/// @param d_out  device output, one T; receives `init` when n == 0
/// @param n      number of elements (64-bit)
/// @param op     binary operator T x T -> T: a functor, a cuda::std function object or an
///               extended __device__ lambda (a trailing return type is not needed)
/// @param init   initial value (the identity of `op` for the usual reductions)
/// @param stream stream the reduction runs on
/// @param mr     resource for temporary storage
/// @throws std::invalid_argument if d_in is a null pointer with n > 0 or d_out a null pointer
/// @throws cupar::out_of_memory, cupar::cuda_error
/// Asynchronous: does not synchronise the stream.
template <class InIt, class OutIt, class Op,
          std::enable_if_t<detail::is_iterator_v<InIt> && detail::is_iterator_v<OutIt> &&
                               detail::is_callable_op_v<Op>,
                           int> = 0>
void reduce(InIt d_in, OutIt d_out, std::size_t n, Op op, detail::it_value_t<InIt> init,
            stream_ref stream, memory_resource& mr = default_resource()) {
  using T = detail::it_value_t<InIt>;
  static_assert(std::is_trivially_copyable_v<T>, "cupar::reduce: T must be trivially copyable");
  constexpr const char* fn = "cupar::reduce";
  const detail::device_guard device(stream);
  detail::require_size(fn, n, sizeof(T));
  detail::require_range(fn, "d_in", d_in, n);
  detail::require_pointer(fn, "d_out", detail::range_address(d_out));
  const auto call = detail::reduce_call(d_in, n, op, init, stream);
  detail::run_with_temp_storage(
      "cub::DeviceReduce::Reduce", mr, stream, {n},
      [&](void* temp, std::size_t& bytes) { return call(temp, bytes, d_out); });
}

/// As reduce(), starting from the value at `init.ptr` in device memory, read when the kernels run
/// (cupar::device_value: e.g. a total an earlier kernel on the stream wrote, with no copy to the
/// host). @throws std::invalid_argument also for a null init.ptr. Asynchronous.
template <class InIt, class OutIt, class Op,
          std::enable_if_t<detail::is_iterator_v<InIt> && detail::is_iterator_v<OutIt> &&
                               detail::is_callable_op_v<Op>,
                           int> = 0>
void reduce(InIt d_in, OutIt d_out, std::size_t n, Op op,
            device_value<detail::it_value_t<InIt>> init, stream_ref stream,
            memory_resource& mr = default_resource()) {
  using T = detail::it_value_t<InIt>;
  static_assert(std::is_trivially_copyable_v<T>, "cupar::reduce: T must be trivially copyable");
  constexpr const char* fn = "cupar::reduce";
  const detail::device_guard device(stream);
  detail::require_pointer(fn, "init.ptr", init.ptr);
  detail::require_size(fn, n, sizeof(T));
  detail::require_range(fn, "d_in", d_in, n);
  detail::require_pointer(fn, "d_out", detail::range_address(d_out));
  const auto call = detail::reduce_device_init_call(d_in, n, op, init.ptr, stream);
  detail::run_with_temp_storage(
      "cub::DeviceReduce::Reduce", mr, stream, {n},
      [&](void* temp, std::size_t& bytes) { return call(temp, bytes, d_out); });
}

/// As reduce(), with the determinism the caller needs (cupar::determinism). With
/// determinism::not_guaranteed a sum (cuda::std::plus) of 32- or 64-bit integers,
/// float or double into a pointer runs in one pass: every block adds its total to `*d_out` with
/// one atomic add, with no second kernel and no temporary storage (so `mr` is not used), and a
/// floating-point result may differ in its last bits from run to run. Any other operator, type or
/// output (or an output inside the input array) runs the run-to-run reduce. An input iterator must
/// not read *d_out (it is zeroed first).
/// @throws std::invalid_argument as reduce(), and for an `order` that is not a determinism value
/// @throws cupar::out_of_memory, cupar::cuda_error
/// Asynchronous: does not synchronise the stream.
template <class InIt, class OutIt, class Op,
          std::enable_if_t<detail::is_iterator_v<InIt> && detail::is_iterator_v<OutIt> &&
                               detail::is_callable_op_v<Op>,
                           int> = 0>
void reduce(InIt d_in, OutIt d_out, std::size_t n, Op op, detail::it_value_t<InIt> init,
            determinism order, stream_ref stream, memory_resource& mr = default_resource()) {
  using T = detail::it_value_t<InIt>;
  constexpr const char* fn = "cupar::reduce";
  detail::require_determinism(fn, order);
  if constexpr (detail::atomic_sum_v<T, Op> && std::is_same_v<OutIt, T*>) {
    // The output is zeroed before the input is read: an output inside the input array takes the
    // run-to-run reduce, which writes it last.
    const void* in_address = nullptr;
    std::size_t in_bytes = 0;
    if constexpr (detail::transform_of_pointer<InIt>::value) {
      in_address = d_in.base();
      in_bytes = n * sizeof(*d_in.base());
    } else {
      in_address = detail::range_address(d_in);
      in_bytes = n * sizeof(T);
    }
    if (order == determinism::not_guaranteed &&
        !detail::ranges_overlap(in_address, in_bytes, d_out, sizeof(T))) {
      const detail::device_guard device(stream);
      detail::require_size(fn, n, sizeof(T));
      detail::require_range(fn, "d_in", d_in, n);
      detail::require_pointer(fn, "d_out", d_out);
      if constexpr (detail::transform_of_pointer<InIt>::value) {
        detail::check_cuda(
            detail::atomic_sum(d_in.base(), d_out, n, init, stream.get(), d_in.functor()), fn);
      } else {
        detail::check_cuda(detail::atomic_sum(d_in, d_out, n, init, stream.get()), fn);
      }
      return;
    }
  }
  reduce(d_in, d_out, n, op, init, stream, mr);
}

/// Reduces like reduce() and returns the result to the host. Synchronises `stream` (only it).
/// @throws as reduce()
template <class InIt, class Op,
          std::enable_if_t<detail::is_iterator_v<InIt> && detail::is_callable_op_v<Op>, int> = 0>
detail::it_value_t<InIt> reduce_value(InIt d_in, std::size_t n, Op op,
                                      detail::it_value_t<InIt> init, stream_ref stream,
                                      memory_resource& mr = default_resource()) {
  using T = detail::it_value_t<InIt>;
  static_assert(std::is_trivially_copyable_v<T>,
                "cupar::reduce_value: T must be trivially copyable");
  constexpr const char* fn = "cupar::reduce_value";
  const detail::device_guard device(stream);
  detail::require_size(fn, n, sizeof(T));
  detail::require_range(fn, "d_in", d_in, n);
  return detail::reduce_to_host<T>(fn, "cub::DeviceReduce::Reduce", n, stream, mr,
                                   detail::reduce_call(d_in, n, op, init, stream));
}

/// Reduces transform(d_in[i]) for i in [0, n) with `op`, starting from `init`, into `*d_out`, in
/// one pass (CUB's TransformReduce: the elements are loaded, vectorised for arithmetic pointers,
/// and transformed in registers). The same as reduce() over a transform iterator; the run-time form
/// is in reduce.hpp.
///
/// @param d_in      device elements: a pointer (null only when n == 0) or any random-access input
///                  iterator
/// @param d_out     device result, one Acc (a pointer); receives `init` when n == 0
/// @param transform unary operator In -> Acc (functor or extended __device__ lambda)
/// @param op        binary operator Acc x Acc -> Acc (associative)
/// @throws std::invalid_argument if d_in is a null pointer with n > 0 or d_out is null
/// @throws cupar::out_of_memory, cupar::cuda_error
/// Asynchronous: does not synchronise the stream.
template <class InIt, class Acc, class Transform, class Op,
          std::enable_if_t<detail::is_iterator_v<InIt> && detail::is_callable_op_v<Transform> &&
                               detail::is_callable_op_v<Op>,
                           int> = 0>
void transform_reduce(InIt d_in, Acc* d_out, std::size_t n, Transform transform, Op op,
                      detail::type_identity_t<Acc> init, stream_ref stream,
                      memory_resource& mr = default_resource()) {
  static_assert(std::is_trivially_copyable_v<Acc>,
                "cupar::transform_reduce: Acc must be trivially copyable");
  constexpr const char* fn = "cupar::transform_reduce";
  const detail::device_guard device(stream);
  detail::require_size(fn, n, sizeof(detail::it_value_t<InIt>));
  detail::require_range(fn, "d_in", d_in, n);
  detail::require_pointer(fn, "d_out", d_out);
  const auto call = detail::transform_reduce_call<Acc>(d_in, n, transform, op, init, stream);
  detail::run_with_temp_storage(
      "cub::DeviceReduce::TransformReduce", mr, stream, {n},
      [&](void* temp, std::size_t& bytes) { return call(temp, bytes, d_out); });
}

/// As transform_reduce, and returns the result to the host; Acc is init's type. Synchronises
/// `stream` (only it).
template <class InIt, class Acc, class Transform, class Op,
          std::enable_if_t<detail::is_iterator_v<InIt> && detail::is_callable_op_v<Transform> &&
                               detail::is_callable_op_v<Op> && !std::is_pointer_v<Acc>,
                           int> = 0>
Acc transform_reduce_value(InIt d_in, std::size_t n, Transform transform, Op op, Acc init,
                           stream_ref stream, memory_resource& mr = default_resource()) {
  static_assert(std::is_trivially_copyable_v<Acc>,
                "cupar::transform_reduce_value: Acc must be trivially copyable");
  constexpr const char* fn = "cupar::transform_reduce_value";
  const detail::device_guard device(stream);
  detail::require_size(fn, n, sizeof(detail::it_value_t<InIt>));
  detail::require_range(fn, "d_in", d_in, n);
  return detail::reduce_to_host<Acc>(
      fn, "cub::DeviceReduce::TransformReduce", n, stream, mr,
      detail::transform_reduce_call<Acc>(d_in, n, transform, op, init, stream));
}

}  // namespace cupar
