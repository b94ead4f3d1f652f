// Built by nvcc against an installed cupar: a C++ lambda operator.
#include <cupar/cupar.cuh>

#include <cstdio>
#include <vector>

int main() {
  std::setvbuf(stdout, nullptr, _IONBF, 0);
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no GPU: built, not run\n");
    return 0;
  }
  cudaStream_t s;
  cudaStreamCreate(&s);
  int m = 0;
  {
    // The buffer is freed on its stream: it goes before the stream does.
    const std::vector<int> h = {3, 1, 2};
    cupar::device_buffer<int> d(h, s);
    m = cupar::reduce_value(
        d.data(), h.size(), [] __device__(int a, int b) { return a > b ? a : b; }, 0, s);
  }
  std::printf("max = %d\n", m);
  cudaStreamDestroy(s);
  return m == 3 ? 0 : 1;
}
