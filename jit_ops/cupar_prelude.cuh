// cupar JIT: prelude of every kernel set compiled with NVRTC (at library build time for the
// precompiled element types, at run time for the others).
#pragma once

#if defined(__CUDACC_RTC__) && !defined(CUB_RUNTIME_FUNCTION)
// CUB's tuning headers mark host-side helpers CUB_RUNTIME_FUNCTION, which is host-only unless
// relocatable device code is on; NVRTC rejects host-only functions, so make them host-device.
#define CUB_RUNTIME_FUNCTION __host__ __device__
#endif

#if defined(__CUDACC_RTC__)
// Device-runtime intrinsics CUB uses (cudaGridDependencySynchronize for programmatic dependent
// launch), which NVRTC declares by itself only for relocatable device code.
#include <cuda_device_runtime_api.h>
#endif

#include <cub/util_device.cuh>

#if defined(__CUDACC_RTC__)
// CCCL 3.0.1 defines cub::detail::PolicyWrapper only for host compilers, yet CUB's tuning headers
// name it in host-side helpers NVRTC still parses; give them the same (never called) wrapper.
CUB_NAMESPACE_BEGIN
namespace detail {
template <typename Policy, typename = void>
struct PolicyWrapper : Policy {
  __host__ __device__ PolicyWrapper(Policy base) : Policy(base) {}
};
template <typename Policy>
__host__ __device__ PolicyWrapper<Policy> MakePolicyWrapper(Policy policy) {
  return PolicyWrapper<Policy>{policy};
}
}  // namespace detail
CUB_NAMESPACE_END
#endif

#ifndef CUPAR_STATE_BYTES
#define CUPAR_STATE_BYTES 64
#endif

/// The operator's run-time parameters, passed by value to every kernel.
struct alignas(16) cupar_op_state {
  unsigned char bytes[CUPAR_STATE_BYTES];
};

/// The same parameters as the out-of-line (tier-1) kernels hold them: a union of the bytes and
/// 16-byte words, same size, alignment and layout. The out-of-line operator takes the state by
/// address, so every copy of a functor that CUB makes (one per step of a warp reduction, for
/// instance) is stored to local memory; as bytes that copy is 64 one-byte stores, as words 4.
/// The set source (codegen.cpp, set_source) names the form a build uses `cupar_functor_state`:
/// words in the relocatable cubin (CUPAR_OUT_OF_LINE), bytes in the LTO-IR, whose optimised
/// links inline the operator and keep the registers they were tuned with.
static_assert(CUPAR_STATE_BYTES % 16 == 0, "the state is made of 16-byte words");
struct alignas(16) cupar_op_words {
  union {
    unsigned char bytes[CUPAR_STATE_BYTES];
    uint4 words[CUPAR_STATE_BYTES / 16];
  };
};

// Also written into operator sources linked with precompiled sets (codegen.cpp,
// storage_definition): keep the two the same.
#ifndef CUPAR_STORAGE_DEFINED
#define CUPAR_STORAGE_DEFINED
/// The unsigned word type of a size.
template <int Bytes>
struct cupar_word;
template <>
struct cupar_word<1> {
  typedef unsigned char type;
};
template <>
struct cupar_word<2> {
  typedef unsigned short type;
};
template <>
struct cupar_word<4> {
  typedef unsigned int type;
};
template <>
struct cupar_word<8> {
  typedef unsigned long long type;
};

/// Opaque storage for values a kernel only moves (sort payloads), as words of its alignment (up to
/// 8 bytes): a struct of bytes is moved byte by byte in places, which made a merge sort with
/// 4-byte payloads 1.17-1.29x slower (docs/probes/midsize.cu).
template <int Size, int Align>
struct alignas(Align) cupar_storage {
  typename cupar_word<(Align > 8 ? 8 : Align)>::type words[Size / (Align > 8 ? 8 : Align)];
};
#endif

/// An initial value of reduce and the scans (CUB's InitT / InitValueT): `value`, or, when `from`
/// is not null, the value at `from` in device memory, read when the kernel runs
/// (cupar::device_value: a result of an earlier kernel on the stream, without a trip to the
/// host). The host writes the same layout: the value at offset 0, the pointer at the value's
/// size rounded up to 8 (jit_init_value in src/jit/core/launch.hpp).
template <class T>
struct cupar_init {
  typedef T value_type;
  T value;
  const T* from;
  __device__ __forceinline__ operator T() const { return from != nullptr ? *from : value; }
};

/// Carries compile-time facts about a kernel set to the host: its template arguments appear in
/// the lowered (mangled) name NVRTC reports for an instantiation of this empty kernel.
template <long long... Values>
__global__ void cupar_meta() {}
