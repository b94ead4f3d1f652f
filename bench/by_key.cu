// cupar benchmarks: the by-key families on the GPU: cupar's C++-callable path, CUB called
// directly (int item counts, as a CUB user writes it) and Thrust, on the data of
// by_key_runners.hpp. The operators are cuda::std::plus<float> for cupar (which hands CUB plus<>,
// as it does for reduce and scan) and plus<> for CUB.
#include "by_key_runners.hpp"
#include "rows.hpp"

#include <cupar/cupar.cuh>

#include <thrust/execution_policy.h>
#include <thrust/iterator/constant_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/unique.h>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_run_length_encode.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <cuda/std/functional>

#include <cstdint>

namespace cupar_bench {

namespace {

using u32 = std::uint32_t;

__global__ void run_starts_kernel(u32* d, std::size_t n, std::uint64_t seed) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x)
    d[i] = starts_run(seed, i) ? 1u : 0u;
}

__global__ void keys_of_runs_kernel(u32* d, std::size_t n, std::uint64_t seed) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x)
    d[i] = key_of_run(seed, d[i]);
}

unsigned grid_for(std::size_t n) {
  return static_cast<unsigned>(n / 256 + 1 < 65536 ? n / 256 + 1 : 65536);
}

}  // namespace

std::size_t fill_run_keys(u32* d, std::size_t n, std::uint64_t seed, cudaStream_t stream) {
  if (n == 0) return 0;
  // Run starts, their inclusive prefix sum (each position's run number), then each run's key.
  run_starts_kernel<<<grid_for(n), 256, 0, stream>>>(d, n, seed);
  CUPAR_BENCH_CUDA(cudaGetLastError());
  std::size_t bytes = 0;
  const auto items = static_cast<std::int64_t>(n);
  CUPAR_BENCH_CUDA(cub::DeviceScan::InclusiveSum(nullptr, bytes, d, d, items, stream));
  device_array<unsigned char> temp(bytes == 0 ? 1 : bytes);
  CUPAR_BENCH_CUDA(cub::DeviceScan::InclusiveSum(temp.get(), bytes, d, d, items, stream));
  u32 last_run = 0;
  CUPAR_BENCH_CUDA(
      cudaMemcpyAsync(&last_run, d + n - 1, sizeof(u32), cudaMemcpyDeviceToHost, stream));
  keys_of_runs_kernel<<<grid_for(n), 256, 0, stream>>>(d, n, seed);
  CUPAR_BENCH_CUDA(cudaGetLastError());
  CUPAR_BENCH_CUDA(cudaStreamSynchronize(stream));
  return static_cast<std::size_t>(last_run) + 1;
}

namespace {
__global__ void key16_of_runs_kernel(const u32* keys, key16* out, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x)
    out[i] = key16::of(keys[i]);
}
}  // namespace

std::size_t fill_run_keys(key16* d, std::size_t n, std::uint64_t seed, cudaStream_t stream) {
  if (n == 0) return 0;
  device_array<u32> keys(n);
  const std::size_t runs = fill_run_keys(keys.get(), n, seed, stream);
  key16_of_runs_kernel<<<grid_for(n), 256, 0, stream>>>(keys.get(), d, n);
  CUPAR_BENCH_CUDA(cudaGetLastError());
  CUPAR_BENCH_CUDA(cudaStreamSynchronize(stream));
  return runs;
}

// --- reduce_by_key ----------------------------------------------------------------------------

void reduce_by_key_cupar_u32_f32(benchmark::State& state) {
  by_key_compact_runner<u32, float>(state, [](const u32* k, const float* v, u32* ko, float* vo,
                                              std::size_t* count, std::size_t n, cudaStream_t s) {
    cupar::reduce_by_key(k, v, ko, vo, count, n, ::cuda::std::plus<float>{}, s);
  });
}
void reduce_by_key_cub_u32_f32(benchmark::State& state) {
  cub_temp temp;
  by_key_compact_runner<u32, float>(state, [&](const u32* k, const float* v, u32* ko, float* vo,
                                               std::size_t* count, std::size_t n, cudaStream_t s) {
    temp.run([&](void* t, std::size_t& bytes) {
      return cub::DeviceReduce::ReduceByKey(t, bytes, k, ko, v, vo, count, ::cuda::std::plus<>{},
                                            static_cast<int>(n), s);
    });
  });
}
void reduce_by_key_thrust_u32_f32(benchmark::State& state) {
  by_key_compact_runner<u32, float>(state, [](const u32* k, const float* v, u32* ko, float* vo,
                                              std::size_t*, std::size_t n, cudaStream_t s) {
    thrust::reduce_by_key(thrust::cuda::par.on(s), k, k + n, v, ko, vo);
  });
}

