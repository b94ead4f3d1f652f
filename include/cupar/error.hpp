// cupar: the exceptions the library throws.
//
// Every failure is an exception; the library never prints. Bad arguments found before any work
// is queued throw std::invalid_argument (its message names the function and the argument). After
// a recoverable failure (bad argument, out of memory, a launch refused, a JIT build error) the
// library leaves no CUDA error pending, so the next call on the same thread works.
#pragma once

#include <cupar/config.hpp>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace cupar {

/// Base class of every error cupar reports, except std::invalid_argument for bad arguments.
class CUPAR_EXPORT error : public std::runtime_error {
 public:
  explicit error(const std::string& what) : std::runtime_error(what) {}
};

/// A CUDA runtime or driver call failed. `code()` is the cudaError_t / CUresult value, `call()`
/// the call that failed (e.g. "cub::DeviceReduce::Reduce" or "cudaMemcpyAsync").
class CUPAR_EXPORT cuda_error : public error {
 public:
  cuda_error(int code, std::string call, const std::string& what)
      : error(what), code_(code), call_(std::move(call)) {}
  int code() const noexcept { return code_; }
  const std::string& call() const noexcept { return call_; }

 private:
  int code_;
  std::string call_;
};

/// A memory resource could not provide `bytes()` bytes. Nothing the call allocated is leaked.
class CUPAR_EXPORT out_of_memory : public error {
 public:
  out_of_memory(std::size_t bytes, const std::string& what) : error(what), bytes_(bytes) {}
  std::size_t bytes() const noexcept { return bytes_; }

 private:
  std::size_t bytes_;
};

/// The stage of the run-time compilation pipeline that failed.
enum class jit_stage {
  compile,  ///< NVRTC rejected the generated source (the operator snippet, a type's source)
  link,     ///< nvJitLink could not link the kernels with the operator (e.g. an undefined symbol)
  load,     ///< the driver could not load the linked binary
};

/// Human-readable name of a stage ("compile", "link", "load").
CUPAR_EXPORT const char* to_string(jit_stage stage) noexcept;

/// Building a run-time operator failed. Carries everything needed to fix the snippet: the stage,
/// the compiler's full log (never truncated), the generated source and the options it was
/// compiled with, and, when the log points into the user's snippet, that line (1-based) and its
/// text. `what()` is a readable summary: stage, first error, the offending snippet line.
class CUPAR_EXPORT jit_error : public error {
 public:
  jit_error(jit_stage stage, std::string summary, std::string log, std::string source,
            std::vector<std::string> options, int snippet_line, std::string snippet_line_text);
  jit_stage stage() const noexcept { return stage_; }
  /// The compiler's or linker's complete log.
  const std::string& log() const noexcept { return log_; }
  /// The complete generated source handed to NVRTC (empty for link and load failures).
  const std::string& source() const noexcept { return source_; }
  /// The options the failing stage ran with.
  const std::vector<std::string>& options() const noexcept { return options_; }
  /// 1-based line of the user's snippet the first error points at, or 0 when it is elsewhere.
  int line() const noexcept { return line_; }
  /// Text of that snippet line (empty when line() == 0).
  const std::string& line_text() const noexcept { return line_text_; }

 private:
  jit_stage stage_;
  std::string log_;
  std::string source_;
  std::vector<std::string> options_;
  int line_;
  std::string line_text_;
};

}  // namespace cupar
