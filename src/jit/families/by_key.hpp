// cupar internal: the host dispatch of the by-key families (by_key_run.cu), called by its library
// entry (by_key_call.cpp).
#pragma once

#include "../core/launch.hpp"

#include <cstddef>
#include <cstdint>

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
