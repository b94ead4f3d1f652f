// cupar internal (nvcc): the HyperLogLog sketch that sizes group_by's hash table, for both
// paths (group_by.cuh; the run-time path's library side, src/jit/families/group_by.cu), and the
// resident grid its kernels take.
#pragma once

#include <cupar/detail/cuda_check.hpp>
#include <cupar/detail/device/hash_table.cuh>
#include <cupar/detail/device_guard.hpp>
#include <cupar/detail/group_by_sizing.hpp>
#include <cupar/detail/temp_storage.hpp>
#include <cupar/memory.hpp>
#include <cupar/stream.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <vector>

namespace cupar::detail {

/// A grid that keeps every SM busy without more blocks than rows need.
template <class Kernel>
int resident_grid(Kernel kernel, int threads, std::size_t n, const char* fn) {
  int occupancy = 0;
  check_cuda(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occupancy, kernel, threads, 0), fn);
  return resident_blocks(n, threads, occupancy, current_multiprocessor_count());
}

/// The number of distinct keys in keys[0, n) by a HyperLogLog sketch (2^12 registers, standard
/// error 1.6%): one read of the keys; synchronises the stream.
template <class KeyIt>
double sketch_groups(const char* fn, KeyIt keys, std::size_t n, stream_ref stream,
                     memory_resource& mr) {
  cudaStream_t s = stream.get();
  temp_storage registers(mr, hash::hll_registers * sizeof(unsigned int), stream);
  auto* d_registers = static_cast<unsigned int*>(registers.get());
  check_cuda(cudaMemsetAsync(d_registers, 0, registers.bytes(), s), fn);
  const auto sketch = hash::hll_kernel<hash::block_threads, KeyIt, std::size_t>;
  sketch<<<resident_grid(sketch, hash::block_threads, n, fn), hash::block_threads, 0, s>>>(
      keys, n, d_registers);
  check_cuda(cudaGetLastError(), fn);
  std::vector<unsigned int> host(hash::hll_registers);
  check_cuda(
      cudaMemcpyAsync(host.data(), d_registers, registers.bytes(), cudaMemcpyDeviceToHost, s), fn);
  check_cuda(cudaStreamSynchronize(s), fn);
  return hll_estimate(host);
}

}  // namespace cupar::detail
