// cupar internal: transform with run-time operators: CUB's kernel from the loaded module, host
// dispatch mirroring CUB 3.0.1's (its bulk-copy path launches through CUB's triple-chevron
// launcher only).
#include "transform.hpp"

#include <algorithm>
#include <cstdint>

namespace cupar::detail::jit {
namespace {

/// CUB's transform kernel_arg<T*> union: a plain pointer (prefetch) or an aligned base pointer
/// with the head padding (bulk copy).
struct alignas(8) transform_kernel_arg {
  const char* ptr;
  int head_padding;
  int unused;
};

}  // namespace

cudaError_t run_transform(const loaded_module& m, const device_info& dev, launch_status& st,
                          int arity, const void* const* inputs, void* out, std::size_t n_total,
                          const void* op_state, cudaStream_t stream) {
  using offset_t = long long;
  const auto n = static_cast<offset_t>(n_total);
  if (n == 0) return cudaSuccess;
  const bool bulk_copy = m.meta(0) == 1;  // CUB's Algorithm::ublkcp
  const int block = static_cast<int>(m.meta(1));
  const int min_items = static_cast<int>(m.meta(2));
  const int max_items = static_cast<int>(m.meta(3));
  const int min_bif = static_cast<int>(m.meta(4));
  const int loaded_bytes = static_cast<int>(m.meta(5));
  const CUkernel kernel = m.kernel(0);
  transform_kernel_arg args[2] = {};
  const erased_arg op{op_state};
  jit_launcher_factory launch{&dev, &m, &st};

  if (bulk_copy) {
    // CUB's configure_ublkcp_kernel: the smallest items per thread that put enough bytes in flight
    // per SM, within the 48 KiB of static shared memory. (CUB caches this choice in a static,
    // computed for the first call's size; here it is computed per call, occupancy cached.)
    constexpr int alignment = 128;  // bulk_copy_alignment
    auto smem_for = [&](int tile) { return alignment + tile * loaded_bytes + arity * alignment; };
    int elem = 0, tile = 0, smem = 0;
    int last_elem = 0, last_tile = 0, last_smem = 0;
    bool chosen = false;
    for (int e = min_items; e < max_items; ++e) {
      const int t = block * e;
      const int s = smem_for(t);
      if (s > dev.max_smem_per_block) break;
      if (t >= n) {
        elem = e, tile = t, smem = s, chosen = true;
        break;
      }
      const int occupancy = m.occupancy(kernel, block, static_cast<std::size_t>(s));
      if (min_bif <= occupancy * t * loaded_bytes) {
        elem = e, tile = t, smem = s, chosen = true;
        break;
      }
      last_elem = e, last_tile = t, last_smem = s;
    }
    if (!chosen) elem = last_elem, tile = last_tile, smem = last_smem;
    if (elem <= 0) return cudaErrorInvalidConfiguration;
    for (int i = 0; i < arity; ++i) {
      const auto p = reinterpret_cast<std::uintptr_t>(inputs[i]);
      const auto base = p & ~static_cast<std::uintptr_t>(alignment - 1);
      args[i].ptr = reinterpret_cast<const char*>(base);
      args[i].head_padding = static_cast<int>(p - base);
    }
    const auto grid = static_cast<unsigned>(ceil_div(n, tile));
    if (arity == 1) {
      launch(grid, block, static_cast<std::size_t>(smem), stream)
          .doit(kernel, n, elem, op, out, args[0]);
    } else {
      launch(grid, block, static_cast<std::size_t>(smem), stream)
          .doit(kernel, n, elem, op, out, args[0], args[1]);
    }
  } else {
    // CUB's invoke_prefetch_algorithm.
    const int occupancy = m.occupancy(kernel, block, 0);
    const int items_per_thread = static_cast<int>(
        ceil_div(min_bif, static_cast<long long>(occupancy) * block * loaded_bytes));
    const int evenly_spread = static_cast<int>(std::min<offset_t>(
        items_per_thread, n / (static_cast<offset_t>(dev.sm_count) * block * occupancy)));
    const int items = std::clamp(evenly_spread, min_items, max_items);
    const int tile = block * items;
    for (int i = 0; i < arity; ++i)
      args[i].ptr = static_cast<const char*>(inputs[i]);
    const auto grid = static_cast<unsigned>(ceil_div(n, tile));
    if (arity == 1) {
      launch(grid, block, 0, stream).doit(kernel, n, items, op, out, args[0]);
    } else {
      launch(grid, block, 0, stream).doit(kernel, n, items, op, out, args[0], args[1]);
    }
  }
  return st.first == CUDA_SUCCESS ? cudaSuccess : cudaErrorLaunchFailure;
}

}  // namespace cupar::detail::jit
