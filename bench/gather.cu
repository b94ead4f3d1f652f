// cupar benchmarks: gather and scatter by a 4-byte index array, cupar (the library's kernels,
// gather.hpp) beside Thrust (thrust::gather / thrust::scatter on the same data).
#include "rows.hpp"
#include "runners.hpp"

#include <cupar/gather.hpp>

#include <thrust/execution_policy.h>
#include <thrust/gather.h>
#include <thrust/scatter.h>

#include <cstdint>

namespace cupar_bench {
namespace {

template <class T>
void gather_cupar(benchmark::State& state) {
  gather_runner<T>(state, [](const T* values, const std::uint32_t* idx, T* out, std::size_t n,
                             cudaStream_t s) { cupar::gather(values, n, idx, n, out, s); });
}
template <class T>
void gather_thrust(benchmark::State& state) {
  gather_runner<T>(
      state, [](const T* values, const std::uint32_t* idx, T* out, std::size_t n, cudaStream_t s) {
        thrust::gather(thrust::cuda::par.on(s), idx, idx + n, values, out);
      });
}

}  // namespace

void gather_cupar_u32(benchmark::State& state) {
  gather_cupar<std::uint32_t>(state);
}
void gather_thrust_u32(benchmark::State& state) {
  gather_thrust<std::uint32_t>(state);
}
void gather_cupar_u64(benchmark::State& state) {
  gather_cupar<std::uint64_t>(state);
}
void gather_thrust_u64(benchmark::State& state) {
  gather_thrust<std::uint64_t>(state);
}
void scatter_cupar_u32(benchmark::State& state) {
  gather_runner<std::uint32_t>(
      state, [](const std::uint32_t* values, const std::uint32_t* idx, std::uint32_t* out,
                std::size_t n, cudaStream_t s) { cupar::scatter(values, n, idx, out, n, s); });
}
void scatter_thrust_u32(benchmark::State& state) {
  gather_runner<std::uint32_t>(state, [](const std::uint32_t* values, const std::uint32_t* idx,
                                         std::uint32_t* out, std::size_t n, cudaStream_t s) {
    thrust::scatter(thrust::cuda::par.on(s), values, values + n, idx, out);
  });
}

}  // namespace cupar_bench
