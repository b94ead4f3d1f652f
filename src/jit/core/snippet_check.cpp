// cupar internal: checks of an operator's text made before NVRTC sees it (issue 12).
//
// Why each check exists:
// - NUL bytes: NVRTC takes a C string, so the text after a NUL would silently not be compiled.
// - Invalid UTF-8: the text is quoted in error messages that applications log and show.
// - Size, nesting and expression length: NVRTC's parser recurses on nested brackets, unary
//   operators, ternaries, `sizeof` chains and else-if chains, and crashed the process (stack
//   overflow) at 3,000-7,000 levels on an 8 MiB stack; expression chains of 10,000 operators
//   took 6 s and else-if chains of 4,000 over 2 minutes (NVRTC 13.0, measured on the dev box).
//   With at most 256 nested brackets and 2,048 tokens per expression (counting the enclosing
//   ones), every such input compiles in a few seconds on the 64 MiB stack NVRTC runs on
//   (large_stack.hpp), or is refused here.
// - Balanced brackets: a snippet is placed inside generated code (inside `( ... )` or as a
//   lambda); with its brackets balanced it cannot close that code and add its own.
// - Include directives in a snippet: the preamble is where includes go; a snippet with
//   `#include "<host file>"` made NVRTC read that file and quote it in the error (issue 12).
// - Untrusted operators: no preprocessor at all, and nothing that could hide it from this
//   tokenizer or reach beyond the data (see restricted_identifiers()).
//
// The tokenizer follows NVRTC's front end (EDG) where it matters, checked with NVRTC 13.0:
// `\` + newline (or CR LF) splices lines, also inside `//` comments; a `#` after a comment that
// spans lines still starts a directive; `%:` is `#`; trigraphs are off (C++17); a universal
// character name never makes a `#`. Where it could differ, it errs on the side of refusing.
#include "snippet_check.hpp"

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace cupar::detail::jit {
namespace {

const char* const banned_identifiers[] = {
    // Inline PTX: instructions C++ cannot express, outside what this check understands.
    "asm", "__asm", "__asm__",
    // Pragmas without `#`: they reach the preprocessor and the compiler's controls.
    "_Pragma", "__pragma",
    // Device printf writes to the host process's standard output.
    "printf", "vprintf",
    // The device heap is shared by everything running in the process.
    "malloc", "free", "new", "delete",
    // File probes (only usable with the preprocessor, refused anyway).
    "__has_include", "__has_include_next", "__has_embed"};

const char* const include_directives[] = {"include", "include_next", "import", "embed"};

const char* const nesting_keywords[] = {"if", "else", "for", "while", "do", "switch"};

template <std::size_t N>
bool one_of(const std::string& s, const char* const (&list)[N]) {
  for (const char* x : list) {
    if (s == x) return true;
  }
  return false;
}

/// Offset of the first byte that is not part of valid UTF-8 (no overlong forms, surrogates or
/// values above U+10FFFF), or npos.
std::size_t invalid_utf8(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    int extra = 0;
    std::uint32_t min = 0, cp = 0;
    if (c >= 0xC2 && c <= 0xDF) {
      extra = 1, min = 0x80, cp = c & 0x1Fu;
    } else if (c >= 0xE0 && c <= 0xEF) {
      extra = 2, min = 0x800, cp = c & 0x0Fu;
    } else if (c >= 0xF0 && c <= 0xF4) {
      extra = 3, min = 0x10000, cp = c & 0x07u;
    } else {
      return i;
    }
    if (s.size() - i <= static_cast<std::size_t>(extra)) return i;  // truncated sequence
    for (int k = 1; k <= extra; ++k) {
      const auto d = static_cast<unsigned char>(s[i + static_cast<std::size_t>(k)]);
      if ((d & 0xC0u) != 0x80u) return i;
      cp = (cp << 6) | (d & 0x3Fu);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return i;
    i += static_cast<std::size_t>(extra) + 1;
  }
  return std::string_view::npos;
}

int line_at(std::string_view s, std::size_t offset) {
  int line = 1;
  for (std::size_t i = 0; i < offset && i < s.size(); ++i) {
    if (s[i] == '\n') ++line;
  }
  return line;
}

std::string hex_byte(unsigned char c) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%02X", c);
  return buf;
}

bool is_id_start(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80;
}
bool is_id_char(unsigned char c) {
  return is_id_start(c) || (c >= '0' && c <= '9');
}
bool is_digit(unsigned char c) {
  return c >= '0' && c <= '9';
}
bool is_hex(unsigned char c) {
  return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/// The text with `\` + newline (LF or CR LF) removed, and the original line of each character.
struct spliced_text {
  std::string text;
  std::vector<int> line;
};

spliced_text splice(std::string_view s) {
  spliced_text out;
  out.text.reserve(s.size());
  out.line.reserve(s.size());
  int line = 1;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\') {
      if (i + 1 < s.size() && s[i + 1] == '\n') {
        ++i;
        ++line;
        continue;
      }
      if (i + 2 < s.size() && s[i + 1] == '\r' && s[i + 2] == '\n') {
        i += 2;
        ++line;
        continue;
      }
    }
    out.text.push_back(s[i]);
    out.line.push_back(line);
    if (s[i] == '\n') ++line;
  }
  return out;
}

