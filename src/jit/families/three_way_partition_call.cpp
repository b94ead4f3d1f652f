// cupar: three_way_partition with run-time predicates.
#include "../core/calls.hpp"
#include "three_way_partition.hpp"

#include <cupar/detail/counted.hpp>
#include <cupar/detail/dp_checks.hpp>

namespace cupar::detail {

void call_three_way(const jit_dp_args& a, stream_ref s, memory_resource& mr,
                    const pending_inputs* pending) {
  const char* fn = a.function;
  const jit_type& t = *a.types[0];
  const void* outs[3] = {a.out[0], a.out[1], a.out[2]};
  check_three_way(fn, a.in[0], outs, a.d_count, a.host_count != nullptr, a.n, t.size);
  write_pending(pending, s);
  const jit::set_request req = dp_request(a.what, a.types, a.ops, false);
  const auto [devp, module] = jit::resolve(req, nullptr, fn);
  const jit::device_info& dev = *devp;
  jit::three_way_launch launch{
      a.in[0], {a.out[0], a.out[1], a.out[2]}, nullptr, a.n, a.ops[0]->state(), a.ops[1]->state()};
  jit::launch_status st;
  const char* call = "cupar three-way partition (run-time operators)";
  run_counted(call, mr, s, {a.n, module->serial()}, a.d_count, a.host_count, 2,
              [&](void* temp, std::size_t& bytes, std::size_t* counts) {
                launch.d_counts = counts;
                jit::check_dispatch(
                    jit::run_three_way(*module, dev, st, temp, bytes, launch, s.get()), st, call);
                return cudaSuccess;
              });
}

}  // namespace cupar::detail
