// cupar internal: record copies between two strides (restride.hpp).
#include "restride.hpp"

#include <cupar/detail/cuda_check.hpp>

#include <algorithm>
#include <cstdint>

namespace cupar::detail {
namespace {

// A thread a 4-byte word of the destination: consecutive threads write consecutive words (and
// read the source's words of the same records), so both sides are coalesced whatever the sizes.
__global__ void restride_kernel(const std::uint32_t* src, unsigned src_words, std::uint32_t* dst,
                                unsigned dst_words, unsigned long long n, int kind,
                                const std::size_t* counts) {
  if (kind != restride_bound::all) {
    const unsigned long long c0 = counts[0];
    const unsigned long long c1 = kind == restride_bound::first ? 0 : counts[1];
    const unsigned long long bound = kind == restride_bound::first    ? c0
                                     : kind == restride_bound::second ? c1
                                     : c0 + c1 < n                    ? n - c0 - c1
                                                                      : 0;
    if (bound < n) n = bound;
  }
  const unsigned long long total = n * dst_words;
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long w =
           static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
       w < total; w += stride) {
    const unsigned long long record = w / dst_words;
    const unsigned field = static_cast<unsigned>(w - record * dst_words);
    dst[w] = field < src_words ? src[record * src_words + field] : 0u;
  }
}

}  // namespace

void restride(const void* src, std::size_t src_size, void* dst, std::size_t dst_size, std::size_t n,
              restride_bound bound, stream_ref stream) {
  if (n == 0) return;
  const std::size_t words = n * (dst_size / 4);
  const std::size_t blocks = std::min<std::size_t>((words + 255) / 256, std::size_t(1) << 16);
  restride_kernel<<<static_cast<unsigned>(blocks), 256, 0, stream.get()>>>(
      static_cast<const std::uint32_t*>(src), static_cast<unsigned>(src_size / 4),
      static_cast<std::uint32_t*>(dst), static_cast<unsigned>(dst_size / 4), n,
      static_cast<int>(bound.kind), bound.counts);
  check_cuda(cudaGetLastError(), "cupar: a record copy between strides (kernel launch)");
}

}  // namespace cupar::detail
