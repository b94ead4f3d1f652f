// cupar: errors, argument-check failures, streams and the version string.
#include <cupar/config.hpp>
#include <cupar/detail/checks.hpp>
#include <cupar/detail/cuda_check.hpp>
#include <cupar/detail/device_guard.hpp>
#include <cupar/device.hpp>
#include <cupar/error.hpp>
#include <cupar/stream.hpp>

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

namespace cupar {

const char* version() noexcept {
  return "0.1.0";
}

const char* to_string(jit_stage stage) noexcept {
  switch (stage) {
    case jit_stage::compile:
      return "compile";
    case jit_stage::link:
      return "link";
    case jit_stage::load:
      return "load";
  }
  return "?";
}

jit_error::jit_error(jit_stage stage, std::string summary, std::string log, std::string source,
                     std::vector<std::string> options, int snippet_line,
                     std::string snippet_line_text)
    : error(std::move(summary)),
      stage_(stage),
      log_(std::move(log)),
      source_(std::move(source)),
      options_(std::move(options)),
      line_(snippet_line),
      line_text_(std::move(snippet_line_text)) {}

void stream_ref::synchronize() const {
  detail::check_cuda(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
}

namespace detail {

namespace {
// Errors after which the context is unusable: clearing the last error does not help.
bool is_sticky(cudaError_t e) {
  switch (e) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorAssert:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorLaunchTimeout:
      return true;
    default:
      return false;
  }
}
}  // namespace

void throw_cuda_error(cudaError_t status, const char* call) {
  // Reset the thread's last-error slot so a later, unrelated call does not report this failure.
  (void)cudaGetLastError();
  std::string what = std::string("cupar: ") + call + " failed: " + cudaGetErrorName(status) + " (" +
                     cudaGetErrorString(status) + ")";
  if (is_sticky(status)) what += "; the CUDA context is unusable after this error";
  if (status == cudaErrorMemoryAllocation) {
    throw out_of_memory(0, what);
  }
  throw cuda_error(static_cast<int>(status), call, what);
}

void throw_out_of_memory(std::size_t bytes, const char* what) {
  (void)cudaGetLastError();
  throw out_of_memory(bytes, std::string("cupar: out of memory allocating ") +
                                 std::to_string(bytes) + " bytes (" + what + ")");
}

void throw_invalid_argument(const char* function, const std::string& message) {
  throw std::invalid_argument(std::string(function) + ": " + message);
}

namespace {
/// The number of visible devices, asked once (0 when CUDA cannot tell).
int device_count_once() {
  static const int devices = [] {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
      (void)cudaGetLastError();
      count = 0;
    }
    return count;
  }();
  return devices;
}
}  // namespace

int enter_stream_device(cudaStream_t stream) noexcept {
  // With one device every stream is on it: nothing to ask (the common case costs no CUDA call).
  if (device_count_once() <= 1 || stream == nullptr || stream == cudaStreamLegacy ||
      stream == cudaStreamPerThread) {
    return -1;
  }
#if CUDART_VERSION >= 12080
  // cudaStreamGetDevice is not allowed on a stream being captured: ask that first.
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  int device = 0, current = 0;
  if (cudaStreamIsCapturing(stream, &capture) != cudaSuccess ||
      capture != cudaStreamCaptureStatusNone ||
      cudaStreamGetDevice(stream, &device) != cudaSuccess ||
      cudaGetDevice(&current) != cudaSuccess) {
    (void)cudaGetLastError();
    return -1;
  }
  if (device == current) return -1;
  if (cudaSetDevice(device) != cudaSuccess) {
    (void)cudaGetLastError();
    return -1;
  }
  return current;
#else
  return -1;
#endif
}

void leave_stream_device(int previous) noexcept {
  if (previous >= 0 && cudaSetDevice(previous) != cudaSuccess) (void)cudaGetLastError();
}

namespace {

std::atomic<bool>& device_checks_flag() {
  static std::atomic<bool> flag{[] {
    const char* e = std::getenv("CUPAR_CHECK_DEVICES");
    return e != nullptr && std::strcmp(e, "0") != 0 && e[0] != '\0';
  }()};
  return flag;
}

using pointer_attributes_fn = CUresult (*)(unsigned int, CUpointer_attribute*, void**, CUdeviceptr);

/// cuPointerGetAttributes through the runtime's entry point query (cupar links no driver
/// library), or null.
pointer_attributes_fn pointer_attributes() {
  static const pointer_attributes_fn fn = [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult status = cudaDriverEntryPointSymbolNotFound;
    if (cudaGetDriverEntryPointByVersion("cuPointerGetAttributes", &p, 12000, cudaEnableDefault,
                                         &status) != cudaSuccess ||
        status != cudaDriverEntryPointSuccess) {
      (void)cudaGetLastError();
      p = nullptr;
    }
    return reinterpret_cast<pointer_attributes_fn>(p);
  }();
  return fn;
}

}  // namespace

bool device_checks_on() noexcept {
  return device_checks_flag().load(std::memory_order_relaxed);
}

void check_pointer_device(const char* function, const char* name, const void* ptr) {
  if (ptr == nullptr || ptr == unchecked_range() || device_count_once() <= 1) return;
  const pointer_attributes_fn get = pointer_attributes();
  if (get == nullptr) return;
  // One driver query: what the memory is, whose it is, and its memory pool if it has one. A
  // pointer CUDA does not know (host memory) gets zeros and CUDA_SUCCESS.
  unsigned int memory_type = 0;
  int ordinal = -1;
  unsigned int managed = 0;
  void* pool = nullptr;
  CUpointer_attribute attributes[] = {
      CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
      CU_POINTER_ATTRIBUTE_IS_MANAGED, CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE};
  void* data[] = {&memory_type, &ordinal, &managed, &pool};
  if (get(4, attributes, data, reinterpret_cast<CUdeviceptr>(ptr)) != CUDA_SUCCESS) return;
  if (memory_type != CU_MEMORYTYPE_DEVICE || managed != 0 || ordinal < 0) return;
  int current = 0;
  if (cudaGetDevice(&current) != cudaSuccess) {
    (void)cudaGetLastError();
    return;
  }
  if (ordinal == current) return;
  // Another device's memory. The driver's CU_POINTER_ATTRIBUTE_ACCESS_FLAGS says read-write from
  // every device whether or not it can reach the memory (docs/probes/pointer_access.cu, H200), so
  // only what can be asked is trusted: a memory pool's access list (cudaMemPoolSetAccess).
  // Peer access (cudaDeviceEnablePeerAccess) cannot be asked without changing it: programs that
  // rely on it leave the check off.
  if (pool != nullptr) {
    cudaMemLocation where{};
    where.type = cudaMemLocationTypeDevice;
    where.id = current;
    cudaMemAccessFlags flags = cudaMemAccessFlagsProtNone;
    if (cudaMemPoolGetAccess(&flags, static_cast<cudaMemPool_t>(pool), &where) == cudaSuccess) {
      if (flags != cudaMemAccessFlagsProtNone) return;
    } else {
      (void)cudaGetLastError();
    }
  }
  throw_invalid_argument(function,
                         std::string(name) + " is memory of device " + std::to_string(ordinal) +
                             " but the stream is of device " + std::to_string(current) +
                             " (run the call on a stream of device " + std::to_string(ordinal) +
                             ", copy the data, or grant device " + std::to_string(current) +
                             " access to the memory's pool)");
}

}  // namespace detail

void set_device_checks(bool on) noexcept {
  detail::device_checks_flag().store(on, std::memory_order_relaxed);
}

bool device_checks() noexcept {
  return detail::device_checks_flag().load(std::memory_order_relaxed);
}

}  // namespace cupar
