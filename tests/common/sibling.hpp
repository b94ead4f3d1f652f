// cupar tests: the path of a program built beside the running test (the children that the
// fault, disk cache, exit and multi-process tests start).
#pragma once

#include <unistd.h>

#include <climits>
#include <string>

namespace cupar::testing {

/// `name` in the directory of this executable (empty directory when /proc/self/exe is unreadable).
inline std::string sibling_executable(const std::string& name) {
  char self[PATH_MAX] = {};
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  const std::string path = n > 0 ? std::string(self, static_cast<std::size_t>(n)) : std::string();
  return path.substr(0, path.rfind('/') + 1) + name;
}

}  // namespace cupar::testing
