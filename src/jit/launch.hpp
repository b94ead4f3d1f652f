// cupar internal: launching JIT kernels through the driver from CUB's host dispatch (its
// KernelLauncherFactory seam), and the type-erased kernel arguments.
#pragma once

#include "driver.hpp"
#include "engine.hpp"

#include <cupar/detail/cuda_check.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <memory>

namespace cupar::detail::jit {

/// A kernel argument whose bytes live elsewhere (an element value, the operator's state): the
/// launch passes the pointer to them, and the driver copies as many bytes as the kernel's
/// parameter has.
struct erased_arg {
  const void* ptr;
};

template <class T>
void* arg_address(const T& a) {
  return const_cast<void*>(static_cast<const void*>(std::addressof(a)));
}
inline void* arg_address(const erased_arg& a) {
  return const_cast<void*>(a.ptr);
}

/// First launch failure of a dispatch. CUB's host dispatch checks cudaPeekAtLastError after each
/// launch, which says nothing about driver launches; failures are collected here instead and
/// reported after the dispatch returns.
struct launch_status {
  CUresult first = CUDA_SUCCESS;
  void record(CUresult r) {
    if (first == CUDA_SUCCESS) first = r;
  }
};

struct jit_launcher {
  dim3 grid, block;
  std::size_t smem;
  CUstream stream;
  bool dependent;
  const device_info* dev;
  launch_status* status;

  template <class... Args>
  cudaError_t doit(CUkernel kernel, const Args&... args) const {
    void* params[] = {arg_address(args)...};
    const auto& d = driver::get();
    CUfunction f = nullptr;
    CUresult r = d.kernel_get_function(&f, kernel);
    if (r == CUDA_SUCCESS) {
      if (dependent && dev->arch >= 90) {
        // Programmatic dependent launch, as CUB's own launcher does for these kernels.
        CUlaunchAttribute attribute[1];
        attribute[0].id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
        attribute[0].value.programmaticStreamSerializationAllowed = 1;
        CUlaunchConfig config{};
        config.gridDimX = grid.x;
        config.gridDimY = grid.y;
        config.gridDimZ = grid.z;
        config.blockDimX = block.x;
        config.blockDimY = block.y;
        config.blockDimZ = block.z;
        config.sharedMemBytes = static_cast<unsigned>(smem);
        config.hStream = stream;
        config.attrs = attribute;
        config.numAttrs = 1;
        r = d.launch_kernel_ex(&config, f, params, nullptr);
      } else {
        r = d.launch_kernel(f, grid.x, grid.y, grid.z, block.x, block.y, block.z,
                            static_cast<unsigned>(smem), stream, params, nullptr);
      }
    }
    if (r != CUDA_SUCCESS) {
      status->record(r);
      return cudaErrorLaunchFailure;
    }
    return cudaSuccess;
  }
};

struct jit_launcher_factory {
  const device_info* dev;
  const loaded_module* mod;
  launch_status* status;

  jit_launcher operator()(dim3 grid, dim3 block, std::size_t smem, cudaStream_t stream,
                          bool dependent = false) const {
    return jit_launcher{grid, block, smem, stream, dependent, dev, status};
  }
  cudaError_t PtxVersion(int& version) const {
    version = dev->arch * 10;
    return cudaSuccess;
  }
  cudaError_t MultiProcessorCount(int& count) const {
    count = dev->sm_count;
    return cudaSuccess;
  }
  cudaError_t MaxSmOccupancy(int& occupancy, CUkernel kernel, int block, int smem = 0) const {
    try {
      occupancy = mod->occupancy(kernel, block, static_cast<std::size_t>(smem));
      return cudaSuccess;
    } catch (const std::exception&) {
      status->record(CUDA_ERROR_INVALID_VALUE);
      return cudaErrorInvalidValue;
    }
  }
  cudaError_t MaxGridDimX(int& x) const {
    x = dev->max_grid_dim_x;
    return cudaSuccess;
  }
};

/// Runtime agent policy (CUB's dispatch reads BlockThreads / ItemsPerThread through wrappers
/// whose primary templates accept any type with these members).
struct agent_policy {
  int block_threads;
  int items_per_thread;
  int BlockThreads() const { return block_threads; }
  int ItemsPerThread() const { return items_per_thread; }
  int ItemsPerTile() const { return block_threads * items_per_thread; }
};

/// Throws for a failed dispatch: a recorded launch failure first, else CUB's status.
inline void check_dispatch(cudaError_t status, const launch_status& launches, const char* call) {
  if (launches.first != CUDA_SUCCESS) driver::throw_error(launches.first, call);
  check_cuda(status, call);
}

// Host dispatch of each family (run_*.cu). All are CUB-style two-phase: with temp == null they
// only compute `temp_bytes`.
/// reduce and, with a transform's state (transform_reduce sets), transform_reduce.
cudaError_t run_reduce(const loaded_module& m, const device_info& dev, launch_status& st,
                       void* temp, std::size_t& temp_bytes, const void* in, void* out,
                       std::size_t n, const void* op_state, const void* init,
                       std::size_t value_size, cudaStream_t stream,
                       const void* transform_state = nullptr);
/// Scans; with an iterator expression's state (the "+index" sets) the input is the expression
/// (`in` unused), and with an output expression's state too (the "+io" sets) the output (`out`
/// unused).
cudaError_t run_scan(const loaded_module& m, const device_info& dev, launch_status& st, void* temp,
                     std::size_t& temp_bytes, const void* in, void* out, std::size_t n,
                     const void* op_state, const void* init /* null: inclusive */,
                     cudaStream_t stream, const void* expression_state = nullptr,
                     const void* output_state = nullptr);

}  // namespace cupar::detail::jit

