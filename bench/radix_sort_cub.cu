// cupar benchmarks: CUB's radix sort called directly, with int num_items (`cub`, what most callers
// write) and with int64_t num_items (`cub_i64`): CUB's tuning differs by offset width, and cupar
// picks the width per key type and size (src/compiled/radix_sort_impl.cuh).
// Out of place (CUB's copying interface leaves the input as it is): no restoring between runs.
#include "rows.hpp"
#include "runners.hpp"

#include <cub/device/device_radix_sort.cuh>

#include <cstdint>

namespace cupar_bench {
namespace {

template <class K, class Offset>
void radix_sort_keys_cub(benchmark::State& state) {
  cub_temp temp;
  sort_keys_runner<K>(state, [&](const K* in, K* out, std::size_t n, cudaStream_t s) {
    temp.run([&](void* t, std::size_t& bytes) {
      return cub::DeviceRadixSort::SortKeys(t, bytes, in, out, static_cast<Offset>(n), 0,
                                            static_cast<int>(8 * sizeof(K)), s);
    });
  });
}

template <class K, class V, class Offset>
void radix_sort_pairs_cub(benchmark::State& state) {
  cub_temp temp;
  sort_pairs_runner<K, V>(state, [&](const K* kin, K* kout, const V* vin, V* vout, std::size_t n,
                                     cudaStream_t s) {
    temp.run([&](void* t, std::size_t& bytes) {
      return cub::DeviceRadixSort::SortPairs(t, bytes, kin, kout, vin, vout, static_cast<Offset>(n),
                                             0, static_cast<int>(8 * sizeof(K)), s);
    });
  });
}

}  // namespace

void radix_sort_keys_cub_u32(benchmark::State& state) {
  radix_sort_keys_cub<std::uint32_t, int>(state);
}
void radix_sort_keys_cub_u64(benchmark::State& state) {
  radix_sort_keys_cub<std::uint64_t, int>(state);
}
void radix_sort_keys_cub_f32(benchmark::State& state) {
  radix_sort_keys_cub<float, int>(state);
}
void radix_sort_keys_cub_i32(benchmark::State& state) {
  radix_sort_keys_cub<std::int32_t, int>(state);
}
void radix_sort_keys_cub_u8(benchmark::State& state) {
  radix_sort_keys_cub<std::uint8_t, int>(state);
}
void radix_sort_pairs_cub_u32_u32(benchmark::State& state) {
  radix_sort_pairs_cub<std::uint32_t, std::uint32_t, int>(state);
}

}  // namespace cupar_bench
