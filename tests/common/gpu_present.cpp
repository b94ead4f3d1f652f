// Reports whether this machine has a usable CUDA device. Exit code 77 (ctest: skipped) when not,
// so a test run without a GPU says so instead of passing its GPU tests silently.
#include <cuda_runtime_api.h>

#include <cstdio>

int main() {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    std::printf("no usable CUDA device (%s): every GPU test skips itself\n",
                e != cudaSuccess ? cudaGetErrorString(e) : "no device");
    return 77;
  }
  for (int d = 0; d < count; ++d) {
    cudaDeviceProp p{};
    if (cudaGetDeviceProperties(&p, d) == cudaSuccess) {
      std::printf("device %d: %s, compute capability %d.%d, %d SMs, %.1f GiB\n", d, p.name, p.major,
                  p.minor, p.multiProcessorCount, p.totalGlobalMem / 1073741824.0);
    }
  }
  return 0;
}
