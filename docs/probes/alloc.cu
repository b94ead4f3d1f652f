// Probe: host cost of stream-ordered allocation on this machine.
#include <chrono>
#include <cstdio>
#include <cub/cub.cuh>
#include <vector>
#define CK(x)                                                                  \
  do {                                                                         \
    cudaError_t e = (x);                                                       \
    if (e != cudaSuccess) {                                                    \
      printf("%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e)); \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)
using clk = std::chrono::steady_clock;
template <class F>
double per_call(F f, int n = 2000) {
  for (int i = 0; i < 100; ++i)
    f();
  cudaDeviceSynchronize();
  auto t0 = clk::now();
  for (int i = 0; i < n; ++i)
    f();
  cudaDeviceSynchronize();
  return std::chrono::duration<double, std::micro>(clk::now() - t0).count() / n;
}
__global__ void empty() {}
int main() {
  cudaStream_t st;
  CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  cudaStream_t bst;
  CK(cudaStreamCreate(&bst));
  float *in, *out;
  CK(cudaMalloc(&in, 1 << 20));
  CK(cudaMalloc(&out, 64));
  CK(cudaMemset(in, 0, 1 << 20));
  cudaMemPool_t pool;
  CK(cudaDeviceGetDefaultMemPool(&pool, 0));
  printf("empty kernel launch: %.2f us\n", per_call([&] { empty<<<1, 32, 0, st>>>(); }));
  printf("cudaGetDevice: %.3f us\n", per_call([&] {
           int d;
           cudaGetDevice(&d);
         }));
  printf("cudaStreamGetId: %.3f us\n", per_call([&] {
           unsigned long long id;
           cudaStreamGetId(st, &id);
         }));
  printf("cudaEventRecord: %.3f us\n", [&] {
    cudaEvent_t e;
    cudaEventCreateWithFlags(&e, cudaEventDisableTiming);
    return per_call([&] { cudaEventRecord(e, st); });
  }());
  printf("cudaEventQuery: %.3f us\n", [&] {
    cudaEvent_t e;
    cudaEventCreateWithFlags(&e, cudaEventDisableTiming);
    cudaEventRecord(e, st);
    return per_call([&] { cudaEventQuery(e); });
  }());
  printf("occupancy query: %.3f us\n", per_call([&] {
           int o;
           cudaOccupancyMaxActiveBlocksPerMultiprocessor(&o, empty, 256, 0);
         }));
  for (int th = 0; th < 2; ++th) {
    uint64_t t = th ? UINT64_MAX : 0;
    CK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &t));
    for (size_t bytes : {size_t(1), size_t(256), size_t(4096), size_t(1) << 20}) {
      printf("threshold=%s bytes=%zu: malloc+free nonblocking %.2f us, blocking stream %.2f us\n",
             th ? "max" : "0", bytes, per_call([&] {
               void* p;
               CK(cudaMallocAsync(&p, bytes, st));
               CK(cudaFreeAsync(p, st));
             }),
             per_call([&] {
               void* p;
               CK(cudaMallocAsync(&p, bytes, bst));
               CK(cudaFreeAsync(p, bst));
             }));
    }
    printf("threshold=%s malloc+kernel+free %.2f us\n", th ? "max" : "0", per_call([&] {
             void* p;
             CK(cudaMallocAsync(&p, 256, st));
             empty<<<1, 32, 0, st>>>();
             CK(cudaFreeAsync(p, st));
           }));
  }
  cudaMemPool_t own;
  cudaMemPoolProps props{};
  props.allocType = cudaMemAllocationTypePinned;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = 0;
  CK(cudaMemPoolCreate(&own, &props));
  uint64_t t = UINT64_MAX;
  CK(cudaMemPoolSetAttribute(own, cudaMemPoolAttrReleaseThreshold, &t));
  printf("own pool malloc+free: %.2f us\n", per_call([&] {
           void* p;
           CK(cudaMallocFromPoolAsync(&p, 256, own, st));
           CK(cudaFreeAsync(p, st));
         }));
  size_t b = 0;
  CK(cub::DeviceReduce::Sum(nullptr, b, in, out, 1024, st));
  void* pre;
  CK(cudaMalloc(&pre, 1 << 16));
  printf("cub reduce 1024 prealloc: %.2f us\n", per_call([&] {
           size_t bb = b;
           CK(cub::DeviceReduce::Sum(pre, bb, in, out, 1024, st));
         }));
  printf("cub reduce 1024 query+prealloc: %.2f us\n", per_call([&] {
           size_t bb = 0;
           CK(cub::DeviceReduce::Sum(nullptr, bb, in, out, 1024, st));
           CK(cub::DeviceReduce::Sum(pre, bb, in, out, 1024, st));
         }));
  printf("cub reduce 1024 query+mallocAsync: %.2f us\n", per_call([&] {
           size_t bb = 0;
           CK(cub::DeviceReduce::Sum(nullptr, bb, in, out, 1024, st));
           void* p;
           CK(cudaMallocAsync(&p, bb, st));
           CK(cub::DeviceReduce::Sum(p, bb, in, out, 1024, st));
           CK(cudaFreeAsync(p, st));
         }));
  printf("cub reduce 1024 query+mallocAsync legacy stream: %.2f us\n", per_call([&] {
           size_t bb = 0;
           CK(cub::DeviceReduce::Sum(nullptr, bb, in, out, 1024, bst));
           void* p;
           CK(cudaMallocAsync(&p, bb, bst));
           CK(cub::DeviceReduce::Sum(p, bb, in, out, 1024, bst));
           CK(cudaFreeAsync(p, bst));
         }));
  printf("cub reduce 2^20 prealloc: %.2f us\n", per_call([&] {
           size_t bb = 1 << 16;
           CK(cub::DeviceReduce::Sum(pre, bb, in, out, 1 << 18, st));
         }));
  return 0;
}
