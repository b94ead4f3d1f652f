// cupar internal: the scans with run-time operators, through CUB's own host dispatch
// (DispatchScan) with kernels from the loaded module, launched by the driver, and the tuning policy
// CUB chose when the kernels were compiled (read back from the module).
#include "scan.hpp"

#include <cub/device/dispatch/dispatch_scan.cuh>

#include <cstring>

namespace cupar::detail::jit {
namespace {

struct erased_accum;  // the accumulator type; the host dispatch only passes pointers to it

// ---- scan: module meta = {threads, items, tile description bytes, payload bytes, tile state
// object size} ----

/// cub::ScanTileState<T> for a T known only at run time: both of CUB's layouts, with CUB's own
/// size and carving functions.
struct runtime_tile_state {
  void* words[3] = {nullptr, nullptr, nullptr};
  int description_bytes;
  int payload_bytes;
  bool single_word;

  cudaError_t AllocationSize(int num_tiles, std::size_t& bytes) const {
    bytes = cub::detail::tile_state_allocation_size(description_bytes, payload_bytes, num_tiles);
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
// The kernels receive the tile state by value: one pointer or three (found by the launcher
// through argument-dependent lookup).
inline void* arg_address(const runtime_tile_state& s) {
  return const_cast<void*>(static_cast<const void*>(s.words));
}

struct scan_policy {
  agent_policy scan;
  agent_policy Scan() const { return scan; }
  void CheckLoadModifier() const {}
  template <class Dispatch>
  cudaError_t Invoke(int, Dispatch& dispatch) const {
    return dispatch.Invoke(*this);
  }
};
struct scan_hub {
  using MaxPolicy = scan_policy;
};
struct scan_kernels {
  const loaded_module* m;
  CUkernel InitKernel() const { return m->kernel(0); }
  CUkernel ScanKernel() const { return m->kernel(1); }
  runtime_tile_state TileState() const {
    runtime_tile_state s;
    s.description_bytes = static_cast<int>(m->meta(2));
    s.payload_bytes = static_cast<int>(m->meta(3));
    s.single_word = m->meta(4) == static_cast<long long>(sizeof(void*));
    return s;
  }
};
template <class Init, class In = const void*, class Out = void*>
using scan_dispatch =
    cub::DispatchScan<In, Out, erased_arg, Init, unsigned long long, erased_accum,
                      cub::ForceInclusive::No, scan_hub, scan_kernels, jit_launcher_factory>;

}  // namespace

cudaError_t run_scan(const loaded_module& m, const device_info& dev, launch_status& st, void* temp,
                     std::size_t& temp_bytes, const void* in, void* out, std::size_t n,
                     const void* op_state, const void* init, cudaStream_t stream,
                     const void* expression_state, const void* output_state) {
  const scan_policy policy{{static_cast<int>(m.meta(0)), static_cast<int>(m.meta(1))}};
  const auto count = static_cast<unsigned long long>(n);
  // One dispatch for every form: the input and output as arrays or, for the "+index" and "+io"
  // sets, as the expressions' states passed by value (cupar_expr_iterator, cupar_expr_output).
  auto dispatch = [&](auto input, auto output) {
    using In = decltype(input);
    using Out = decltype(output);
    if (init == nullptr) {
      return scan_dispatch<cub::NullType, In, Out>::Dispatch(
          temp, temp_bytes, input, output, erased_arg{op_state}, cub::NullType{}, count, stream,
          scan_kernels{&m}, jit_launcher_factory{&dev, &m, &st}, policy);
    }
    return scan_dispatch<erased_arg, In, Out>::Dispatch(
        temp, temp_bytes, input, output, erased_arg{op_state}, erased_arg{init}, count, stream,
        scan_kernels{&m}, jit_launcher_factory{&dev, &m, &st}, policy);
  };
  expression_input e{}, o{};
  if (expression_state != nullptr) std::memcpy(e.state, expression_state, sizeof e.state);
  if (output_state != nullptr) {
    std::memcpy(o.state, output_state, sizeof o.state);
    return dispatch(erased_arg{&e}, erased_arg{&o});
  }
  if (expression_state != nullptr) return dispatch(erased_arg{&e}, out);
  return dispatch(in, out);
}

}  // namespace cupar::detail::jit
