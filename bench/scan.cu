// cupar benchmarks: inclusive scan rows on the GPU (cupar's callable path and CUB directly).
#include "rows.hpp"
#include "runners.hpp"

#include <cupar/cupar.cuh>

#include <cub/device/device_scan.cuh>
#include <cuda/std/functional>

#include <cstdint>

namespace cupar_bench {
namespace {

template <class T>
void inclusive_scan_cupar(benchmark::State& state) {
  scan_runner<T>(state, [](const T* in, T* out, std::size_t n, cudaStream_t s) {
    cupar::inclusive_scan(in, out, n, ::cuda::std::plus<T>{}, s);
  });
}

template <class T>
void inclusive_scan_cub(benchmark::State& state) {
  cub_temp temp;
  scan_runner<T>(state, [&](const T* in, T* out, std::size_t n, cudaStream_t s) {
    temp.run([&](void* t, std::size_t& bytes) {
      return cub::DeviceScan::InclusiveSum(t, bytes, in, out, static_cast<int>(n), s);
    });
  });
}

}  // namespace

void inclusive_scan_cupar_f32(benchmark::State& state) {
  inclusive_scan_cupar<float>(state);
}
void inclusive_scan_cupar_i32(benchmark::State& state) {
  inclusive_scan_cupar<std::int32_t>(state);
}
void inclusive_scan_cub_f32(benchmark::State& state) {
  inclusive_scan_cub<float>(state);
}
void inclusive_scan_cub_i32(benchmark::State& state) {
  inclusive_scan_cub<std::int32_t>(state);
}

}  // namespace cupar_bench
