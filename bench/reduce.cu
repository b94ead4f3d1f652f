// cupar benchmarks: reduce rows on the GPU (cupar's callable path and CUB called directly).
#include "rows.hpp"
#include "runners.hpp"

#include <cupar/cupar.cuh>

#include <cub/device/device_reduce.cuh>
#include <cuda/std/functional>

#include <cstdint>
#include <limits>

namespace cupar_bench {
namespace {

template <class T>
void reduce_sum_cupar(benchmark::State& state) {
  reduce_runner<T>(state, [](const T* in, T* out, std::size_t n, cudaStream_t s) {
    cupar::reduce(in, out, n, ::cuda::std::plus<T>{}, T(0), s);
  });
}

template <class T>
void reduce_sum_cub(benchmark::State& state) {
  cub_temp temp;
  reduce_runner<T>(state, [&](const T* in, T* out, std::size_t n, cudaStream_t s) {
    temp.run([&](void* t, std::size_t& bytes) {
      return cub::DeviceReduce::Sum(t, bytes, in, out, static_cast<int>(n), s);
    });
  });
}

}  // namespace

void reduce_sum_cupar_f32(benchmark::State& state) {
  reduce_sum_cupar<float>(state);
}
void reduce_sum_cupar_i32(benchmark::State& state) {
  reduce_sum_cupar<std::int32_t>(state);
}
void reduce_sum_cub_f32(benchmark::State& state) {
  reduce_sum_cub<float>(state);
}
void reduce_sum_cub_i32(benchmark::State& state) {
  reduce_sum_cub<std::int32_t>(state);
}

// Max with an extended __device__ lambda: as a cupar user writes it (no trailing return type),
// and as CUB alone requires it (with one).
void reduce_max_cupar_f32(benchmark::State& state) {
  auto max_op = [] __device__(float a, float b) { return a < b ? b : a; };
  reduce_runner<float>(state, [=](const float* in, float* out, std::size_t n, cudaStream_t s) {
    cupar::reduce(in, out, n, max_op, std::numeric_limits<float>::lowest(), s);
  });
}

void reduce_max_cub_f32(benchmark::State& state) {
  auto max_op = [] __device__(float a, float b) -> float { return a < b ? b : a; };
  cub_temp temp;
  reduce_runner<float>(state, [&](const float* in, float* out, std::size_t n, cudaStream_t s) {
    temp.run([&](void* t, std::size_t& bytes) {
      return cub::DeviceReduce::Reduce(t, bytes, in, out, static_cast<int>(n), max_op,
                                       std::numeric_limits<float>::lowest(), s);
    });
  });
}

}  // namespace cupar_bench
