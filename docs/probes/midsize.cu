// Probe: where do cupar's compiled rows lose to CUB at n = 2^20..2^26 (benchmark of 2026-11-21:
// reduce 0.80-0.95, scan 0.90-0.97, histogram_even 0.81-0.98 of CUB)? Separates three causes:
//   off  - the width of num_items: cupar passed 64-bit counts, the CUB rows int;
//   host - cupar's sizing query + cudaMallocAsync/cudaFreeAsync around each call, which delay the
//          first kernel when each call is timed alone between events;
//   view - the timing itself: "event" = events around one call on an idle stream (the benchmark's
//          method, launch latency included); "held" = the stream held by a spinning kernel until
//          the call is enqueued, so only GPU time counts.
// Also: merge sort pairs with an opaque 4-byte payload (struct of 4 bytes, as the JIT passes sort
// values) against unsigned payloads.
// Build: nvcc -std=c++17 -O3 -arch=sm_90 --extended-lambda midsize.cu -o midsize
#include <cub/cub.cuh>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x)                                                                       \
  do {                                                                              \
    cudaError_t e = (x);                                                            \
    if (e != cudaSuccess) {                                                         \
      std::printf("%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e)); \
      std::exit(1);                                                                 \
    }                                                                               \
  } while (0)

static cudaStream_t st;
static volatile int* flag_host;
static int* flag_dev;

__global__ void hold(const volatile int* flag) {
  while (*flag == 0) {
  }
}

// Median microseconds of f() between events. held: a spinning kernel holds the stream until f()
// is enqueued.
template <class F>
double time_it(F f, bool held, int reps = 25) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  for (int i = 0; i < 3; ++i)
    f();
  CK(cudaStreamSynchronize(st));
  std::vector<float> ts;
  for (int i = 0; i < reps; ++i) {
    if (held) {
      *flag_host = 0;
      hold<<<1, 1, 0, st>>>(flag_dev);
    }
    CK(cudaEventRecord(a, st));
    f();
    CK(cudaEventRecord(b, st));
    if (held) *flag_host = 1;
    CK(cudaEventSynchronize(b));
    float ms;
    CK(cudaEventElapsedTime(&ms, a, b));
    ts.push_back(ms);
  }
  std::sort(ts.begin(), ts.end());
  CK(cudaEventDestroy(a));
  CK(cudaEventDestroy(b));
  return ts[ts.size() / 2] * 1000.0;
}

// Prealloc: the temporary storage sized once. cupar-like: size query, cudaMallocAsync, run,
// cudaFreeAsync on every call.
template <class Call>
void row(const char* what, int lg, Call call, void* pre) {
  auto prealloc = [&] {
    std::size_t b = std::size_t(1) << 30;
    CK(call(pre, b));
  };
  auto cupar_like = [&] {
    std::size_t b = 0;
    CK(call(nullptr, b));
    void* p = nullptr;
    CK(cudaMallocAsync(&p, b ? b : 1, st));
    CK(call(p, b));
    CK(cudaFreeAsync(p, st));
  };
  std::printf(
      "%-22s 2^%d  event: prealloc %7.2f cupar-like %7.2f | held: prealloc %7.2f cupar-like %7.2f "
      "us\n",
      what, lg, time_it(prealloc, false), time_it(cupar_like, false), time_it(prealloc, true),
      time_it(cupar_like, true));
}

struct alignas(4) opaque4 {
  unsigned char b[4];
};

__global__ void fill(float* f, std::uint32_t* u, std::uint8_t* c, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x) {
    std::uint32_t h = std::uint32_t(i) * 2654435761u;
    h ^= h >> 13;
    h *= 0x5bd1e995;
    h ^= h >> 15;
    u[i] = h;
    f[i] = (h & 0xffffff) / float(1 << 24);
    c[i] = std::uint8_t(h >> 24);
  }
}

int main() {
  CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  {
    cudaMemPool_t pool;
    CK(cudaDeviceGetDefaultMemPool(&pool, 0));
    std::uint64_t th = UINT64_MAX;
    CK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &th));
  }
  CK(cudaHostAlloc((void**)&flag_host, sizeof(int), cudaHostAllocMapped));
  CK(cudaHostGetDevicePointer((void**)&flag_dev, (void*)flag_host, 0));
  const std::size_t N = std::size_t(1) << 26;
  float *fin, *fout;
  std::uint32_t *uin, *uout, *v1, *v2;
  std::uint8_t* cin;
  unsigned* hist;
  void* pre;
  CK(cudaMalloc(&fin, N * 4));
  CK(cudaMalloc(&fout, N * 4));
  CK(cudaMalloc(&uin, N * 4));
  CK(cudaMalloc(&uout, N * 4));
  CK(cudaMalloc(&v1, N * 4));
  CK(cudaMalloc(&v2, N * 4));
  CK(cudaMalloc(&cin, N));
  CK(cudaMalloc(&hist, 4096));
  CK(cudaMalloc(&pre, std::size_t(1) << 30));
  fill<<<1024, 256, 0, st>>>(fin, uin, cin, N);
  CK(cudaStreamSynchronize(st));
  for (int lg : {20, 22, 24, 26}) {
    const std::size_t n = std::size_t(1) << lg;
    row(
        "reduce f32 int", lg,
        [&](void* t, std::size_t& b) {
          return cub::DeviceReduce::Sum(t, b, fin, fout, int(n), st);
        },
        pre);
    row(
        "reduce f32 size_t", lg,
        [&](void* t, std::size_t& b) { return cub::DeviceReduce::Sum(t, b, fin, fout, n, st); },
        pre);
    row(
        "scan f32 int", lg,
        [&](void* t, std::size_t& b) {
          return cub::DeviceScan::InclusiveSum(t, b, fin, fout, int(n), st);
        },
        pre);
    row(
        "scan f32 size_t", lg,
        [&](void* t, std::size_t& b) {
          return cub::DeviceScan::InclusiveSum(t, b, fin, fout, n, st);
        },
        pre);
    row(
        "hist u8 int", lg,
        [&](void* t, std::size_t& b) {
          return cub::DeviceHistogram::HistogramEven(t, b, cin, hist, 257, 0, 256, int(n), st);
        },
        pre);
    row(
        "hist u8 long long", lg,
        [&](void* t, std::size_t& b) {
          return cub::DeviceHistogram::HistogramEven(t, b, cin, hist, 257, 0, 256, (long long)n,
                                                     st);
        },
        pre);
    row(
        "hist f32 int", lg,
        [&](void* t, std::size_t& b) {
          return cub::DeviceHistogram::HistogramEven(t, b, fin, hist, 257, 0.0f, 1.0f, int(n), st);
        },
        pre);
    row(
        "hist f32 long long", lg,
        [&](void* t, std::size_t& b) {
          return cub::DeviceHistogram::HistogramEven(t, b, fin, hist, 257, 0.0f, 1.0f, (long long)n,
                                                     st);
        },
        pre);
    auto less = [] __device__(float x, float y) { return x < y; };
    row(
        "msort pairs u32 val", lg,
        [&](void* t, std::size_t& b) {
          return cub::DeviceMergeSort::SortPairsCopy(t, b, fin, v1, fout, v2, (long long)n, less,
                                                     st);
        },
        pre);
    row(
        "msort pairs opaque4", lg,
        [&](void* t, std::size_t& b) {
          return cub::DeviceMergeSort::SortPairsCopy(
              t, b, fin, reinterpret_cast<const opaque4*>(v1), fout, reinterpret_cast<opaque4*>(v2),
              (long long)n, less, st);
        },
        pre);
  }
  return 0;
}