namespace cupar::detail::jit {

/// Merge sort (module meta: block threads, items per tile, block-sort and merge virtual shared
/// memory per block). Mirrors CUB's DispatchMergeSort::Invoke, whose 3.0.1 form sizes its buffers
/// with sizeof(KeyT) and so cannot serve a key type known only at run time.
cudaError_t run_merge_sort(const loaded_module& m, const device_info& dev, launch_status& st,
                           void* temp, std::size_t& temp_bytes, const void* keys_in, void* keys_out,
                           const void* values_in, void* values_out, std::size_t n,
                           std::size_t key_size, std::size_t value_size, const void* op_state,
                           cudaStream_t stream);

/// Transform (module meta: algorithm, block threads, min / max items per thread, minimum bytes in
/// flight, bytes loaded per item). Mirrors CUB's detail::transform::dispatch_t, whose bulk-copy
/// path in 3.0.1 launches through CUB's triple-chevron launcher only.
cudaError_t run_transform(const loaded_module& m, const device_info& dev, launch_status& st,
                          int arity, const void* const* inputs, void* out, std::size_t n,
                          const void* op_state, cudaStream_t stream);

/// The "for_each" set (module meta: block threads): `items` indices per thread (the generated
/// slot's choice), one tile of block threads x items per block, at most the grid's limit of
/// blocks (the kernel strides over the rest). No temporary storage.
cudaError_t run_for_each(const loaded_module& m, const device_info& dev, launch_status& st,
                         std::size_t n, unsigned items, const void* op_state, cudaStream_t stream);

/// Histogram (module meta: block threads, pixels per thread, sizes of the privatized and output
/// bin-selection operators). Mirrors CUB's DispatchHistogram for one channel.
struct histogram_launch {
  const void* samples;
  std::size_t n;
  void* histogram;
  std::size_t counter_size;
  int num_levels;
  bool even;
  scalar level;       // the operator's result type
  const void* lower;  // even: canonical level values (shifted for int8 results)
  const void* upper;
  const void* d_levels;  // range: device array of canonical levels
  bool clamp;            // even floating-point bins: values in [clamp_max, clamp_upper) are
  double clamp_max;      //   binned as clamp_max (see histogram_binning)
  double clamp_upper;
};
cudaError_t run_histogram(const loaded_module& m, const device_info& dev, launch_status& st,
                          void* temp, std::size_t& temp_bytes, const histogram_launch& h,
                          const void* op_state, cudaStream_t stream);

}  // namespace cupar::detail::jit

namespace cupar::detail::jit {

/// Stream compaction (module meta: block threads, items per thread, virtual shared memory per
/// block). Mirrors CUB's DispatchSelectIf::Invoke, partitions of at most INT_MAX items included.
/// The "+index" sets' input as the kernels take it by value (jit_ops/cupar_expr_input.cuh,
/// cupar_expr_iterator): the expression's state, then the first index.
struct alignas(16) expression_input {
  unsigned char state[cupar::jit::max_param_bytes];
  unsigned long long base;
};
static_assert(sizeof(expression_input) == cupar::jit::max_param_bytes + 16,
              "cupar_expr_iterator's layout: 64 state bytes, the index, padding to 16");

struct select_launch {
  const void* in;                // null with an expression input
  const void* expression_state;  // "+index" sets: the input expression's state, else null
  const void* flags;             // select_flagged, else null
  void* out;
  void* d_count;  // device count of selected items (64-bit)
  std::size_t n;
  const void* pred_state;  // predicate's state (select_if, partition), else null
  const void* eq_state;    // equality's state (unique), else null
  /// "+io" sets: the output expression's store state (`out` unused), else null.
  const void* output_state = nullptr;
};
cudaError_t run_select(const loaded_module& m, const device_info& dev, launch_status& st,
                       void* temp, std::size_t& temp_bytes, const select_launch& s,
                       cudaStream_t stream);

}  // namespace cupar::detail::jit

