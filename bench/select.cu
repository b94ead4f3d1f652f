// cupar benchmarks: the stream compaction families on the GPU: cupar's C++-callable path, CUB
// called directly (int item counts where CUB takes them, as a CUB user writes it) and Thrust, on
// the data of select_runners.hpp.
#include "jit_rows.hpp"
#include "rows.hpp"
#include "select_runners.hpp"

#include <cupar/cupar.cuh>

#include <thrust/copy.h>
#include <thrust/execution_policy.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/transform_output_iterator.h>
#include <thrust/partition.h>
#include <thrust/unique.h>
#include <cub/device/device_partition.cuh>
#include <cub/device/device_select.cuh>
#include <cuda/std/functional>

#include <cstdint>
#include <optional>

namespace cupar_bench {

namespace {

template <class T>
__global__ void fill_runs_kernel(T* d, std::size_t n, std::uint64_t seed, int log2_run) {
  const value_generator<T> gen{seed, full_bits};
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x)
    d[i] = gen(i >> log2_run);
}

__global__ void fill_flags_kernel(std::uint8_t* d, std::size_t n, std::uint64_t seed) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x)
    d[i] = static_cast<std::uint8_t>(hash64(seed, i) & 1u);
}

unsigned grid_for(std::size_t n) {
  return static_cast<unsigned>(n / 256 + 1 < 65536 ? n / 256 + 1 : 65536);
}

struct below {
  std::uint32_t t;
  __device__ bool operator()(std::uint32_t x) const { return x < t; }
};

/// The transform of the select_if_transformed rows: x * 3 (wrapping), still every bit pattern.
struct times3 {
  __host__ __device__ std::uint32_t operator()(std::uint32_t x) const { return x * 3u; }
};

struct flag_set {
  __device__ bool operator()(std::uint8_t f) const { return f != 0; }
};

using u32 = std::uint32_t;

}  // namespace

template <class T>
void fill_runs(T* d, std::size_t n, std::uint64_t seed, int log2_run, cudaStream_t stream) {
  fill_runs_kernel<T><<<grid_for(n), 256, 0, stream>>>(d, n, seed, log2_run);
  CUPAR_BENCH_CUDA(cudaGetLastError());
}
template void fill_runs<u32>(u32*, std::size_t, std::uint64_t, int, cudaStream_t);

void fill_flags(std::uint8_t* d, std::size_t n, std::uint64_t seed, cudaStream_t stream) {
  fill_flags_kernel<<<grid_for(n), 256, 0, stream>>>(d, n, seed);
  CUPAR_BENCH_CUDA(cudaGetLastError());
}

// --- select_if --------------------------------------------------------------------------------

void select_if_cupar_u32(benchmark::State& state) {
  select_runner<u32>(
      state, [](const u32* in, u32* out, std::size_t* count, std::size_t n, cudaStream_t s) {
        cupar::select_if(in, out, count, n, below{select_threshold}, s);
      });
}
void select_if_cub_u32(benchmark::State& state) {
  cub_temp temp;
  select_runner<u32>(
      state, [&](const u32* in, u32* out, std::size_t* count, std::size_t n, cudaStream_t s) {
        temp.run([&](void* t, std::size_t& bytes) {
          return cub::DeviceSelect::If(t, bytes, in, out, count, static_cast<int>(n),
                                       below{select_threshold}, s);
        });
      });
}
void select_if_thrust_u32(benchmark::State& state) {
  select_runner<u32>(
      state, [](const u32* in, u32* out, std::size_t*, std::size_t n, cudaStream_t s) {
        thrust::copy_if(thrust::cuda::par.on(s), in, in + n, out, below{select_threshold});
      });
}

// select_if of a transform (x * 3, then x < 2^31): the fused input read through an iterator.
void select_if_transformed_cupar_u32(benchmark::State& state) {
  select_runner<u32>(
      state, [](const u32* in, u32* out, std::size_t* count, std::size_t n, cudaStream_t s) {
        cupar::select_if(thrust::make_transform_iterator(in, times3{}), out, count, n,
                         below{select_threshold}, s);
      });
}
void select_if_transformed_cub_u32(benchmark::State& state) {
  cub_temp temp;
  select_runner<u32>(
      state, [&](const u32* in, u32* out, std::size_t* count, std::size_t n, cudaStream_t s) {
        temp.run([&](void* t, std::size_t& bytes) {
          return cub::DeviceSelect::If(t, bytes, thrust::make_transform_iterator(in, times3{}), out,
                                       count, static_cast<int>(n), below{select_threshold}, s);
        });
      });
}

// select_if written through a transform output iterator (x * 3 stored for the selected items).
void select_if_output_cub_u32(benchmark::State& state) {
  cub_temp temp;
  select_runner<u32>(
      state, [&](const u32* in, u32* out, std::size_t* count, std::size_t n, cudaStream_t s) {
        temp.run([&](void* t, std::size_t& bytes) {
          return cub::DeviceSelect::If(t, bytes, in,
                                       thrust::make_transform_output_iterator(out, times3{}), count,
                                       static_cast<int>(n), below{select_threshold}, s);
        });
      });
}

