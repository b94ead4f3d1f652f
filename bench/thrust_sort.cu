// cupar benchmarks: Thrust's sorts of arithmetic keys (radix sort) and with a comparator (merge
// sort). Thrust sorts in place: the input is restored from a pristine copy and the L2 flushed
// before each run, outside the timed region (sort_keys_in_place_runner).
#include "rows.hpp"
#include "runners.hpp"

#include <thrust/execution_policy.h>
#include <thrust/sort.h>

#include <cstdint>

namespace cupar_bench {
namespace {

template <class K>
void radix_sort_keys_thrust(benchmark::State& state) {
  sort_keys_in_place_runner<K>(state, [](K* keys, std::size_t n, cudaStream_t s) {
    thrust::sort(thrust::cuda::par.on(s), keys, keys + n);
  });
}

}  // namespace

void radix_sort_keys_thrust_u32(benchmark::State& state) {
  radix_sort_keys_thrust<std::uint32_t>(state);
}
void radix_sort_keys_thrust_u64(benchmark::State& state) {
  radix_sort_keys_thrust<std::uint64_t>(state);
}
void radix_sort_keys_thrust_f32(benchmark::State& state) {
  radix_sort_keys_thrust<float>(state);
}

void radix_sort_pairs_thrust_u32_u32(benchmark::State& state) {
  sort_pairs_in_place_runner<std::uint32_t, std::uint32_t>(
      state, [](std::uint32_t* keys, std::uint32_t* values, std::size_t n, cudaStream_t s) {
        thrust::sort_by_key(thrust::cuda::par.on(s), keys, keys + n, values);
      });
}

}  // namespace cupar_bench
