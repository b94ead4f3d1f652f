// cupar internal: nvJitLink.
#include "link.hpp"

#include "large_stack.hpp"

#include <cupar/error.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <string>
#include <thread>

namespace cupar::detail::jit {
namespace {

struct handle_deleter {
  void operator()(nvJitLinkHandle h) const noexcept { nvJitLinkDestroy(&h); }
};
using unique_handle = std::unique_ptr<std::remove_pointer_t<nvJitLinkHandle>, handle_deleter>;

std::string error_log(nvJitLinkHandle h) {
  std::size_t size = 0;
  if (nvJitLinkGetErrorLogSize(h, &size) != NVJITLINK_SUCCESS || size <= 1) return std::string();
  std::string log(size, '\0');
  if (nvJitLinkGetErrorLog(h, log.data()) != NVJITLINK_SUCCESS) return std::string();
  log.resize(size - 1);
  return log;
}

[[noreturn]] void fail(nvJitLinkResult status, const std::string& log,
                       const std::vector<std::string>& options) {
  std::istringstream in(log);
  std::string first;
  std::getline(in, first);
  std::ostringstream summary;
  summary << "cupar: run-time operator failed to link (nvJitLink error " << static_cast<int>(status)
          << ")";
  if (!first.empty()) summary << ": " << first;
  if (log.find("Unresolved extern") != std::string::npos ||
      log.find("Undefined reference") != std::string::npos) {
    summary << "\n  the operator uses a function that is declared but defined nowhere";
  }
  summary << "\n(the full linker log is in jit_error::log())";
  throw jit_error(jit_stage::link, summary.str(), log, std::string(), options, 0, std::string());
}

}  // namespace

std::string nvjitlink_version() {
  unsigned major = 0, minor = 0;
  nvJitLinkVersion(&major, &minor);
  return std::to_string(major) + "." + std::to_string(minor);
}

namespace {

link_result link_here(const std::vector<link_input>& inputs, int arch, bool lto,
                      const std::vector<std::string>& extra_options) {
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::string> options = {"-arch=sm_" + std::to_string(arch)};
  if (lto) {
    options.emplace_back("-lto");
    // Code generation of the kernels dominates an LTO link; spread it over a few threads. Not
    // for the links with an occupancy target (extra options): split compilation changes the
    // code, and the 4-byte three-way partition spilled under -maxrregcount=64 with 8 threads
    // (the 16-core GPU machine) but not with 1 (a 2-core machine), so whether the target held
    // depended on the machine's core count.
    if (extra_options.empty()) {
      options.push_back("-split-compile=" + std::to_string(split_compile_threads()));
    }
  }
  options.insert(options.end(), extra_options.begin(), extra_options.end());
  // CUPAR_JIT_LINK_LOG=1: every link's options and nvJitLink's info log on stderr, with ptxas's
  // register and spill report, for diagnosing a build's occupancy.
  static const bool log_links = std::getenv("CUPAR_JIT_LINK_LOG") != nullptr;
  if (log_links && std::find(options.begin(), options.end(), "-Xptxas=-v") == options.end()) {
    options.emplace_back("-Xptxas=-v");
  }
  // A link whose ptxas report is read (the occupancy targets' spill check, the link log) makes
  // its code anew: where a CUDA driver is present nvJitLink keeps a cache of its own (the
  // driver's compute cache, across processes), and a link it serves from there has no ptxas
  // report, so a register cap that spilled looked like one that held (H200, 2026-12-03: the
  // reduce kernel of a 16-column expression kept at 32 registers with an 864-byte stack frame,
  // 1.8-2.2x slower, in every process but the machine's first).
  if (std::find(options.begin(), options.end(), "-Xptxas=-v") != options.end()) {
    options.emplace_back("-no-cache");
  }
  std::vector<const char*> argv;
  for (const auto& o : options)
    argv.push_back(o.c_str());
  nvJitLinkHandle raw = nullptr;
  nvJitLinkResult status =
      nvJitLinkCreate(&raw, static_cast<std::uint32_t>(argv.size()), argv.data());
  if (status != NVJITLINK_SUCCESS) fail(status, std::string(), options);
  unique_handle handle(raw);
  for (const auto& in : inputs) {
    status = nvJitLinkAddData(raw, in.type, in.data, in.size, in.name);
    if (status != NVJITLINK_SUCCESS) fail(status, error_log(raw), options);
  }
  status = nvJitLinkComplete(raw);
  if (status != NVJITLINK_SUCCESS) fail(status, error_log(raw), options);
  std::size_t size = 0;
  status = nvJitLinkGetLinkedCubinSize(raw, &size);
  link_result result;
  if (status == NVJITLINK_SUCCESS) {
    result.cubin.resize(size);
    status = nvJitLinkGetLinkedCubin(raw, result.cubin.data());
  }
  if (status != NVJITLINK_SUCCESS || result.cubin.empty()) {
    fail(status, error_log(raw), options);
  }
  std::size_t info_size = 0;
  if (nvJitLinkGetInfoLogSize(raw, &info_size) == NVJITLINK_SUCCESS && info_size > 1) {
    result.info_log.resize(info_size);
    if (nvJitLinkGetInfoLog(raw, result.info_log.data()) == NVJITLINK_SUCCESS) {
      result.info_log.resize(info_size - 1);
    } else {
      result.info_log.clear();
    }
  }
  result.milliseconds =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (log_links) {
    std::string text = "cupar: nvJitLink";
    for (const auto& o : options)
      text += " " + o;
    text += " (" + std::to_string(result.cubin.size()) + " bytes)\n" + result.info_log + "\n";
    std::fputs(text.c_str(), stderr);
  }
  return result;
}

}  // namespace

link_result link(const std::vector<link_input>& inputs, int arch, bool lto,
                 const std::vector<std::string>& extra_options) {
  // Code generation recurses on deeply nested operators as NVRTC's parser does: the whole link
  // runs on one thread with a large stack (nvJitLink crashed when its handle was created on one
  // thread and completed on another).
  link_result result;
  run_on_large_stack([&] { result = link_here(inputs, arch, lto, extra_options); });
  return result;
}

bool reports_spills(const std::string& info_log) {
  // Never destroyed: background builds may use it while the process exits (engine.cpp, worker).
  static const std::string& marker = *new std::string(" bytes spill stores");
  for (std::size_t at = info_log.find(marker); at != std::string::npos;
       at = info_log.find(marker, at + 1)) {
    std::size_t digits = at;
    while (digits > 0 && info_log[digits - 1] >= '0' && info_log[digits - 1] <= '9')
      --digits;
    if (digits == at) continue;  // no number before the marker
    for (std::size_t i = digits; i < at; ++i) {
      if (info_log[i] != '0') return true;
    }
  }
  return false;
}

unsigned split_compile_threads() {
  return std::clamp(std::thread::hardware_concurrency() / 2, 1u, 8u);
}

bool reports_registers(const std::string& info_log) {
  static const std::string& used = *new std::string("Used ");  // never destroyed, as above
  for (std::size_t at = info_log.find(used); at != std::string::npos;
       at = info_log.find(used, at + 1)) {
    std::size_t end = at + used.size();
    while (end < info_log.size() && info_log[end] >= '0' && info_log[end] <= '9')
      ++end;
    if (end > at + used.size() && info_log.compare(end, 10, " registers") == 0) return true;
  }
  return false;
}

}  // namespace cupar::detail::jit