// --- select_flagged ---------------------------------------------------------------------------

// select_flagged takes no operator: the library serves it with a precompiled kernel set, whose
// inlined build replaces the quick one after the first call; warmed as a JIT row so that the
// replacement (a module load) happens before the timed runs.
void select_flagged_cupar_u32(benchmark::State& state) {
  jit_row_guard guard("select_flagged u32 (no operator)");
  select_flagged_runner<u32>(
      state, jit_warmed(guard, [](const u32* in, const std::uint8_t* flags, u32* out,
                                  std::size_t* count, std::size_t n, cudaStream_t s) {
        cupar::select_flagged(in, flags, out, count, n, s);
      }));
  guard.check(state);
}
void select_flagged_cub_u32(benchmark::State& state) {
  cub_temp temp;
  select_flagged_runner<u32>(state, [&](const u32* in, const std::uint8_t* flags, u32* out,
                                        std::size_t* count, std::size_t n, cudaStream_t s) {
    temp.run([&](void* t, std::size_t& bytes) {
      return cub::DeviceSelect::Flagged(t, bytes, in, flags, out, count, static_cast<int>(n), s);
    });
  });
}
// select_flagged of a transform (x * 3): CUB reading it through a transform iterator, the peer
// of select_flagged_transformed/cupar_jit_expr (select_jit.cpp).
void select_flagged_transformed_cub_u32(benchmark::State& state) {
  cub_temp temp;
  select_flagged_runner<u32>(state, [&](const u32* in, const std::uint8_t* flags, u32* out,
                                        std::size_t* count, std::size_t n, cudaStream_t s) {
    temp.run([&](void* t, std::size_t& bytes) {
      return cub::DeviceSelect::Flagged(t, bytes, thrust::make_transform_iterator(in, times3{}),
                                        flags, out, count, static_cast<int>(n), s);
    });
  });
}
void select_flagged_thrust_u32(benchmark::State& state) {
  select_flagged_runner<u32>(state, [](const u32* in, const std::uint8_t* flags, u32* out,
                                       std::size_t*, std::size_t n, cudaStream_t s) {
    thrust::copy_if(thrust::cuda::par.on(s), in, in + n, flags, out, flag_set{});
  });
}

// --- partition --------------------------------------------------------------------------------

void partition_cupar_u32(benchmark::State& state) {
  select_runner<u32>(
      state, [](const u32* in, u32* out, std::size_t* count, std::size_t n, cudaStream_t s) {
        cupar::partition(in, out, count, n, below{select_threshold}, s);
      });
}
void partition_cub_u32(benchmark::State& state) {
  cub_temp temp;
  select_runner<u32>(
      state, [&](const u32* in, u32* out, std::size_t* count, std::size_t n, cudaStream_t s) {
        temp.run([&](void* t, std::size_t& bytes) {
          return cub::DevicePartition::If(t, bytes, in, out, count, static_cast<int>(n),
                                          below{select_threshold}, s);
        });
      });
}
// Thrust's partition_copy writes the rejected items to a second array, in order: a scratch array
// of n items (made by the warm-up calls, before the timed ones), so the bytes moved are the same.
// (Writing them to out + n / 2, as this row did before 2026-11-27, ran past the buffer whenever
// fewer than half the items were selected: an illegal address at 2^22 on the H200.)
void partition_thrust_u32(benchmark::State& state) {
  std::optional<rotating<u32>> rejected;
  select_runner<u32>(state,
                     [&](const u32* in, u32* out, std::size_t*, std::size_t n, cudaStream_t s) {
                       if (!rejected) rejected.emplace(n, 1);
                       thrust::stable_partition_copy(thrust::cuda::par.on(s), in, in + n, out,
                                                     (*rejected)[0], below{select_threshold});
                     });
}

// What keeping the rejected items in input order would cost (docs/CUB_NOTES.md, "Partition order"):
// a three-way partition with a second part that takes nothing writes the selected items to `out`
// and the rejected ones, in order, to a scratch array, which a second kernel appends after the
// selected ones (the number selected stays on the device). Compare with partition/cupar.
namespace {
struct never {
  __device__ bool operator()(std::uint32_t) const { return false; }
};
__global__ void append_rejected(u32* out, const std::size_t* count, const u32* rejected,
                                std::size_t n) {
  const std::size_t selected = *count;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n - selected;
       i += std::size_t(gridDim.x) * blockDim.x)
    out[selected + i] = rejected[i];
}
}  // namespace

