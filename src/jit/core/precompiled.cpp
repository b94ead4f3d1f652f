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

bool precompiled_for_any_arch(const std::string& key) {
  for (int i = 0; i < precompiled_set_count; ++i) {
    if (key == precompiled_sets[i].key) return true;
  }
  return false;
}

const precompiled_named* find_named_object(const std::string& key, int arch) {
  for (int i = 0; i < precompiled_named_count; ++i) {
    const precompiled_named& o = precompiled_named_objects[i];
    if (o.arch == arch && key == o.key) return &o;
  }
  return nullptr;
}

}  // namespace cupar::detail::jit
