// cupar internal: NVRTC compilation.
#include "nvrtc.hpp"

#include "sources.hpp"

#include <cupar/error.hpp>

#include <nvrtc.h>

#include <chrono>
#include <memory>
#include <regex>
#include <sstream>
#include <string>
#include <type_traits>

namespace cupar::detail::jit {
namespace {

struct program_deleter {
  void operator()(_nvrtcProgram* p) const noexcept { nvrtcDestroyProgram(&p); }
};
using unique_program = std::unique_ptr<_nvrtcProgram, program_deleter>;

std::string line_of(const std::string& text, int line) {
  std::istringstream in(text);
  std::string s;
  for (int i = 1; std::getline(in, s); ++i) {
    if (i == line) return s;
  }
  return std::string();
}

[[noreturn]] void fail(const compile_request& r, const std::string& log, const std::string& what) {
  // First diagnostic of the log: "file(line): error: message".
  static const std::regex diag(R"(^(.*)\((\d+)\): (?:catastrophic )?error: (.*)$)");
  std::istringstream in(log);
  std::string l, first_message, first_file;
  int first_line = 0;
  while (std::getline(in, l)) {
    std::smatch m;
    if (std::regex_match(l, m, diag)) {
      first_file = m[1];
      first_line = std::stoi(m[2]);
      first_message = m[3];
      break;
    }
  }
  int snippet_line = 0;
  std::string snippet_text;
  std::ostringstream summary;
  summary << "cupar: run-time operator failed to compile: ";
  if (!first_message.empty()) {
    summary << first_message;
    const compile_request::snippet_ref* in_snippet = nullptr;
    const compile_request::snippet_ref* around_snippet = nullptr;
    for (const auto& sn : r.snippets) {
      if (first_file == sn.file) in_snippet = &sn;
      if (first_file == sn.generated) around_snippet = &sn;
    }
    // Errors are reported against the one snippet they concern; with several operators in one
    // build (an equality and an operator), the message names which.
    const bool several = r.snippets.size() > 1;
    if (in_snippet != nullptr) {
      snippet_line = first_line;
      snippet_text = line_of(in_snippet->text, first_line);
      summary << "\n  at line " << snippet_line << " of the "
              << (several ? in_snippet->what : std::string("operator")) << ": " << snippet_text;
    } else if (first_file == preamble_file) {
      summary << "\n  at line " << first_line << " of the operator's preamble";
    } else if (around_snippet != nullptr && !around_snippet->role.empty()) {
      summary << "\n  where the " << (several ? around_snippet->what : std::string("operator"))
              << "'s value is used: it must be " << around_snippet->role
              << " (wrong result type, or wrong number of arguments?)";
      snippet_text = line_of(around_snippet->text, 1);
    } else if (first_file.rfind("cupar_type_", 0) == 0) {
      summary << "\n  at line " << first_line << " of the device definition of type "
              << first_file.substr(11);
    } else {
      summary << "\n  in " << first_file << " line " << first_line;
    }
  } else {
    summary << what;
  }
  summary << "\n(the full compiler log is in jit_error::log())";
  throw jit_error(jit_stage::compile, summary.str(), log, r.source, r.options, snippet_line,
                  snippet_text);
}

std::string program_log(nvrtcProgram p) {
  std::size_t size = 0;
  if (nvrtcGetProgramLogSize(p, &size) != NVRTC_SUCCESS || size <= 1) return std::string();
  std::string log(size, '\0');
  if (nvrtcGetProgramLog(p, log.data()) != NVRTC_SUCCESS) return std::string();
  log.resize(size - 1);
  return log;
}

}  // namespace

std::string nvrtc_version() {
  int major = 0, minor = 0;
  nvrtcVersion(&major, &minor);
  return std::to_string(major) + "." + std::to_string(minor);
}

compile_result compile(const compile_request& r) {
  const auto start = std::chrono::steady_clock::now();
  // Every embedded jit_ops file is offered as a header; NVRTC reads only those included.
  std::vector<const char*> header_texts, header_names;
  for (int i = 0; i < embedded_source_count; ++i) {
    header_names.push_back(embedded_sources[i].name);
    header_texts.push_back(embedded_sources[i].text);
  }
  nvrtcProgram raw = nullptr;
  nvrtcResult status = nvrtcCreateProgram(&raw, r.source.c_str(), r.name.c_str(),
                                          static_cast<int>(header_texts.size()),
                                          header_texts.data(), header_names.data());
  if (status != NVRTC_SUCCESS) fail(r, std::string(), nvrtcGetErrorString(status));
  unique_program program(raw);
  for (const auto& e : r.name_expressions) {
    status = nvrtcAddNameExpression(raw, e.c_str());
    if (status != NVRTC_SUCCESS) fail(r, std::string(), nvrtcGetErrorString(status));
  }
  std::vector<const char*> options;
  for (const auto& o : r.options)
    options.push_back(o.c_str());
  status = nvrtcCompileProgram(raw, static_cast<int>(options.size()), options.data());
  compile_result result;
  result.log = program_log(raw);
  if (status != NVRTC_SUCCESS) fail(r, result.log, nvrtcGetErrorString(status));
  for (const auto& e : r.name_expressions) {
    const char* lowered = nullptr;
    status = nvrtcGetLoweredName(raw, e.c_str(), &lowered);
    if (status != NVRTC_SUCCESS || lowered == nullptr) {
      fail(r, result.log, std::string("no lowered name for ") + e);
    }
    result.lowered_names.emplace_back(lowered);
  }
  std::size_t size = 0;
  if (r.kind == output::ltoir) {
    status = nvrtcGetLTOIRSize(raw, &size);
    if (status == NVRTC_SUCCESS) {
      result.binary.resize(size);
      status = nvrtcGetLTOIR(raw, result.binary.data());
    }
  } else {
    status = nvrtcGetCUBINSize(raw, &size);
    if (status == NVRTC_SUCCESS) {
      result.binary.resize(size);
      status = nvrtcGetCUBIN(raw, result.binary.data());
    }
  }
  if (status != NVRTC_SUCCESS || result.binary.empty()) {
    fail(r, result.log, std::string("no output: ") + nvrtcGetErrorString(status));
  }
  result.milliseconds =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace cupar::detail::jit
