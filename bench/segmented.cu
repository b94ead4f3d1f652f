// cupar benchmarks: the segmented families and the binary search on the GPU: cupar's C++-callable
// path (and the library's segmented sort), CUB called directly, Thrust, on the data of
// segmented_runners.hpp; and the GPU helpers those runners declare.
//
//   segmented_reduce          cupar: cuda::std::plus<float>; cub: DeviceSegmentedReduce::Sum
//   segmented_inclusive_scan  cupar: cuda::std::plus<float>; cub_scan_by_key:
//                             DeviceScan::InclusiveScanByKey with cuda::std::plus<float> on u32
//                             segment ids materialised before timing (not timed). The copy
//                             bound is the copy/cuda_memcpy row.
//   segmented_sort_keys       cupar: the library (CUB's DeviceSegmentedSort, stable entry);
//                             cub: DeviceSegmentedSort::SortKeys; cub_radix:
//                             DeviceSegmentedRadixSort::SortKeys (one block per segment)
//   lower_bound               cupar: cuda::std::less<u32>; thrust: vectorised thrust::lower_bound
#include "rows.hpp"
#include "segmented_runners.hpp"

#include <cupar/cupar.cuh>

#include <thrust/binary_search.h>
#include <thrust/execution_policy.h>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_radix_sort.cuh>
#include <cub/device/device_segmented_reduce.cuh>
#include <cub/device/device_segmented_sort.cuh>
#include <cuda/std/functional>

#include <cstdint>

namespace cupar_bench {

namespace {

using u32 = std::uint32_t;

unsigned grid_for(std::size_t n) {
  return static_cast<unsigned>(n / 256 + 1 < 65536 ? n / 256 + 1 : 65536);
}

/// The segment holding item i: the last s with offsets[s] <= i.
__device__ std::size_t segment_of(const std::int64_t* offsets, std::size_t segments,
                                  std::size_t i) {
  std::size_t lo = 0, hi = segments;  // offsets[lo] <= i < offsets[hi]
  while (hi - lo > 1) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if (static_cast<std::size_t>(offsets[mid]) <= i) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return lo;
}

__global__ void segment_ids_kernel(u32* keys, std::size_t n, const std::int64_t* offsets,
                                   std::size_t segments) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x)
    keys[i] = static_cast<u32>(segment_of(offsets, segments, i));
}

__global__ void descents_kernel(const u32* d, std::size_t n, const std::int64_t* offsets,
                                std::size_t segments, unsigned long long* count) {
  unsigned long long local = 0;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i + 1 < n;
       i += std::size_t(gridDim.x) * blockDim.x) {
    if (d[i + 1] < d[i] && segment_of(offsets, segments, i) == segment_of(offsets, segments, i + 1))
      ++local;
  }
  if (local != 0) atomicAdd(count, local);
}

__global__ void search_range_kernel(u32* d, std::size_t n, std::uint64_t seed) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x)
    d[i] = static_cast<u32>(search_stride * i + hash64(seed, i) % search_stride);
}

__global__ void wrong_bounds_kernel(const u32* sorted, std::size_t n, const u32* needles,
                                    const u32* p, std::size_t m, unsigned long long* count) {
  unsigned long long local = 0;
  for (std::size_t j = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; j < m;
       j += std::size_t(gridDim.x) * blockDim.x) {
    const std::size_t at = p[j];
    const bool ok = at <= n && (at == n || !(sorted[at] < needles[j])) &&
                    (at == 0 || sorted[at - 1] < needles[j]);
    if (!ok) ++local;
  }
  if (local != 0) atomicAdd(count, local);
}

std::size_t read_count(device_array<unsigned long long>& count, cudaStream_t stream) {
  unsigned long long h = 0;
  CUPAR_BENCH_CUDA(cudaMemcpyAsync(&h, count.get(), sizeof(h), cudaMemcpyDeviceToHost, stream));
  CUPAR_BENCH_CUDA(cudaStreamSynchronize(stream));
  return static_cast<std::size_t>(h);
}

}  // namespace

void fill_segment_ids(u32* keys, std::size_t n, const std::int64_t* offsets, std::size_t segments,
                      cudaStream_t stream) {
  if (n == 0) return;
  segment_ids_kernel<<<grid_for(n), 256, 0, stream>>>(keys, n, offsets, segments);
  CUPAR_BENCH_CUDA(cudaGetLastError());
}

std::size_t count_segment_descents(const u32* d, std::size_t n, const std::int64_t* offsets,
                                   std::size_t segments, cudaStream_t stream) {
  if (n < 2) return 0;
  device_array<unsigned long long> count(1);
  CUPAR_BENCH_CUDA(cudaMemsetAsync(count.get(), 0, sizeof(unsigned long long), stream));
  descents_kernel<<<grid_for(n), 256, 0, stream>>>(d, n, offsets, segments, count.get());
  CUPAR_BENCH_CUDA(cudaGetLastError());
  return read_count(count, stream);
}

