// cupar benchmarks: group-by (issue 29's shape): n rows of u32 keys drawn uniformly from G groups
// and f32 values, aggregated into count, sum, min and max per group (a 16-byte struct).
//
//   cupar       group_by, group_by_method::automatic (the sort route below
//               group_by_sort_below_rows = 2^21 rows; from there the hash table up to
//               group_by_hash_limit groups by the sketch of the keys, the table method and the
//               sort route above; groups in exactly sized buffers)
//   cupar_into  the same into caller arrays with room for n groups (as cupar_sort writes)
//   cupar_hash  group_by with group_by_method::hash at every group count
//   cupar_sort  the sort-based route a query engine had before: sort_pairs of the keys and values,
//               then reduce_by_key_count over the sorted runs
//
// The pair_stats rows: the keys a pair of 4-byte columns {k, k * 2654435761} (G distinct pairs)
//   cupar         group_by on the struct keys under a hash and an equality
//   cupar_packed  group_by on the pairs packed into 8-byte integers by the caller (what packing
//                 by hand gives, where the columns fit 64 bits)
//   cupar_sort    sort_pairs of the packed keys and the values, then reduce_by_key_count
//
// Families group_by_100, group_by_1k (2^10 groups), group_by_4k (2^12), group_by_32k (2^15),
// group_by_1m (2^20), group_by_16m (2^24). Both calls return their number of groups to the host
// (they synchronise), so these rows run on an idle stream (main.cpp): launch latency and the
// synchronisations are in the time.
#include "group_by_runners.hpp"
#include "rows.hpp"

#include <cupar/cupar.cuh>

#include <thrust/iterator/transform_iterator.h>

#include <cstdint>
#include <stdexcept>
#include <string>

namespace cupar_bench {
namespace {

struct to_bench_stats {
  __host__ __device__ bench_stats operator()(float x) const { return {1u, x, x, x}; }
};
struct merge_bench_stats {
  __host__ __device__ bench_stats operator()(const bench_stats& a, const bench_stats& b) const {
    return {a.count + b.count, a.sum + b.sum, b.min < a.min ? b.min : a.min,
            a.max < b.max ? b.max : a.max};
  }
};

void hash_row(benchmark::State& state, std::size_t groups, cupar::group_by_method method) {
  cupar::group_by_options o;
  o.method = method;
  group_by_runner(
      state, groups, [o](const std::uint32_t* k, const float* v, std::size_t n, cudaStream_t s) {
        const auto g = cupar::group_by(k, thrust::make_transform_iterator(v, to_bench_stats{}), n,
                                       merge_bench_stats{}, s, o);
        return g.size();
      });
}

void into_row(benchmark::State& state, std::size_t groups) {
  const std::size_t n = size_arg(state);
  device_array<std::uint32_t> keys_out(n);
  device_array<bench_stats> stats_out(n);
  group_by_runner(state, groups,
                  [&](const std::uint32_t* k, const float* v, std::size_t count, cudaStream_t s) {
                    return cupar::group_by(k, thrust::make_transform_iterator(v, to_bench_stats{}),
                                           keys_out.get(), stats_out.get(), count, count,
                                           merge_bench_stats{}, s);
                  });
}

void sort_row(benchmark::State& state, std::size_t groups) {
  const std::size_t n = size_arg(state);
  device_array<std::uint32_t> sorted_keys(n), keys_out(n);
  device_array<float> sorted_values(n);
  device_array<bench_stats> stats_out(n);
  group_by_runner(state, groups,
                  [&](const std::uint32_t* k, const float* v, std::size_t count, cudaStream_t s) {
                    cupar::sort_pairs(k, sorted_keys.get(), v, sorted_values.get(), count, s);
                    return cupar::reduce_by_key_count(
                        sorted_keys.get(),
                        thrust::make_transform_iterator(sorted_values.get(), to_bench_stats{}),
                        keys_out.get(), stats_out.get(), count, merge_bench_stats{}, s);
                  });
}

struct pair_hash {
  __host__ __device__ unsigned long long operator()(const bench_pair& k) const {
    return (static_cast<unsigned long long>(k.a) << 32) | k.b;
  }
};
struct pair_eq {
  __host__ __device__ bool operator()(const bench_pair& x, const bench_pair& y) const {
    return x.a == y.a && x.b == y.b;
  }
};

__global__ void pair_keys_kernel(const std::uint32_t* keys, bench_pair* pairs,
                                 std::uint64_t* packed, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    const bench_pair p{keys[i], keys[i] * 2654435761u};
    pairs[i] = p;
    packed[i] = (static_cast<std::uint64_t>(p.a) << 32) | p.b;
  }
}

void pair_row(benchmark::State& state, std::size_t groups) {
  group_by_pair_runner(
      state, groups,
      [](const bench_pair* k, const std::uint64_t*, const float* v, std::size_t n, cudaStream_t s) {
        return cupar::group_by(k, thrust::make_transform_iterator(v, to_bench_stats{}), n,
                               pair_hash{}, pair_eq{}, merge_bench_stats{}, s)
            .size();
      });
}

void packed_row(benchmark::State& state, std::size_t groups) {
  group_by_pair_runner(
      state, groups,
      [](const bench_pair*, const std::uint64_t* k, const float* v, std::size_t n, cudaStream_t s) {
        return cupar::group_by(k, thrust::make_transform_iterator(v, to_bench_stats{}), n,
                               merge_bench_stats{}, s)
            .size();
      });
}

void packed_sort_row(benchmark::State& state, std::size_t groups) {
  const std::size_t n = size_arg(state);
  device_array<std::uint64_t> sorted_keys(n), keys_out(n);
  device_array<float> sorted_values(n);
  device_array<bench_stats> stats_out(n);
  group_by_pair_runner(state, groups,
                       [&](const bench_pair*, const std::uint64_t* k, const float* v,
                           std::size_t count, cudaStream_t s) {
                         cupar::sort_pairs(k, sorted_keys.get(), v, sorted_values.get(), count, s);
                         return cupar::reduce_by_key_count(
                             sorted_keys.get(),
                             thrust::make_transform_iterator(sorted_values.get(), to_bench_stats{}),
                             keys_out.get(), stats_out.get(), count, merge_bench_stats{}, s);
                       });
}

}  // namespace

