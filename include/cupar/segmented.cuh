// cupar: segmented reduce and segmented scans with C++ operators (compiled by nvcc in the caller's
// translation unit). The segment rules, the sorts (no operator) and check_segments are in
// segmented.hpp; both operator kinds behave the same.
#pragma once

#include <cupar/detail/device/segmented_scan.cuh>
#include <cupar/detail/device_guard.hpp>
#include <cupar/detail/dp_checks.hpp>
#include <cupar/detail/dp_dispatch.cuh>
#include <cupar/detail/iterators.cuh>
#include <cupar/detail/op_traits.hpp>
#include <cupar/detail/op_wrap.cuh>
#include <cupar/detail/temp_storage.hpp>
#include <cupar/memory.hpp>
#include <cupar/segmented.hpp>
#include <cupar/stream.hpp>

#include <cub/detail/launcher/cuda_runtime.cuh>
#include <cub/device/device_segmented_reduce.cuh>
#include <cub/util_device.cuh>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace cupar {
namespace detail {

/// The segmented scan's kernels for the caller's types, and the active policy's launch shape for
/// the current device (CUB's chained-policy selection, as CUB's own dispatch does it).
template <class T, class ScanOp, class InitT, class InIt = const T*, class OutIt = T*>
struct segmented_scan_kernels {
  using max_policy = typename segscan::tuning<T, ScanOp>::hub::MaxPolicy;

  struct shape_reader {
    segscan::shape s;
    template <class Active>
    CUB_RUNTIME_FUNCTION cudaError_t Invoke() {
      s.threads = Active::ScanByKeyPolicyT::BLOCK_THREADS;
      s.items = Active::ScanByKeyPolicyT::ITEMS_PER_THREAD;
      return cudaSuccess;
    }
  };

  cudaError_t shape(segscan::shape& s) const {
    int ptx_version = 0;
    cudaError_t error = cub::PtxVersion(ptx_version);
    if (error != cudaSuccess) return error;
    shape_reader reader;
    error = max_policy::Invoke(ptx_version, reader);
    s = reader.s;
    return error;
  }
  auto init_kernel() const { return &segscan::init_kernel<segscan::tile_state_t<T>>; }
  auto sweep_kernel() const {
    return &segscan::sweep_kernel<max_policy, T, ScanOp, InitT, InIt, OutIt>;
  }
  segscan::tile_state_t<T> tile_state() const { return {}; }
};

template <class InIt, class OutIt, class Op, class InitT>
void segmented_scan_impl(const char* fn, InIt d_in, OutIt d_out, std::size_t n,
                         std::size_t num_segments, const std::int64_t* d_begin,
                         const std::int64_t* d_end, Op op, InitT init, stream_ref stream,
                         memory_resource& mr) {
  using T = it_value_t<InIt>;
  const device_guard on_device(stream);  // run on the stream's device
  static_assert(std::is_trivially_copyable_v<T>, "cupar: T must be trivially copyable");
  static_assert(std::is_trivially_copyable_v<Op>,
                "cupar: the operator must be trivially copyable (it is passed to the GPU by "
                "value); capture by value, not by reference to host objects");
  check_segmented_scan(fn, range_address(d_in), range_address(d_out), n, num_segments, d_begin,
                       d_end, sizeof(T));
  if (n == 0 || num_segments == 0) return;
  run_with_temp_storage(
      "cupar segmented scan", mr, stream, {n}, [&](void* temp, std::size_t& bytes) {
        return segscan::dispatch(temp, bytes, d_in, d_out, static_cast<std::int64_t>(n),
                                 static_cast<std::int64_t>(num_segments), d_begin, d_end, op, init,
                                 stream.get(), segmented_scan_kernels<T, Op, InitT, InIt, OutIt>{},
                                 cub::detail::TripleChevronFactory{});
      });
}

}  // namespace detail

/// Reduces each segment s of d_in with `op`, starting from `init`, into d_out[s]:
/// init op x_begin op ... op x_end-1 in CUB's order (op must be associative; its operands keep
/// their order). An empty segment gets init. CUB's DeviceSegmentedReduce (one block per segment).
///
/// @param d_in          device values: a pointer (null only when n == 0) or any random-access
///                      input iterator CUB takes
/// @param d_out         device results, one per segment: a pointer or an output iterator; a
///                      pointer must not overlap a pointer d_in or the offsets
/// @param n             number of values d_in holds (the segments index [0, n))
/// @param num_segments  number of segments (may exceed 2^31)
/// @param d_begin_offsets, d_end_offsets  the segments (segmented.hpp: any order, overlaps
///                      allowed): pointers to 64-bit offsets or random-access iterators of
///                      integers (fixed-size segments from a Thrust transform of a counting
///                      iterator need no offset array)
/// @param op            binary operator T x T -> T: a functor, a cuda::std function object or an
///                      extended __device__ lambda (a trailing return type is not needed)
/// @param init          initial value of every segment
/// @param stream        stream the reduction runs on
/// @param mr            resource for temporary storage
/// @throws std::invalid_argument for null pointers with non-zero counts or overlapping arrays
/// @throws cupar::out_of_memory, cupar::cuda_error
/// Asynchronous: does not synchronise the stream.
template <class InIt, class OutIt, class BeginIt, class EndIt, class Op,
          std::enable_if_t<detail::are_iterators_v<InIt, OutIt, BeginIt, EndIt> &&
                               detail::is_callable_op_v<Op>,
                           int> = 0>
