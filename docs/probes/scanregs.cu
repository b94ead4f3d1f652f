// Probe: why did CUB's scan kernel get 72 registers in cupar's JIT build and 64 when compiled by
// nvcc (2026-11-21)? Compile-only: no GPU needed. The kernel is CUB's sm_90 scan with the policy
// tuned for cuda::std::plus<float> (128 threads x 24 items), instantiated with an operator
// written in one of several ways:
//   OP=0  return a + b;                                   -> 64 registers
//   OP=1  return add(a, b);  (static __forceinline__)     -> 72
//   OP=2  return a + b; plus an unused 16-byte state      -> 64
//   OP=3  return jop(nullptr, a, b);  (extern, defined in
//         another translation unit, inlined by LTO)       -> 72 (see the build lines below)
// Build and read the register count of DeviceScanKernel:
//   nvcc -std=c++17 -O3 -arch=sm_90 -cubin -Xptxas -v -DOP=0 scanregs.cu -o /dev/null
// OP=3: nvcc -std=c++17 -gencode arch=compute_90,code=lto_90 -rdc=true -c -DOP=3 scanregs.cu,
// the same for -DOP=4 (the operator's definition), then link both objects with nvJitLink
// (options -arch=sm_90 -lto -Xptxas=-v) and read its information log.
// (An operator with a state member that calls a function, as cupar's JIT operator does, also got
// 72: the call, not the state, is what moves ptxas.)
// Outcome: ptxas's choice between 64 and 72 follows small differences of the code; cupar links its
// JIT scans with ptxas --minnctapersm (64 registers a thread) unless that spills (docs/JIT.md).
#include <cub/device/device_scan.cuh>
#include <cuda/std/functional>

#ifndef OP
#define OP 0
#endif

#if OP == 4
extern "C" __device__ float jop(const unsigned char*, float a, float b) {
  return a + b;
}
#else
static __device__ __forceinline__ float add(float a, float b) {
  return a + b;
}
extern "C" __device__ float jop(const unsigned char* state, float a, float b);

struct op_t {
#if OP == 2
  alignas(16) unsigned char state[16];
#endif
  __device__ __forceinline__ float operator()(const float& a, const float& b) const {
#if OP == 0 || OP == 2
    return a + b;
#elif OP == 1
    return add(a, b);
#else
    return jop(nullptr, a, b);
#endif
  }
};

using hub = cub::detail::scan::policy_hub<float, float, float, unsigned long long,
                                          ::cuda::std::plus<float>>;
using dispatch = cub::DispatchScan<const float*, float*, op_t, cub::NullType, unsigned long long,
                                   float, cub::ForceInclusive::No, hub>;

cudaError_t scan(void* temp, std::size_t& bytes, const float* in, float* out, std::size_t n,
                 cudaStream_t s) {
  return dispatch::Dispatch(temp, bytes, in, out, op_t{}, cub::NullType{},
                            static_cast<unsigned long long>(n), s);
}
#endif