void partition_in_order_cupar_u32(benchmark::State& state) {
  const std::size_t scratch_n = size_arg(state);
  // The second part takes nothing, but its array must hold n items: the call checks that no
  // output of n items overlaps the input (a 1-item array placed after the input failed that
  // check at 2^20 on the H100, 2026-11-27).
  device_array<u32> rejected(scratch_n), unused(scratch_n);
  device_array<std::size_t> counts(2);
  select_runner<u32>(
      state, [&](const u32* in, u32* out, std::size_t* count, std::size_t n, cudaStream_t s) {
        cupar::three_way_partition(in, out, unused.get(), rejected.get(), counts.get(), n,
                                   below{select_threshold}, never{}, s);
        append_rejected<<<grid_for(n), 256, 0, s>>>(out, counts.get(), rejected.get(), n);
        CUPAR_BENCH_CUDA(
            cudaMemcpyAsync(count, counts.get(), sizeof(std::size_t), cudaMemcpyDeviceToDevice, s));
      });
}

// --- partition_copy: a stable partition into two arrays ------------------------------------------
// The selected items to one array and the rejected ones to another, each in input order (what
// Thrust's stable_partition_copy writes). cupar: a three-way partition whose second part takes
// nothing, so the rejected items are its unselected part, in order (the second part's array is
// never written but must hold n items, as partition_in_order says); cub: CUB's partition into two
// distinct outputs (DispatchSelectIf over partition_distinct_output_t, what Thrust runs), the
// count left on the device: what a call of its own would run; thrust: stable_partition_copy,
// which reads the count back to the host (a synchronisation a call).

void partition_copy_cupar_u32(benchmark::State& state) {
  device_array<u32> unused(size_arg(state));
  partition_copy_runner<u32>(state, [&](const u32* in, u32* selected, u32* rejected,
                                        std::size_t* counts, std::size_t n, cudaStream_t s) {
    cupar::three_way_partition(in, selected, unused.get(), rejected, counts, n,
                               below{select_threshold}, never{}, s);
  });
}
void partition_copy_cub_u32(benchmark::State& state) {
  using out_t = cub::detail::select::partition_distinct_output_t<u32*, u32*>;
  using dispatch_t = cub::DispatchSelectIf<const u32*, cub::NullType*, out_t, std::size_t*, below,
                                           cub::NullType, int, cub::SelectImpl::Partition>;
  cub_temp temp;
  partition_copy_runner<u32>(state, [&](const u32* in, u32* selected, u32* rejected,
                                        std::size_t* counts, std::size_t n, cudaStream_t s) {
    temp.run([&](void* t, std::size_t& bytes) {
      return dispatch_t::Dispatch(t, bytes, in, nullptr, out_t{selected, rejected}, counts,
                                  below{select_threshold}, cub::NullType{}, static_cast<int>(n), s);
    });
  });
}
void partition_copy_thrust_u32(benchmark::State& state) {
  partition_copy_runner<u32>(state, [](const u32* in, u32* selected, u32* rejected, std::size_t*,
                                       std::size_t n, cudaStream_t s) {
    thrust::stable_partition_copy(thrust::cuda::par.on(s), in, in + n, selected, rejected,
                                  below{select_threshold});
  });
}

// --- three_way_partition ----------------------------------------------------------------------

void three_way_partition_cupar_u32(benchmark::State& state) {
  three_way_runner<u32>(state, [](const u32* in, u32* first, u32* second, u32* rest,
                                  std::size_t* counts, std::size_t n, cudaStream_t s) {
    cupar::three_way_partition(in, first, second, rest, counts, n, below{select_first_threshold},
                               below{select_threshold}, s);
  });
}
void three_way_partition_cub_u32(benchmark::State& state) {
  cub_temp temp;
  three_way_runner<u32>(state, [&](const u32* in, u32* first, u32* second, u32* rest,
                                   std::size_t* counts, std::size_t n, cudaStream_t s) {
    temp.run([&](void* t, std::size_t& bytes) {
      return cub::DevicePartition::If(t, bytes, in, first, second, rest, counts,
                                      static_cast<int>(n), below{select_first_threshold},
                                      below{select_threshold}, s);
    });
  });
}

// --- unique -----------------------------------------------------------------------------------

void unique_cupar_u32(benchmark::State& state) {
  unique_runner<u32>(
      state, [](const u32* in, u32* out, std::size_t* count, std::size_t n, cudaStream_t s) {
        cupar::unique(in, out, count, n, ::cuda::std::equal_to<u32>{}, s);
      });
}
void unique_cub_u32(benchmark::State& state) {
  cub_temp temp;
  unique_runner<u32>(
      state, [&](const u32* in, u32* out, std::size_t* count, std::size_t n, cudaStream_t s) {
        temp.run([&](void* t, std::size_t& bytes) {
          return cub::DeviceSelect::Unique(t, bytes, in, out, count, static_cast<int>(n), s);
        });
      });
}
void unique_thrust_u32(benchmark::State& state) {
  unique_runner<u32>(state,
                     [](const u32* in, u32* out, std::size_t*, std::size_t n, cudaStream_t s) {
                       thrust::unique_copy(thrust::cuda::par.on(s), in, in + n, out);
                     });
}

}  // namespace cupar_bench
