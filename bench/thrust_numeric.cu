// cupar benchmarks: Thrust reduce and inclusive scan rows. thrust::reduce returns its result to
// the host: it synchronises the stream, and its time includes that and Thrust's cudaMalloc /
// cudaFree of temporary storage, as a Thrust caller pays them.
#include "rows.hpp"
#include "runners.hpp"

#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>

#include <cstdint>
#include <limits>

namespace cupar_bench {
namespace {

template <class T>
void reduce_sum_thrust(benchmark::State& state) {
  reduce_runner<T>(state, [](const T* in, T* out, std::size_t n, cudaStream_t s) {
    T result = thrust::reduce(thrust::cuda::par.on(s), in, in + n, T(0), thrust::plus<T>());
    benchmark::DoNotOptimize(result);
    (void)out;
  });
}

template <class T>
void inclusive_scan_thrust(benchmark::State& state) {
  scan_runner<T>(state, [](const T* in, T* out, std::size_t n, cudaStream_t s) {
    thrust::inclusive_scan(thrust::cuda::par.on(s), in, in + n, out);
  });
}

}  // namespace

void reduce_sum_thrust_f32(benchmark::State& state) {
  reduce_sum_thrust<float>(state);
}
void reduce_sum_thrust_i32(benchmark::State& state) {
  reduce_sum_thrust<std::int32_t>(state);
}

void reduce_max_thrust_f32(benchmark::State& state) {
  auto max_op = [] __device__(float a, float b) -> float { return a < b ? b : a; };
  reduce_runner<float>(state, [=](const float* in, float* out, std::size_t n, cudaStream_t s) {
    float result = thrust::reduce(thrust::cuda::par.on(s), in, in + n,
                                  std::numeric_limits<float>::lowest(), max_op);
    benchmark::DoNotOptimize(result);
    (void)out;
  });
}

void inclusive_scan_thrust_f32(benchmark::State& state) {
  inclusive_scan_thrust<float>(state);
}
void inclusive_scan_thrust_i32(benchmark::State& state) {
  inclusive_scan_thrust<std::int32_t>(state);
}

}  // namespace cupar_bench
