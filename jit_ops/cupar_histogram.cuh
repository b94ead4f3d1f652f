// cupar JIT: histograms of samples passed through a run-time operator. Expects cupar_S (sample),
// cupar_L (the operator's result, binned), cupar_C (counter storage: unsigned int or unsigned
// long long), CUPAR_HISTOGRAM_EVEN for even bins, and
// cupar_jit_op(const unsigned char* state, cupar_S x) -> cupar_L.
//
// CUB 3.0.1 defines its histogram kernels and bin-selection operators in dispatch_histogram.cuh,
// beside its host dispatch, which NVRTC cannot compile. The kernels below are the same thin
// wrappers around CUB's AgentHistogram, and the bin-selection operators compute exactly what
// CUB's DispatchHistogram::ScaleTransform / SearchTransform / PassThruTransform do, so binning
// matches the compiled path bit for bit (tests check both against one CPU reference).
#pragma once

#include <cub/agent/agent_histogram.cuh>
#include <cub/device/dispatch/tuning/tuning_histogram.cuh>
#include <cub/grid/grid_queue.cuh>
#include <cub/iterator/cache_modified_input_iterator.cuh>
#include <cub/thread/thread_search.cuh>

#include <cuda/std/array>
#include <cuda/std/iterator>
#include <cuda/std/limits>
#include <cuda/std/type_traits>

/// The type the host passes bin boundaries in (cupar::detail::canonical_level_t on the host).
template <class L, bool Floating = ::cuda::std::is_floating_point<L>::value>
struct cupar_canonical_level {
  typedef L type;
};
template <class L>
struct cupar_canonical_level<L, false> {
  typedef ::cuda::std::conditional_t<
      (sizeof(L) <= 2), int,
      ::cuda::std::conditional_t<(sizeof(L) == 4), long long,
                                 ::cuda::std::conditional_t<::cuda::std::is_signed<L>::value,
                                                            long long, unsigned long long>>>
      type;
};
typedef cupar_canonical_level<cupar_L>::type cupar_level;
typedef long long cupar_offset;

/// The type CUB bins (docs/CUB_NOTES.md, "Histogram bugs": CUB 3.0.1 drops negative int8 samples
/// and wraps bin indices of 16-bit samples with many bins): int8 results are binned as unsigned
/// values x ^ 0x80 (the host shifts the levels by 128), 16-bit results as int.
typedef ::cuda::std::conditional_t<
    ::cuda::std::is_integral<cupar_L>::value&& ::cuda::std::is_signed<cupar_L>::value &&
        sizeof(cupar_L) == 1,
    unsigned char,
    ::cuda::std::conditional_t<::cuda::std::is_integral<cupar_L>::value && sizeof(cupar_L) == 2,
                               int, cupar_L>>
    cupar_B;

template <class L>  // a template, so that the branches not taken are not compiled
__device__ __forceinline__ cupar_B cupar_binned(L v, double clamp_max, double upper, int clamp) {
  if constexpr (::cuda::std::is_same<cupar_B, unsigned char>::value &&
                !::cuda::std::is_same<L, unsigned char>::value) {
    return static_cast<unsigned char>(v ^ 0x80);
  } else if constexpr (::cuda::std::is_floating_point<L>::value) {
    // Even bins: values that CUB's formula would put one past the last bin go to the last bin.
    return (clamp && v >= clamp_max && v < upper) ? static_cast<L>(clamp_max) : v;
  } else {
    return static_cast<cupar_B>(v);
  }
}

/// The samples as the histogram sees them: the operator applied on load, then cupar_binned.
struct cupar_sample_iterator {
  typedef cupar_B value_type;
  typedef cupar_B reference;
  typedef cupar_B* pointer;
  typedef long long difference_type;
  typedef ::cuda::std::random_access_iterator_tag iterator_category;

  const cupar_S* ptr;
  cupar_functor_state state;
  double clamp_max;
  double upper;
  int clamp;

  __device__ __forceinline__ cupar_B load(const cupar_S& x) const {
    return cupar_binned<cupar_L>(cupar_jit_op(state.bytes, x), clamp_max, upper, clamp);
  }
  __device__ __forceinline__ cupar_B operator*() const { return load(*ptr); }
  __device__ __forceinline__ cupar_B operator[](difference_type i) const { return load(ptr[i]); }
  __host__ __device__ __forceinline__ cupar_sample_iterator operator+(difference_type n) const {
    cupar_sample_iterator r = *this;
    r.ptr += n;
    return r;
  }
  __host__ __device__ __forceinline__ cupar_sample_iterator operator-(difference_type n) const {
    cupar_sample_iterator r = *this;
    r.ptr -= n;
    return r;
  }
  __host__ __device__ __forceinline__ difference_type
  operator-(const cupar_sample_iterator& o) const {
    return ptr - o.ptr;
  }
  __host__ __device__ __forceinline__ cupar_sample_iterator& operator+=(difference_type n) {
    ptr += n;
    return *this;
  }
  __host__ __device__ __forceinline__ cupar_sample_iterator& operator++() {
    ++ptr;
    return *this;
  }
  __host__ __device__ __forceinline__ cupar_sample_iterator operator++(int) {
    cupar_sample_iterator r = *this;
    ++ptr;
    return r;
  }
  __host__ __device__ __forceinline__ bool operator==(const cupar_sample_iterator& o) const {
    return ptr == o.ptr;
  }
  __host__ __device__ __forceinline__ bool operator!=(const cupar_sample_iterator& o) const {
    return ptr != o.ptr;
  }
};

