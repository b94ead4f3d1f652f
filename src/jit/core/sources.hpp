// cupar internal: the device sources of jit_ops/, embedded in the library at build time.
#pragma once

#include <string_view>

namespace cupar::detail::jit {

struct embedded_source {
  const char* name;  // file name, as #included by generated sources
  const char* text;
};

extern const embedded_source embedded_sources[];
extern const int embedded_source_count;

/// The embedded file called `name`, or null.
inline const embedded_source* find_embedded_source(std::string_view name) {
  for (int i = 0; i < embedded_source_count; ++i) {
    if (name == embedded_sources[i].name) return &embedded_sources[i];
  }
  return nullptr;
}

}  // namespace cupar::detail::jit