class checker {
 public:
  checker(std::string_view raw, text_part part, bool restricted)
      : raw_(raw), part_(part), restricted_(restricted) {}

  std::optional<text_problem> run() {
    if (auto p = raw_checks()) return p;
    if (restricted_) {
      if (auto p = restricted_raw_checks()) return p;
    }
    src_ = splice(raw_);
    if (auto p = tokens()) return p;
    return std::nullopt;
  }

 private:
  std::string what() const {
    return part_ == text_part::snippet ? "the operator" : "the operator's preamble";
  }
  text_problem problem(int line, std::string message) const { return {line, std::move(message)}; }

  std::optional<text_problem> raw_checks() const {
    for (std::size_t i = 0; i < raw_.size(); ++i) {
      if (raw_[i] == '\0') {
        return problem(line_at(raw_, i), what() + " contains a NUL byte (offset " +
                                             std::to_string(i) +
                                             "); the text after it would not be compiled");
      }
    }
    if (const std::size_t bad = invalid_utf8(raw_); bad != std::string_view::npos) {
      return problem(line_at(raw_, bad), what() + " is not valid UTF-8 (byte " +
                                             hex_byte(static_cast<unsigned char>(raw_[bad])) +
                                             " at offset " + std::to_string(bad) + ")");
    }
    if ((part_ == text_part::snippet || restricted_) && raw_.size() > max_snippet_bytes) {
      return problem(0, what() + " is " + std::to_string(raw_.size()) + " bytes long; at most " +
                            std::to_string(max_snippet_bytes) + " are accepted");
    }
    return std::nullopt;
  }

  std::optional<text_problem> restricted_raw_checks() const {
    const std::string rule = " is not allowed in an untrusted operator";
    bool line_start = true;
    for (std::size_t i = 0; i < raw_.size(); ++i) {
      const auto c = static_cast<unsigned char>(raw_[i]);
      const bool crlf = c == '\r' && i + 1 < raw_.size() && raw_[i + 1] == '\n';
      if ((c < 0x20 && c != '\t' && c != '\n' && !crlf) || c == 0x7F) {
        return problem(line_at(raw_, i), "the control character " + hex_byte(c) + rule);
      }
      if (c == '\\') {
        std::size_t j = i + 1;
        while (j < raw_.size() && (raw_[j] == ' ' || raw_[j] == '\t'))
          ++j;
        if (j == raw_.size() || raw_[j] == '\n' || raw_[j] == '\r') {
          return problem(line_at(raw_, i),
                         "a line continuation (a backslash at the end of a line)" + rule);
        }
      }
      if (c == '?' && i + 2 < raw_.size() && raw_[i + 1] == '?') {
        const char t = raw_[i + 2];
        if (t == '=' || t == '/' || t == '\'' || t == '(' || t == ')' || t == '!' || t == '<' ||
            t == '>' || t == '-') {
          return problem(line_at(raw_, i), std::string("the trigraph ??") + t + rule);
        }
      }
      if (line_start && c != ' ' && c != '\t') {
        if (c == '#' || (c == '%' && i + 1 < raw_.size() && raw_[i + 1] == ':')) {
          return problem(line_at(raw_, i), "a preprocessor line" + rule);
        }
      }
      if (c == '\n') {
        line_start = true;
      } else if (c != ' ' && c != '\t' && c != '\r') {
        line_start = false;
      }
    }
    return std::nullopt;
  }

  int line(std::size_t at) const {
    return at < src_.line.size() ? src_.line[at] : (src_.line.empty() ? 1 : src_.line.back());
  }
  unsigned char at(std::size_t i) const {
    return i < src_.text.size() ? static_cast<unsigned char>(src_.text[i]) : 0;
  }

