// cupar internal: segmented reduce and segmented scans with run-time operators.
//
// Segmented reduce: CUB's own host dispatch (DispatchSegmentedReduce, whose KernelSource and
// KernelLauncherFactory seams CCCL 3.0.1 has) with the module's DeviceSegmentedReduceKernel,
// launched by the driver, and the policy CUB chose when the kernel was compiled.
// Segmented scans: cupar's dispatch template (detail/dp_dispatch.cuh), the one the C++-operator
// path runs, with the module's kernels and a tile state whose layout comes from the module.
#include "segmented.hpp"

#include <cupar/detail/dp_dispatch.cuh>

#include <cub/agent/single_pass_scan_operators.cuh>
#include <cub/device/dispatch/dispatch_reduce.cuh>

#include <cstdint>

namespace cupar::detail::jit {
namespace {

struct erased_accum;  // the accumulator type; the host dispatch only passes pointers to it

// ---- segmented reduce: module meta = {threads, items} ----

/// The output iterator: CUB advances it past INT_MAX segments per launch (many segments), so it
/// must know the element size; the kernel receives the pointer.
struct erased_out {
  void* ptr;
  std::size_t size;
  erased_out operator+(std::int64_t k) const {
    return {static_cast<unsigned char*>(ptr) + static_cast<std::size_t>(k) * size, size};
  }
};
inline void* arg_address(const erased_out& o) {
  return const_cast<void*>(static_cast<const void*>(&o.ptr));
}

struct segmented_reduce_policy {
  agent_policy segmented;
  agent_policy SegmentedReduce() const { return segmented; }
  template <class Dispatch>
  cudaError_t Invoke(int, Dispatch& dispatch) const {
    return dispatch.Invoke(*this);
  }
};
struct segmented_reduce_hub {
  using MaxPolicy = segmented_reduce_policy;
};
struct segmented_reduce_kernels {
  const loaded_module* m;
  CUkernel SegmentedReduceKernel() const { return m->kernel(0); }
};
using segmented_reduce_dispatch = cub::DispatchSegmentedReduce<
    const void*, erased_out, const std::int64_t*, const std::int64_t*, std::int64_t, erased_arg,
    erased_arg, erased_accum, segmented_reduce_hub, segmented_reduce_kernels, jit_launcher_factory>;

// ---- segmented scans: module meta = {threads, items, single word, word or description bytes,
// payload bytes} ----

/// cub::ReduceByKeyScanTileState<T, int> for a T known only at run time: one array of words, or
/// CUB's three arrays (status, partial, inclusive) carved by CUB's own functions.
struct runtime_tile_state {
  void* words[3] = {nullptr, nullptr, nullptr};
  bool single_word = true;
  long long word_bytes = 0;  // single word
  int description_bytes = 0;
  int payload_bytes = 0;

  cudaError_t AllocationSize(int num_tiles, std::size_t& bytes) const {
    if (single_word) {
      // ReduceByKeyScanTileState<T, K, true>::AllocationSize
      bytes = (static_cast<std::size_t>(num_tiles) + cub::detail::warp_threads) *
              static_cast<std::size_t>(word_bytes);
    } else {
      bytes = cub::detail::tile_state_allocation_size(description_bytes, payload_bytes, num_tiles);
    }
    return cudaSuccess;
  }
  cudaError_t Init(int num_tiles, void* temp, std::size_t bytes) {
    if (single_word) {
      words[0] = temp;
      return cudaSuccess;
    }
    return cub::detail::tile_state_init(description_bytes, payload_bytes, num_tiles, temp, bytes,
                                        words);
  }
};
// The kernels receive the tile state by value: one pointer or three.
inline void* arg_address(const runtime_tile_state& s) {
  return const_cast<void*>(static_cast<const void*>(s.words));
}

struct segmented_scan_kernels {
  const loaded_module* m;
  cudaError_t shape(segscan::shape& s) const {
    s.threads = static_cast<int>(m->meta(0));
    s.items = static_cast<int>(m->meta(1));
    return cudaSuccess;
  }
  CUkernel init_kernel() const { return m->kernel(0); }
  CUkernel sweep_kernel() const { return m->kernel(1); }
  runtime_tile_state tile_state() const {
    runtime_tile_state s;
    s.single_word = m->meta(2) != 0;
    if (s.single_word) {
      s.word_bytes = m->meta(3);
    } else {
      s.description_bytes = static_cast<int>(m->meta(3));
      s.payload_bytes = static_cast<int>(m->meta(4));
    }
    return s;
  }
};

}  // namespace

cudaError_t run_segmented_reduce(const loaded_module& m, const device_info& dev, launch_status& st,
                                 void* temp, std::size_t& temp_bytes, const segmented_launch& s,
                                 cudaStream_t stream) {
  const segmented_reduce_policy policy{{static_cast<int>(m.meta(0)), static_cast<int>(m.meta(1))}};
  return segmented_reduce_dispatch::Dispatch(
      temp, temp_bytes, s.in, erased_out{s.out, s.value_size},
      static_cast<std::int64_t>(s.num_segments), s.begin_offsets, s.end_offsets,
      erased_arg{s.op_state}, erased_arg{s.init}, stream, segmented_reduce_kernels{&m},
      jit_launcher_factory{&dev, &m, &st}, policy);
}

cudaError_t run_segmented_scan(const loaded_module& m, const device_info& dev, launch_status& st,
                               void* temp, std::size_t& temp_bytes, const segmented_launch& s,
                               cudaStream_t stream) {
  static const unsigned char null_type = 0;  // cub::NullType (inclusive scans' init)
  const erased_arg init{s.init != nullptr ? s.init : &null_type};
  return segscan::dispatch(temp, temp_bytes, s.in, s.out, static_cast<std::int64_t>(s.n),
                           static_cast<std::int64_t>(s.num_segments), s.begin_offsets,
                           s.end_offsets, erased_arg{s.op_state}, init, stream,
                           segmented_scan_kernels{&m}, jit_launcher_factory{&dev, &m, &st});
}

}  // namespace cupar::detail::jit
