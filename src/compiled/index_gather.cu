// cupar internal: index generation and the value gather of sorted pairs whose values the sort
// does not move itself (index_gather.hpp): radix and segmented radix sorts, run-time-comparator
// merge sorts.
#include "index_gather.hpp"

#include <cupar/detail/cuda_check.hpp>

#include <algorithm>
#include <cstdint>

namespace cupar::detail {
namespace {

template <class Index>
__global__ void iota_kernel(Index* out, std::size_t n) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    out[i] = static_cast<Index>(i);
  }
}

// dst[i] = src[indices[i]] for values of `words` Chunks each, except where the index is all ones
// (segmented sorts: positions outside every segment, not written; a sort of n < 2^32 elements
// with 4-byte indices, or of any n with 8-byte ones, never has that index otherwise).
template <class Index, class Chunk>
__global__ void gather_kernel(const Chunk* src, Chunk* dst, const Index* indices, std::size_t n,
                              std::size_t words) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const Index index = indices[i];
    if (index == static_cast<Index>(~Index(0))) continue;
    const Chunk* from = src + static_cast<std::size_t>(index) * words;
    Chunk* to = dst + i * words;
    for (std::size_t w = 0; w < words; ++w)
      to[w] = from[w];
  }
}

unsigned grid_for(std::size_t n) {
  return static_cast<unsigned>(std::min<std::size_t>((n + 255) / 256, 65535u * 8u));
}

template <class Index>
void gather_typed(const void* src, void* dst, const void* indices, std::size_t value_size,
                  std::size_t n, cudaStream_t s) {
  const auto a = reinterpret_cast<std::uintptr_t>(src) | reinterpret_cast<std::uintptr_t>(dst) |
                 static_cast<std::uintptr_t>(value_size);
  const auto* idx = static_cast<const Index*>(indices);
  if (a % 8 == 0) {
    gather_kernel<Index><<<grid_for(n), 256, 0, s>>>(static_cast<const std::uint64_t*>(src),
                                                     static_cast<std::uint64_t*>(dst), idx, n,
                                                     value_size / 8);
  } else if (a % 4 == 0) {
    gather_kernel<Index><<<grid_for(n), 256, 0, s>>>(static_cast<const std::uint32_t*>(src),
                                                     static_cast<std::uint32_t*>(dst), idx, n,
                                                     value_size / 4);
  } else if (a % 2 == 0) {
    gather_kernel<Index><<<grid_for(n), 256, 0, s>>>(static_cast<const std::uint16_t*>(src),
                                                     static_cast<std::uint16_t*>(dst), idx, n,
                                                     value_size / 2);
  } else {
    gather_kernel<Index><<<grid_for(n), 256, 0, s>>>(
        static_cast<const std::uint8_t*>(src), static_cast<std::uint8_t*>(dst), idx, n, value_size);
  }
}

}  // namespace

void index_iota(void* d_indices, std::size_t index_size, std::size_t n, stream_ref stream) {
  if (index_size == 4) {
    iota_kernel<<<grid_for(n), 256, 0, stream.get()>>>(static_cast<std::uint32_t*>(d_indices), n);
  } else {
    iota_kernel<<<grid_for(n), 256, 0, stream.get()>>>(static_cast<unsigned long long*>(d_indices),
                                                       n);
  }
  check_cuda(cudaGetLastError(), "cupar: index kernel launch (sort of pairs)");
}

void index_gather(const void* d_src, void* d_dst, const void* d_indices, std::size_t index_size,
                  std::size_t value_size, std::size_t n, stream_ref stream) {
  if (index_size == 4) {
    gather_typed<std::uint32_t>(d_src, d_dst, d_indices, value_size, n, stream.get());
  } else {
    gather_typed<unsigned long long>(d_src, d_dst, d_indices, value_size, n, stream.get());
  }
  check_cuda(cudaGetLastError(), "cupar: gather kernel launch (sort of pairs)");
}

}  // namespace cupar::detail
