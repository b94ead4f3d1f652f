// cupar internal: reduce and transform_reduce with run-time operators, through CUB's own host
// dispatch (DispatchReduce) with kernels from the loaded module, launched by the driver, and the
// tuning policy CUB chose when the kernels were compiled (read back from the module).
#include "reduce.hpp"

#include <cub/device/dispatch/dispatch_reduce.cuh>

#include <cstring>

namespace cupar::detail::jit {
namespace {

struct erased_accum;  // the accumulator type; the host dispatch only passes pointers to it

// ---- reduce: module meta = {reduce threads, reduce items, single-tile threads, items} ----

struct reduce_policy {
  agent_policy reduce, single_tile;
  agent_policy Reduce() const { return reduce; }
  agent_policy SingleTile() const { return single_tile; }
  template <class Dispatch>
  cudaError_t Invoke(int, Dispatch& dispatch) const {
    return dispatch.Invoke(*this);
  }
};
struct reduce_hub {
  using MaxPolicy = reduce_policy;
};
struct reduce_kernels {
  const loaded_module* m;
  std::size_t accum_size;
  CUkernel SingleTileKernel() const { return m->kernel(0); }
  CUkernel ReductionKernel() const { return m->kernel(1); }
  CUkernel SingleTileSecondKernel() const { return m->kernel(2); }
  std::size_t AccumSize() const { return accum_size; }
};
using reduce_dispatch = cub::DispatchReduce<const void*, void*, unsigned long long, erased_arg,
                                            erased_arg, erased_accum, ::cuda::std::__identity,
                                            reduce_hub, reduce_kernels, jit_launcher_factory>;
// transform_reduce: the transform's state goes to the first pass's kernels (the second pass
// reduces accumulators with CUB's identity, as for reduce).
using transform_reduce_dispatch =
    cub::DispatchReduce<const void*, void*, unsigned long long, erased_arg, erased_arg,
                        erased_accum, erased_arg, reduce_hub, reduce_kernels, jit_launcher_factory>;

}  // namespace

cudaError_t run_reduce(const loaded_module& m, const device_info& dev, launch_status& st,
                       void* temp, std::size_t& temp_bytes, const void* in, void* out,
                       std::size_t n, const void* op_state, const void* init,
                       std::size_t value_size, cudaStream_t stream, const void* transform_state) {
  const reduce_policy policy{{static_cast<int>(m.meta(0)), static_cast<int>(m.meta(1))},
                             {static_cast<int>(m.meta(2)), static_cast<int>(m.meta(3))}};
  if (transform_state != nullptr) {
    return transform_reduce_dispatch::Dispatch(
        temp, temp_bytes, in, out, static_cast<unsigned long long>(n), erased_arg{op_state},
        erased_arg{init}, stream, erased_arg{transform_state}, reduce_kernels{&m, value_size},
        jit_launcher_factory{&dev, &m, &st}, policy);
  }
  return reduce_dispatch::Dispatch(temp, temp_bytes, in, out, static_cast<unsigned long long>(n),
                                   erased_arg{op_state}, erased_arg{init}, stream,
                                   ::cuda::std::__identity{}, reduce_kernels{&m, value_size},
                                   jit_launcher_factory{&dev, &m, &st}, policy);
}

}  // namespace cupar::detail::jit
