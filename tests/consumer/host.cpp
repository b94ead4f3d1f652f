// Built by the host compiler against an installed cupar: compiles a run-time operator (no GPU
// needed for that), and runs it when there is a GPU.
#include <cupar/cupar.hpp>

#include <cuda_runtime_api.h>

#include <cstdio>
#include <vector>

int main() {
  std::setvbuf(stdout, nullptr, _IONBF, 0);
  const auto report = cupar::jit::compile_reduce<float>(cupar::jit::op("a + b"), 90, false);
  std::printf("cupar %s: compiled a run-time operator into %zu bytes\n", cupar::version(),
              report.cubin_bytes);
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no GPU: not running it\n");
    return 0;
  }
  cudaStream_t s;
  cudaStreamCreate(&s);
  float sum = 0;
  {
    // The buffer is freed on its stream: it goes before the stream does.
    const std::vector<float> h = {1, 2, 3, 4};
    cupar::device_buffer<float> d(h, s);
    sum = cupar::reduce_value(d.data(), h.size(), cupar::jit::op("a + b"), 0.0f, s);
  }
  std::printf("sum = %g\n", sum);
  cudaStreamDestroy(s);
  return sum == 10.0f ? 0 : 1;
}