namespace cupar::detail::jit {

/// Three-way partition (module meta: block threads, items per thread, size of the accumulator
/// pack). Mirrors CUB's DispatchThreeWayPartitionIf::Invoke.
struct three_way_launch {
  const void* in;
  void* out[3];    // first part, second part, unselected
  void* d_counts;  // two 64-bit counts
  std::size_t n;
  const void* first_state;
  const void* second_state;
};
cudaError_t run_three_way(const loaded_module& m, const device_info& dev, launch_status& st,
                          void* temp, std::size_t& temp_bytes, const three_way_launch& t,
                          cudaStream_t stream);

}  // namespace cupar::detail::jit

namespace cupar::detail::jit {

/// Unique by key (module meta: block threads, items per thread, virtual shared memory per block,
/// offset bytes): CUB's own DispatchUniqueByKey through its KernelSource seam (run_by_key.cu).
struct unique_by_key_launch {
  const void* keys_in;
  const void* values_in;
  void* keys_out;
  void* values_out;
  void* d_count;  // device count of selected items (64-bit)
  std::size_t n;
  const void* eq_state;
};
cudaError_t run_unique_by_key(const loaded_module& m, const device_info& dev, launch_status& st,
                              void* temp, std::size_t& temp_bytes, const unique_by_key_launch& u,
                              cudaStream_t stream);

/// Reduce by key and run-length encoding (module meta: block threads, items per thread, tile
/// state object size, tile descriptor bytes, tile payload bytes, offset bytes). Mirrors CUB's
/// DispatchReduceByKey::Invoke, which has no kernel-source seam in 3.0.1.
struct reduce_by_key_launch {
  const void* keys_in;
  void* unique_out;
  const void* values_in;  // null: run-length encoding (the kernels count ones)
  void* aggregates_out;   // aggregates, or the run lengths
  void* d_count;          // device count of runs (64-bit)
  std::size_t n;
  const void* op_state;  // null: run-length encoding (cuda::std::plus<>)
  const void* eq_state;
  bool op_inline = false;  // a "+plus" set: the operator is compiled in (an empty argument)
};
cudaError_t run_reduce_by_key(const loaded_module& m, const device_info& dev, launch_status& st,
                              void* temp, std::size_t& temp_bytes, const reduce_by_key_launch& r,
                              cudaStream_t stream);

/// Inclusive and exclusive scans by key (module meta as reduce by key, less the offset bytes: the
/// scans by key always count with 64-bit offsets). Mirrors CUB's DispatchScanByKey::Invoke, which
/// has no kernel-source seam in 3.0.1.
struct scan_by_key_launch {
  const void* keys_in;
  const void* values_in;
  void* values_out;
  std::size_t n;
  std::size_t key_size;  // CUB keeps each tile's predecessor key in temporary storage
  const void* op_state;
  const void* eq_state;
  const void* init;        // exclusive: the initial value's bytes; null: inclusive
  bool op_inline = false;  // a "+plus" set: the operator is compiled in (an empty argument)
};
cudaError_t run_scan_by_key(const loaded_module& m, const device_info& dev, launch_status& st,
                            void* temp, std::size_t& temp_bytes, const scan_by_key_launch& s,
                            cudaStream_t stream);

}  // namespace cupar::detail::jit

namespace cupar::detail::jit {

/// Segmented reduce and segmented scans: the values, the segments, the operator.
struct segmented_launch {
  const void* in;
  void* out;
  std::size_t value_size;
  std::size_t n;
  std::size_t num_segments;
  const std::int64_t* begin_offsets;
  const std::int64_t* end_offsets;
  const void* op_state;
  const void* init;  // reduce, exclusive scan: the initial value's bytes; null: inclusive scan
};
/// Segmented reduce (module meta: block threads, items per thread of CUB's segmented reduce
/// policy): CUB's DispatchSegmentedReduce with the module's kernel (its kernel-source seam).
cudaError_t run_segmented_reduce(const loaded_module& m, const device_info& dev, launch_status& st,
                                 void* temp, std::size_t& temp_bytes, const segmented_launch& s,
                                 cudaStream_t stream);
/// Segmented scans (module meta: block threads, items per thread, tile state single word, its
/// word or description bytes, payload bytes): the dispatch the compiled path runs
/// (detail/dp_dispatch.cuh) with the module's kernels.
cudaError_t run_segmented_scan(const loaded_module& m, const device_info& dev, launch_status& st,
                               void* temp, std::size_t& temp_bytes, const segmented_launch& s,
                               cudaStream_t stream);

/// lower_bound / upper_bound (module meta: block threads). No temporary storage.
struct search_launch {
  const void* sorted;
  std::size_t n;
  const void* needles;
  std::size_t m;
  void* out;
  const void* comp_state;
  bool upper;
};
cudaError_t run_binary_search(const loaded_module& m, const device_info& dev, launch_status& st,
                              const search_launch& s, cudaStream_t stream);

}  // namespace cupar::detail::jit
