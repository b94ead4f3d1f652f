// cupar internal (nvcc): the HyperLogLog sketch that sizes group_by's hash table, the encoding
// loop of keys under a hash and an equality, for both paths (group_by.cuh; the run-time path's
// library side, src/jit/families/group_by.cu), and the resident grid their kernels take.
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
#include <stdexcept>
#include <string>
#include <vector>

namespace cupar::detail {

/// A grid that keeps every SM busy without more blocks than rows need.
template <class Kernel>
int resident_grid(Kernel kernel, int threads, std::size_t n, const char* fn) {
  int occupancy = 0;
  check_cuda(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occupancy, kernel, threads, 0), fn);
  return resident_blocks(n, threads, occupancy, current_multiprocessor_count());
}

/// The number of distinct values a HyperLogLog sketch (hash::hll_registers registers) describes:
/// `launch(registers)` queues the kernel that fills the registers (zeroed here) on the stream.
/// Synchronises the stream.
template <class Launch>
double sketch_with(const char* fn, stream_ref stream, memory_resource& mr, Launch&& launch) {
  cudaStream_t s = stream.get();
  temp_storage registers(mr, hash::hll_registers * sizeof(unsigned int), stream);
  auto* d_registers = static_cast<unsigned int*>(registers.get());
  check_cuda(cudaMemsetAsync(d_registers, 0, registers.bytes(), s), fn);
  launch(d_registers);
  std::vector<unsigned int> host(hash::hll_registers);
  check_cuda(
      cudaMemcpyAsync(host.data(), d_registers, registers.bytes(), cudaMemcpyDeviceToHost, s), fn);
  check_cuda(cudaStreamSynchronize(s), fn);
  return hll_estimate(host);
}

/// The number of distinct keys in keys[0, n) by a HyperLogLog sketch (2^12 registers, standard
/// error 1.6%): one read of the keys; synchronises the stream.
template <class KeyIt>
double sketch_groups(const char* fn, KeyIt keys, std::size_t n, stream_ref stream,
                     memory_resource& mr) {
  return sketch_with(fn, stream, mr, [&](unsigned int* registers) {
    const auto sketch = hash::hll_kernel<hash::block_threads, KeyIt, std::size_t>;
    sketch<<<resident_grid(sketch, hash::block_threads, n, fn), hash::block_threads, 0,
             stream.get()>>>(keys, n, registers);
    check_cuda(cudaGetLastError(), fn);
  });
}

/// The number of distinct keys of n rows under a hash and an equality (struct keys,
/// device/key_table.cuh), for both paths: `launch(table, mask, counts)` queues the encoding of
/// the rows into `table` (mask + 1 words, all ones here; counts[0] the slots claimed and
/// counts[1] whether the table filled, zeroed here). The table is sized from max_groups or the
/// `expected` groups (hash_capacity) and grown, the rows encoded again, while it fills. Throws
/// std::length_error when max_groups is set and the keys have more. Synchronises the stream.
template <class Launch>
std::size_t encode_distinct_keys(const char* fn, std::size_t n, std::size_t max_groups,
                                 double expected, stream_ref stream, memory_resource& mr,
                                 Launch&& launch) {
  cudaStream_t s = stream.get();
  std::size_t capacity = hash_capacity(n, max_groups, expected);
  for (;;) {
    carve parts;
    const std::size_t at_table = parts.add(capacity * sizeof(unsigned long long));
    const std::size_t at_counts = parts.add(2 * sizeof(unsigned long long));
    temp_storage storage(mr, parts.total, stream);
    auto* base = static_cast<unsigned char*>(storage.get());
    auto* table = reinterpret_cast<unsigned long long*>(base + at_table);
    auto* counts = reinterpret_cast<unsigned long long*>(base + at_counts);
    check_cuda(cudaMemsetAsync(table, 0xff, capacity * sizeof(unsigned long long), s), fn);
    check_cuda(cudaMemsetAsync(counts, 0, 2 * sizeof(unsigned long long), s), fn);
    launch(table, static_cast<unsigned long long>(capacity - 1), counts);
    unsigned long long found[2] = {0, 0};
    check_cuda(cudaMemcpyAsync(found, counts, sizeof(found), cudaMemcpyDeviceToHost, s), fn);
    // A fault of an operator is reported here, named after the call.
    check_cuda(cudaStreamSynchronize(s), fn);
    const bool full = found[1] != 0;
    require_max_groups(fn, max_groups, full, static_cast<std::size_t>(found[0]));
    if (!full) return static_cast<std::size_t>(found[0]);
    capacity = grown_capacity(capacity, n);
    if (capacity == 0) throw std::logic_error(std::string(fn) + ": key table overflow");
  }
}

}  // namespace cupar::detail
