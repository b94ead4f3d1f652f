// cupar internal: checks of an operator's text made before NVRTC sees it (issue 12).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace cupar::detail::jit {

/// Largest snippet accepted, in bytes (and largest preamble of an untrusted operator).
inline constexpr std::size_t max_snippet_bytes = std::size_t(256) << 10;
/// Deepest nesting of (), [] and {} accepted.
inline constexpr int max_nesting = 256;
/// Most tokens accepted in one expression or statement, counting enclosing ones (see
/// snippet_check.cpp: NVRTC's parser recurses on them and runs out of stack).
inline constexpr int max_expression_tokens = 2048;

/// A problem found in an operator's text: what, and the 1-based line of the text it is on (0
/// when it concerns the whole text).
struct text_problem {
  int line = 0;
  std::string message;
};

/// What the text is: the snippet (an expression or lambda placed inside generated code) or the
/// preamble (code placed before it at namespace scope).
enum class text_part { snippet, preamble };

/// Checks `text` of an operator. Every operator: valid UTF-8 without NUL bytes, at most
/// max_snippet_bytes (snippets), nesting and expression length within the limits above, and a
/// snippet has balanced brackets (so it cannot close the code it is placed in) and no include
/// directive (includes belong in the preamble). Untrusted operators (`restricted`), snippet and
/// preamble alike: no preprocessor at all (`#`, `%:`), no `_Pragma`, `asm`, line continuations,
/// trigraphs, universal character names or other backslashes outside literals, raw string
/// literals, non-ASCII characters outside literals and comments, and none of the identifiers
/// restricted_identifiers() lists. Returns the first problem, or nothing.
std::optional<text_problem> check_operator_text(std::string_view text, text_part part,
                                                bool restricted);

/// The identifiers an untrusted operator may not use, separated by ", ".
const char* restricted_identifiers();

/// Whether `text` can be quoted in a message as it is: valid UTF-8 without NUL bytes.
bool quotable_text(std::string_view text);

}  // namespace cupar::detail::jit
