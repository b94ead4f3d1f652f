// cupar: the segmented families with run-time operators: segmented_reduce (CUB's kernel in
// jit_ops/cupar_segmented_reduce.cuh) and the segmented scans (cupar's kernels, through
// jit_ops/cupar_segmented_scan.cuh); host dispatch in segmented_run.cu. The segmented sorts take
// no operator and are served by the library's compiled code (src/compiled/segmented_sort*).
#include "../core/calls.hpp"
#include "segmented.hpp"

#include <cupar/detail/dp_checks.hpp>
#include <cupar/detail/temp_storage.hpp>

namespace cupar::detail {

void call_segmented(const jit_dp_args& a, stream_ref s, memory_resource& mr,
                    const pending_inputs* pending) {
  const char* fn = a.function;
  const std::size_t size = a.types[0]->size;
  const bool reduce = a.what == dp_op::segmented_reduce;
  if (reduce) {
    check_segmented_reduce(fn, a.in[0], a.out[0], a.n, a.m, a.begin_offsets, a.end_offsets, size);
  } else {
    check_segmented_scan(fn, a.in[0], a.out[0], a.n, a.m, a.begin_offsets, a.end_offsets, size);
  }
  if (a.ops[0] == nullptr) throw_invalid_argument(fn, "no operator");
  write_pending(pending, s);
  // Nothing is written without segments, nor by a scan of nothing (a reduce of empty segments
  // still writes init to each).
  if (a.m == 0 || (!reduce && a.n == 0)) return;
  const jit::set_request req = dp_request(a.what, a.types, a.ops, false);
  const auto [devp, module] = jit::resolve(req, nullptr, fn);
  const jit::device_info& dev = *devp;
  const jit::segmented_launch launch{
      a.in[0], a.out[0], size, a.n, a.m, a.begin_offsets, a.end_offsets, a.ops[0]->state(), a.init};
  jit::launch_status st;
  const char* call = reduce ? "cupar segmented_reduce (run-time operator)"
                            : "cupar segmented scan (run-time operator)";
  // The reduce's temporary storage is CUB's token byte; the scans' depends on n (tiles).
  run_with_temp_storage(
      call, mr, s, {reduce ? 0 : a.n, module->serial()}, [&](void* temp, std::size_t& bytes) {
        const cudaError_t status =
            reduce ? jit::run_segmented_reduce(*module, dev, st, temp, bytes, launch, s.get())
                   : jit::run_segmented_scan(*module, dev, st, temp, bytes, launch, s.get());
        jit::check_dispatch(status, st, call);
        return cudaSuccess;
      });
}

}  // namespace cupar::detail
