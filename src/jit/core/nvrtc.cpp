// cupar internal: NVRTC compilation.
#include "nvrtc.hpp"

#include "large_stack.hpp"
#include "snippet_check.hpp"
#include "sources.hpp"

#include <cupar/error.hpp>
#include <cupar/jit.hpp>

#include <nvrtc.h>

#include <chrono>
#include <memory>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

namespace cupar::detail::jit {
namespace {

struct program_deleter {
  void operator()(_nvrtcProgram* p) const noexcept { nvrtcDestroyProgram(&p); }
};
using unique_program = std::unique_ptr<_nvrtcProgram, program_deleter>;

/// The first `#include "name"` of `text` whose name is not an embedded source, or empty.
std::string quoted_include_outside_embedded(std::string_view text) {
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(at, end - at);
    at = end + 1;
    std::size_t i = line.find_first_not_of(" \t");
    if (i == std::string_view::npos || line[i] != '#') continue;
    i = line.find_first_not_of(" \t", i + 1);
    if (i == std::string_view::npos || line.compare(i, 7, "include") != 0) continue;
    i = line.find_first_not_of(" \t", i + 7);
    if (i == std::string_view::npos || line[i] != '"') continue;
    const std::size_t close = line.find('"', i + 1);
    const std::string_view name = line.substr(
        i + 1, close == std::string_view::npos ? std::string_view::npos : close - i - 1);
    if (find_embedded_source(name) == nullptr) return std::string(name);
  }
  return std::string();
}

/// Untrusted builds: nothing may be read relative to the working directory. NVRTC looks for a
/// quoted include of the program (or of an embedded source) among the embedded sources first,
/// then in the working directory; angle includes never search it. The snippet and preamble of
/// an untrusted build hold no preprocessor line (checked before this), so the only quoted
/// includes are cupar's own: each must name an embedded source, which this checks (the embedded
/// sources once per process). `--no-source-include`, used before for the same purpose, also
/// stopped the relative includes of CUDA's own headers (cooperative_groups/details/driver_abi.h:
/// `#include "info.h"`, reached from CUB's transform kernels), so every untrusted operator whose
/// kernels are compiled from source failed.
void require_embedded_includes(const compile_request& r) {
  static const std::string in_embedded = [] {
    for (int i = 0; i < embedded_source_count; ++i) {
      const std::string bad = quoted_include_outside_embedded(embedded_sources[i].text);
      if (!bad.empty()) return std::string(embedded_sources[i].name) + " includes \"" + bad + "\"";
    }
    return std::string();
  }();
  std::string bad = in_embedded;
  if (bad.empty()) {
    const std::string name = quoted_include_outside_embedded(r.source);
    if (!name.empty()) bad = r.name + " includes \"" + name + "\"";
  }
  if (!bad.empty()) {
    throw std::logic_error(
        "cupar internal error: an untrusted build would read a file relative "
        "to the working directory (" +
        bad + ", not an embedded source)");
  }
}

std::string line_of(const std::string& text, int line) {
  std::istringstream in(text);
  std::string s;
  for (int i = 1; std::getline(in, s); ++i) {
    if (i == line) return s;
  }
  return std::string();
}

/// A build is untrusted when any of its operators is: the whole compile then reads nothing
/// relative to the working directory (require_embedded_includes) and its errors quote nothing
/// but the snippets.
bool is_untrusted(const compile_request& r) {
  for (const auto& sn : r.snippets) {
    if (sn.op != nullptr && sn.op->trust_level() == cupar::jit::trust::untrusted) return true;
  }
  return false;
}

bool is_snippet_file(const compile_request& r, const std::string& file) {
  for (const auto& sn : r.snippets) {
    if (file == sn.file) return true;
  }
  return false;
}

/// The snippets' texts, for jit_error::source() of an untrusted build (one, or each headed by
/// its role when several).
std::string snippets_text(const compile_request& r) {
  if (r.snippets.size() == 1) return r.snippets[0].text;
  std::string out;
  for (const auto& sn : r.snippets)
    out += "// " + sn.what + "\n" + sn.text + "\n";
  return out;
}

/// The diagnostics of an NVRTC log located in the snippet, with the lines NVRTC quotes under
/// them; every other diagnostic (in cupar's generated code, a type's definition, CUB's headers,
/// or a file that should never have been read) reduced to one line that names and quotes nothing.
std::string snippet_only_log(const compile_request& r, const std::string& log) {
  static const std::regex& header = *new std::regex(R"(^(.*)\((\d+)\): (.*)$)");  // immortal
  std::istringstream in(log);
  std::ostringstream out;
  std::string l;
  bool keep = false, noted = false;
  while (std::getline(in, l)) {
    std::smatch m;
    if (std::regex_match(l, m, header)) {
      keep = is_snippet_file(r, m[1]);
      if (keep) {
        out << l << "\n";
      } else if (!noted) {
        out << "(diagnostics outside the operator's text are not shown for an untrusted "
               "operator)\n";
        noted = true;
      }
      continue;
    }
    if (keep) out << l << "\n";
  }
  return out.str();
}

[[noreturn]] void fail(const compile_request& r, const std::string& log, const std::string& what) {
  // First diagnostic of the log: "file(line): error: message".
  static const std::regex& diag =  // immortal, as header above
      *new std::regex(R"(^(.*)\((\d+)\): (?:catastrophic )?error: (.*)$)");
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
  const bool untrusted = is_untrusted(r);
  int snippet_line = 0;
  std::string snippet_text;
  std::ostringstream summary;
  summary << "cupar: run-time operator failed to compile: ";
  if (untrusted && !first_message.empty() && !is_snippet_file(r, first_file)) {
    // Nothing but the snippets is quoted for untrusted operators: not the message either, which
    // may name code or paths around them.
    const compile_request::snippet_ref* around = nullptr;
    for (const auto& sn : r.snippets) {
      if (first_file == sn.generated) around = &sn;
    }
    if (around == nullptr && !r.snippets.empty()) around = &r.snippets[0];
    summary << "the " << (r.snippets.size() > 1 && around ? around->what : std::string("operator"))
            << " does not fit where it is used";
    if (around != nullptr && !around->role.empty()) summary << ": it must be " << around->role;
    if (around != nullptr) snippet_text = line_of(around->text, 1);
  } else if (!first_message.empty()) {
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
    summary << (untrusted ? std::string("NVRTC refused it") : what);
  }
  summary << "\n(the full compiler log is in jit_error::log())";
  if (untrusted) {
    throw jit_error(jit_stage::compile, summary.str(), snippet_only_log(r, log), snippets_text(r),
                    {}, snippet_line, snippet_text);
  }
  throw jit_error(jit_stage::compile, summary.str(), log, r.source, r.options, snippet_line,
                  snippet_text);
}

/// A problem found in an operator's text before compiling (snippet_check.hpp).
[[noreturn]] void fail_text(const compile_request& r, const compile_request::snippet_ref& sn,
                            const std::string& text, text_part part, const text_problem& p) {
  const bool untrusted = is_untrusted(r);
  const bool quotable = quotable_text(text);
  const bool snippet = part == text_part::snippet;
  const std::string whose = r.snippets.size() > 1 ? sn.what : std::string("operator");
  std::ostringstream summary;
  summary << "cupar: run-time operator failed to compile: " << p.message;
  std::string line_text;
  if (p.line > 0 && snippet) {
    summary << "\n  at line " << p.line << " of the " << whose;
    if (quotable) {
      line_text = line_of(text, p.line);
      summary << ": " << line_text;
    }
  } else if (p.line > 0) {
    summary << "\n  at line " << p.line << " of the " << whose << "'s preamble";
  }
  summary << "\n(found before compiling: nothing was handed to NVRTC)";
  std::ostringstream log;
  log << (snippet ? sn.file : std::string(preamble_file)) << "(" << p.line
      << "): error: " << p.message << "\n";
  if (untrusted) {
    throw jit_error(jit_stage::compile, summary.str(), log.str(), snippets_text(r), {},
                    snippet ? p.line : 0, line_text);
  }
  throw jit_error(jit_stage::compile, summary.str(), log.str(), r.source, r.options,
                  snippet ? p.line : 0, line_text);
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

bool nvrtc_at_least(int major, int minor) {
  int have_major = 0, have_minor = 0;
  nvrtcVersion(&have_major, &have_minor);
  return have_major > major || (have_major == major && have_minor >= minor);
}

namespace {

/// The headers NVRTC is offered for `r`: every embedded jit_ops file (NVRTC reads only those
/// included), then the request's own.
void program_headers(const compile_request& r, std::vector<const char*>& names,
                     std::vector<const char*>& texts) {
  for (int i = 0; i < embedded_source_count; ++i) {
    names.push_back(embedded_sources[i].name);
    texts.push_back(embedded_sources[i].text);
  }
  for (const auto& [name, text] : r.extra_headers) {
    names.push_back(name.c_str());
    texts.push_back(text.c_str());
  }
}

compile_result compile_here(const compile_request& r) {
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::string> option_texts = r.options;
  const bool untrusted = is_untrusted(r);
  for (const auto& sn : r.snippets) {
    if (sn.op == nullptr) continue;
    // One untrusted operator holds the whole build to the untrusted rules: its text is
    // compiled in the same program as the others'.
    if (auto p = check_operator_text(sn.text, text_part::snippet, untrusted)) {
      fail_text(r, sn, sn.text, text_part::snippet, *p);
    }
    const std::string& preamble = cupar::jit::detail::op_preamble(*sn.op->definition());
    if (auto p = check_operator_text(preamble, text_part::preamble, untrusted)) {
      fail_text(r, sn, preamble, text_part::preamble, *p);
    }
  }
  // Nothing relative to the working directory can be included (absolute paths cannot be
  // spelled without the preprocessor, which the check above refused).
  if (untrusted) require_embedded_includes(r);
  std::vector<const char*> header_texts, header_names;
  program_headers(r, header_names, header_texts);
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
  for (const auto& o : option_texts)
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

}  // namespace

std::string compile_fingerprint(const compile_request& r) {
  // Each part with its length, so that no two requests run together into one text.
  std::string f;
  const auto add = [&f](const std::string& part) {
    f += std::to_string(part.size());
    f += ':';
    f += part;
  };
  int major = 0, minor = 0;
  nvrtcVersion(&major, &minor);
  add("nvrtc " + std::to_string(major) + "." + std::to_string(minor));
  add(r.kind == output::ltoir ? "ltoir" : "cubin");
  add(r.name);
  add(r.source);
  std::vector<const char*> names, texts;
  program_headers(r, names, texts);
  for (std::size_t i = 0; i < names.size(); ++i) {
    add(names[i]);
    add(texts[i]);
  }
  for (const auto& e : r.name_expressions)
    add(e);
  for (const auto& o : r.options)
    add(o);
  return f;
}

compile_result compile(const compile_request& r) {
  // The whole program's life on one thread with a large stack (large_stack.hpp).
  compile_result result;
  run_on_large_stack([&] { result = compile_here(r); });
  return result;
}

}  // namespace cupar::detail::jit
