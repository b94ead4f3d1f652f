// cupar: errors, argument-check failures, streams and the version string.
#include <cupar/config.hpp>
#include <cupar/detail/checks.hpp>
#include <cupar/detail/cuda_check.hpp>
#include <cupar/detail/device_guard.hpp>
#include <cupar/error.hpp>
#include <cupar/stream.hpp>

#include <cuda_runtime_api.h>

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

int enter_stream_device(cudaStream_t stream) noexcept {
  // With one device every stream is on it: nothing to ask (the common case costs no CUDA call).
  static const int devices = [] {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
      (void)cudaGetLastError();
      count = 0;
    }
    return count;
  }();
  if (devices <= 1 || stream == nullptr || stream == cudaStreamLegacy ||
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

}  // namespace detail
}  // namespace cupar