/// CUB's ScaleTransform for samples of type cupar_B and levels of type cupar_level.
struct cupar_scale_transform {
  typedef ::cuda::std::common_type_t<cupar_level, cupar_B> CommonT;
  typedef ::cuda::std::conditional_t<(sizeof(cupar_B) + sizeof(CommonT) <= sizeof(unsigned int)),
                                     unsigned int, unsigned long long>
      IntArithmeticT;
  union ScaleT {
    struct FractionT {
      CommonT bins;
      CommonT range;
    } fraction;
    CommonT reciprocal;
  };
  CommonT m_max;
  CommonT m_min;
  ScaleT m_scale;

  template <class T>
  __device__ __forceinline__ int ComputeBin(T sample, ::cuda::std::true_type /* integral */) const {
    return static_cast<int>((static_cast<IntArithmeticT>(sample - m_min) *
                             static_cast<IntArithmeticT>(m_scale.fraction.bins)) /
                            static_cast<IntArithmeticT>(m_scale.fraction.range));
  }
  template <class T>
  __device__ __forceinline__ int ComputeBin(T sample, ::cuda::std::false_type /* fp */) const {
    return static_cast<int>((sample - m_min) * m_scale.reciprocal);
  }

  template <cub::CacheLoadModifier LOAD_MODIFIER, typename SampleT>
  __device__ __forceinline__ void BinSelect(SampleT sample, int& bin, bool valid) {
    const CommonT common_sample = static_cast<CommonT>(sample);
    if (valid && common_sample >= m_min && common_sample < m_max) {
      bin = ComputeBin(common_sample, ::cuda::std::is_integral<CommonT>{});
    }
  }
};

/// CUB's SearchTransform over a device array of levels.
struct cupar_search_transform {
  const cupar_level* d_levels;
  int num_output_levels;

  template <cub::CacheLoadModifier LOAD_MODIFIER, typename SampleT>
  __device__ __forceinline__ void BinSelect(SampleT sample, int& bin, bool valid) {
    cub::CacheModifiedInputIterator<LOAD_MODIFIER, cupar_level, cupar_offset> levels(d_levels);
    const int num_bins = num_output_levels - 1;
    if (valid) {
      bin = cub::UpperBound(levels, num_output_levels, static_cast<cupar_level>(sample)) - 1;
      if (bin >= num_bins) bin = -1;
    }
  }
};

/// CUB's PassThruTransform: the sample is the bin (8-bit samples, privatized over 256 bins).
struct cupar_pass_thru {
  template <cub::CacheLoadModifier LOAD_MODIFIER, typename SampleT>
  __device__ __forceinline__ void BinSelect(SampleT sample, int& bin, bool valid) {
    if (valid) bin = static_cast<int>(sample);
  }
};

#if defined(CUPAR_HISTOGRAM_EVEN)
#define CUPAR_HISTOGRAM_IS_EVEN true
typedef cupar_scale_transform cupar_binning;
#else
#define CUPAR_HISTOGRAM_IS_EVEN false
typedef cupar_search_transform cupar_binning;
#endif

// 8-bit samples are privatized over all 256 values and binned when the histogram is written out;
// wider samples are binned on load (as CUB's DispatchHistogram chooses).
typedef ::cuda::std::conditional_t<sizeof(cupar_B) == 1, cupar_pass_thru, cupar_binning>
    cupar_privatized_decode;
typedef ::cuda::std::conditional_t<sizeof(cupar_B) == 1, cupar_binning, cupar_pass_thru>
    cupar_output_decode;

typedef cub::detail::histogram::policy_hub<cupar_B, cupar_C, 1, 1, CUPAR_HISTOGRAM_IS_EVEN>::
    MaxPolicy::ActivePolicy::AgentHistogramPolicyT cupar_histogram_agent_policy;

template <class Counter>
__global__ void cupar_histogram_init(::cuda::std::array<int, 1> num_output_bins,
                                     ::cuda::std::array<Counter*, 1> d_output_histograms,
                                     cub::GridQueue<int> tile_queue) {
  if (threadIdx.x == 0 && blockIdx.x == 0) tile_queue.ResetDrain();
  const int output_bin = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (output_bin < num_output_bins[0]) d_output_histograms[0][output_bin] = 0;
}

template <int PrivatizedSmemBins>
__global__ void __launch_bounds__(cupar_histogram_agent_policy::BLOCK_THREADS)
    cupar_histogram_sweep(cupar_sample_iterator d_samples,
                          ::cuda::std::array<int, 1> num_output_bins,
                          ::cuda::std::array<int, 1> num_privatized_bins,
                          ::cuda::std::array<cupar_C*, 1> d_output_histograms,
                          ::cuda::std::array<cupar_C*, 1> d_privatized_histograms,
                          ::cuda::std::array<cupar_output_decode, 1> output_decode_op,
                          ::cuda::std::array<cupar_privatized_decode, 1> privatized_decode_op,
                          cupar_offset num_row_pixels, cupar_offset num_rows,
                          cupar_offset row_stride_samples, int tiles_per_row,
                          cub::GridQueue<int> tile_queue) {
  typedef cub::detail::histogram::AgentHistogram<
      cupar_histogram_agent_policy, PrivatizedSmemBins, 1, 1, cupar_sample_iterator, cupar_C,
      cupar_privatized_decode, cupar_output_decode, cupar_offset>
      agent_t;
  __shared__ typename agent_t::TempStorage temp_storage;
  agent_t agent(temp_storage, d_samples, num_output_bins.data(), num_privatized_bins.data(),
                d_output_histograms.data(), d_privatized_histograms.data(), output_decode_op.data(),
                privatized_decode_op.data());
  agent.InitBinCounters();
  agent.ConsumeTiles(num_row_pixels, num_rows, row_stride_samples, tiles_per_row, tile_queue);
  agent.StoreOutput();
}