  /// Reads an identifier (with universal character names decoded to ASCII where they name one)
  /// starting at i_.
  std::optional<text_problem> identifier(std::string& name) {
    const std::size_t start = i_;
    while (i_ < src_.text.size()) {
      const unsigned char c = at(i_);
      if (c == '\\' && (at(i_ + 1) == 'u' || at(i_ + 1) == 'U')) {
        const std::size_t digits = at(i_ + 1) == 'u' ? 4 : 8;
        std::uint32_t cp = 0;
        std::size_t k = 0;
        for (; k < digits && is_hex(at(i_ + 2 + k)); ++k) {
          const unsigned char h = at(i_ + 2 + k);
          cp = cp * 16 + static_cast<std::uint32_t>(is_digit(h) ? h - '0' : (h | 0x20) - 'a' + 10);
        }
        if (k != digits) break;
        name.push_back(cp < 0x80 ? static_cast<char>(cp) : '?');
        i_ += 2 + digits;
        continue;
      }
      if (!is_id_char(c)) break;
      if (c >= 0x80 && restricted_) {
        return problem(line(i_),
                       "a non-ASCII character outside a string literal or comment is "
                       "not allowed in an untrusted operator");
      }
      name.push_back(static_cast<char>(c));
      ++i_;
    }
    if (i_ == start) ++i_;  // a lone backslash: skipped as a stray character
    return std::nullopt;
  }

  /// Skips a string or character literal whose opening quote is at i_.
  std::optional<text_problem> quoted() {
    const char quote = static_cast<char>(at(i_));
    const std::size_t start = i_++;
    while (i_ < src_.text.size()) {
      const char c = src_.text[i_];
      if (c == '\\') {
        i_ += 2;
        continue;
      }
      if (c == '\n') break;
      ++i_;
      if (c == quote) return std::nullopt;
    }
    return problem(line(start), std::string("unterminated ") +
                                    (quote == '"' ? "string" : "character") + " literal in " +
                                    what());
  }

  /// Skips a raw string literal whose opening quote is at i_ (the R prefix already read).
  std::optional<text_problem> raw_string() {
    const std::size_t start = i_++;
    std::string delimiter;
    while (i_ < src_.text.size() && src_.text[i_] != '(' && delimiter.size() <= 16) {
      delimiter.push_back(src_.text[i_++]);
    }
    if (i_ >= src_.text.size() || src_.text[i_] != '(') {
      return problem(line(start), "malformed raw string literal in " + what());
    }
    const std::string end = ")" + delimiter + "\"";
    const std::size_t close = src_.text.find(end, i_);
    if (close == std::string::npos) {
      return problem(line(start), "unterminated raw string literal in " + what());
    }
    i_ = close + end.size();
    return std::nullopt;
  }

  struct frame {
    char closer;
    int base;    // depth before the bracket opened
    int sticky;  // nesting keywords of the enclosing level
    int line;
  };

  /// Adds `n` to the current expression's depth; a problem when it gets too deep.
  std::optional<text_problem> deepen(int n, std::size_t where) {
    depth_ += n;
    if (depth_ + sticky_total_ > max_expression_tokens) {
      return problem(line(where),
                     what() + " is too complex: more than " +
                         std::to_string(max_expression_tokens) +
                         " tokens in one expression or statement (counting those it is nested "
                         "in)");
    }
    return std::nullopt;
  }

  std::optional<text_problem> open(char closer, std::size_t where) {
    if (static_cast<int>(frames_.size()) >= max_nesting) {
      return problem(line(where),
                     what() + " nests brackets more than " + std::to_string(max_nesting) + " deep");
    }
    frames_.push_back({closer, depth_, sticky_, line(where)});
    sticky_ = 0;
    return deepen(1, where);
  }

  std::optional<text_problem> close(char closer, std::size_t where) {
    if (frames_.empty() || frames_.back().closer != closer) {
      if (!check_balance()) {
        if (!frames_.empty()) pop();
        return deepen(1, where);
      }
      if (frames_.empty()) {
        return problem(line(where), std::string("unmatched `") + closer + "` in " + what() +
                                        " (a snippet cannot close the code it is placed in)");
      }
      return problem(line(where), std::string("`") + closer + "` closes `" +
                                      opener_of(frames_.back().closer) + "` (opened at line " +
                                      std::to_string(frames_.back().line) + ") in " + what());
    }
    pop();
    return deepen(1, where);
  }

  void pop() {
    sticky_total_ -= sticky_;
    sticky_ = frames_.back().sticky;
    depth_ = frames_.back().base;
    frames_.pop_back();
  }

