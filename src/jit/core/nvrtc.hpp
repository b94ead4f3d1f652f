// cupar internal: NVRTC compilation with RAII and errors that explain.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace cupar::jit {
class op;
}

namespace cupar::detail::jit {

enum class output { ltoir, cubin };

struct compile_request {
  std::string source;
  std::string name = "cupar_jit.cu";
  std::vector<std::string> options;
  std::vector<std::string> name_expressions;
  output kind = output::cubin;
  /// The user's snippets in the source, for mapping errors back to them.
  struct snippet_ref {
    std::string file;       // pseudo-file the snippet is compiled as (#line), "cupar_snippet"...
    std::string generated;  // pseudo-file of the code around it, "cupar_generated"...
    std::string text;
    std::string what;  // "operator", "equality", "predicate", ...
    /// What the operator must be, for errors in the code around it, e.g.
    /// "a binary operator (float a, float b) -> float".
    std::string role;
    /// The operator whose snippet this is: its text (snippet and preamble) is checked before
    /// NVRTC runs (snippet_check.hpp); an untrusted one makes the whole build read nothing
    /// relative to the working directory and get errors that quote nothing but the snippets.
    const cupar::jit::op* op = nullptr;
  };
  std::vector<snippet_ref> snippets;
  /// Headers offered besides the embedded jit_ops files, as (name, text): the build-time tool's
  /// precompiled-header prefix (tools/cupar_precompile.cpp). Empty at run time.
  std::vector<std::pair<std::string, std::string>> extra_headers;
};

struct compile_result {
  std::vector<char> binary;
  std::vector<std::string> lowered_names;  // one per name expression
  std::string log;
  double milliseconds = 0;
};

/// Compiles with NVRTC, on a thread with a large stack (large_stack.hpp). Throws
/// cupar::jit_error (stage compile) carrying the full log, the generated source, the options and
/// the snippet line the first error points at (for an untrusted operator: only what concerns
/// the snippet).
compile_result compile(const compile_request& request);

/// Everything compile() gives NVRTC for `request` (its source, name, headers, options, name
/// expressions, output kind) and NVRTC's version, as one text: two requests with the same
/// fingerprint compile to the same output. The precompile tool's build steps use it to skip
/// the kernel sets whose compile did not change. Compiles nothing.
std::string compile_fingerprint(const compile_request& request);

/// "major.minor" of the NVRTC library in use.
std::string nvrtc_version();

/// Whether the NVRTC in use is version major.minor or later.
bool nvrtc_at_least(int major, int minor);

/// Pseudo-file names used with #line in generated sources.
inline constexpr const char* snippet_file = "cupar_snippet";
inline constexpr const char* generated_file = "cupar_generated";
inline constexpr const char* preamble_file = "cupar_preamble";

}  // namespace cupar::detail::jit
