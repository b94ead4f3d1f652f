// cupar internal: the number of runs of equal keys in a sorted array (cupar/detail/runs.hpp).
#include <cupar/detail/runs.hpp>

#include <cupar/detail/cuda_check.hpp>
#include <cupar/detail/temp_storage.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>

namespace cupar::detail {
namespace {

/// Threads of count_kernel's blocks.
constexpr int count_threads = 256;

/// Adds to *count the rows i of keys[0, n) that start a run: i == 0 or keys[i] != keys[i - 1],
/// the keys compared as the unsigned words W they are read as (their bits). A grid-stride loop;
/// one atomic add a block. Launch with count_threads threads a block, *count zeroed before.
template <class W>
__global__ void __launch_bounds__(count_threads)
    count_kernel(const W* keys, unsigned long long n, unsigned long long* count) {
  unsigned long long heads = 0;
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long i =
           static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < n; i += stride) {
    heads += (i == 0 || keys[i] != keys[i - 1]) ? 1u : 0u;
  }
  for (int offset = 16; offset > 0; offset >>= 1)
    heads += __shfl_down_sync(0xffffffffu, heads, offset);
  __shared__ unsigned long long warps[count_threads / 32];
  if ((threadIdx.x & 31) == 0) warps[threadIdx.x / 32] = heads;
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned long long block = 0;
    for (int w = 0; w < count_threads / 32; ++w)
      block += warps[w];
    if (block != 0) atomicAdd(count, block);
  }
}

template <class W>
void launch_count(const void* keys, std::size_t n, unsigned long long* count, cudaStream_t s) {
  const std::size_t blocks = (n + count_threads - 1) / count_threads;
  count_kernel<W><<<static_cast<int>(blocks < 2048 ? blocks : 2048), count_threads, 0, s>>>(
      static_cast<const W*>(keys), n, count);
}

}  // namespace

std::size_t count_runs(const char* fn, const void* keys, std::size_t key_size, std::size_t n,
                       stream_ref stream, memory_resource& mr) {
  if (key_size != 1 && key_size != 2 && key_size != 4 && key_size != 8) {
    throw std::invalid_argument(std::string(fn) + ": runs of keys of " + std::to_string(key_size) +
                                " bytes (1, 2, 4 or 8)");
  }
  if (n == 0) return 0;
  cudaStream_t s = stream.get();
  temp_storage counter(mr, sizeof(unsigned long long), stream);
  auto* count = static_cast<unsigned long long*>(counter.get());
  check_cuda(cudaMemsetAsync(count, 0, sizeof(unsigned long long), s), fn);
  switch (key_size) {
    case 1:
      launch_count<std::uint8_t>(keys, n, count, s);
      break;
    case 2:
      launch_count<std::uint16_t>(keys, n, count, s);
      break;
    case 4:
      launch_count<std::uint32_t>(keys, n, count, s);
      break;
    default:
      launch_count<std::uint64_t>(keys, n, count, s);
      break;
  }
  check_cuda(cudaGetLastError(), fn);
  unsigned long long host = 0;
  check_cuda(cudaMemcpyAsync(&host, count, sizeof(host), cudaMemcpyDeviceToHost, s), fn);
  check_cuda(cudaStreamSynchronize(s), fn);
  return static_cast<std::size_t>(host);
}

}  // namespace cupar::detail