// Composite keys of no by-key class (type key16_f32): cupar's C++ path and CUB run their kernels
// on the struct (an equality functor); the cupar_jit row (by_key_jit.cpp) numbers the runs.
void reduce_by_key_cupar_key16_f32(benchmark::State& state) {
  by_key_compact_runner<key16, float>(
      state, [](const key16* k, const float* v, key16* ko, float* vo, std::size_t* count,
                std::size_t n, cudaStream_t s) {
        cupar::reduce_by_key(k, v, ko, vo, count, n, ::cuda::std::plus<float>{}, key16_equal{}, s);
      });
}
void reduce_by_key_cub_key16_f32(benchmark::State& state) {
  cub_temp temp;
  by_key_compact_runner<key16, float>(
      state, [&](const key16* k, const float* v, key16* ko, float* vo, std::size_t* count,
                 std::size_t n, cudaStream_t s) {
        temp.run([&](void* t, std::size_t& bytes) {
          return cub::DeviceReduce::ReduceByKey(t, bytes, k, ko, v, vo, count,
                                                ::cuda::std::plus<>{}, static_cast<int>(n), s);
        });
      });
}

// The same with a user functor adding floats (type u32_f32_functor): what CUB and cupar's C++
// path do with an operator other than cuda::std::plus, the peers of a snippet operator.
namespace {
struct add_floats {
  __host__ __device__ float operator()(float a, float b) const { return a + b; }
};
}  // namespace

void reduce_by_key_cupar_u32_f32_functor(benchmark::State& state) {
  by_key_compact_runner<u32, float>(
      state, [](const u32* k, const float* v, u32* ko, float* vo, std::size_t* count, std::size_t n,
                cudaStream_t s) { cupar::reduce_by_key(k, v, ko, vo, count, n, add_floats{}, s); });
}
void reduce_by_key_cub_u32_f32_functor(benchmark::State& state) {
  cub_temp temp;
  by_key_compact_runner<u32, float>(state, [&](const u32* k, const float* v, u32* ko, float* vo,
                                               std::size_t* count, std::size_t n, cudaStream_t s) {
    temp.run([&](void* t, std::size_t& bytes) {
      return cub::DeviceReduce::ReduceByKey(t, bytes, k, ko, v, vo, count, add_floats{},
                                            static_cast<int>(n), s);
    });
  });
}
// reduce_by_key of values computed by a transform (x * 2): CUB reading them through a transform
// iterator, the peer of reduce_by_key_transformed/cupar_jit_expr (by_key_jit.cpp).
namespace {
struct doubled {
  __host__ __device__ float operator()(float x) const { return 2.0f * x; }
};
}  // namespace
void reduce_by_key_transformed_cub_u32_f32(benchmark::State& state) {
  cub_temp temp;
  by_key_compact_runner<u32, float>(state, [&](const u32* k, const float* v, u32* ko, float* vo,
                                               std::size_t* count, std::size_t n, cudaStream_t s) {
    temp.run([&](void* t, std::size_t& bytes) {
      return cub::DeviceReduce::ReduceByKey(t, bytes, k, ko,
                                            thrust::make_transform_iterator(v, doubled{}), vo,
                                            count, add_floats{}, static_cast<int>(n), s);
    });
  });
}
void inclusive_scan_by_key_cupar_u32_f32_functor(benchmark::State& state) {
  scan_by_key_runner<u32, float>(
      state, [](const u32* k, const float* v, float* out, std::size_t n, cudaStream_t s) {
        cupar::inclusive_scan_by_key(k, v, out, n, add_floats{}, s);
      });
}
void inclusive_scan_by_key_cub_u32_f32_functor(benchmark::State& state) {
  cub_temp temp;
  scan_by_key_runner<u32, float>(
      state, [&](const u32* k, const float* v, float* out, std::size_t n, cudaStream_t s) {
        temp.run([&](void* t, std::size_t& bytes) {
          return cub::DeviceScan::InclusiveScanByKey(
              t, bytes, k, v, out, add_floats{}, static_cast<int>(n), ::cuda::std::equal_to<>{}, s);
        });
      });
}

