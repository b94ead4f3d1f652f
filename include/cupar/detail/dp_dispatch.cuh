// cupar internal: the host dispatch of the segmented scans and of the binary searches, written
// once for both operator paths as templates over the kernels' source and a launcher factory in
// the shape of CUB's dispatch seams: cub::detail::TripleChevronFactory and the kernels' function
// pointers on the compiled path (segmented.cuh, search.cuh), the JIT's driver launcher and the
// loaded module's kernels in the library (src/jit/families/segmented.cu, binary_search.cu).
// Host code (nvcc); the kernels are in detail/device/.
#pragma once

#include <cupar/detail/device/binary_search.cuh>

#include <cub/util_temporary_storage.cuh>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>

namespace cupar::detail {

namespace segscan {

/// The sweep's launch shape: the active scan-by-key policy's block threads and items per thread.
struct shape {
  int threads = 0;
  int items = 0;
};

/// Threads per block of the initialisation kernel (CUB's scan-by-key uses 128 as well).
inline constexpr int init_threads = 128;

/// Runs a segmented scan, CUB-style in two phases: with temp == nullptr it only sets temp_bytes.
///
/// `Kernels` provides shape() (cudaError_t shape(segscan::shape&)), init_kernel() and
/// sweep_kernel() (what the launcher launches), and tile_state(): an object with CUB's
/// AllocationSize(int, size_t&) and Init(int, void*, size_t), passed to both kernels by value.
/// `LauncherFactory` is CUB's: factory(grid, block, smem, stream).doit(kernel, args...). The
/// arguments are passed with the kernels' parameter types (the JIT launcher passes their bytes).
///
/// Temporary storage: the tile states and, per tile, the first segment the tile touches.
/// Nothing is launched when n or num_segments is 0 (nothing is written then).
template <class Kernels, class LauncherFactory, class In, class Out, class Op, class Init>
cudaError_t dispatch(void* temp, std::size_t& temp_bytes, In d_in, Out d_out, std::int64_t n,
                     std::int64_t num_segments, const std::int64_t* d_begin,
                     const std::int64_t* d_end, Op op, Init init, cudaStream_t stream,
                     Kernels kernels, LauncherFactory launcher) {
  if (n <= 0 || num_segments <= 0) {
    if (temp == nullptr) temp_bytes = 0;
    return cudaSuccess;
  }
  shape sh;
  cudaError_t error = kernels.shape(sh);
  if (error != cudaSuccess) return error;
  const std::int64_t tile_items = std::int64_t(sh.threads) * sh.items;
  const std::int64_t tiles = (n + tile_items - 1) / tile_items;
  // One block per tile; the grid's x dimension takes 2^31 - 1 blocks (n of several 2^40).
  if (tiles >= INT_MAX) return cudaErrorInvalidValue;
  const int num_tiles = static_cast<int>(tiles);

  auto tile_state = kernels.tile_state();
  std::size_t sizes[2] = {0, (static_cast<std::size_t>(num_tiles) + 1) * sizeof(std::int64_t)};
  error = tile_state.AllocationSize(num_tiles, sizes[0]);
  if (error != cudaSuccess) return error;
  void* allocations[2] = {};
  error = cub::detail::AliasTemporaries(temp, temp_bytes, allocations, sizes);
  if (error != cudaSuccess || temp == nullptr) return error;
  error = tile_state.Init(num_tiles, allocations[0], sizes[0]);
  if (error != cudaSuccess) return error;
  auto* d_tile_first = static_cast<std::int64_t*>(allocations[1]);

  const int init_grid = static_cast<int>((tiles + 1 + init_threads - 1) / init_threads);
  error = launcher(init_grid, init_threads, 0, stream)
              .doit(kernels.init_kernel(), tile_state, num_tiles, d_end, num_segments, tile_items,
                    static_cast<std::int64_t*>(d_tile_first));
  if (error != cudaSuccess) return error;
  return launcher(num_tiles, sh.threads, 0, stream)
      .doit(kernels.sweep_kernel(), d_in, d_out, d_begin, d_end, num_segments, n,
            static_cast<const std::int64_t*>(d_tile_first), tile_state, num_tiles, op, init);
}

}  // namespace segscan

namespace bsearch {

/// Launches the binary search kernel over m needles (one thread each, at most the resident grid
/// of `sm_count` x blocks_per_sm blocks of `threads`, each looping over needles beyond, so that
/// each block loads its sample of the sorted range once: binary_search.cuh). Nothing is launched
/// when m is 0.
template <class Kernel, class LauncherFactory, class Sorted, class Needles, class Out, class Comp>
cudaError_t dispatch(Kernel kernel, LauncherFactory launcher, int threads, int sm_count,
                     Sorted d_sorted, std::uint64_t n, Needles d_needles, std::uint64_t m,
                     Out d_out, Comp comp, bool upper, cudaStream_t stream) {
  if (m == 0) return cudaSuccess;
  const std::uint64_t blocks = (m + static_cast<std::uint64_t>(threads) - 1) / threads;
  const std::uint64_t resident = std::uint64_t(sm_count) * blocks_per_sm;
  const int grid = static_cast<int>(std::min<std::uint64_t>(blocks, resident));
  const unsigned long long n_arg = n, m_arg = m;
  const int upper_arg = upper ? 1 : 0;
  return launcher(grid, threads, 0, stream)
      .doit(kernel, d_sorted, n_arg, d_needles, m_arg, d_out, comp, upper_arg);
}

}  // namespace bsearch

}  // namespace cupar::detail
