// cupar internal: driver entry points through cudaGetDriverEntryPointByVersion.
#include "driver.hpp"

#include <cupar/detail/cuda_check.hpp>
#include <cupar/error.hpp>

#include <cuda_runtime_api.h>

#include <atomic>
#include <mutex>
#include <string>

namespace cupar::detail::driver {
namespace {

template <class Fn>
void resolve(Fn& fn, const char* symbol) {
  void* p = nullptr;
  cudaDriverEntryPointQueryResult status = cudaDriverEntryPointSymbolNotFound;
  const cudaError_t e =
      cudaGetDriverEntryPointByVersion(symbol, &p, 12040, cudaEnableDefault, &status);
  if (e != cudaSuccess || status != cudaDriverEntryPointSuccess || p == nullptr) {
    (void)cudaGetLastError();
    throw cuda_error(static_cast<int>(e), "cudaGetDriverEntryPointByVersion",
                     std::string("cupar: the CUDA driver function ") + symbol +
                         " is not available (" +
                         (e != cudaSuccess ? cudaGetErrorString(e) : "symbol not found") +
                         "); a CUDA 12.4+ driver is needed for run-time operators");
  }
  fn = reinterpret_cast<Fn>(p);
}

api load() {
  api a{};
  resolve(a.library_load_data, "cuLibraryLoadData");
  resolve(a.library_unload, "cuLibraryUnload");
  resolve(a.library_get_kernel, "cuLibraryGetKernel");
  resolve(a.kernel_get_function, "cuKernelGetFunction");
  resolve(a.launch_kernel, "cuLaunchKernel");
  resolve(a.launch_kernel_ex, "cuLaunchKernelEx");
  resolve(a.occupancy_max_active_blocks, "cuOccupancyMaxActiveBlocksPerMultiprocessor");
  resolve(a.func_set_attribute, "cuFuncSetAttribute");
  resolve(a.device_get_attribute, "cuDeviceGetAttribute");
  resolve(a.device_get, "cuDeviceGet");
  resolve(a.get_error_name, "cuGetErrorName");
  resolve(a.get_error_string, "cuGetErrorString");
  return a;
}

}  // namespace

const api& get() {
  // A failed first attempt (no driver) is retried and reported again on the next call, not
  // remembered half-initialised; once loaded, the table is read without locking.
  static std::atomic<const api*> loaded{nullptr};
  if (const api* a = loaded.load(std::memory_order_acquire)) return *a;
  static std::mutex mutex;
  static api table{};
  std::lock_guard<std::mutex> lock(mutex);
  if (loaded.load(std::memory_order_relaxed) == nullptr) {
    table = load();
    loaded.store(&table, std::memory_order_release);
  }
  return table;
}

std::string describe(CUresult r) {
  const char* name = nullptr;
  const char* text = nullptr;
  try {
    const api& a = get();
    a.get_error_name(r, &name);
    a.get_error_string(r, &text);
  } catch (const std::exception&) {
  }
  return std::string(name ? name : "CUresult " + std::to_string(static_cast<int>(r))) + " (" +
         (text ? text : "unknown") + ")";
}

void throw_error(CUresult r, const char* call) {
  (void)cudaGetLastError();
  std::string what = std::string("cupar: ") + call + " failed: " + describe(r);
  if (r == CUDA_ERROR_OUT_OF_MEMORY) throw out_of_memory(0, what);
  throw cuda_error(static_cast<int>(r), call, what);
}

}  // namespace cupar::detail::driver
