// Probe (GPU, 2026-12-03): merge sort by a run-time comparator (a new operator each run) checked
// against std::stable_sort for 0 .. 10^6 + 3 keys (f32, u32 descending, f64: 17, 17 and 8 keys a
// thread), then timed at 2^24 (f32, u32; GPU time of a warm call, median of 7). Run it with
// CUPAR_JIT_MODE=fast for tier 1 and CUPAR_JIT_MODE=optimized for the optimised build (argument
// `timed`: the timed runs only), CUPAR_DISABLE_DISK_CACHE=1. Build against a lean build of the
// library (CUPAR_LEAN_ARGS="-DCUPAR_LIBRARY_TYPES=f32 -DCUPAR_BUILD_TESTS=OFF
// -DCUPAR_BUILD_BENCHMARKS=OFF" scripts/gpu-evidence.sh lean '^merge_sort_keys<(f32|u32|f64)>$'
// cupar, 80 s on the 16-core machine):
//   g++ -std=c++17 -O2 -Iinclude -Ibuild-lean/cupar_generated -I/usr/local/cuda/include
//     docs/probes/sort_tiers.cpp -o sort_tiers -Lbuild-lean/src -lcupar
//     -L/usr/local/cuda/lib64 -lcudart -Wl,-rpath,$PWD/build-lean/src
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <cupar/cupar.hpp>
#include <random>
#include <string>
#include <vector>
template <class T>
int run(const char* name, const char* cmp, std::size_t n, bool time_it, int salt) {
  std::vector<T> h(n);
  std::mt19937_64 g(n * 31 + salt);
  for (auto& x : h)
    x = static_cast<T>(g() % (n / 3 + 7)) - static_cast<T>(time_it ? 0 : 3);
  T *in = nullptr, *out = nullptr;
  cudaMalloc(&in, (n + 1) * sizeof(T));
  cudaMalloc(&out, (n + 1) * sizeof(T));
  cudaMemcpy(in, h.data(), n * sizeof(T), cudaMemcpyHostToDevice);
  cudaStream_t s;
  cudaStreamCreate(&s);
  // A new operator text each run: its own build.
  const cupar::jit::op comp(std::string(cmp) + " && " + std::to_string(salt) + " >= 0");
  cupar::sort_keys<T>(in, out, n, comp, s);
  cudaStreamSynchronize(s);
  std::vector<float> ms;
  if (time_it) {
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    for (int i = 0; i < 7; ++i) {
      cudaEventRecord(a, s);
      cupar::sort_keys<T>(in, out, n, comp, s);
      cudaEventRecord(b, s);
      cudaEventSynchronize(b);
      float t = 0;
      cudaEventElapsedTime(&t, a, b);
      ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
  }
  std::vector<T> r(n);
  cudaMemcpy(r.data(), out, n * sizeof(T), cudaMemcpyDeviceToHost);
  std::vector<T> ref = h;
  if (std::string(cmp) == "a > b")
    std::stable_sort(ref.begin(), ref.end(), [](T a, T b) { return a > b; });
  else
    std::stable_sort(ref.begin(), ref.end());
  const bool ok = r == ref && cudaGetLastError() == cudaSuccess;
  std::printf("%s n=%zu %s: %s%s", name, n, cmp, ok ? "ok" : "WRONG", time_it ? "" : "\n");
  if (time_it) std::printf(" median %.1f us\n", ms[3] * 1000);
  cudaFree(in);
  cudaFree(out);
  cudaStreamDestroy(s);
  return ok ? 0 : 1;
}
int main(int argc, char**) {
  int bad = 0, salt = 0;
  if (argc == 1)
    for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{17}, std::size_t{4351},
                          std::size_t{4352}, std::size_t{4353}, std::size_t{1000003}}) {
      bad += run<float>("f32", "a < b", n, false, ++salt);
      bad += run<unsigned>("u32", "a > b", n, false, ++salt);
      bad += run<double>("f64", "a < b", n, false, ++salt);
    }
  bad += run<float>("f32", "a < b", std::size_t{1} << 24, true, ++salt);
  bad += run<unsigned>("u32", "a < b", std::size_t{1} << 24, true, ++salt);
  std::printf("%s\n", bad ? "FAILED" : "all ok");
  return bad != 0;
}