  static char opener_of(char closer) { return closer == ')' ? '(' : closer == ']' ? '[' : '{'; }

  /// Brackets are checked in snippets, and in untrusted preambles; not where a trusted text uses
  /// preprocessor conditionals (they may hold unbalanced alternatives).
  bool check_balance() const {
    if (restricted_) return true;
    return part_ == text_part::snippet && !has_conditional_;
  }

  std::optional<text_problem> tokens() {
    const std::string& t = src_.text;
    const std::string rule = " is not allowed in an untrusted operator";
    // A trusted snippet may use directives (e.g. #pragma unroll in a lambda): their lines do
    // not count for brackets, and conditionals (whose branches may hold unbalanced
    // alternatives) turn the bracket check off. Looked for ahead, over-approximately.
    for (std::size_t k = 0; k < t.size(); ++k) {
      if (t[k] != '#' && !(t[k] == '%' && k + 1 < t.size() && t[k + 1] == ':')) continue;
      std::size_t j = k + (t[k] == '#' ? 1 : 2);
      while (j < t.size() && (t[j] == ' ' || t[j] == '\t'))
        ++j;
      std::string name;
      while (j < t.size() && is_id_char(static_cast<unsigned char>(t[j])))
        name.push_back(t[j++]);
      if (name == "if" || name == "ifdef" || name == "ifndef" || name == "elif" || name == "else" ||
          name == "endif" || name == "elifdef" || name == "elifndef") {
        has_conditional_ = true;
      }
    }
    bool after_hash = false;    // the previous token was `#` or `%:`
    bool line_start = true;     // no token yet on this logical line
    bool in_directive = false;  // on a preprocessor line
    while (i_ < t.size()) {
      const unsigned char c = at(i_);
      const std::size_t start = i_;
      if (c == '\n') {
        line_start = true;
        in_directive = false;
        ++i_;
        continue;
      }
      if (c == ' ' || c == '\t' || c == '\f' || c == '\v' || c == '\r') {
        ++i_;
        continue;
      }
      if (c == '/' && at(i_ + 1) == '/') {
        while (i_ < t.size() && t[i_] != '\n')
          ++i_;
        continue;
      }
      if (c == '/' && at(i_ + 1) == '*') {
        const std::size_t end = t.find("*/", i_ + 2);
        if (end == std::string::npos) {
          return problem(line(start), "unterminated comment in " + what());
        }
        i_ = end + 2;
        continue;
      }
      const bool hash_token = c == '#' || (c == '%' && at(i_ + 1) == ':');
      const bool was_after_hash = after_hash;
      after_hash = false;
      if (hash_token) {
        if (restricted_) return problem(line(start), "the preprocessor (`#`)" + rule);
        i_ += c == '#' ? 1 : 2;
        after_hash = true;
        if (line_start) in_directive = true;
        line_start = false;
        continue;
      }
      line_start = false;
      if (in_directive) {
        // A directive's own tokens (a macro's body, a pragma) are not the snippet's code: only
        // includes are looked for in them.
        if (is_id_start(c) || c == '\\') {
          std::string name;
          if (auto p = identifier(name)) return p;
          if (was_after_hash && part_ == text_part::snippet && one_of(name, include_directives)) {
            return problem(line(start), "an #" + name +
                                            " directive in the operator: put includes in its "
                                            "preamble (cupar::jit::op::preamble)");
          }
        } else if (c == '"' || c == '\'') {
          if (auto p = quoted()) return p;
        } else {
          ++i_;
        }
        continue;
      }
      if (is_id_start(c) || (c == '\\' && (at(i_ + 1) == 'u' || at(i_ + 1) == 'U'))) {
        if (c == '\\' && restricted_) {
          return problem(line(start), "a universal character name outside a literal" + rule);
        }
        std::string name;
        if (auto p = identifier(name)) return p;
        const unsigned char next = at(i_);
        if (next == '"' || next == '\'') {
          if (name == "R" || name == "u8R" || name == "uR" || name == "UR" || name == "LR") {
            if (next == '"') {
              if (restricted_) return problem(line(start), "a raw string literal" + rule);
              if (auto p = raw_string()) return p;
              if (auto p = deepen(1, start)) return p;
              continue;
            }
          }
          if (name == "u8" || name == "u" || name == "U" || name == "L") {
            if (auto p = quoted()) return p;
            if (auto p = deepen(1, start)) return p;
            continue;
          }
        }
        if (was_after_hash && part_ == text_part::snippet && one_of(name, include_directives)) {
          return problem(line(start), "an #" + name +
                                          " directive in the operator: put includes in its "
                                          "preamble (cupar::jit::op::preamble)");
        }
        if (restricted_ && one_of(name, banned_identifiers)) {
          return problem(line(start), "`" + name + "`" + rule);
        }
        if (!restricted_ && part_ == text_part::snippet &&
            (name == "__has_include" || name == "__has_include_next" || name == "__has_embed")) {
          return problem(line(start), "`" + name +
                                          "` in the operator: put includes and their tests in "
                                          "its preamble (cupar::jit::op::preamble)");
        }
        if (one_of(name, nesting_keywords)) {
          ++sticky_;
          ++sticky_total_;
        }
        if (auto p = deepen(1, start)) return p;
        continue;
      }
      if (is_digit(c) || (c == '.' && is_digit(at(i_ + 1)))) {
        ++i_;
        while (i_ < t.size()) {
          const unsigned char d = at(i_);
          if ((d == 'e' || d == 'E' || d == 'p' || d == 'P') &&
              (at(i_ + 1) == '+' || at(i_ + 1) == '-')) {
            i_ += 2;
          } else if (d == '\'' && is_id_char(at(i_ + 1))) {
            i_ += 2;  // digit separator
          } else if (is_id_char(d) || d == '.') {
            if (d >= 0x80 && restricted_) {
              return problem(line(i_),
                             "a non-ASCII character outside a string literal or "
                             "comment" +
                                 rule);
            }
            ++i_;
          } else {
            break;
          }
        }
        if (auto p = deepen(1, start)) return p;
        continue;
      }
      if (c == '"' || c == '\'') {
        if (auto p = quoted()) return p;
        if (auto p = deepen(1, start)) return p;
        continue;
      }
      // Brackets, digraphs included (`<::` is `<` `::` unless followed by `:` or `>`).
      if (c == '<' && at(i_ + 1) == ':' &&
          !(at(i_ + 2) == ':' && at(i_ + 3) != ':' && at(i_ + 3) != '>')) {
        i_ += 2;
        if (auto p = open(']', start)) return p;
        continue;
      }
      if (c == '<' && at(i_ + 1) == '%') {
        i_ += 2;
        if (auto p = open('}', start)) return p;
        continue;
      }
      if (c == ':' && at(i_ + 1) == '>') {
        i_ += 2;
        if (auto p = close(']', start)) return p;
        continue;
      }
      if (c == '%' && at(i_ + 1) == '>') {
        i_ += 2;
        if (auto p = close('}', start)) return p;
        continue;
      }
      ++i_;
      switch (c) {
        case '(':
          if (auto p = open(')', start)) return p;
          continue;
        case '[':
          if (auto p = open(']', start)) return p;
          continue;
        case '{':
          if (auto p = open('}', start)) return p;
          continue;
        case ')':
        case ']':
        case '}':
          if (auto p = close(static_cast<char>(c), start)) return p;
          continue;
        case ';':
        case ',':
          depth_ = frames_.empty() ? 0 : frames_.back().base + 1;
          continue;
        default:
          break;
      }
      if (restricted_ && (c == '\\' || c == '$' || c == '@' || c == '`')) {
        return problem(line(start), std::string("the character `") + static_cast<char>(c) +
                                        "` outside a literal" + rule);
      }
      if (auto p = deepen(1, start)) return p;
    }
    if (check_balance() && !frames_.empty()) {
      const frame& f = frames_.back();
      return problem(f.line, std::string("unclosed `") + opener_of(f.closer) + "` in " + what());
    }
    return std::nullopt;
  }

  std::string_view raw_;
  text_part part_;
  bool restricted_;
  spliced_text src_;
  std::size_t i_ = 0;
  std::vector<frame> frames_;
  int depth_ = 0;
  int sticky_ = 0;        // nesting keywords at the current level
  int sticky_total_ = 0;  // at every open level
  bool has_conditional_ = false;
};

}  // namespace

std::optional<text_problem> check_operator_text(std::string_view text, text_part part,
                                                bool restricted) {
  return checker(text, part, restricted).run();
}

bool quotable_text(std::string_view text) {
  return text.find('\0') == std::string_view::npos && invalid_utf8(text) == std::string_view::npos;
}

const char* restricted_identifiers() {
  return "asm, __asm, __asm__, _Pragma, __pragma, printf, vprintf, malloc, free, new, delete, "
         "__has_include, __has_include_next, __has_embed";
}

}  // namespace cupar::detail::jit
