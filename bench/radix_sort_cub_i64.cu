// cupar benchmarks: CUB's radix sort with int64_t num_items (`cub_i64`); see radix_sort_cub.cu.
// A translation unit of its own so the CUB instantiations build in parallel.
#include "rows.hpp"
#include "runners.hpp"

#include <cub/device/device_radix_sort.cuh>

#include <cstdint>

namespace cupar_bench {
namespace {

template <class K>
void radix_sort_keys_cub_i64(benchmark::State& state) {
  cub_temp temp;
  sort_keys_runner<K>(state, [&](const K* in, K* out, std::size_t n, cudaStream_t s) {
    temp.run([&](void* t, std::size_t& bytes) {
      return cub::DeviceRadixSort::SortKeys(t, bytes, in, out, static_cast<std::int64_t>(n), 0,
                                            static_cast<int>(8 * sizeof(K)), s);
    });
  });
}

}  // namespace

void radix_sort_keys_cub_i64_u32(benchmark::State& state) {
  radix_sort_keys_cub_i64<std::uint32_t>(state);
}
void radix_sort_keys_cub_i64_u64(benchmark::State& state) {
  radix_sort_keys_cub_i64<std::uint64_t>(state);
}
void radix_sort_keys_cub_i64_f32(benchmark::State& state) {
  radix_sort_keys_cub_i64<float>(state);
}
void radix_sort_keys_cub_i64_i32(benchmark::State& state) {
  radix_sort_keys_cub_i64<std::int32_t>(state);
}
void radix_sort_keys_cub_i64_u8(benchmark::State& state) {
  radix_sort_keys_cub_i64<std::uint8_t>(state);
}

void radix_sort_pairs_cub_i64_u32_u32(benchmark::State& state) {
  cub_temp temp;
  sort_pairs_runner<std::uint32_t, std::uint32_t>(
      state, [&](const std::uint32_t* kin, std::uint32_t* kout, const std::uint32_t* vin,
                 std::uint32_t* vout, std::size_t n, cudaStream_t s) {
        temp.run([&](void* t, std::size_t& bytes) {
          return cub::DeviceRadixSort::SortPairs(t, bytes, kin, kout, vin, vout,
                                                 static_cast<std::int64_t>(n), 0, 32, s);
        });
      });
}

}  // namespace cupar_bench
