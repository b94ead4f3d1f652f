// cupar: inclusive and exclusive scans with a C++ operator (compiled by nvcc).
#pragma once

#include <cupar/detail/checks.hpp>
#include <cupar/detail/device_guard.hpp>
#include <cupar/detail/iterators.cuh>
#include <cupar/detail/op_wrap.cuh>
#include <cupar/detail/temp_storage.hpp>
#include <cupar/memory.hpp>
#include <cupar/stream.hpp>
#include <cupar/types.hpp>

#include <cub/device/device_scan.cuh>

#include <cstddef>
#include <type_traits>

namespace cupar {
namespace detail {

/// The scans' checks of their input and output ranges: not null for n > 0, in place or disjoint.
template <class InIt, class OutIt>
void require_scan_ranges(const char* fn, InIt d_in, OutIt d_out, std::size_t n, std::size_t size) {
  require_size(fn, n, size);
  require_range(fn, "d_in", d_in, n);
  require_range(fn, "d_out", d_out, n);
  require_same_or_disjoint(fn, "d_in", range_address(d_in), n * size, "d_out", range_address(d_out),
                           n * size);
}

/// What the compiled scans share: T's check, the device guard, a device initial value's pointer
/// (when `has_device_init`) and the range checks, nothing queued for n == 0, then CUB's call
/// `call(temp, bytes, cub_op)` (named `cub_name` in errors) with the operator as CUB takes it.
template <class InIt, class OutIt, class Op, class Call>
void compiled_scan(const char* fn, const char* cub_name, InIt d_in, OutIt d_out, std::size_t n,
                   Op op, bool has_device_init, const void* device_init, stream_ref stream,
                   memory_resource& mr, Call&& call) {
  using T = it_value_t<InIt>;
  static_assert(std::is_trivially_copyable_v<T>,
                "cupar::inclusive_scan / exclusive_scan: T must be trivially copyable");
  const device_guard device(stream);
  if (has_device_init) require_pointer(fn, "init.ptr", device_init);
  require_scan_ranges(fn, d_in, d_out, n, sizeof(T));
  if (n == 0) return;
  auto cub_op = with_result_type<T>(transparent_op<T>(op));
  run_with_temp_storage(cub_name, mr, stream, {n},
                        [&](void* temp, std::size_t& bytes) { return call(temp, bytes, cub_op); });
}

}  // namespace detail

/// d_out[i] = d_in[0] op d_in[1] op ... op d_in[i].
///
/// `op` must be associative. Floating-point scans are not guaranteed bit-identical from run to run
/// (CUB's decoupled look-back may combine partial results in different groupings).
///
/// @param d_in   device input: a pointer (null only when n == 0) or any random-access input
///               iterator CUB takes (Thrust's fancy iterators, user-written ones); T is its value
///               type
/// @param d_out  device output of n elements: a pointer or an output iterator (a Thrust
///               transform_output_iterator applies its operator on write); a pointer may equal
///               d_in (in place) and must not otherwise overlap it
/// @param n      number of elements (64-bit)
/// @param op     binary operator T x T -> T (functor, cuda::std function object, device lambda)
/// @param stream stream the scan runs on
/// @param mr     resource for temporary storage
/// @throws std::invalid_argument for null pointers with n > 0 or a partial overlap
/// @throws cupar::out_of_memory, cupar::cuda_error
/// Asynchronous: does not synchronise the stream.
template <class InIt, class OutIt, class Op,
          std::enable_if_t<detail::is_iterator_v<InIt> && detail::is_iterator_v<OutIt> &&
                               detail::is_callable_op_v<Op>,
                           int> = 0>
void inclusive_scan(InIt d_in, OutIt d_out, std::size_t n, Op op, stream_ref stream,
                    memory_resource& mr = default_resource()) {
  detail::compiled_scan(
      "cupar::inclusive_scan", "cub::DeviceScan::InclusiveScan", d_in, d_out, n, op, false, nullptr,
      stream, mr, [&](void* temp, std::size_t& bytes, auto cub_op) {
        return cub::DeviceScan::InclusiveScan(temp, bytes, d_in, d_out, cub_op, n, stream.get());
      });
}

/// d_out[i] = init op d_in[0] op ... op d_in[i]: an inclusive scan seeded with `init` (CUB's
/// InclusiveScanInit). Parameters, exceptions and synchronisation as inclusive_scan.
template <class InIt, class OutIt, class Op,
          std::enable_if_t<detail::is_iterator_v<InIt> && detail::is_iterator_v<OutIt> &&
                               detail::is_callable_op_v<Op>,
                           int> = 0>
void inclusive_scan(InIt d_in, OutIt d_out, std::size_t n, Op op, detail::it_value_t<InIt> init,
                    stream_ref stream, memory_resource& mr = default_resource()) {
  detail::compiled_scan("cupar::inclusive_scan", "cub::DeviceScan::InclusiveScanInit", d_in, d_out,
                        n, op, false, nullptr, stream, mr,
                        [&](void* temp, std::size_t& bytes, auto cub_op) {
                          return cub::DeviceScan::InclusiveScanInit(temp, bytes, d_in, d_out,
                                                                    cub_op, init, n, stream.get());
                        });
}

/// As the seeded inclusive_scan, the initial value read from device memory at `init.ptr` when the
/// kernels run (cupar::device_value: e.g. a total an earlier kernel on the stream wrote, with no
/// copy to the host). @throws std::invalid_argument also for a null init.ptr. Asynchronous.
template <class InIt, class OutIt, class Op,
          std::enable_if_t<detail::is_iterator_v<InIt> && detail::is_iterator_v<OutIt> &&
                               detail::is_callable_op_v<Op>,
                           int> = 0>
void inclusive_scan(InIt d_in, OutIt d_out, std::size_t n, Op op,
                    device_value<detail::it_value_t<InIt>> init, stream_ref stream,
                    memory_resource& mr = default_resource()) {
  using T = detail::it_value_t<InIt>;
  using offset = cub::detail::choose_offset_t<std::size_t>;
  using init_value = cub::detail::InputValue<T>;
  const init_value future(cub::FutureValue<T>(const_cast<T*>(init.ptr)));
  detail::compiled_scan(
      "cupar::inclusive_scan", "cub::DeviceScan::InclusiveScanInit", d_in, d_out, n, op, true,
      init.ptr, stream, mr, [&](void* temp, std::size_t& bytes, auto cub_op) {
        using dispatch = cub::DispatchScan<InIt, OutIt, decltype(cub_op), init_value, offset, T,
                                           cub::ForceInclusive::Yes>;
        return dispatch::Dispatch(temp, bytes, d_in, d_out, cub_op, future, static_cast<offset>(n),
                                  stream.get());
      });
}

/// d_out[0] = init, d_out[i] = init op d_in[0] op ... op d_in[i - 1].
/// Parameters, exceptions and synchronisation as inclusive_scan; `init` seeds the scan.
template <class InIt, class OutIt, class Op,
          std::enable_if_t<detail::is_iterator_v<InIt> && detail::is_iterator_v<OutIt> &&
                               detail::is_callable_op_v<Op>,
                           int> = 0>
void exclusive_scan(InIt d_in, OutIt d_out, std::size_t n, Op op, detail::it_value_t<InIt> init,
                    stream_ref stream, memory_resource& mr = default_resource()) {
  detail::compiled_scan("cupar::exclusive_scan", "cub::DeviceScan::ExclusiveScan", d_in, d_out, n,
                        op, false, nullptr, stream, mr,
                        [&](void* temp, std::size_t& bytes, auto cub_op) {
                          return cub::DeviceScan::ExclusiveScan(temp, bytes, d_in, d_out, cub_op,
                                                                init, n, stream.get());
                        });
}

/// As exclusive_scan, the initial value read from device memory at `init.ptr` when the kernels run
/// (cupar::device_value). @throws std::invalid_argument also for a null init.ptr. Asynchronous.
template <class InIt, class OutIt, class Op,
          std::enable_if_t<detail::is_iterator_v<InIt> && detail::is_iterator_v<OutIt> &&
                               detail::is_callable_op_v<Op>,
                           int> = 0>
void exclusive_scan(InIt d_in, OutIt d_out, std::size_t n, Op op,
                    device_value<detail::it_value_t<InIt>> init, stream_ref stream,
                    memory_resource& mr = default_resource()) {
  using T = detail::it_value_t<InIt>;
  const cub::FutureValue<T> future(const_cast<T*>(init.ptr));
  detail::compiled_scan("cupar::exclusive_scan", "cub::DeviceScan::ExclusiveScan", d_in, d_out, n,
                        op, true, init.ptr, stream, mr,
                        [&](void* temp, std::size_t& bytes, auto cub_op) {
                          return cub::DeviceScan::ExclusiveScan(temp, bytes, d_in, d_out, cub_op,
                                                                future, n, stream.get());
                        });
}

}  // namespace cupar
