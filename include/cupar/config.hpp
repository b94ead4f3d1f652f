// cupar: version and build configuration shared by every public header.
#pragma once

#define CUPAR_VERSION_MAJOR 0
#define CUPAR_VERSION_MINOR 1
#define CUPAR_VERSION_PATCH 0
/// Monotonic version number: major * 10000 + minor * 100 + patch.
#define CUPAR_VERSION \
  (CUPAR_VERSION_MAJOR * 10000 + CUPAR_VERSION_MINOR * 100 + CUPAR_VERSION_PATCH)

#if defined(_WIN32)
#define CUPAR_EXPORT __declspec(dllexport)
#else
#define CUPAR_EXPORT __attribute__((visibility("default")))
#endif

#if defined(__CUDACC__)
#define CUPAR_HOST_DEVICE __host__ __device__
#else
#define CUPAR_HOST_DEVICE
#endif

namespace cupar {
/// The library's version as a string, e.g. "0.1.0".
CUPAR_EXPORT const char* version() noexcept;
}  // namespace cupar
