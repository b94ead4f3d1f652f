// cupar internal: histograms with a run-time sample operator: the kernels of
// jit_ops/cupar_histogram.cuh from the loaded module, host dispatch mirroring CUB 3.0.1's
// DispatchHistogram (DispatchEven / DispatchRange and dispatch_histogram::Invoke) for one
// channel. CUB's histogram has no kernel-source seam in 3.0.1.
#include "histogram.hpp"

#include <cub/grid/grid_queue.cuh>
#include <cub/util_temporary_storage.cuh>

#include <cuda/std/array>

#include <algorithm>
#include <cstring>

namespace cupar::detail::jit {
namespace {

/// Bytes of a bin-selection operator, laid out as the device struct.
struct alignas(16) decode_bytes {
  unsigned char bytes[48] = {};
  std::size_t size = 0;
};

/// CUB's ScaleTransform::Init for levels of canonical type C (== CommonT).
template <class C>
decode_bytes scale_transform(int num_levels, const void* lower, const void* upper) {
  struct layout {
    C max, min;
    union {
      struct {
        C bins, range;
      } fraction;
      C reciprocal;
    } scale;
  } s{};
  std::memcpy(&s.min, lower, sizeof(C));
  std::memcpy(&s.max, upper, sizeof(C));
  if constexpr (std::is_floating_point_v<C>) {
    s.scale.reciprocal =
        static_cast<C>(static_cast<C>(num_levels - 1) / static_cast<C>(s.max - s.min));
  } else {
    s.scale.fraction.bins = static_cast<C>(num_levels - 1);
    s.scale.fraction.range = static_cast<C>(s.max - s.min);
  }
  decode_bytes d;
  static_assert(sizeof(layout) <= sizeof(d.bytes));
  std::memcpy(d.bytes, &s, sizeof(layout));
  d.size = sizeof(layout);
  return d;
}

decode_bytes scale_transform_for(scalar level, int num_levels, const void* lower,
                                 const void* upper) {
  switch (level) {
    case scalar::f32:
      return scale_transform<float>(num_levels, lower, upper);
    case scalar::f64:
      return scale_transform<double>(num_levels, lower, upper);
    case scalar::i8:
    case scalar::u8:
    case scalar::i16:
    case scalar::u16:
      return scale_transform<int>(num_levels, lower, upper);
    case scalar::u64:
      return scale_transform<unsigned long long>(num_levels, lower, upper);
    default:
      return scale_transform<long long>(num_levels, lower, upper);
  }
}

decode_bytes search_transform(const void* d_levels, int num_levels) {
  struct layout {
    const void* levels;
    int num_output_levels;
  } s{d_levels, num_levels};
  decode_bytes d;
  std::memcpy(d.bytes, &s, sizeof(layout));
  d.size = sizeof(layout);
  return d;
}

decode_bytes pass_thru() {
  decode_bytes d;
  d.size = 1;  // an empty struct
  return d;
}

/// The device's cupar_sample_iterator: the sample pointer, the operator's state, the clamp.
struct alignas(16) sample_iterator_bytes {
  const void* ptr;
  unsigned char pad[8];
  unsigned char state[64];
  double clamp_max;
  double upper;
  int clamp;
};

}  // namespace

cudaError_t run_histogram(const loaded_module& m, const device_info& dev, launch_status& st,
                          void* temp, std::size_t& temp_bytes, const histogram_launch& h,
                          const void* op_state, cudaStream_t stream) {
  using offset_t = long long;
  if (m.meta(5) != static_cast<long long>(sizeof(sample_iterator_bytes))) {
    return cudaErrorInvalidValue;  // host and device disagree on the iterator layout
  }
  const bool byte_samples = m.meta(4) == 1;  // the binned sample type is one byte
  const int num_output_levels = h.num_levels;
  int num_privatized_levels = num_output_levels;
  decode_bytes privatized, output;
  if (byte_samples) {
    // All 256 sample values are privatized; bins are chosen when the histogram is written out.
    num_privatized_levels = 257;
    privatized = pass_thru();
    output = h.even ? scale_transform_for(h.level, h.num_levels, h.lower, h.upper)
                    : search_transform(h.d_levels, h.num_levels);
  } else {
    privatized = h.even ? scale_transform_for(h.level, h.num_levels, h.lower, h.upper)
                        : search_transform(h.d_levels, h.num_levels);
    output = pass_thru();
  }
  if (static_cast<long long>(privatized.size) != m.meta(2) ||
      static_cast<long long>(output.size) != m.meta(3)) {
    return cudaErrorInvalidValue;  // host and device disagree on the operator layout
  }
  const int max_num_output_bins = num_output_levels - 1;
  // CUB's MAX_PRIVATIZED_SMEM_BINS: wider samples with more bins privatize in global memory.
  const int role = (byte_samples || max_num_output_bins <= 256) ? 1 : 2;
  const CUkernel sweep = m.kernel(role);

  const int block_threads = static_cast<int>(m.meta(0));
  const int pixels_per_thread = static_cast<int>(m.meta(1));
  const int occupancy = m.occupancy(sweep, block_threads, 0) * dev.sm_count;
  const offset_t num_row_pixels = static_cast<offset_t>(h.n), num_rows = 1,
                 row_stride_samples = num_row_pixels;
  const int pixels_per_tile = block_threads * pixels_per_thread;
  const int tiles_per_row = static_cast<int>(ceil_div(num_row_pixels, pixels_per_tile));
  const int blocks_per_row = std::min(occupancy, tiles_per_row);
  const int blocks_per_col =
      blocks_per_row > 0
          ? static_cast<int>(std::min<offset_t>(occupancy / blocks_per_row, num_rows))
          : 0;
  const int num_thread_blocks = blocks_per_row * blocks_per_col;

  std::size_t sizes[2] = {static_cast<std::size_t>(num_thread_blocks) *
                              static_cast<std::size_t>(num_privatized_levels - 1) * h.counter_size,
                          cub::GridQueue<int>::AllocationSize()};
  void* allocations[2] = {};
  cudaError_t error = cub::detail::AliasTemporaries(temp, temp_bytes, allocations, sizes);
  if (error != cudaSuccess || temp == nullptr) return error;

  const cub::GridQueue<int> tile_queue(allocations[1]);
  const ::cuda::std::array<int, 1> privatized_bins{num_privatized_levels - 1};
  const ::cuda::std::array<int, 1> output_bins{num_output_levels - 1};
  const ::cuda::std::array<void*, 1> d_output{h.histogram};
  const ::cuda::std::array<void*, 1> d_privatized{allocations[0]};
  jit_launcher_factory launch{&dev, &m, &st};
  constexpr int init_threads = 256;
  launch(static_cast<unsigned>(ceil_div(max_num_output_bins, init_threads)), init_threads, 0,
         stream)
      .doit(m.kernel(0), output_bins, d_output, tile_queue);
  if (blocks_per_row == 0 || blocks_per_col == 0) {
    return st.first == CUDA_SUCCESS ? cudaSuccess : cudaErrorLaunchFailure;
  }
  sample_iterator_bytes samples{};
  samples.ptr = h.samples;
  std::memcpy(samples.state, op_state, sizeof samples.state);
  samples.clamp = h.clamp ? 1 : 0;
  samples.clamp_max = h.clamp_max;
  samples.upper = h.clamp_upper;
  const dim3 grid(static_cast<unsigned>(blocks_per_row), static_cast<unsigned>(blocks_per_col), 1);
  launch(grid, block_threads, 0, stream)
      .doit(sweep, samples, output_bins, privatized_bins, d_output, d_privatized,
            erased_arg{output.bytes}, erased_arg{privatized.bytes}, num_row_pixels, num_rows,
            row_stride_samples, tiles_per_row, tile_queue);
  return st.first == CUDA_SUCCESS ? cudaSuccess : cudaErrorLaunchFailure;
}

}  // namespace cupar::detail::jit
