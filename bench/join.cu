// cupar benchmarks: equi-join (issue 29's shape): a build table of n / 4 rows whose u32 keys are
// drawn from n / 4 values (duplicates as they fall) and a probe table of n rows whose keys are
// drawn from n / 2 values (about 40% of the probe rows match), joined into row-position pairs.
//
//   cupar       inner_join into caller arrays (the hash table on the build keys)
//   cupar_sort  the route a query engine had before: the build keys sorted with their positions
//               (sort_pairs), equal_range of every probe key, an exclusive scan of the match
//               counts, then the pairs written by a kernel of this file
//
// Both routes synchronise once to learn the number of pairs, so the rows run on an idle stream
// (main.cpp). n is the probe table's rows.
#include "rows.hpp"
#include "runners.hpp"

#include <cupar/cupar.cuh>

#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <cub/device/device_scan.cuh>

#include <cstdint>
#include <stdexcept>
#include <string>

namespace cupar_bench {
namespace {

struct position {
  __host__ __device__ std::uint32_t operator()(std::uint32_t i) const { return i; }
};

struct range_size {
  const std::uint32_t* lower;
  const std::uint32_t* upper;
  __host__ __device__ std::uint32_t operator()(std::uint32_t i) const {
    return upper[i] - lower[i];
  }
};

/// The sort route's last step: probe row i's matches (sorted build positions [lower, upper)) at
/// offsets[i].
__global__ void expand_pairs(const std::uint32_t* lower, const std::uint32_t* upper,
                             const std::uint32_t* offsets, const std::uint32_t* order,
                             std::uint32_t n, std::uint32_t* build_out, std::uint32_t* probe_out) {
  for (std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += gridDim.x * blockDim.x) {
    std::uint32_t at = offsets[i];
    for (std::uint32_t j = lower[i]; j < upper[i]; ++j, ++at) {
      build_out[at] = order[j];
      probe_out[at] = i;
    }
  }
}

/// call(build, nb, probe, np, stream) -> number of pairs (the rows' "pairs" counter: both routes
/// report the same for the same n).
template <class Call>
void join_runner(benchmark::State& state, Call call) {
  run_guarded(state, true, [&] {
    const std::size_t np = size_arg(state);
    const std::size_t nb = np / 4 > 0 ? np / 4 : 1;
    const std::size_t sets =
        rotation_sets(padded_bytes<std::uint32_t>(np) + padded_bytes<std::uint32_t>(nb));
    rotating<std::uint32_t> build(nb, sets), probe(np, sets);
    build.fill(seed_input, {0.0, static_cast<double>(nb - 1)}, bench_stream());
    probe.fill(seed_values, {0.0, static_cast<double>(2 * nb - 1)}, bench_stream());
    std::size_t pairs = 0;
    time_gpu(state, {np, static_cast<double>((np + nb) * sizeof(std::uint32_t))}, sets,
             [&](std::size_t s) { pairs = call(build[s], nb, probe[s], np, bench_stream()); });
    state.counters["pairs"] = static_cast<double>(pairs);
  });
}

}  // namespace

void join_cupar_u32(benchmark::State& state) {
  const std::size_t n = size_arg(state);
  device_array<std::uint32_t> bo(2 * n + 1024), po(2 * n + 1024);
  join_runner(state, [&](const std::uint32_t* b, std::size_t nb, const std::uint32_t* p,
                         std::size_t np, cudaStream_t s) {
    return cupar::inner_join(b, nb, p, np, bo.get(), po.get(), 2 * n + 1024, s);
  });
}

void join_cupar_sort_u32(benchmark::State& state) {
  const std::size_t n = size_arg(state);
  const std::size_t nbmax = n / 4 > 0 ? n / 4 : 1;
  device_array<std::uint32_t> sorted(nbmax), order(nbmax), positions(nbmax), lower(n), upper(n),
      offsets(n), bo(2 * n + 1024), po(2 * n + 1024);
  device_array<unsigned char> scan_temp(1 << 20);
  join_runner(state, [&](const std::uint32_t* b, std::size_t nb, const std::uint32_t* p,
                         std::size_t np, cudaStream_t s) {
    cupar::transform(thrust::counting_iterator<std::uint32_t>(0), positions.get(), nb, position{},
                     s);
    cupar::sort_pairs(b, sorted.get(), static_cast<const std::uint32_t*>(positions.get()),
                      order.get(), nb, s);
    cupar::equal_range(static_cast<const std::uint32_t*>(sorted.get()), nb, p, np, lower.get(),
                       upper.get(), ::cuda::std::less<>{}, s);
    const auto sizes = thrust::make_transform_iterator(thrust::counting_iterator<std::uint32_t>(0),
                                                       range_size{lower.get(), upper.get()});
    std::size_t bytes = 0;
    cub::DeviceScan::ExclusiveSum(nullptr, bytes, sizes, offsets.get(), static_cast<int>(np), s);
    if (bytes > (1u << 20)) throw std::runtime_error("scan temporary too small");
    cub::DeviceScan::ExclusiveSum(scan_temp.get(), bytes, sizes, offsets.get(),
                                  static_cast<int>(np), s);
    std::uint32_t last[2] = {0, 0};
    cudaMemcpyAsync(&last[0], offsets.get() + (np - 1), 4, cudaMemcpyDeviceToHost, s);
    range_size one{lower.get() + (np - 1), upper.get() + (np - 1)};
    std::uint32_t lo = 0, hi = 0;
    cudaMemcpyAsync(&lo, one.lower, 4, cudaMemcpyDeviceToHost, s);
    cudaMemcpyAsync(&hi, one.upper, 4, cudaMemcpyDeviceToHost, s);
    cudaStreamSynchronize(s);
    last[1] = hi - lo;
    const std::size_t total = static_cast<std::size_t>(last[0]) + last[1];
    if (total > 2 * n + 1024) throw std::runtime_error("more pairs than room");
    expand_pairs<<<static_cast<unsigned>((np + 255) / 256), 256, 0, s>>>(
        lower.get(), upper.get(), offsets.get(), order.get(), static_cast<std::uint32_t>(np),
        bo.get(), po.get());
    return total;
  });
}

}  // namespace cupar_bench
