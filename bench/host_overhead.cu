// cupar benchmarks: host overhead per call. Each iteration queues 1,000 calls on 1,024 floats and
// synchronises the stream once (time_host_overhead). cupar takes its temporary storage from the
// default pool resource in every call (included); `cub` uses temporary storage allocated once
// beforehand; `cub_malloc_async` wraps each call in cudaMallocAsync / cudaFreeAsync.
#include "rows.hpp"
#include "runners.hpp"

#include <cupar/cupar.cuh>

#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_transform.cuh>
#include <cuda/std/functional>

namespace cupar_bench {
namespace {

/// CUB's two-phase call with stream-ordered temporary storage around it.
template <class F>
void with_malloc_async(cudaStream_t s, F&& f) {
  std::size_t bytes = 0;
  CUPAR_BENCH_CUDA(f(nullptr, bytes));
  void* temp = nullptr;
  CUPAR_BENCH_CUDA(cudaMallocAsync(&temp, bytes, s));
  CUPAR_BENCH_CUDA(f(temp, bytes));
  CUPAR_BENCH_CUDA(cudaFreeAsync(temp, s));
}

}  // namespace

void host_overhead_cupar_reduce_f32(benchmark::State& state) {
  host_overhead_runner(state, [](const float* in, float* out, std::size_t n, cudaStream_t s) {
    cupar::reduce(in, out, n, ::cuda::std::plus<float>{}, 0.0f, s);
  });
}

void host_overhead_cub_reduce_f32(benchmark::State& state) {
  cub_temp temp;
  host_overhead_runner(state, [&](const float* in, float* out, std::size_t n, cudaStream_t s) {
    temp.run([&](void* t, std::size_t& bytes) {
      return cub::DeviceReduce::Sum(t, bytes, in, out, static_cast<int>(n), s);
    });
  });
}

void host_overhead_cub_malloc_async_reduce_f32(benchmark::State& state) {
  host_overhead_runner(state, [](const float* in, float* out, std::size_t n, cudaStream_t s) {
    with_malloc_async(s, [&](void* t, std::size_t& bytes) {
      return cub::DeviceReduce::Sum(t, bytes, in, out, static_cast<int>(n), s);
    });
  });
}

void host_overhead_cupar_inclusive_scan_f32(benchmark::State& state) {
  host_overhead_runner(state, [](const float* in, float* out, std::size_t n, cudaStream_t s) {
    cupar::inclusive_scan(in, out, n, ::cuda::std::plus<float>{}, s);
  });
}

void host_overhead_cub_inclusive_scan_f32(benchmark::State& state) {
  cub_temp temp;
  host_overhead_runner(state, [&](const float* in, float* out, std::size_t n, cudaStream_t s) {
    temp.run([&](void* t, std::size_t& bytes) {
      return cub::DeviceScan::InclusiveSum(t, bytes, in, out, static_cast<int>(n), s);
    });
  });
}

void host_overhead_cub_malloc_async_inclusive_scan_f32(benchmark::State& state) {
  host_overhead_runner(state, [](const float* in, float* out, std::size_t n, cudaStream_t s) {
    with_malloc_async(s, [&](void* t, std::size_t& bytes) {
      return cub::DeviceScan::InclusiveSum(t, bytes, in, out, static_cast<int>(n), s);
    });
  });
}

void host_overhead_cupar_transform_f32(benchmark::State& state) {
  auto op = [] __device__(float x) { return 2.0f * x + 1.0f; };
  host_overhead_runner(state, [=](const float* in, float* out, std::size_t n, cudaStream_t s) {
    cupar::transform(in, out, n, op, s);
  });
}

void host_overhead_cub_transform_f32(benchmark::State& state) {
  auto op = [] __device__(float x) -> float { return 2.0f * x + 1.0f; };
  host_overhead_runner(state, [=](const float* in, float* out, std::size_t n, cudaStream_t s) {
    CUPAR_BENCH_CUDA(cub::DeviceTransform::Transform(in, out, static_cast<int>(n), op, s));
  });
}

}  // namespace cupar_bench
