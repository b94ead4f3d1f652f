// cupar benchmarks: element-wise transform rows on the GPU (cupar, CUB directly, Thrust).
#include "rows.hpp"
#include "runners.hpp"

#include <cupar/cupar.cuh>

#include <thrust/execution_policy.h>
#include <thrust/transform.h>
#include <cub/device/device_transform.cuh>
#include <cuda/std/tuple>

#include <cstdint>

namespace cupar_bench {

// Unary: 2x + 1 on floats. The lambda as a cupar user writes it, and with the trailing return
// type CUB and Thrust need.
void transform_unary_cupar_f32(benchmark::State& state) {
  auto op = [] __device__(float x) { return 2.0f * x + 1.0f; };
  unary_runner<float, float>(state, [=](const float* in, float* out, std::size_t n,
                                        cudaStream_t s) { cupar::transform(in, out, n, op, s); });
}

void transform_unary_cub_f32(benchmark::State& state) {
  auto op = [] __device__(float x) -> float { return 2.0f * x + 1.0f; };
  unary_runner<float, float>(
      state, [=](const float* in, float* out, std::size_t n, cudaStream_t s) {
        CUPAR_BENCH_CUDA(cub::DeviceTransform::Transform(in, out, static_cast<int>(n), op, s));
      });
}

void transform_unary_thrust_f32(benchmark::State& state) {
  auto op = [] __device__(float x) -> float { return 2.0f * x + 1.0f; };
  unary_runner<float, float>(state,
                             [=](const float* in, float* out, std::size_t n, cudaStream_t s) {
                               thrust::transform(thrust::cuda::par.on(s), in, in + n, out, op);
                             });
}

// Binary: a + b on 32-bit integers.
void transform_binary_cupar_i32(benchmark::State& state) {
  auto op = [] __device__(std::int32_t a, std::int32_t b) { return a + b; };
  binary_runner<std::int32_t, std::int32_t, std::int32_t>(
      state, [=](const std::int32_t* a, const std::int32_t* b, std::int32_t* out, std::size_t n,
                 cudaStream_t s) { cupar::transform(a, b, out, n, op, s); });
}

// Mixed types: i32 -> f64, x * 0.5 (cupar_jit: no precompiled CUB set for the pair, so the run-time
// path runs its "for_each" kernels; jit_kernels.cpp).
void transform_mixed_cupar_i32_f64(benchmark::State& state) {
  auto op = [] __device__(std::int32_t x) { return x * 0.5; };
  unary_runner<std::int32_t, double>(
      state, [=](const std::int32_t* in, double* out, std::size_t n, cudaStream_t s) {
        cupar::transform(in, out, n, op, s);
      });
}

void transform_mixed_cub_i32_f64(benchmark::State& state) {
  auto op = [] __device__(std::int32_t x) -> double { return x * 0.5; };
  unary_runner<std::int32_t, double>(
      state, [=](const std::int32_t* in, double* out, std::size_t n, cudaStream_t s) {
        CUPAR_BENCH_CUDA(cub::DeviceTransform::Transform(in, out, static_cast<int>(n), op, s));
      });
}

void transform_binary_cub_i32(benchmark::State& state) {
  auto op = [] __device__(std::int32_t a, std::int32_t b) -> std::int32_t { return a + b; };
  binary_runner<std::int32_t, std::int32_t, std::int32_t>(
      state, [=](const std::int32_t* a, const std::int32_t* b, std::int32_t* out, std::size_t n,
                 cudaStream_t s) {
        CUPAR_BENCH_CUDA(cub::DeviceTransform::Transform(::cuda::std::make_tuple(a, b), out,
                                                         static_cast<int>(n), op, s));
      });
}

void transform_binary_thrust_i32(benchmark::State& state) {
  auto op = [] __device__(std::int32_t a, std::int32_t b) -> std::int32_t { return a + b; };
  binary_runner<std::int32_t, std::int32_t, std::int32_t>(
      state,
      [=](const std::int32_t* a, const std::int32_t* b, std::int32_t* out, std::size_t n,
          cudaStream_t s) { thrust::transform(thrust::cuda::par.on(s), a, a + n, b, out, op); });
}

}  // namespace cupar_bench
