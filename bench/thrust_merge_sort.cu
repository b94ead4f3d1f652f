// cupar benchmarks: Thrust's sort with a comparator lambda (Thrust uses merge sort for it). In
// place: input restored and L2 flushed before each run, untimed (sort_keys_in_place_runner).
#include "rows.hpp"
#include "runners.hpp"

#include <thrust/execution_policy.h>
#include <thrust/sort.h>

#include <cstdint>

namespace cupar_bench {

void merge_sort_keys_thrust_f32(benchmark::State& state) {
  auto less = [] __device__(float a, float b) -> bool { return a < b; };
  sort_keys_in_place_runner<float>(state, [=](float* keys, std::size_t n, cudaStream_t s) {
    thrust::sort(thrust::cuda::par.on(s), keys, keys + n, less);
  });
}

void merge_sort_keys_thrust_i32(benchmark::State& state) {
  auto less = [] __device__(std::int32_t a, std::int32_t b) -> bool { return a < b; };
  sort_keys_in_place_runner<std::int32_t>(
      state, [=](std::int32_t* keys, std::size_t n, cudaStream_t s) {
        thrust::sort(thrust::cuda::par.on(s), keys, keys + n, less);
      });
}

void merge_sort_pairs_thrust_f32_u32(benchmark::State& state) {
  auto less = [] __device__(float a, float b) -> bool { return a < b; };
  sort_pairs_in_place_runner<float, std::uint32_t>(
      state, [=](float* keys, std::uint32_t* values, std::size_t n, cudaStream_t s) {
        thrust::sort_by_key(thrust::cuda::par.on(s), keys, keys + n, values, less);
      });
}

}  // namespace cupar_bench
