// cupar: check_segments, the validation of segment offsets on request (segmented.hpp): a kernel
// finds the first segment breaking the rules, the host reports it.
#include <cupar/detail/checks.hpp>
#include <cupar/detail/cuda_check.hpp>
#include <cupar/detail/device_guard.hpp>
#include <cupar/detail/dp_checks.hpp>
#include <cupar/detail/temp_storage.hpp>
#include <cupar/segmented.hpp>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>

namespace cupar::detail {
namespace {

__global__ void first_bad_segment_kernel(const std::int64_t* begin, const std::int64_t* end,
                                         std::int64_t num_segments, std::int64_t n, bool ordered,
                                         unsigned long long* first_bad) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t s = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; s < num_segments;
       s += stride) {
    const std::int64_t b = begin[s], e = end[s];
    bool bad = b < 0 || b > e || e > n;
    if (ordered && s + 1 < num_segments) bad = bad || e > begin[s + 1];
    if (bad) atomicMin(first_bad, static_cast<unsigned long long>(s));
  }
}

}  // namespace

void check_segments(const segment_check_args& a, stream_ref stream, memory_resource& mr) {
  const char* fn = a.function;
  const device_guard on_device(stream);  // run on the stream's device
  if (a.rules != segment_rules::bounds && a.rules != segment_rules::ordered) {
    throw_invalid_argument(fn, "rules is neither segment_rules::bounds nor segment_rules::ordered");
  }
  check_segments_args(fn, a.begin_offsets, a.end_offsets, a.num_segments, a.n);
  if (a.num_segments == 0) return;
  const bool ordered = a.rules == segment_rules::ordered;
  const auto segments = static_cast<std::int64_t>(a.num_segments);
  const auto n = static_cast<std::int64_t>(a.n);
  // [0]: the first bad segment (all ones: none); [1..3]: its begin, end and the next begin.
  temp_storage temp(mr, 4 * sizeof(unsigned long long), stream);
  auto* words = static_cast<unsigned long long*>(temp.get());
  check_cuda(cudaMemsetAsync(words, 0xFF, sizeof(unsigned long long), stream.get()),
             "cudaMemsetAsync");
  const auto grid = static_cast<unsigned>(
      std::min<std::int64_t>((segments + 255) / 256, std::int64_t(65535) * 16));
  first_bad_segment_kernel<<<grid, 256, 0, stream.get()>>>(a.begin_offsets, a.end_offsets, segments,
                                                           n, ordered, words);
  check_cuda(cudaGetLastError(), "cupar::check_segments kernel launch");
  unsigned long long first = 0;
  check_cuda(cudaMemcpyAsync(&first, words, sizeof first, cudaMemcpyDeviceToHost, stream.get()),
             "cudaMemcpyAsync");
  stream.synchronize();
  if (first == ULLONG_MAX) return;
  const auto s = static_cast<std::int64_t>(first);
  std::int64_t offsets[3] = {0, 0, 0};
  check_cuda(cudaMemcpyAsync(&offsets[0], a.begin_offsets + s, sizeof(std::int64_t),
                             cudaMemcpyDeviceToHost, stream.get()),
             "cudaMemcpyAsync");
  check_cuda(cudaMemcpyAsync(&offsets[1], a.end_offsets + s, sizeof(std::int64_t),
                             cudaMemcpyDeviceToHost, stream.get()),
             "cudaMemcpyAsync");
  const bool has_next = s + 1 < segments;
  if (has_next) {
    check_cuda(cudaMemcpyAsync(&offsets[2], a.begin_offsets + s + 1, sizeof(std::int64_t),
                               cudaMemcpyDeviceToHost, stream.get()),
               "cudaMemcpyAsync");
  }
  stream.synchronize();
  const std::int64_t b = offsets[0], e = offsets[1];
  const std::string segment =
      "segment " + std::to_string(s) + " = [" + std::to_string(b) + ", " + std::to_string(e) + ")";
  std::string why;
  if (b < 0) {
    why = "begins before 0";
  } else if (b > e) {
    why = "has begin > end";
  } else if (e > n) {
    why = "ends after n = " + std::to_string(n);
  } else {
    why = "overlaps or comes after segment " + std::to_string(s + 1) + ", which begins at " +
          std::to_string(offsets[2]) +
          " (ordered segments need d_end_offsets[s] <= d_begin_offsets[s + 1])";
  }
  throw_invalid_argument(fn, segment + " " + why);
}

}  // namespace cupar::detail
