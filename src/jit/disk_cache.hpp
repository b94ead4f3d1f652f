// cupar internal: the on-disk cache of linked binaries.
#pragma once

#include "engine.hpp"

#include <optional>
#include <string>

namespace cupar::detail::jit {

/// Entries are files named by a hash of their key, holding the full key (checked on load, so a
/// hash collision or a file from another build is a miss), the payload and a checksum. Files are
/// written to a temporary name and renamed into place, so readers never see a partial entry; a
/// truncated, corrupt or foreign file is ignored and replaced. Failures to read or write the
/// cache never fail a call: the cache is an optimisation.
class disk_cache {
 public:
  static disk_cache& instance();
  bool enabled() const { return !dir_.empty(); }
  const std::string& directory() const { return dir_; }
  std::optional<built_binary> load(const std::string& key);
  void store(const std::string& key, const built_binary& binary);

 private:
  disk_cache();
  std::string path_for(const std::string& key) const;
  std::string dir_;
};

}  // namespace cupar::detail::jit
