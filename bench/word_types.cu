// cupar benchmarks: the word element types (__half, __nv_bfloat16, bool) on cupar's C++-callable
// path beside CUB called directly on the same data, and reduce's not-guaranteed (single-pass,
// atomic) sum beside the run-to-run one. The cupar_jit rows of the same families are in
// word_types_jit.cpp.
//
//   reduce_max          cuda::maximum<T> over __half / __nv_bfloat16 (compared in the type)
//   reduce_sum_to_f32   the sum of halves accumulated in float: transform_reduce with a
//                       conversion (CUB: TransformReduce, the same functor)
//   reduce_any          cuda::std::logical_or<bool> over bool
//   inclusive_scan_max  a running maximum of __half
//   reduce_sum          cupar_not_guaranteed: cuda::std::plus with determinism::not_guaranteed
#include "rows.hpp"
#include "runners.hpp"

#include <cupar/cupar.cuh>

#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cuda/functional>
#include <cuda/std/functional>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

namespace cupar_bench {
namespace {

template <class H>
struct to_float {
  __host__ __device__ float operator()(H x) const { return static_cast<float>(x); }
};

template <class H>
H lowest_half() {
  return H(-65504.0f);
}

template <class H>
void reduce_max_cupar(benchmark::State& state) {
  reduce_runner<H>(state, [](const H* in, H* out, std::size_t n, cudaStream_t s) {
    cupar::reduce(in, out, n, ::cuda::maximum<H>{}, lowest_half<H>(), s);
  });
}

template <class H>
void reduce_max_cub(benchmark::State& state) {
  cub_temp temp;
  reduce_runner<H>(state, [&](const H* in, H* out, std::size_t n, cudaStream_t s) {
    temp.run([&](void* t, std::size_t& bytes) {
      return cub::DeviceReduce::Reduce(t, bytes, in, out, static_cast<int>(n), ::cuda::maximum<H>{},
                                       lowest_half<H>(), s);
    });
  });
}

template <class H>
void reduce_sum_to_f32_cupar(benchmark::State& state) {
  widening_reduce_runner<H, float>(
      state, [](const H* in, float* out, std::size_t n, cudaStream_t s) {
        cupar::transform_reduce(in, out, n, to_float<H>{}, ::cuda::std::plus<float>{}, 0.0f, s);
      });
}

template <class H>
void reduce_sum_to_f32_cub(benchmark::State& state) {
  cub_temp temp;
  widening_reduce_runner<H, float>(state, [&](const H* in, float* out, std::size_t n,
                                              cudaStream_t s) {
    temp.run([&](void* t, std::size_t& bytes) {
      return cub::DeviceReduce::TransformReduce(t, bytes, in, out, static_cast<int>(n),
                                                ::cuda::std::plus<float>{}, to_float<H>{}, 0.0f, s);
    });
  });
}

template <class T>
void reduce_sum_not_guaranteed(benchmark::State& state) {
  reduce_runner<T>(state, [](const T* in, T* out, std::size_t n, cudaStream_t s) {
    cupar::reduce(in, out, n, ::cuda::std::plus<T>{}, T(0), cupar::determinism::not_guaranteed, s);
  });
}

}  // namespace

void reduce_max_cupar_f16(benchmark::State& state) {
  reduce_max_cupar<__half>(state);
}
void reduce_max_cub_f16(benchmark::State& state) {
  reduce_max_cub<__half>(state);
}
void reduce_max_cupar_bf16(benchmark::State& state) {
  reduce_max_cupar<__nv_bfloat16>(state);
}
void reduce_max_cub_bf16(benchmark::State& state) {
  reduce_max_cub<__nv_bfloat16>(state);
}
void reduce_sum_to_f32_cupar_f16(benchmark::State& state) {
  reduce_sum_to_f32_cupar<__half>(state);
}
void reduce_sum_to_f32_cub_f16(benchmark::State& state) {
  reduce_sum_to_f32_cub<__half>(state);
}
void reduce_sum_to_f32_cupar_bf16(benchmark::State& state) {
  reduce_sum_to_f32_cupar<__nv_bfloat16>(state);
}
void reduce_sum_to_f32_cub_bf16(benchmark::State& state) {
  reduce_sum_to_f32_cub<__nv_bfloat16>(state);
}

void reduce_any_cupar_bool(benchmark::State& state) {
  reduce_runner<bool>(state, [](const bool* in, bool* out, std::size_t n, cudaStream_t s) {
    cupar::reduce(in, out, n, ::cuda::std::logical_or<bool>{}, false, s);
  });
}
void reduce_any_cub_bool(benchmark::State& state) {
  cub_temp temp;
  reduce_runner<bool>(state, [&](const bool* in, bool* out, std::size_t n, cudaStream_t s) {
    temp.run([&](void* t, std::size_t& bytes) {
      return cub::DeviceReduce::Reduce(t, bytes, in, out, static_cast<int>(n),
                                       ::cuda::std::logical_or<bool>{}, false, s);
    });
  });
}

void inclusive_scan_max_cupar_f16(benchmark::State& state) {
  scan_runner<__half>(state, [](const __half* in, __half* out, std::size_t n, cudaStream_t s) {
    cupar::inclusive_scan(in, out, n, ::cuda::maximum<__half>{}, s);
  });
}
void inclusive_scan_max_cub_f16(benchmark::State& state) {
  cub_temp temp;
  scan_runner<__half>(state, [&](const __half* in, __half* out, std::size_t n, cudaStream_t s) {
    temp.run([&](void* t, std::size_t& bytes) {
      return cub::DeviceScan::InclusiveScan(t, bytes, in, out, ::cuda::maximum<__half>{},
                                            static_cast<int>(n), s);
    });
  });
}

void reduce_sum_cupar_not_guaranteed_f32(benchmark::State& state) {
  reduce_sum_not_guaranteed<float>(state);
}
void reduce_sum_cupar_not_guaranteed_i32(benchmark::State& state) {
  reduce_sum_not_guaranteed<std::int32_t>(state);
}

}  // namespace cupar_bench
