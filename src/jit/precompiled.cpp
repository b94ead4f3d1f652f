// cupar internal: lookup in the table of precompiled kernel sets (generated at build time).
#include "precompiled.hpp"

#include <string>

namespace cupar::detail::jit {

const precompiled_set* find_precompiled(const std::string& key, int arch) {
  for (int i = 0; i < precompiled_set_count; ++i) {
    const precompiled_set& s = precompiled_sets[i];
    if (s.arch == arch && key == s.key) return &s;
  }
  return nullptr;
}

}  // namespace cupar::detail::jit
