// cupar internal: nvJitLink with RAII and errors that explain.
#pragma once

#include <nvJitLink.h>

#include <cstddef>
#include <string>
#include <vector>

namespace cupar::detail::jit {

struct link_input {
  const void* data;
  std::size_t size;
  nvJitLinkInputType type;
  const char* name;
};

struct link_result {
  std::vector<char> cubin;
  std::string info_log;  // nvJitLink's information log (ptxas statistics with -Xptxas=-v)
  double milliseconds = 0;
};

/// Links `inputs` into a cubin for sm_<arch>. With `lto`, LTO-IR inputs are optimised together
/// (the operator is inlined into the kernels); without, relocatable cubins are linked as they are.
/// `extra_options` go to nvJitLink after cupar's own. A link given "-Xptxas=-v" bypasses
/// nvJitLink's own cache, so that its info_log always holds ptxas's report.
/// Throws cupar::jit_error (stage link) with nvJitLink's full log.
link_result link(const std::vector<link_input>& inputs, int arch, bool lto,
                 const std::vector<std::string>& extra_options = {});

/// Whether ptxas reported register spills in the information log of a link made with
/// -Xptxas=-v ("... N bytes spill stores ..." with N > 0 for some function).
bool reports_spills(const std::string& info_log);

/// Whether the information log holds ptxas's report of a function's registers ("Used N
/// registers"): a link made with -Xptxas=-v whose code ptxas generated.
bool reports_registers(const std::string& info_log);

/// The threads a compile spreads its code generation over (`-split-compile`): half the cores,
/// at most 8. LTO links without extra options use it, and so do quick builds (engine.cpp).
unsigned split_compile_threads();

std::string nvjitlink_version();

}  // namespace cupar::detail::jit
