// cupar internal: the on-disk cache of linked binaries.
#pragma once

#include "engine.hpp"

#include <cstdint>
#include <optional>
#include <string>

namespace cupar::detail::jit {

/// Entries are files named by a hash of their key, holding the full key (checked on load, so a
/// hash collision or a file from another build is a miss), the payload and a checksum. Files are
/// written to a temporary name and renamed into place, so readers never see a partial entry; a
/// truncated, corrupt or foreign file is ignored and replaced. Failures to read or write the
/// cache never fail a call: the cache is an optimisation.
///
/// Faults (tests/reliability/disk_cache_test.cpp): a directory that cannot be written still
/// serves what it holds; a write that fails (full disk, EFBIG) leaves no file; a write that would
/// pass the process's file size limit (RLIMIT_FSIZE) is not tried, since the signal it raises
/// (SIGXFSZ) would end the process; temporary files of writers that died are removed by later
/// writers; files larger than max_entry_bytes are not read.
class disk_cache {
 public:
  static disk_cache& instance();
  /// A cache in `dir` (created if missing; disabled when it cannot be used). For tests: the
  /// process's cache is instance(), set from the environment.
  explicit disk_cache(const std::string& dir);
  bool enabled() const { return !dir_.empty(); }
  const std::string& directory() const { return dir_; }
  std::optional<built_binary> load(const std::string& key);
  /// Returns whether the entry was written.
  bool store(const std::string& key, const built_binary& binary);
  /// The file holding `key`'s entry.
  std::string path_for(const std::string& key) const;

  static constexpr std::uint64_t max_entry_bytes = std::uint64_t(1) << 30;
  /// Temporary files of dead writers younger than this are left alone (the writer's process may
  /// live in another PID namespace).
  static constexpr int stale_temp_seconds = 60;

 private:
  disk_cache();
  void remove_stale_temporaries() const;
  std::string dir_;
};

}  // namespace cupar::detail::jit
