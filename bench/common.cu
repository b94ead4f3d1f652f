// cupar benchmarks: the GPU side of common.hpp (stream, data generation, checks, L2 flush).
#include "common.hpp"
#include "records.hpp"

#include <cub/version.cuh>

#include <atomic>
#include <cstdio>
#include <mutex>
#include <stdexcept>
#include <string>

namespace cupar_bench {

void throw_cuda_error(cudaError_t status, const char* call, const char* file, int line) {
  const char* base = file;
  for (const char* p = file; *p != '\0'; ++p) {
    if (*p == '/') base = p + 1;
  }
  throw std::runtime_error(std::string(call) + " failed: " + cudaGetErrorName(status) + " (" +
                           cudaGetErrorString(status) + ") at " + base + ":" +
                           std::to_string(line));
}

const std::string& gpu_unavailable_reason() {
  static const std::string reason = [] {
    int count = 0;
    const cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      return std::string("no usable CUDA device (") + cudaGetErrorName(e) + ")";
    }
    if (count == 0) return std::string("no CUDA device");
    return std::string();
  }();
  return reason;
}

cudaStream_t bench_stream() {
  static const cudaStream_t stream = [] {
    cudaStream_t s = nullptr;
    CUPAR_BENCH_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    return s;
  }();
  return stream;
}

std::size_t l2_cache_bytes() {
  static const std::size_t bytes = [] {
    int device = 0, l2 = 0;
    if (gpu_available() && cudaGetDevice(&device) == cudaSuccess &&
        cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device) == cudaSuccess && l2 > 0) {
      return static_cast<std::size_t>(l2);
    }
    (void)cudaGetLastError();
    return std::size_t{50} << 20;  // the H100's
  }();
  return bytes;
}

void flush_l2(cudaStream_t stream) {
  static std::mutex mutex;
  static device_array<unsigned char> scratch;
  static unsigned char value = 0;
  std::lock_guard<std::mutex> lock(mutex);
  if (scratch.get() == nullptr) scratch = device_array<unsigned char>(2 * l2_cache_bytes());
  ++value;  // a different value each time: the writes cannot be elided
  CUPAR_BENCH_CUDA(cudaMemsetAsync(scratch.get(), value, scratch.size(), stream));
}

// ---- stream_hold ------------------------------------------------------------------------------

namespace {

__global__ void hold_kernel(const volatile int* release, volatile int* timed_out,
                            unsigned long long timeout_ns) {
  unsigned long long start = 0, now = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  while (release[0] == 0) {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    if (now - start > timeout_ns) {
      timed_out[0] = 1;
      return;
    }
    __nanosleep(500);
  }
}

std::atomic<bool> hold_flag{true};

}  // namespace

stream_hold::stream_hold() {
  void* host = nullptr;
  CUPAR_BENCH_CUDA(cudaHostAlloc(&host, 2 * sizeof(int), cudaHostAllocMapped));
  host_ = static_cast<volatile int*>(host);
  host_[0] = 1;
  host_[1] = 0;
  void* device = nullptr;
  CUPAR_BENCH_CUDA(cudaHostGetDevicePointer(&device, host, 0));
  device_ = static_cast<int*>(device);
}

stream_hold::~stream_hold() {
  if (host_ != nullptr) (void)cudaFreeHost(const_cast<int*>(host_));
}

void stream_hold::begin(cudaStream_t stream, double timeout_ms) {
  host_[0] = 0;
  host_[1] = 0;
  hold_kernel<<<1, 1, 0, stream>>>(device_, device_ + 1,
                                   static_cast<unsigned long long>(timeout_ms * 1e6));
  CUPAR_BENCH_CUDA(cudaGetLastError());
}

void stream_hold::release() {
  host_[0] = 1;
}

bool stream_hold::timed_out() const {
  return host_[1] != 0;
}

stream_hold& thread_stream_hold() {
  static thread_local stream_hold hold;
  return hold;
}

void set_hold_stream(bool hold) {
  hold_flag.store(hold);
}
bool hold_stream() {
  return hold_flag.load();
}

std::string cccl_version() {
  return std::to_string(CUB_MAJOR_VERSION) + "." + std::to_string(CUB_MINOR_VERSION) + "." +
         std::to_string(CUB_SUBMINOR_VERSION);
}

namespace {

constexpr int block = 256;

inline int grid_for(std::size_t n) {
  const std::size_t blocks = (n + block - 1) / block;
  return static_cast<int>(blocks < 65536 ? (blocks == 0 ? 1 : blocks) : 65536);
}

template <class T>
__global__ void fill_kernel(T* d, std::size_t n, value_generator<T> gen) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    d[i] = gen(i);
  }
}

template <class T>
__global__ void count_unsorted_kernel(const T* d, std::size_t n, unsigned long long* count) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  unsigned long long local = 0;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i + 1 < n; i += stride) {
    if (d[i + 1] < d[i]) ++local;
  }
  if (local != 0) atomicAdd(count, local);
}

}  // namespace

template <class T>
void fill_device(T* d, std::size_t n, std::uint64_t seed, value_range range, cudaStream_t stream) {
  if (n == 0) return;
  fill_kernel<T><<<grid_for(n), block, 0, stream>>>(d, n, value_generator<T>{seed, range});
  CUPAR_BENCH_CUDA(cudaGetLastError());
}

template <class T>
std::size_t count_unsorted(const T* d, std::size_t n, cudaStream_t stream) {
  if (n < 2) return 0;
  device_array<unsigned long long> count(1);
  CUPAR_BENCH_CUDA(cudaMemsetAsync(count.get(), 0, sizeof(unsigned long long), stream));
  count_unsorted_kernel<T><<<grid_for(n), block, 0, stream>>>(d, n, count.get());
  CUPAR_BENCH_CUDA(cudaGetLastError());
  unsigned long long h = 0;
  CUPAR_BENCH_CUDA(cudaMemcpyAsync(&h, count.get(), sizeof(h), cudaMemcpyDeviceToHost, stream));
  CUPAR_BENCH_CUDA(cudaStreamSynchronize(stream));
  return static_cast<std::size_t>(h);
}

#define CUPAR_BENCH_INSTANTIATE(T)                                                         \
  template void fill_device<T>(T*, std::size_t, std::uint64_t, value_range, cudaStream_t); \
  template std::size_t count_unsorted<T>(const T*, std::size_t, cudaStream_t);

CUPAR_BENCH_INSTANTIATE(float)
CUPAR_BENCH_INSTANTIATE(std::int32_t)
CUPAR_BENCH_INSTANTIATE(std::uint32_t)
CUPAR_BENCH_INSTANTIATE(std::uint64_t)
CUPAR_BENCH_INSTANTIATE(std::uint8_t)
CUPAR_BENCH_INSTANTIATE(rec16)
CUPAR_BENCH_INSTANTIATE(rec28)
CUPAR_BENCH_INSTANTIATE(rec32)
CUPAR_BENCH_INSTANTIATE(__half)
CUPAR_BENCH_INSTANTIATE(__nv_bfloat16)
CUPAR_BENCH_INSTANTIATE(bool)

}  // namespace cupar_bench
