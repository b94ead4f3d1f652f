// cupar internal: the CUDA driver functions the JIT needs, reached through the runtime's entry
// point query so libcupar does not link libcuda (a machine without a driver can still load it).
#pragma once

#include <cuda.h>

#include <string>

namespace cupar::detail::driver {

struct api {
  CUresult (*library_load_data)(CUlibrary*, const void*, CUjit_option*, void**, unsigned int,
                                CUlibraryOption*, void**, unsigned int);
  CUresult (*library_unload)(CUlibrary);
  CUresult (*library_get_kernel)(CUkernel*, CUlibrary, const char*);
  CUresult (*kernel_get_function)(CUfunction*, CUkernel);
  CUresult (*launch_kernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                            unsigned, CUstream, void**, void**);
  CUresult (*launch_kernel_ex)(const CUlaunchConfig*, CUfunction, void**, void**);
  CUresult (*occupancy_max_active_blocks)(int*, CUfunction, int, size_t);
  CUresult (*func_set_attribute)(CUfunction, CUfunction_attribute, int);
  CUresult (*device_get_attribute)(int*, CUdevice_attribute, CUdevice);
  CUresult (*device_get)(CUdevice*, int);
  CUresult (*get_error_name)(CUresult, const char**);
  CUresult (*get_error_string)(CUresult, const char**);
};

/// The driver functions; throws cupar::cuda_error when the driver is missing or too old.
const api& get();

/// "CUDA_ERROR_X (description)".
std::string describe(CUresult r);

/// Throws cupar::cuda_error for a failed driver call.
[[noreturn]] void throw_error(CUresult r, const char* call);
inline void check(CUresult r, const char* call) {
  if (r != CUDA_SUCCESS) throw_error(r, call);
}

}  // namespace cupar::detail::driver
