// cupar benchmarks: CUB's merge sort called directly (the copying interface, which leaves the
// input as it is: no restoring between runs), with the comparator lambda `a < b`.
#include "rows.hpp"
#include "runners.hpp"

#include <cub/device/device_merge_sort.cuh>

#include <cstdint>

namespace cupar_bench {

void merge_sort_keys_cub_f32(benchmark::State& state) {
  auto less = [] __device__(float a, float b) -> bool { return a < b; };
  cub_temp temp;
  sort_keys_runner<float>(state, [&](const float* in, float* out, std::size_t n, cudaStream_t s) {
    temp.run([&](void* t, std::size_t& bytes) {
      return cub::DeviceMergeSort::SortKeysCopy(t, bytes, in, out, static_cast<int>(n), less, s);
    });
  });
}

void merge_sort_keys_cub_i32(benchmark::State& state) {
  auto less = [] __device__(std::int32_t a, std::int32_t b) -> bool { return a < b; };
  cub_temp temp;
  sort_keys_runner<std::int32_t>(state, [&](const std::int32_t* in, std::int32_t* out,
                                            std::size_t n, cudaStream_t s) {
    temp.run([&](void* t, std::size_t& bytes) {
      return cub::DeviceMergeSort::SortKeysCopy(t, bytes, in, out, static_cast<int>(n), less, s);
    });
  });
}

void merge_sort_pairs_cub_f32_u32(benchmark::State& state) {
  auto less = [] __device__(float a, float b) -> bool { return a < b; };
  cub_temp temp;
  sort_pairs_runner<float, std::uint32_t>(
      state, [&](const float* kin, float* kout, const std::uint32_t* vin, std::uint32_t* vout,
                 std::size_t n, cudaStream_t s) {
        temp.run([&](void* t, std::size_t& bytes) {
          return cub::DeviceMergeSort::SortPairsCopy(t, bytes, kin, vin, kout, vout,
                                                     static_cast<int>(n), less, s);
        });
      });
}

}  // namespace cupar_bench