// --- inclusive_scan_by_key --------------------------------------------------------------------

void inclusive_scan_by_key_cupar_u32_f32(benchmark::State& state) {
  scan_by_key_runner<u32, float>(
      state, [](const u32* k, const float* v, float* out, std::size_t n, cudaStream_t s) {
        cupar::inclusive_scan_by_key(k, v, out, n, ::cuda::std::plus<float>{}, s);
      });
}
void inclusive_scan_by_key_cub_u32_f32(benchmark::State& state) {
  cub_temp temp;
  scan_by_key_runner<u32, float>(state, [&](const u32* k, const float* v, float* out, std::size_t n,
                                            cudaStream_t s) {
    temp.run([&](void* t, std::size_t& bytes) {
      return cub::DeviceScan::InclusiveScanByKey(t, bytes, k, v, out, ::cuda::std::plus<>{},
                                                 static_cast<int>(n), ::cuda::std::equal_to<>{}, s);
    });
  });
}
void inclusive_scan_by_key_thrust_u32_f32(benchmark::State& state) {
  scan_by_key_runner<u32, float>(
      state, [](const u32* k, const float* v, float* out, std::size_t n, cudaStream_t s) {
        thrust::inclusive_scan_by_key(thrust::cuda::par.on(s), k, k + n, v, out);
      });
}

// --- unique_by_key ----------------------------------------------------------------------------

void unique_by_key_cupar_u32_f32(benchmark::State& state) {
  by_key_compact_runner<u32, float>(state, [](const u32* k, const float* v, u32* ko, float* vo,
                                              std::size_t* count, std::size_t n, cudaStream_t s) {
    cupar::unique_by_key(k, v, ko, vo, count, n, ::cuda::std::equal_to<u32>{}, s);
  });
}
void unique_by_key_cub_u32_f32(benchmark::State& state) {
  cub_temp temp;
  by_key_compact_runner<u32, float>(state, [&](const u32* k, const float* v, u32* ko, float* vo,
                                               std::size_t* count, std::size_t n, cudaStream_t s) {
    temp.run([&](void* t, std::size_t& bytes) {
      return cub::DeviceSelect::UniqueByKey(t, bytes, k, v, ko, vo, count, static_cast<int>(n), s);
    });
  });
}
void unique_by_key_thrust_u32_f32(benchmark::State& state) {
  by_key_compact_runner<u32, float>(state, [](const u32* k, const float* v, u32* ko, float* vo,
                                              std::size_t*, std::size_t n, cudaStream_t s) {
    thrust::unique_by_key_copy(thrust::cuda::par.on(s), k, k + n, v, ko, vo);
  });
}

// --- run_length_encode ------------------------------------------------------------------------

// run_length_encode/cupar is in by_key_jit.cpp: the library serves it through the JIT.
void run_length_encode_cub_u32(benchmark::State& state) {
  cub_temp temp;
  run_length_runner<u32>(state, [&](const u32* in, u32* uo, u32* counts, std::size_t* count,
                                    std::size_t n, cudaStream_t s) {
    temp.run([&](void* t, std::size_t& bytes) {
      return cub::DeviceRunLengthEncode::Encode(t, bytes, in, uo, counts, count,
                                                static_cast<int>(n), s);
    });
  });
}
// Thrust has no run-length encoding: its idiom is reduce_by_key over a constant 1.
void run_length_encode_thrust_u32(benchmark::State& state) {
  run_length_runner<u32>(
      state, [](const u32* in, u32* uo, u32* counts, std::size_t*, std::size_t n, cudaStream_t s) {
        thrust::reduce_by_key(thrust::cuda::par.on(s), in, in + n,
                              thrust::constant_iterator<u32>(1), uo, counts);
      });
}

}  // namespace cupar_bench
