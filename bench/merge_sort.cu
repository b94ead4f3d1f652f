// cupar benchmarks: cupar's comparison sort (CUB merge sort) with an extended __device__ lambda
// `a < b`, as a cupar user writes it. Out of place: the input is never modified, so no restoring
// is needed between runs.
#include "rows.hpp"
#include "runners.hpp"

#include <cupar/cupar.cuh>

#include <cstdint>

namespace cupar_bench {

void merge_sort_keys_cupar_f32(benchmark::State& state) {
  auto less = [] __device__(float a, float b) { return a < b; };
  sort_keys_runner<float>(state, [=](const float* in, float* out, std::size_t n, cudaStream_t s) {
    cupar::sort_keys(in, out, n, less, s);
  });
}

void merge_sort_keys_cupar_i32(benchmark::State& state) {
  auto less = [] __device__(std::int32_t a, std::int32_t b) { return a < b; };
  sort_keys_runner<std::int32_t>(
      state, [=](const std::int32_t* in, std::int32_t* out, std::size_t n, cudaStream_t s) {
        cupar::sort_keys(in, out, n, less, s);
      });
}

void merge_sort_pairs_cupar_f32_u32(benchmark::State& state) {
  auto less = [] __device__(float a, float b) { return a < b; };
  sort_pairs_runner<float, std::uint32_t>(
      state,
      [=](const float* kin, float* kout, const std::uint32_t* vin, std::uint32_t* vout,
          std::size_t n, cudaStream_t s) { cupar::sort_pairs(kin, kout, vin, vout, n, less, s); });
}

}  // namespace cupar_bench
