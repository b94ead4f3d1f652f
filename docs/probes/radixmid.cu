// Probe: at 2^20..2^24 keys, what separates cupar's radix sort rows from CUB called directly?
// cupar (out of place, below 2^23) calls CUB's copying SortKeys with unsigned 32-bit offsets and
// temporary storage from cudaMallocAsync/cudaFreeAsync per call; the benchmark's CUB row passes an
// int and preallocates. This times each difference alone, GPU time only: 40 sorts back to back
// between two events (the queue never drains, so launch latency is hidden), 9 rounds with the
// variants interleaved, median of the rounds, per sort.
//
// Build: nvcc -std=c++17 -O3 -arch=sm_90 radixmid.cu -o radixmid
#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x)                                                                  \
  do {                                                                         \
    cudaError_t e = (x);                                                       \
    if (e != cudaSuccess) {                                                    \
      printf("%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e)); \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

static cudaStream_t st;

__global__ void fill(std::uint32_t* u, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x) {
    std::uint64_t z = (i + 1) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    u[i] = static_cast<std::uint32_t>(z ^ (z >> 31));
  }
}

template <class K, class Off>
cudaError_t sort(void* t, std::size_t& b, const K* in, K* out, std::size_t n) {
  return cub::DeviceRadixSort::SortKeys(t, b, in, out, static_cast<Off>(n), 0, 8 * sizeof(K), st);
}

struct variant {
  const char* name;
  // runs one sort; prealloc: temp of the size asked for (or null to allocate per call)
  void (*run)(const void* in, void* out, std::size_t n, void* prealloc);
  std::size_t (*bytes)(std::size_t n);
};

template <class K, class Off>
void run_pre(const void* in, void* out, std::size_t n, void* pre) {
  std::size_t b = 0;
  CK((sort<K, Off>(nullptr, b, static_cast<const K*>(in), static_cast<K*>(out), n)));
  CK((sort<K, Off>(pre, b, static_cast<const K*>(in), static_cast<K*>(out), n)));
}
template <class K, class Off>
void run_async(const void* in, void* out, std::size_t n, void*) {
  std::size_t b = 0;
  CK((sort<K, Off>(nullptr, b, static_cast<const K*>(in), static_cast<K*>(out), n)));
  void* t = nullptr;
  CK(cudaMallocAsync(&t, b, st));
  CK((sort<K, Off>(t, b, static_cast<const K*>(in), static_cast<K*>(out), n)));
  CK(cudaFreeAsync(t, st));
}
template <class K, class Off>
std::size_t bytes_of(std::size_t n) {
  std::size_t b = 0;
  CK((sort<K, Off>(nullptr, b, nullptr, nullptr, n)));
  return b;
}

template <class K>
void probe(const char* key_name) {
  const std::vector<variant> vs = {
      {"int, prealloc", run_pre<K, int>, bytes_of<K, int>},
      {"u32, prealloc", run_pre<K, std::uint32_t>, bytes_of<K, std::uint32_t>},
      {"u32, mallocAsync", run_async<K, std::uint32_t>, bytes_of<K, std::uint32_t>},
      {"u64, prealloc", run_pre<K, unsigned long long>, bytes_of<K, unsigned long long>},
  };
  constexpr int per = 40, rounds = 9;
  for (int lg : {20, 21, 22, 23, 24}) {
    const std::size_t n = std::size_t(1) << lg;
    void *in, *out;
    CK(cudaMalloc(&in, n * sizeof(K)));
    CK(cudaMalloc(&out, n * sizeof(K)));
    fill<<<1024, 256, 0, st>>>(static_cast<std::uint32_t*>(in), n * sizeof(K) / 4);
    std::vector<void*> pre(vs.size());
    for (std::size_t v = 0; v < vs.size(); ++v)
      CK(cudaMalloc(&pre[v], vs[v].bytes(n)));
    std::vector<std::vector<float>> t(vs.size());
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    for (int r = 0; r < rounds + 1; ++r) {
      for (std::size_t v = 0; v < vs.size(); ++v) {
        CK(cudaEventRecord(a, st));
        for (int i = 0; i < per; ++i)
          vs[v].run(in, out, n, pre[v]);
        CK(cudaEventRecord(b, st));
        CK(cudaEventSynchronize(b));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, a, b));
        if (r > 0) t[v].push_back(ms * 1000.0f / per);  // round 0 warms up
      }
    }
    for (std::size_t v = 0; v < vs.size(); ++v) {
      std::sort(t[v].begin(), t[v].end());
      printf("%s 2^%d %-18s median %8.2f us  min %8.2f  max %8.2f\n", key_name, lg, vs[v].name,
             t[v][t[v].size() / 2], t[v].front(), t[v].back());
    }
    for (void* p : pre)
      CK(cudaFree(p));
    CK(cudaFree(in));
    CK(cudaFree(out));
  }
}

int main() {
  CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  cudaMemPool_t pool;
  CK(cudaDeviceGetDefaultMemPool(&pool, 0));
  std::uint64_t threshold = ~0ull;
  CK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));
  probe<std::uint32_t>("u32");
  probe<float>("f32");
  return 0;
}
