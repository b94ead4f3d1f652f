// cupar tests: nothing cupar allocated is left when a program ends normally (issue 12).
//
// Creates and destroys many streams (200 by default: more than the 64 the default resource keeps
// blocks for), runs every family on each with compiled and run-time operators, frees its own
// buffers and returns from main. An exit handler registered before any cupar call (so it runs
// after cupar's own) then checks that the default resource keeps nothing and that no memory of
// any device's default pool is still allocated; it exits 1 otherwise.
//
//   cupar_exit_leak_test [streams] [n]          exit 0: nothing left; 77: no GPU
//   compute-sanitizer --tool memcheck --leak-check full cupar_exit_leak_test
//                                               "LEAK SUMMARY: 0 bytes leaked in 0 allocations"
#include <cupar/cupar.cuh>

#include <cuda_runtime_api.h>

#include <unistd.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <string>
#include <vector>

namespace {

int device_count = 0;

struct int_plus {
  __device__ int operator()(int a, int b) const { return a + b; }
};

std::size_t pool_bytes_in_use() {
  std::size_t total = 0;
  for (int d = 0; d < device_count; ++d) {
    cudaMemPool_t pool = nullptr;
    std::uint64_t used = 0;
    if (cudaDeviceGetDefaultMemPool(&pool, d) != cudaSuccess ||
        cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used) != cudaSuccess) {
      std::printf("cupar_exit_leak_test: cannot read the pool of device %d\n", d);
      std::fflush(stdout);
      _exit(1);
    }
    total += used;
  }
  return total;
}

// Registered after the CUDA runtime started and before cupar kept anything: runs after cupar's
// exit handler and before the runtime's teardown.
void check_at_exit() {
  for (int d = 0; d < device_count; ++d) {
    if (cudaSetDevice(d) != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess) _exit(1);
  }
  const std::size_t kept = cupar::cached_memory_bytes();
  const std::size_t in_use = pool_bytes_in_use();
  std::printf(
      "cupar_exit_leak_test: bytes left at exit: %zu (kept by cupar %zu, pool memory in "
      "use %zu)\n",
      kept + in_use, kept, in_use);
  std::fflush(stdout);
  if (kept + in_use != 0) _exit(1);
}

bool run_stream(int index, std::size_t n, const cupar::jit::op& jit_plus,
                const cupar::jit::op& jit_less, const cupar::jit::op& jit_scale) {
  cudaStream_t raw = nullptr;
  if (cudaStreamCreateWithFlags(&raw, cudaStreamNonBlocking) != cudaSuccess) return false;
  bool ok = true;
  {
    const cupar::stream_ref s(raw);
    std::vector<int> h(n);
    for (std::size_t i = 0; i < n; ++i)
      h[i] = static_cast<int>((i * 2654435761u + static_cast<unsigned>(index)) % 1000);
    const long long sum = std::accumulate(h.begin(), h.end(), 0LL);
    std::vector<int> sorted = h;
    std::sort(sorted.begin(), sorted.end());
    cupar::device_buffer<int> in(h, s), out(n, s);
    cupar::device_buffer<unsigned int> hist(10, s);
    const int_plus plus;
    // CUPAR_EXIT_LEAK_TRACE=1: the pool memory in use after each call of the first streams,
    // kept blocks given back first (finds the call that leaves memory behind).
    static const bool trace = std::getenv("CUPAR_EXIT_LEAK_TRACE") != nullptr;
    auto step = [&](const char* what) {
      if (!trace || index > 2) return;
      (void)cudaStreamSynchronize(raw);
      cupar::release_cached_memory();
      (void)cudaDeviceSynchronize();
      std::printf("trace stream %d after %s: pool in use %zu\n", index, what, pool_bytes_in_use());
    };
    step("buffers");
    ok &= cupar::reduce_value(in.data(), n, plus, 0, s) == sum;
    step("reduce_value (C++)");
    ok &= cupar::reduce_value(in.data(), n, jit_plus, 0, s) == sum;
    step("reduce_value (JIT)");
    cupar::inclusive_scan(in.data(), out.data(), n, plus, s);
    ok &= out.to_host().back() == sum;
    step("inclusive_scan (C++)");
    cupar::exclusive_scan(in.data(), out.data(), n, jit_plus, 0, s);
    ok &= out.to_host().back() == sum - h.back();
    step("exclusive_scan (JIT)");
    cupar::sort_keys(in.data(), out.data(), n, s);  // radix sort (library)
    ok &= out.to_host() == sorted;
    step("radix sort");
    cupar::sort_keys(in.data(), out.data(), n, jit_less, s);  // merge sort (run-time comparator)
    ok &= out.to_host() == sorted;
    step("merge sort (JIT)");
    cupar::transform(in.data(), out.data(), n, jit_scale, s);
    ok &= out.to_host()[0] == 2 * h[0];
    step("transform (JIT)");
    cupar::histogram_even(in.data(), hist.data(), 11, 0, 1000, n, s);
    const auto counts = hist.to_host();
    ok &= std::accumulate(counts.begin(), counts.end(), std::size_t(0)) == n;
    step("histogram");
  }
  ok &= cudaStreamSynchronize(raw) == cudaSuccess;
  ok &= cudaStreamDestroy(raw) == cudaSuccess;
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  const int streams = argc > 1 ? std::atoi(argv[1]) : 200;
  const std::size_t n = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 20000;
  if (cudaGetDeviceCount(&device_count) != cudaSuccess || device_count == 0) {
    std::printf("cupar_exit_leak_test: no usable CUDA device: skipped\n");
    return 77;
  }
  // Start the runtime, then register the check: it runs after cupar's handler (registered at the
  // first kept block, later than this) and before the runtime's own teardown.
  if (cudaFree(nullptr) != cudaSuccess) return 1;
  std::atexit(check_at_exit);
  const cupar::jit::op jit_plus("a + b"), jit_less("a < b"), jit_scale("x * 2");
  int failures = 0;
  for (int i = 0; i < streams; ++i) {
    try {
      if (!run_stream(i, n, jit_plus, jit_less, jit_scale)) {
        ++failures;
        std::printf("stream %d: wrong result\n", i);
      }
    } catch (const std::exception& e) {
      ++failures;
      std::printf("stream %d: %s\n", i, e.what());
    }
  }
  const std::size_t kept = cupar::cached_memory_bytes();
  std::printf(
      "cupar_exit_leak_test: %d streams created and destroyed, %d failures; %zu bytes "
      "kept for reuse before exit\n",
      streams, failures, kept);
  if (kept == 0) {
    std::printf("cupar_exit_leak_test: nothing was kept, so the exit path was not exercised\n");
    return 1;
  }
  return failures == 0 ? 0 : 1;
}
