// cupar internal: the on-disk cache of linked binaries.
#include "disk_cache.hpp"

#include <dirent.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <functional>
#include <iterator>
#include <random>
#include <sstream>
#include <string>
#include <thread>

namespace cupar::detail::jit {
namespace {

constexpr char magic[8] = {'C', 'U', 'P', 'A', 'R', 'J', 'C', '1'};

std::uint64_t fnv1a(const char* data, std::size_t size, std::uint64_t h = 1469598103934665603ull) {
  for (std::size_t i = 0; i < size; ++i) {
    h ^= static_cast<unsigned char>(data[i]);
    h *= 1099511628211ull;
  }
  return h;
}

/// Creates `path` and its parents as needed; true when it is a directory that can be read (it
/// may not be writable: a read-only cache still serves its entries).
bool make_dirs(const std::string& path) {
  std::string partial;
  std::stringstream in(path);
  std::string part;
  if (!path.empty() && path[0] == '/') partial = "/";
  while (std::getline(in, part, '/')) {
    if (part.empty()) continue;
    partial += part + "/";
    if (::mkdir(partial.c_str(), 0755) != 0 && errno != EEXIST) break;
  }
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode) &&
         ::access(path.c_str(), R_OK | X_OK) == 0;
}

/// Whether a file of `bytes` bytes can be written under the process's file size limit: past it,
/// write() raises SIGXFSZ, which ends the process unless it is ignored.
bool within_file_size_limit(std::uint64_t bytes) {
  struct rlimit limit {};
  if (::getrlimit(RLIMIT_FSIZE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return true;
  return bytes <= static_cast<std::uint64_t>(limit.rlim_cur);
}

void put_u32(std::string& out, std::uint32_t v) {
  out.append(reinterpret_cast<char*>(&v), 4);
}
void put_u64(std::string& out, std::uint64_t v) {
  out.append(reinterpret_cast<char*>(&v), 8);
}

struct reader {
  const char* p;
  const char* end;
  bool ok = true;
  template <class T>
  T get() {
    T v{};
    if (static_cast<std::size_t>(end - p) < sizeof(T)) {
      ok = false;
      return v;
    }
    std::memcpy(&v, p, sizeof(T));
    p += sizeof(T);
    return v;
  }
  std::string bytes(std::uint64_t n) {
    if (static_cast<std::uint64_t>(end - p) < n) {
      ok = false;
      return std::string();
    }
    std::string s(p, p + n);
    p += n;
    return s;
  }
};

std::string serialize(const built_binary& b) {
  std::string out;
  put_u32(out, static_cast<std::uint32_t>(b.tier));
  put_u32(out, (b.precompiled ? 1u : 0u) | (b.register_capped ? 2u : 0u) |
                   (b.states_by_reference ? 4u : 0u));
  put_u32(out, static_cast<std::uint32_t>(b.kernels.size()));
  for (const auto& k : b.kernels) {
    put_u32(out, static_cast<std::uint32_t>(k.size()));
    out += k;
  }
  put_u32(out, static_cast<std::uint32_t>(b.meta.size()));
  for (long long m : b.meta)
    put_u64(out, static_cast<std::uint64_t>(m));
  put_u32(out, static_cast<std::uint32_t>(b.modules.size()));
  for (const auto& m : b.modules) {
    put_u64(out, m.size());
    out.append(m.data(), m.size());
  }
  put_u32(out, static_cast<std::uint32_t>(b.module_of.size()));
  for (int m : b.module_of)
    put_u32(out, static_cast<std::uint32_t>(m));
  return out;
}

std::optional<built_binary> deserialize(const std::string& payload) {
  reader r{payload.data(), payload.data() + payload.size()};
  built_binary b;
  b.tier = static_cast<int>(r.get<std::uint32_t>());
  const auto flags = r.get<std::uint32_t>();
  b.precompiled = (flags & 1u) != 0;
  b.register_capped = (flags & 2u) != 0;
  b.states_by_reference = (flags & 4u) != 0;
  const auto kernels = r.get<std::uint32_t>();
  if (!r.ok || kernels > 64) return std::nullopt;
  for (std::uint32_t i = 0; i < kernels && r.ok; ++i)
    b.kernels.push_back(r.bytes(r.get<std::uint32_t>()));
  const auto metas = r.get<std::uint32_t>();
  if (!r.ok || metas > 64) return std::nullopt;
  for (std::uint32_t i = 0; i < metas && r.ok; ++i)
    b.meta.push_back(static_cast<long long>(r.get<std::uint64_t>()));
  const auto modules = r.get<std::uint32_t>();
  if (!r.ok || modules == 0 || modules > 64) return std::nullopt;
  for (std::uint32_t i = 0; i < modules && r.ok; ++i) {
    const std::string cubin = r.bytes(r.get<std::uint64_t>());
    if (cubin.empty()) return std::nullopt;
    b.modules.emplace_back(cubin.begin(), cubin.end());
  }
  const auto roles = r.get<std::uint32_t>();
  if (!r.ok || (roles != 0 && roles != b.kernels.size())) return std::nullopt;
  for (std::uint32_t i = 0; i < roles && r.ok; ++i) {
    const auto m = r.get<std::uint32_t>();
    if (m >= modules) return std::nullopt;
    b.module_of.push_back(static_cast<int>(m));
  }
  if (!r.ok || r.p != r.end || (b.tier != 1 && b.tier != 2)) return std::nullopt;
  return b;
}

}  // namespace

disk_cache& disk_cache::instance() {
  static disk_cache* cache = new disk_cache();  // leaked: usable until process exit
  return *cache;
}

disk_cache::disk_cache(const std::string& dir) {
  if (!dir.empty() && make_dirs(dir)) dir_ = dir;
}

disk_cache::disk_cache() {
  const char* off = std::getenv("CUPAR_DISABLE_DISK_CACHE");
  if (off != nullptr && *off != '\0' && std::string(off) != "0") return;
  std::string dir;
  if (const char* d = std::getenv("CUPAR_CACHE_DIR"); d != nullptr && *d != '\0') {
    dir = d;
  } else if (const char* x = std::getenv("XDG_CACHE_HOME"); x != nullptr && *x != '\0') {
    dir = std::string(x) + "/cupar";
  } else if (const char* h = std::getenv("HOME"); h != nullptr && *h != '\0') {
    dir = std::string(h) + "/.cache/cupar";
  }
  if (!dir.empty() && make_dirs(dir)) dir_ = dir;
}

std::string disk_cache::path_for(const std::string& key) const {
  char name[32];
  std::snprintf(name, sizeof name, "%016llx.cupar",
                static_cast<unsigned long long>(fnv1a(key.data(), key.size())));
  return dir_ + "/" + name;
}

std::optional<built_binary> disk_cache::load(const std::string& key) {
  if (!enabled()) return std::nullopt;
  auto reject = [&]() -> std::optional<built_binary> {
    engine_counters().disk_rejects++;
    return std::nullopt;
  };
  const std::string path = path_for(key);
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  // Not a regular file (a FIFO would block the read, a device could be endless) or too large
  // for an entry: not read.
  if (!S_ISREG(st.st_mode) || static_cast<std::uint64_t>(st.st_size) > max_entry_bytes) {
    return reject();
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  const std::string file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return reject();
  reader r{file.data(), file.data() + file.size()};
  const std::string m = r.bytes(sizeof magic);
  if (!r.ok || std::memcmp(m.data(), magic, sizeof magic) != 0) return reject();
  const auto key_size = r.get<std::uint64_t>();
  const auto payload_size = r.get<std::uint64_t>();
  const auto checksum = r.get<std::uint64_t>();
  const std::string stored_key = r.bytes(key_size);
  const std::string payload = r.bytes(payload_size);
  if (!r.ok || r.p != r.end) return reject();
  if (fnv1a(payload.data(), payload.size(), fnv1a(stored_key.data(), stored_key.size())) !=
      checksum) {
    return reject();
  }
  if (stored_key != key) return std::nullopt;  // another entry with the same hash: a plain miss
  auto binary = deserialize(payload);
  if (!binary) return reject();
  return binary;
}

bool disk_cache::store(const std::string& key, const built_binary& binary) {
  if (!enabled()) return false;
  const std::string payload = serialize(binary);
  std::string file(magic, sizeof magic);
  put_u64(file, key.size());
  put_u64(file, payload.size());
  put_u64(file, fnv1a(payload.data(), payload.size(), fnv1a(key.data(), key.size())));
  file += key;
  file += payload;
  if (file.size() > max_entry_bytes || !within_file_size_limit(file.size())) return false;
  remove_stale_temporaries();
  const std::string path = path_for(key);
  std::random_device rd;
  const std::string tmp =
      path + "." + std::to_string(::getpid()) + "." + std::to_string(rd()) + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return false;
    out.write(file.data(), static_cast<std::streamsize>(file.size()));
    // close() flushes: a full disk or a file size limit may only show here.
    out.close();
    if (!out) {
      std::remove(tmp.c_str());
      return false;
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return false;
  }
  engine_counters().disk_writes++;
  return true;
}

void disk_cache::remove_stale_temporaries() const {
  // "<hash>.cupar.<pid>.<random>.tmp" of a writer that died mid-write (killed, or the machine
  // went down) would stay forever: remove those whose process is gone, once they are old enough.
  DIR* d = ::opendir(dir_.c_str());
  if (d == nullptr) return;
  const auto now = std::time(nullptr);
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    const std::size_t cupar = name.find(".cupar.");
    if (cupar == std::string::npos || name.size() < 4 ||
        name.compare(name.size() - 4, 4, ".tmp") != 0) {
      continue;
    }
    const std::string rest = name.substr(cupar + 7);
    const long pid = std::strtol(rest.c_str(), nullptr, 10);
    if (pid <= 0 || pid == ::getpid()) continue;
    if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;  // alive, or unknown
    const std::string full = dir_ + "/" + name;
    struct stat st {};
    if (::stat(full.c_str(), &st) != 0 || now - st.st_mtime < stale_temp_seconds) continue;
    std::remove(full.c_str());
  }
  ::closedir(d);
}

}  // namespace cupar::detail::jit
