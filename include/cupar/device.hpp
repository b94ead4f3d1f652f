// cupar: devices. Every call runs on the device of the stream it is given, whatever device the
// calling thread has current, and leaves the current device as it was. This header controls the
// check that the memory a call is given can be reached from that device.
#pragma once

#include <cupar/config.hpp>

namespace cupar {

/// Turns the device check of pointer arguments on or off for the whole process (thread-safe; takes
/// effect at the next call). With it on, on a machine with more than one GPU, every call checks
/// each device pointer it is given: memory of another device than the stream's is refused with a
/// std::invalid_argument naming the call, the argument and both devices, before anything is
/// queued, unless it comes from a memory pool that grants the stream's device access
/// (cudaMemPoolSetAccess). Without the check such a call faults on the GPU
/// (cudaErrorIllegalAddress), which leaves the CUDA context unusable. Host memory and managed
/// memory pass. Peer access enabled with cudaDeviceEnablePeerAccess cannot be asked of CUDA
/// without changing it: programs that read another device's cudaMalloc memory through peer
/// access leave the check off. On a machine with one GPU the check costs nothing and finds
/// nothing.
///
/// Default: off (each pointer costs a driver query: docs/DISTRIBUTED.md has the measured host
/// cost per call); the environment variable CUPAR_CHECK_DEVICES=1 turns it on at start-up.
/// Never throws.
CUPAR_EXPORT void set_device_checks(bool on) noexcept;

/// Whether the device check of pointer arguments is on (see set_device_checks). Never throws.
CUPAR_EXPORT bool device_checks() noexcept;

}  // namespace cupar
