// cupar quick start (the README's example): a run-time operator from a file compiled by any host
// compiler. Build: link cupar::cupar. Run: quickstart
#include <cupar/cupar.hpp>

#include <cstdio>
#include <vector>

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("quickstart needs a GPU\n");
    return 77;  // ctest: skipped
  }
  cudaStream_t stream;
  cudaStreamCreate(&stream);
  int status = 1;
  {  // device buffers give their memory back on the stream: destroy them before it
    std::vector<float> host = {3.0f, 1.0f, 4.0f, 1.0f, 5.0f, 9.0f, 2.0f, 6.0f};
    cupar::device_buffer<float> data(host, stream), out(host.size(), stream);

    // Operators are source text, known at run time; parameters change without recompiling.
    cupar::jit::op scale("x * s + t");
    scale.param("s", 2.0f).param("t", 1.0f);
    cupar::transform(data.data(), out.data(), host.size(), scale, stream);

    const float sum =
        cupar::reduce_value(out.data(), host.size(), cupar::jit::op("a + b"), 0.0f, stream);
    const float top =
        cupar::reduce_value(out.data(), host.size(), cupar::jit::maximum, 0.0f, stream);
    cupar::sort_keys(out.data(), out.data(), host.size(), cupar::jit::op("a > b"), stream);
    const std::vector<float> sorted = out.to_host();

    std::printf("sum = %g, max = %g, sorted descending: ", sum, top);
    for (float v : sorted)
      std::printf("%g ", v);
    std::printf("\n");
    status = sum == 2.0f * 31.0f + 8.0f && top == 19.0f && sorted.front() == 19.0f ? 0 : 1;
  }
  cudaStreamDestroy(stream);
  return status;
}
