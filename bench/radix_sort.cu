// cupar benchmarks: cupar's radix sort rows (the precompiled library path of sort.hpp).
// Out of place: the input keys are never modified, so no restoring is needed between runs.
#include "rows.hpp"
#include "runners.hpp"

#include <cupar/cupar.hpp>

#include <cstdint>

namespace cupar_bench {
namespace {

template <class K>
void radix_sort_keys_cupar(benchmark::State& state) {
  sort_keys_runner<K>(state, [](const K* in, K* out, std::size_t n, cudaStream_t s) {
    cupar::sort_keys(in, out, n, s);
  });
}

}  // namespace

void radix_sort_keys_cupar_u32(benchmark::State& state) {
  radix_sort_keys_cupar<std::uint32_t>(state);
}
void radix_sort_keys_cupar_u64(benchmark::State& state) {
  radix_sort_keys_cupar<std::uint64_t>(state);
}
void radix_sort_keys_cupar_f32(benchmark::State& state) {
  radix_sort_keys_cupar<float>(state);
}
void radix_sort_keys_cupar_i32(benchmark::State& state) {
  radix_sort_keys_cupar<std::int32_t>(state);
}
void radix_sort_keys_cupar_u8(benchmark::State& state) {
  radix_sort_keys_cupar<std::uint8_t>(state);
}

void radix_sort_pairs_cupar_u32_u32(benchmark::State& state) {
  sort_pairs_runner<std::uint32_t, std::uint32_t>(
      state, [](const std::uint32_t* kin, std::uint32_t* kout, const std::uint32_t* vin,
                std::uint32_t* vout, std::size_t n,
                cudaStream_t s) { cupar::sort_pairs(kin, kout, vin, vout, n, s); });
}

}  // namespace cupar_bench