void segmented_reduce(InIt d_in, OutIt d_out, std::size_t n, std::size_t num_segments,
                      BeginIt d_begin_offsets, EndIt d_end_offsets, Op op,
                      detail::it_value_t<InIt> init, stream_ref stream,
                      memory_resource& mr = default_resource()) {
  using T = detail::it_value_t<InIt>;
  const detail::device_guard on_device(stream);  // run on the stream's device
  static_assert(std::is_trivially_copyable_v<T>,
                "cupar::segmented_reduce: T must be trivially copyable");
  constexpr const char* fn = "cupar::segmented_reduce";
  detail::check_segmented_reduce(fn, detail::range_address(d_in), detail::range_address(d_out), n,
                                 num_segments, detail::range_address(d_begin_offsets),
                                 detail::range_address(d_end_offsets), sizeof(T));
  if (num_segments == 0) return;
  auto cub_op = detail::with_result_type<T>(detail::transparent_op<T>(op));
  detail::run_with_temp_storage("cub::DeviceSegmentedReduce::Reduce", mr, stream, {num_segments},
                                [&](void* temp, std::size_t& bytes) {
                                  return cub::DeviceSegmentedReduce::Reduce(
                                      temp, bytes, d_in, d_out,
                                      static_cast<std::int64_t>(num_segments), d_begin_offsets,
                                      d_end_offsets, cub_op, init, stream.get());
                                });
}

/// Inclusive scan of each segment with `op`: for an item i of segment s,
/// d_out[i] = d_in[begin_s] op ... op d_in[i]; each segment starts afresh. Items outside every
/// segment are not written. A single-pass scan deriving segment heads from the offsets (no key
/// array is materialised).
///
/// @param d_in          device values: a pointer (null only when n == 0) or any random-access
///                      input iterator
/// @param d_out         device output of n items: a pointer or an output iterator; a pointer may
///                      equal a pointer d_in (in place), must not otherwise overlap it, nor
///                      overlap the offsets
/// @param n             number of items (64-bit)
/// @param num_segments  number of segments
/// @param d_begin_offsets, d_end_offsets  the segments: in increasing order and disjoint
///                      (d_end_offsets[s] <= d_begin_offsets[s + 1])
/// @param op            associative binary operator T x T -> T (functor or extended __device__
///                      lambda)
/// @throws as segmented_reduce. Asynchronous. Floating-point results may differ from a sequential
/// scan by rounding, and between runs.
template <
    class InIt, class OutIt, class Op,
    std::enable_if_t<detail::are_iterators_v<InIt, OutIt> && detail::is_callable_op_v<Op>, int> = 0>
void segmented_inclusive_scan(InIt d_in, OutIt d_out, std::size_t n, std::size_t num_segments,
                              const std::int64_t* d_begin_offsets,
                              const std::int64_t* d_end_offsets, Op op, stream_ref stream,
                              memory_resource& mr = default_resource()) {
  detail::segmented_scan_impl("cupar::segmented_inclusive_scan", d_in, d_out, n, num_segments,
                              d_begin_offsets, d_end_offsets, op, cub::NullType{}, stream, mr);
}

/// Exclusive scan of each segment with `op`, each segment starting from `init`:
/// d_out[begin_s] = init, and for a later item i of segment s
/// d_out[i] = init op d_in[begin_s] op ... op d_in[i - 1]. Items outside every segment are not
/// written. Parameters, exceptions and synchronisation as segmented_inclusive_scan.
template <
    class InIt, class OutIt, class Op,
    std::enable_if_t<detail::are_iterators_v<InIt, OutIt> && detail::is_callable_op_v<Op>, int> = 0>
void segmented_exclusive_scan(InIt d_in, OutIt d_out, std::size_t n, std::size_t num_segments,
                              const std::int64_t* d_begin_offsets,
                              const std::int64_t* d_end_offsets, Op op,
                              detail::it_value_t<InIt> init, stream_ref stream,
                              memory_resource& mr = default_resource()) {
  detail::segmented_scan_impl("cupar::segmented_exclusive_scan", d_in, d_out, n, num_segments,
                              d_begin_offsets, d_end_offsets, op, init, stream, mr);
}

}  // namespace cupar
