// cupar benchmarks: fused inputs and outputs on the C++ path (Thrust's fancy iterators passed to
// cupar.cuh), beside CUB called directly on the same iterators and, for the sum of squares, the
// unfused pair (transform into a temporary array, then reduce it). f32 data in [-1, 1).
//
//   reduce_sum_squares/<impl>/f32  reduce(transform(x, x * x), plus); cupar_unfused: the pair
//   dot/<impl>/f32                 reduce(transform(zip(a, b), a * b), plus): 2n floats read
//   argmax/<impl>/f32              reduce over zip(counting, x), (index, value) accumulator,
//                                  lowest index on ties; cub: DeviceReduce::ArgMax
//   argmax32/<impl>/f32            the same with an (int, float) accumulator (8 bytes)
//   zip8/<impl>/f32, zip16/<impl>/f32  reduce(transform(zip(c0, ..., cK-1), sum of the fields),
//                                  plus): K columns of n floats read once (the run-time
//                                  expression of 16 columns has a 128-byte state, written to
//                                  device memory per call); cub_flat: DeviceReduce::Sum over
//                                  the same K n floats as one array (the time to read the bytes)
//   count_where/<impl>/f32         reduce(transform(x, x > 0.5 ? 1 : 0), plus) as u64
//   scan_squares/<impl>/f32        inclusive scan of x * x read through a transform iterator
//                                  (cupar_jit_expr: jit::transform(x, "x * x"), jit_kernels.cpp)
//   inclusive_scan_out/<impl>/f32  inclusive scan of x written through a transform output
//                                  iterator (2 * s)
//   merge_sort_computed/<impl>/f32 sort of keys |x| computed by a transform iterator
//   sort_computed/<impl>/u32       radix sort of keys x * 7 (cub: DeviceTransform into a
//                                  temporary, then DeviceRadixSort; cupar_jit_expr:
//                                  sort_keys(jit::transform(x, "x * 7u"), ..., jit::less))
//
// Compare with the plain rows (reduce_sum/cub/f32, inclusive_scan/cub/f32, copy/cuda_memcpy) for
// the fraction of copy bandwidth.
#include "rows.hpp"
#include "runners.hpp"

#include <cupar/cupar.cuh>

#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/transform_output_iterator.h>
#include <thrust/iterator/zip_iterator.h>
#include <cub/device/device_merge_sort.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_transform.cuh>
#include <cuda/std/functional>
#include <cuda/std/tuple>

#include <cstdint>
#include <utility>

