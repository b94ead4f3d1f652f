// Probe: does CUB's offset width (32 vs 64-bit num_items) change kernel time on this GPU?
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cub/cub.cuh>
#include <cuda/std/functional>
#include <functional>
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
template <class F>
double time_it(F f, int reps = 15) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  for (int i = 0; i < 3; ++i)
    f();
  std::vector<float> ts;
  for (int i = 0; i < reps; ++i) {
    CK(cudaEventRecord(a, st));
    f();
    CK(cudaEventRecord(b, st));
    CK(cudaEventSynchronize(b));
    float ms;
    CK(cudaEventElapsedTime(&ms, a, b));
    ts.push_back(ms);
  }
  std::sort(ts.begin(), ts.end());
  return ts[ts.size() / 2] * 1000.0;
}
__global__ void fill(float* f, uint32_t* u, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x) {
    uint32_t h = uint32_t(i) * 2654435761u;
    h ^= h >> 13;
    h *= 0x5bd1e995;
    h ^= h >> 15;
    u[i] = h;
    f[i] = (h & 0xffffff) / float(1 << 24);
  }
}
template <class N>
void run(const char* tag, size_t n, float* fin, float* fout, uint32_t* uin, uint32_t* uout,
         uint32_t* v1, uint32_t* v2, void* tmp, size_t tmpb, int* hist) {
  N nn = (N)n;
  size_t b;
  auto red = [&] {
    b = tmpb;
    CK(cub::DeviceReduce::Sum(tmp, b, fin, fout, nn, st));
  };
  auto scan = [&] {
    b = tmpb;
    CK(cub::DeviceScan::InclusiveSum(tmp, b, fin, fout, nn, st));
  };
  auto rsk = [&] {
    b = tmpb;
    CK(cub::DeviceRadixSort::SortKeys(tmp, b, uin, uout, nn, 0, 32, st));
  };
  auto rsp = [&] {
    b = tmpb;
    CK(cub::DeviceRadixSort::SortPairs(tmp, b, uin, uout, v1, v2, nn, 0, 32, st));
  };
  auto tr = [&] {
    CK(cub::DeviceTransform::Transform(
        fin, fout, nn, [] __device__(float x) { return 2 * x + 1; }, st));
  };
  auto hi = [&] {
    b = tmpb;
    CK(cub::DeviceHistogram::HistogramEven(tmp, b, fin, hist, 257, 0.0f, 1.0f, nn, st));
  };
  double t[7] = {
      time_it(red), time_it(scan), time_it(rsk), time_it(rsp), time_it(tr), time_it(hi), 0};
  if (n <= (1u << 26)) {
    auto ms = [&] {
      CK(cudaMemcpyAsync(fout, fin, n * 4, cudaMemcpyDeviceToDevice, st));
      b = tmpb;
      CK(cub::DeviceMergeSort::SortKeys(
          tmp, b, fout, nn, [] __device__(float x, float y) { return x < y; }, st));
    };
    t[6] = time_it(ms, 7);
  }
  printf(
      "%-4s n=2^%2d reduce %8.1f scan %8.1f rsortk %8.1f rsortp %8.1f transform %8.1f hist %8.1f "
      "mergesort(+copy) %8.1f us\n",
      tag, __builtin_ctzll(n), t[0], t[1], t[2], t[3], t[4], t[5], t[6]);
}
int main() {
  CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  {
    cudaMemPool_t pool;
    CK(cudaDeviceGetDefaultMemPool(&pool, 0));
    uint64_t th = UINT64_MAX;
    CK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &th));
  }
  size_t N = size_t(1) << 28;
  float *fin, *fout;
  uint32_t *uin, *uout, *v1, *v2;
  int* hist;
  void* tmp;
  size_t tmpb = size_t(3) << 30;
  CK(cudaMalloc(&fin, N * 4));
  CK(cudaMalloc(&fout, N * 4));
  CK(cudaMalloc(&uin, N * 4));
  CK(cudaMalloc(&uout, N * 4));
  CK(cudaMalloc(&v1, N * 4));
  CK(cudaMalloc(&v2, N * 4));
  CK(cudaMalloc(&tmp, tmpb));
  CK(cudaMalloc(&hist, 4096));
  fill<<<1024, 256, 0, st>>>(fin, uin, N);
  CK(cudaMemcpyAsync(v1, uin, N * 4, cudaMemcpyDeviceToDevice, st));
  for (int lg : {20, 24, 26, 28}) {
    size_t n = size_t(1) << lg;
    run<uint32_t>("u32", n, fin, fout, uin, uout, v1, v2, tmp, tmpb, hist);
    run<int64_t>("i64", n, fin, fout, uin, uout, v1, v2, tmp, tmpb, hist);
  }
  // host overhead of 1000 small reduces
  {
    size_t n = 1024;
    size_t b = 0;
    CK(cub::DeviceReduce::Sum(nullptr, b, fin, fout, (int)n, st));
    void* pre;
    CK(cudaMalloc(&pre, b));
    for (int mode = 0; mode < 2; ++mode) {
      CK(cudaStreamSynchronize(st));
      auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < 1000; ++i) {
        if (mode == 0) {
          size_t bb = b;
          CK(cub::DeviceReduce::Sum(pre, bb, fin, fout, (int)n, st));
        } else {
          size_t bb = 0;
          CK(cub::DeviceReduce::Sum(nullptr, bb, fin, fout, (int)n, st));
          void* p;
          CK(cudaMallocAsync(&p, bb, st));
          CK(cub::DeviceReduce::Sum(p, bb, fin, fout, (int)n, st));
          CK(cudaFreeAsync(p, st));
        }
      }
      CK(cudaStreamSynchronize(st));
      auto t1 = std::chrono::steady_clock::now();
      printf("host overhead reduce 1024 %s: %.2f us/call\n", mode ? "mallocAsync" : "prealloc",
             std::chrono::duration<double, std::micro>(t1 - t0).count() / 1000);
    }
  }
  return 0;
}
