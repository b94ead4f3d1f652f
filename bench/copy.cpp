// cupar benchmarks: device-to-device copy, the bandwidth bound every row is compared with.
#include "rows.hpp"
#include "runners.hpp"

#include <cstdint>

namespace cupar_bench {

void copy_cuda_memcpy_u32(benchmark::State& state) {
  copy_runner(
      state, [](const std::uint32_t* src, std::uint32_t* dst, std::size_t n, cudaStream_t s) {
        CUPAR_BENCH_CUDA(
            cudaMemcpyAsync(dst, src, n * sizeof(std::uint32_t), cudaMemcpyDeviceToDevice, s));
      });
}

}  // namespace cupar_bench