namespace cupar_bench {
namespace {

struct square {
  __host__ __device__ float operator()(float x) const { return x * x; }
};
struct product {
  __host__ __device__ float operator()(const ::cuda::std::tuple<float, float>& t) const {
    return ::cuda::std::get<0>(t) * ::cuda::std::get<1>(t);
  }
};
struct above_half {
  __host__ __device__ unsigned long long operator()(float x) const { return x > 0.5f ? 1 : 0; }
};
struct twice {
  __host__ __device__ float operator()(float x) const { return 2.0f * x; }
};
struct magnitude {
  __host__ __device__ float operator()(float x) const { return x < 0 ? -x : x; }
};
struct times7 {
  __host__ __device__ std::uint32_t operator()(std::uint32_t x) const { return x * 7u; }
};
struct less_f {
  __host__ __device__ bool operator()(float a, float b) const { return a < b; }
};
using iv = ::cuda::std::tuple<long long, float>;
using iv32 = ::cuda::std::tuple<int, float>;  // argmax32: 8 bytes, n < 2^31
struct argmax_op {
  template <class T>
  __host__ __device__ T operator()(const T& a, const T& b) const {
    const float va = ::cuda::std::get<1>(a), vb = ::cuda::std::get<1>(b);
    if (va != vb) return va > vb ? a : b;
    return ::cuda::std::get<0>(a) <= ::cuda::std::get<0>(b) ? a : b;
  }
};

}  // namespace

void reduce_sum_squares_cupar_f32(benchmark::State& state) {
  fused_reduce_runner<float>(state, [](const float* in, float* out, std::size_t n, cudaStream_t s) {
    cupar::reduce(thrust::make_transform_iterator(in, square{}), out, n, ::cuda::std::plus<>{},
                  0.0f, s);
  });
}

void reduce_sum_squares_cub_f32(benchmark::State& state) {
  cub_temp temp;
  fused_reduce_runner<float>(state, [&](const float* in, float* out, std::size_t n,
                                        cudaStream_t s) {
    temp.run([&](void* t, std::size_t& bytes) {
      return cub::DeviceReduce::Reduce(t, bytes, thrust::make_transform_iterator(in, square{}), out,
                                       static_cast<int>(n), ::cuda::std::plus<>{}, 0.0f, s);
    });
  });
}

void reduce_sum_squares_cupar_unfused_f32(benchmark::State& state) {
  device_array<float> squares(size_arg(state));
  fused_reduce_runner<float>(state,
                             [&](const float* in, float* out, std::size_t n, cudaStream_t s) {
                               cupar::transform(in, squares.get(), n, square{}, s);
                               cupar::reduce(squares.get(), out, n, ::cuda::std::plus<>{}, 0.0f, s);
                             });
}

void dot_cupar_f32(benchmark::State& state) {
  fused_reduce_runner<float>(
      state,
      [](const float* in, float* out, std::size_t n, cudaStream_t s) {
        const auto ab = thrust::make_zip_iterator(in, in + n);
        cupar::reduce(thrust::make_transform_iterator(ab, product{}), out, n, ::cuda::std::plus<>{},
                      0.0f, s);
      },
      2);
}

/// The sum of a tuple's fields, left to right.
struct sum_fields {
  template <class Tuple>
  __host__ __device__ float operator()(const Tuple& t) const {
    return ::cuda::std::apply([](auto... v) { return (0.0f + ... + v); }, t);
  }
};

/// zip(in, in + n, ..., in + (K - 1) n) of the runner's K n floats.
template <std::size_t... I>
auto zip_columns(const float* in, std::size_t n, std::index_sequence<I...>) {
  return thrust::make_zip_iterator((in + I * n)...);
}

template <std::size_t K>
void zip_sum_cupar(benchmark::State& state) {
  fused_reduce_runner<float>(
      state,
      [](const float* in, float* out, std::size_t n, cudaStream_t s) {
        const auto rows = thrust::make_transform_iterator(
            zip_columns(in, n, std::make_index_sequence<K>{}), sum_fields{});
        cupar::reduce(rows, out, n, ::cuda::std::plus<>{}, 0.0f, s);
      },
      static_cast<int>(K));
}

template <std::size_t K>
void zip_sum_cub_flat(benchmark::State& state) {
  cub_temp temp;
  fused_reduce_runner<float>(
      state,
      [&](const float* in, float* out, std::size_t n, cudaStream_t s) {
        temp.run([&](void* t, std::size_t& bytes) {
          return cub::DeviceReduce::Sum(t, bytes, in, out, static_cast<std::int64_t>(K * n), s);
        });
      },
      static_cast<int>(K));
}

void zip8_cupar_f32(benchmark::State& state) {
  zip_sum_cupar<8>(state);
}
void zip8_cub_flat_f32(benchmark::State& state) {
  zip_sum_cub_flat<8>(state);
}
void zip16_cupar_f32(benchmark::State& state) {
  zip_sum_cupar<16>(state);
}
void zip16_cub_flat_f32(benchmark::State& state) {
  zip_sum_cub_flat<16>(state);
}

void dot_cub_f32(benchmark::State& state) {
  cub_temp temp;
  fused_reduce_runner<float>(
      state,
      [&](const float* in, float* out, std::size_t n, cudaStream_t s) {
        const auto ab = thrust::make_zip_iterator(in, in + n);
        temp.run([&](void* t, std::size_t& bytes) {
          return cub::DeviceReduce::Reduce(t, bytes, thrust::make_transform_iterator(ab, product{}),
                                           out, static_cast<int>(n), ::cuda::std::plus<>{}, 0.0f,
                                           s);
        });
      },
      2);
}

void argmax_cupar_f32(benchmark::State& state) {
  fused_reduce_runner<iv>(state, [](const float* in, iv* out, std::size_t n, cudaStream_t s) {
    const auto zip = thrust::make_zip_iterator(thrust::make_counting_iterator<long long>(0), in);
    cupar::reduce(zip, out, n, argmax_op{}, iv{-1, -1e30f}, s);
  });
}

void argmax_cub_f32(benchmark::State& state) {
  cub_temp temp;
  device_array<long long> index(1);
  fused_reduce_runner<float>(
      state, [&](const float* in, float* out, std::size_t n, cudaStream_t s) {
        temp.run([&](void* t, std::size_t& bytes) {
          return cub::DeviceReduce::ArgMax(t, bytes, in, out, index.get(), static_cast<int>(n), s);
        });
      });
}

// argmax with a 32-bit index: an (int, float) accumulator of 8 bytes, the size of ArgMax's own
// KeyValuePair<int, float>, so CUB tunes the reduce as it tunes ArgMax.
void argmax32_cupar_f32(benchmark::State& state) {
  fused_reduce_runner<iv32>(state, [](const float* in, iv32* out, std::size_t n, cudaStream_t s) {
    const auto zip = thrust::make_zip_iterator(thrust::make_counting_iterator<int>(0), in);
    cupar::reduce(zip, out, n, argmax_op{}, iv32{-1, -1e30f}, s);
  });
}

void argmax32_cub_f32(benchmark::State& state) {
  argmax_cub_f32(state);
}

void count_where_cupar_f32(benchmark::State& state) {
  fused_reduce_runner<unsigned long long>(
      state, [](const float* in, unsigned long long* out, std::size_t n, cudaStream_t s) {
        cupar::reduce(thrust::make_transform_iterator(in, above_half{}), out, n,
                      ::cuda::std::plus<>{}, 0ull, s);
      });
}

void count_where_cub_f32(benchmark::State& state) {
  cub_temp temp;
  fused_reduce_runner<unsigned long long>(state, [&](const float* in, unsigned long long* out,
                                                     std::size_t n, cudaStream_t s) {
    temp.run([&](void* t, std::size_t& bytes) {
      return cub::DeviceReduce::Reduce(t, bytes, thrust::make_transform_iterator(in, above_half{}),
                                       out, static_cast<int>(n), ::cuda::std::plus<>{}, 0ull, s);
    });
  });
}

void scan_squares_cupar_f32(benchmark::State& state) {
  unary_runner<float, float>(state, [](const float* in, float* out, std::size_t n, cudaStream_t s) {
    cupar::inclusive_scan(thrust::make_transform_iterator(in, square{}), out, n,
                          ::cuda::std::plus<>{}, s);
  });
}

void scan_squares_cub_f32(benchmark::State& state) {
  cub_temp temp;
  unary_runner<float, float>(state, [&](const float* in, float* out, std::size_t n,
                                        cudaStream_t s) {
    temp.run([&](void* t, std::size_t& bytes) {
      return cub::DeviceScan::InclusiveScan(t, bytes, thrust::make_transform_iterator(in, square{}),
                                            out, ::cuda::std::plus<>{}, static_cast<int>(n), s);
    });
  });
}

void inclusive_scan_out_cupar_f32(benchmark::State& state) {
  unary_runner<float, float>(state, [](const float* in, float* out, std::size_t n, cudaStream_t s) {
    cupar::inclusive_scan(in, thrust::make_transform_output_iterator(out, twice{}), n,
                          ::cuda::std::plus<>{}, s);
  });
}

void inclusive_scan_out_cub_f32(benchmark::State& state) {
  cub_temp temp;
  unary_runner<float, float>(
      state, [&](const float* in, float* out, std::size_t n, cudaStream_t s) {
        temp.run([&](void* t, std::size_t& bytes) {
          return cub::DeviceScan::InclusiveScan(
              t, bytes, in, thrust::make_transform_output_iterator(out, twice{}),
              ::cuda::std::plus<>{}, static_cast<int>(n), s);
        });
      });
}

void merge_sort_computed_cupar_f32(benchmark::State& state) {
  sort_keys_runner<float>(state, [](const float* in, float* out, std::size_t n, cudaStream_t s) {
    cupar::sort_keys(thrust::make_transform_iterator(in, magnitude{}), out, n, less_f{}, s);
  });
}

void merge_sort_computed_cub_f32(benchmark::State& state) {
  cub_temp temp;
  sort_keys_runner<float>(state, [&](const float* in, float* out, std::size_t n, cudaStream_t s) {
    temp.run([&](void* t, std::size_t& bytes) {
      return cub::DeviceMergeSort::SortKeysCopy(t, bytes,
                                                thrust::make_transform_iterator(in, magnitude{}),
                                                out, static_cast<int>(n), less_f{}, s);
    });
  });
}

// A radix sort of keys computed by a transform (x * 7, wrapping): CUB's radix sort takes arrays,
// so a CUB user writes the keys first (DeviceTransform into a temporary) and sorts them. The
// run-time path does the same (sort_computed/cupar_jit_expr, jit_kernels.cpp).
void sort_computed_cub_u32(benchmark::State& state) {
  cub_temp temp;
  device_array<std::uint32_t> keys(size_arg(state));
  sort_keys_runner<std::uint32_t>(
      state, [&](const std::uint32_t* in, std::uint32_t* out, std::size_t n, cudaStream_t s) {
        CUPAR_BENCH_CUDA(
            cub::DeviceTransform::Transform(in, keys.get(), static_cast<int>(n), times7{}, s));
        temp.run([&](void* t, std::size_t& bytes) {
          return cub::DeviceRadixSort::SortKeys(t, bytes, keys.get(), out, static_cast<int>(n), 0,
                                                32, s);
        });
      });
}

}  // namespace cupar_bench
