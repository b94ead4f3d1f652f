// cupar internal: the 64-bit hash finaliser shared by group_by's and the joins' tables (the C++
// path's headers and the run-time path's jit_ops sources; NVRTC compiles it).
#pragma once

namespace cupar::detail::hash {

/// MurmurHash3's 64-bit finaliser (a bijection): every bit of the key reaches the low bits the
/// tables use.
__host__ __device__ __forceinline__ unsigned long long mix(unsigned long long h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ull;
  h ^= h >> 33;
  return h;
}

}  // namespace cupar::detail::hash
