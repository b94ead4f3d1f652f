// cupar benchmarks: 256-bin even histograms. Plain samples go through cupar's library path
// (histogram.hpp); samples seen through an operator (1 - x) through the callable path
// (histogram.cuh), against CUB with the same Thrust transform iterator. Counters are 32-bit.
#include "rows.hpp"
#include "runners.hpp"

#include <cupar/cupar.cuh>

#include <thrust/iterator/transform_iterator.h>
#include <cub/device/device_histogram.cuh>

#include <cstdint>

namespace cupar_bench {
namespace {

template <class S>
void histogram_even_cupar(benchmark::State& state) {
  using setup = histogram_setup<S>;
  histogram_runner<S>(state, [](const S* samples, unsigned* hist, std::size_t n, cudaStream_t s) {
    cupar::histogram_even(samples, hist, setup::num_levels, setup::lower, setup::upper, n, s);
  });
}

template <class S>
void histogram_even_cub(benchmark::State& state) {
  using setup = histogram_setup<S>;
  cub_temp temp;
  histogram_runner<S>(state, [&](const S* samples, unsigned* hist, std::size_t n, cudaStream_t s) {
    temp.run([&](void* t, std::size_t& bytes) {
      return cub::DeviceHistogram::HistogramEven(
          t, bytes, samples, hist, setup::num_levels, typename setup::level(setup::lower),
          typename setup::level(setup::upper), static_cast<int>(n), s);
    });
  });
}

}  // namespace

void histogram_even_cupar_f32(benchmark::State& state) {
  histogram_even_cupar<float>(state);
}
void histogram_even_cupar_u8(benchmark::State& state) {
  histogram_even_cupar<std::uint8_t>(state);
}
void histogram_even_cub_f32(benchmark::State& state) {
  histogram_even_cub<float>(state);
}
void histogram_even_cub_u8(benchmark::State& state) {
  histogram_even_cub<std::uint8_t>(state);
}

void histogram_even_op_cupar_f32(benchmark::State& state) {
  using setup = histogram_setup<float>;
  auto op = [] __device__(float x) { return 1.0f - x; };
  histogram_runner<float>(state, [=](const float* samples, unsigned* hist, std::size_t n,
                                     cudaStream_t s) {
    cupar::histogram_even(samples, hist, setup::num_levels, setup::lower, setup::upper, n, op, s);
  });
}

void histogram_even_op_cub_f32(benchmark::State& state) {
  using setup = histogram_setup<float>;
  auto op = [] __device__(float x) -> float { return 1.0f - x; };
  cub_temp temp;
  histogram_runner<float>(
      state, [&](const float* samples, unsigned* hist, std::size_t n, cudaStream_t s) {
        thrust::transform_iterator<decltype(op), const float*, float> it(samples, op);
        temp.run([&](void* t, std::size_t& bytes) {
          return cub::DeviceHistogram::HistogramEven(t, bytes, it, hist, setup::num_levels,
                                                     setup::lower, setup::upper,
                                                     static_cast<int>(n), s);
        });
      });
}

}  // namespace cupar_bench