void make_pair_keys(const std::uint32_t* keys, bench_pair* pairs, std::uint64_t* packed,
                    std::size_t n, cudaStream_t stream) {
  pair_keys_kernel<<<1024, 256, 0, stream>>>(keys, pairs, packed, n);
  CUPAR_BENCH_CUDA(cudaGetLastError());
}

#define CUPAR_GROUP_BY_ROWS(family, groups)                        \
  void family##_cupar_u32_stats(benchmark::State& state) {         \
    hash_row(state, groups, cupar::group_by_method::automatic);    \
  }                                                                \
  void family##_cupar_hash_u32_stats(benchmark::State& state) {    \
    hash_row(state, groups, cupar::group_by_method::hash);         \
  }                                                                \
  void family##_cupar_into_u32_stats(benchmark::State& state) {    \
    into_row(state, groups);                                       \
  }                                                                \
  void family##_cupar_sort_u32_stats(benchmark::State& state) {    \
    sort_row(state, groups);                                       \
  }                                                                \
  void family##_cupar_pair_stats(benchmark::State& state) {        \
    pair_row(state, groups);                                       \
  }                                                                \
  void family##_cupar_packed_pair_stats(benchmark::State& state) { \
    packed_row(state, groups);                                     \
  }                                                                \
  void family##_cupar_sort_pair_stats(benchmark::State& state) {   \
    packed_sort_row(state, groups);                                \
  }

CUPAR_GROUP_BY_ROWS(group_by_100, 100)
CUPAR_GROUP_BY_ROWS(group_by_1k, std::size_t(1) << 10)
CUPAR_GROUP_BY_ROWS(group_by_4k, std::size_t(1) << 12)
CUPAR_GROUP_BY_ROWS(group_by_32k, std::size_t(1) << 15)
CUPAR_GROUP_BY_ROWS(group_by_1m, std::size_t(1) << 20)
CUPAR_GROUP_BY_ROWS(group_by_16m, std::size_t(1) << 24)
#undef CUPAR_GROUP_BY_ROWS

}  // namespace cupar_bench
