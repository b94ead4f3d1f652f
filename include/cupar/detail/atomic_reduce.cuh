// cupar internal: the single-pass sum of reduce(..., determinism::not_guaranteed, ...): every
// block reduces its share of the input with CUB's reduce agent and adds its total to the output
// with one atomic add, so there is no second kernel, no array of block totals and no temporary
// storage. The order in which the blocks' totals reach the output changes from run to run, so a
// floating-point sum may differ in its last bits between runs (integer sums are exact).
//
// The shape of CUB's own not-guaranteed reduce (CCCL 3.1; CUDA 13.0 ships 3.0.1, which lacks it),
// written here on 3.0.1's agent: the output is zeroed first, block 0 adds the initial value. One
// difference: a grid of one block (n up to one tile) stores its total, no zeroing, no atomic.
#pragma once

#include <cupar/detail/count_width.hpp>
#include <cupar/detail/device_guard.hpp>

#include <cub/agent/agent_reduce.cuh>
#include <cub/device/dispatch/tuning/tuning_reduce.cuh>
#include <cub/grid/grid_even_share.cuh>
#include <cub/util_arch.cuh>
#include <cub/util_device.cuh>

#include <cuda/std/functional>

#include <cuda_runtime_api.h>

#include <atomic>
#include <cstddef>
#include <type_traits>

namespace cupar::detail {

/// Whether the GPU adds values of T atomically in one instruction (32- and 64-bit integers,
/// float, double): the element types of the single-pass sum.
template <class T>
inline constexpr bool atomic_addable_v = (std::is_integral_v<T> && !std::is_same_v<T, bool> &&
                                          (sizeof(T) == 4 || sizeof(T) == 8)) ||
                                         std::is_same_v<T, float> || std::is_same_v<T, double>;

/// Whether `Op` is a sum of T the single-pass reduce may replace by atomic adds: cuda::std::plus,
/// of T or transparent. Any other operator (a lambda computing a + b included) runs the run-to-run
/// reduce.
template <class T, class Op>
inline constexpr bool is_plus_of_v =
    std::is_same_v<Op, ::cuda::std::plus<T>> || std::is_same_v<Op, ::cuda::std::plus<>>;

template <class T, class Op>
inline constexpr bool atomic_sum_v = atomic_addable_v<T>&& is_plus_of_v<T, Op>;

/// One atomic add of v to *out (relaxed; signed 64-bit integers through their unsigned bits, which
/// wrap the same way).
template <class T>
__device__ __forceinline__ void atomic_add_to(T* out, T v) {
  if constexpr (std::is_integral_v<T> && sizeof(T) == 8) {
    atomicAdd(reinterpret_cast<unsigned long long*>(out), static_cast<unsigned long long>(v));
  } else if constexpr (std::is_integral_v<T>) {
    atomicAdd(reinterpret_cast<unsigned int*>(out), static_cast<unsigned int>(v));
  } else {
    atomicAdd(out, v);
  }
}

/// The single-pass sum's policy: CUB 3.0.1's reduce tuning for sm_60 to sm_90 (256 threads, 16
/// items of 4 bytes a thread, scaled for wider types; vector loads of pointers).
template <class T, class Offset>
using atomic_sum_policy =
    typename cub::detail::reduce::policy_hub<T, Offset,
                                             ::cuda::std::plus<>>::Policy600::ReducePolicy;

/// The kernel: block b reduces its even share of transform(in[i]), i < n; block 0 adds `init` (a
/// T, or a reader of a cupar::device_value converting to T when the kernel runs). n == 0: *out =
/// init.
template <class Policy, class InIt, class T, class Offset, class Init, class Transform>
__global__ void __launch_bounds__(Policy::BLOCK_THREADS)
    atomic_sum_kernel(InIt in, T* out, Offset n, cub::GridEvenShare<Offset> share, Init init,
                      Transform transform) {
  if (n == 0) {
    if (threadIdx.x == 0) *out = static_cast<T>(init);
    return;
  }
  using agent =
      cub::detail::reduce::AgentReduce<Policy, InIt, T*, Offset, ::cuda::std::plus<>, T, Transform>;
  __shared__ typename agent::TempStorage storage;
  T total = agent(storage, in, ::cuda::std::plus<>{}, transform).ConsumeTiles(share);
  if (threadIdx.x != 0) return;
  if (blockIdx.x == 0) total = static_cast<T>(static_cast<T>(init) + total);
  if (gridDim.x == 1) {
    *out = total;
  } else {
    atomic_add_to(out, total);
  }
}

/// Queues the single-pass sum of transform(in[i]), i < n, plus init into *out on `stream`: a
/// zeroing of *out and one kernel (the kernel alone for a grid of one block). A transform applied
/// here, to a pointer, keeps CUB's vector loads (a transform iterator would load item by item).
/// Returns the first CUDA error.
template <class InIt, class T, class Init, class Transform = ::cuda::std::__identity>
cudaError_t atomic_sum(InIt in, T* out, std::size_t n, Init init, cudaStream_t stream,
                       Transform transform = {}) {
  return with_count_width(n, [&](auto count) -> cudaError_t {
    using offset = decltype(count);
    using policy = atomic_sum_policy<T, offset>;
    const auto kernel = atomic_sum_kernel<policy, InIt, T, offset, Init, Transform>;
    constexpr int threads = policy::BLOCK_THREADS;
    constexpr int tile = policy::BLOCK_THREADS * policy::ITEMS_PER_THREAD;
    static std::atomic<int> known[64] = {};
    int occupancy = 0;
    cudaError_t e =
        current_occupancy(reinterpret_cast<const void*>(kernel), threads, known, occupancy);
    if (e != cudaSuccess) return e;
    const int sms = current_multiprocessor_count();
    // n == 0: one block stores init (DispatchInit would divide by its zero grid size).
    cub::GridEvenShare<offset> share;
    if (count > 0) {
      const int max_blocks = occupancy * sms * cub::detail::subscription_factor;
      share.DispatchInit(count, max_blocks > 0 ? max_blocks : 1, tile);
    }
    const int grid = share.grid_size > 1 ? share.grid_size : 1;
    if (grid > 1) {
      e = cudaMemsetAsync(out, 0, sizeof(T), stream);
      if (e != cudaSuccess) return e;
    }
    kernel<<<grid, threads, 0, stream>>>(in, out, count, share, init, transform);
    return cudaPeekAtLastError();
  });
}

}  // namespace cupar::detail