void fill_search_range(u32* d, std::size_t n, std::uint64_t seed, cudaStream_t stream) {
  if (n == 0) return;
  search_range_kernel<<<grid_for(n), 256, 0, stream>>>(d, n, seed);
  CUPAR_BENCH_CUDA(cudaGetLastError());
}

std::size_t count_wrong_lower_bounds(const u32* sorted, std::size_t n, const u32* needles,
                                     const u32* p, std::size_t m, cudaStream_t stream) {
  if (m == 0) return 0;
  device_array<unsigned long long> count(1);
  CUPAR_BENCH_CUDA(cudaMemsetAsync(count.get(), 0, sizeof(unsigned long long), stream));
  wrong_bounds_kernel<<<grid_for(m), 256, 0, stream>>>(sorted, n, needles, p, m, count.get());
  CUPAR_BENCH_CUDA(cudaGetLastError());
  return read_count(count, stream);
}

// ---- segmented_reduce -----------------------------------------------------------------------

void segmented_reduce_cupar_f32(benchmark::State& state) {
  segmented_reduce_runner<float>(
      state, [](const float* in, float* out, std::size_t n, std::size_t s, const std::int64_t* b,
                const std::int64_t* e, cudaStream_t st) {
        cupar::segmented_reduce(in, out, n, s, b, e, cuda::std::plus<float>{}, 0.0f, st);
      });
}

void segmented_reduce_cub_f32(benchmark::State& state) {
  cub_temp temp;
  segmented_reduce_runner<float>(
      state, [&](const float* in, float* out, std::size_t, std::size_t s, const std::int64_t* b,
                 const std::int64_t* e, cudaStream_t st) {
        temp.run([&](void* t, std::size_t& bytes) {
          return cub::DeviceSegmentedReduce::Sum(t, bytes, in, out, static_cast<std::int64_t>(s), b,
                                                 e, st);
        });
      });
}

// ---- segmented_inclusive_scan -----------------------------------------------------------------

void segmented_inclusive_scan_cupar_f32(benchmark::State& state) {
  segmented_scan_runner<float>(
      state, [](const float* in, float* out, std::size_t n, std::size_t s, const std::int64_t* b,
                const std::int64_t* e, cudaStream_t st) {
        cupar::segmented_inclusive_scan(in, out, n, s, b, e, cuda::std::plus<float>{}, st);
      });
}

void segmented_inclusive_scan_cub_scan_by_key_f32(benchmark::State& state) {
  cub_temp temp;
  scan_by_segment_ids_runner<float>(state, [&](const u32* keys, const float* in, float* out,
                                               std::size_t n, cudaStream_t st) {
    temp.run([&](void* t, std::size_t& bytes) {
      return cub::DeviceScan::InclusiveScanByKey(t, bytes, keys, in, out, cuda::std::plus<float>{},
                                                 static_cast<int>(n), cuda::std::equal_to<>{}, st);
    });
  });
}

// ---- segmented_sort_keys ------------------------------------------------------------------------

void segmented_sort_keys_cupar_u32(benchmark::State& state) {
  segmented_sort_keys_runner(
      state, [](const u32* in, u32* out, std::size_t n, std::size_t s, const std::int64_t* b,
                const std::int64_t* e,
                cudaStream_t st) { cupar::segmented_sort_keys(in, out, n, s, b, e, st); });
}

void segmented_sort_keys_cub_u32(benchmark::State& state) {
  cub_temp temp;
  segmented_sort_keys_runner(
      state, [&](const u32* in, u32* out, std::size_t n, std::size_t s, const std::int64_t* b,
                 const std::int64_t* e, cudaStream_t st) {
        temp.run([&](void* t, std::size_t& bytes) {
          return cub::DeviceSegmentedSort::SortKeys(t, bytes, in, out, static_cast<std::int64_t>(n),
                                                    static_cast<std::int64_t>(s), b, e, st);
        });
      });
}

void segmented_sort_keys_cub_radix_u32(benchmark::State& state) {
  cub_temp temp;
  segmented_sort_keys_runner(
      state, [&](const u32* in, u32* out, std::size_t n, std::size_t s, const std::int64_t* b,
                 const std::int64_t* e, cudaStream_t st) {
        temp.run([&](void* t, std::size_t& bytes) {
          return cub::DeviceSegmentedRadixSort::SortKeys(t, bytes, in, out, static_cast<int>(n),
                                                         static_cast<int>(s), b, e, 0, 32, st);
        });
      });
}

// ---- lower_bound ------------------------------------------------------------------------------

void lower_bound_cupar_u32(benchmark::State& state) {
  lower_bound_runner(state, [](const u32* sorted, std::size_t n, const u32* needles, std::size_t m,
                               u32* out, cudaStream_t st) {
    cupar::lower_bound(sorted, n, needles, m, out, cuda::std::less<u32>{}, st);
  });
}

void lower_bound_thrust_u32(benchmark::State& state) {
  lower_bound_runner(state, [](const u32* sorted, std::size_t n, const u32* needles, std::size_t m,
                               u32* out, cudaStream_t st) {
    thrust::lower_bound(thrust::cuda::par.on(st), sorted, sorted + n, needles, needles + m, out);
  });
}

}  // namespace cupar_bench
