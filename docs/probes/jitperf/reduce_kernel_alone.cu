// Probe input (linkmodule.cpp): CUB 3.0.1's reduce kernel instantiated alone, calling the
// operator as an external function, as an LTO-IR fatbin.
#include <cub/device/dispatch/kernels/reduce.cuh>
#include <cub/device/dispatch/tuning/tuning_reduce.cuh>
extern "C" __device__ float cupar_jit_op(const unsigned char*, float, float);
struct op_t {
  __device__ float operator()(float a, float b) const { return cupar_jit_op(nullptr, a, b); }
};
using policy = cub::detail::reduce::policy_hub<float, unsigned long long, op_t>::MaxPolicy;
void* f1() {
  return (void*)&cub::detail::reduce::DeviceReduceKernel<policy, const float*, unsigned long long,
                                                         op_t, float, ::cuda::std::__identity>;
}
