// cupar tests: one process's use of the JIT disk cache, for disk_cache_gpu_test.cpp. Reduces
// 100,000 floats with the operator given as argv[1] (built optimised, so the build is stored),
// checks the result against the CPU and prints the engine's disk counters:
//   "stats: hits=H rejects=R writes=W compiles=C"
// Exits 0 when the result is right, 1 when not, 77 without a GPU. The parent sets CUPAR_CACHE_DIR
// and CUPAR_JIT_MODE=optimized.
#include <cupar/cupar.hpp>

#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdio>
#include <vector>

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) return 77;
  try {
    cudaStream_t raw = nullptr;
    if (cudaStreamCreate(&raw) != cudaSuccess) return 1;
    const cupar::stream_ref s(raw);
    const std::size_t n = 100000;
    std::vector<float> h(n);
    double expect = 0;
    for (std::size_t i = 0; i < n; ++i) {
      h[i] = static_cast<float>(i % 1000) * 0.25f;
      expect += h[i];
    }
    cupar::device_buffer<float> in(h, s);
    const float got = cupar::reduce_value(in.data(), n, cupar::jit::op(argv[1]), 0.0f, s);
    const auto st = cupar::jit::get_stats();
    std::printf("stats: hits=%llu rejects=%llu writes=%llu compiles=%llu\n",
                static_cast<unsigned long long>(st.disk_hits),
                static_cast<unsigned long long>(st.disk_rejects),
                static_cast<unsigned long long>(st.disk_writes),
                static_cast<unsigned long long>(st.operator_compiles + st.kernel_compiles));
    std::printf("result: %.1f (expected %.1f)\n", static_cast<double>(got), expect);
    return std::fabs(static_cast<double>(got) - expect) <= 1e-4 * expect ? 0 : 1;
  } catch (const std::exception& e) {
    std::printf("exception: %s\n", e.what());
    return 1;
  }
}
