// cupar tests: faults of the JIT's disk cache (issue 12), without a GPU. The cache's own source
// (src/jit/core/disk_cache.cpp) is compiled into this test, so its load / store / reject logic runs
// on real files: truncated, empty, bit-flipped and foreign entries, entries for another version
// or architecture, directories that cannot be written or created, a full file system and a file
// size limit, two processes writing one entry at once, and a writer killed in the middle. A load
// must return the entry that was stored or nothing, never something else, and nothing may crash.
// (tests/reliability/disk_cache_gpu_test.cpp runs the same faults through real calls on a GPU.)
#include "jit/core/disk_cache.hpp"

#include <gtest/gtest.h>

#include <dirent.h>
#include <fcntl.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

// The engine's counters, which disk_cache.cpp updates (the library's own are not visible here).
namespace cupar::detail::jit {
counters& engine_counters() {
  static counters c;
  return c;
}
}  // namespace cupar::detail::jit

namespace {

using cupar::detail::jit::built_binary;
using cupar::detail::jit::disk_cache;

const std::string key_90 =
    "cupar-jit/3 cupar=0.1.0 build=test cccl=3000100 nvrtc=13.0 nvjitlink=13.0 arch=90 tier=2\n"
    "set=reduce<f32>\nnamed=0\nsource=a + b\npreamble=\nparams=";

/// An entry of `cubin_bytes` in all: one module, or (seeds divisible by 3) two modules as an
/// optimised build linked kernel by kernel makes them, kernels B and C sharing the second.
built_binary make_binary(std::uint64_t seed, std::size_t cubin_bytes = 1000) {
  built_binary b;
  std::mt19937_64 rng(seed);
  std::vector<char> bytes(cubin_bytes);
  for (auto& c : bytes)
    c = static_cast<char>(rng());
  if (seed % 3 == 0) {
    b.modules.emplace_back(bytes.begin(), bytes.begin() + cubin_bytes / 2);
    b.modules.emplace_back(bytes.begin() + cubin_bytes / 2, bytes.end());
    b.module_of = {0, 1, 1};
  } else {
    b.modules.push_back(bytes);
  }
  b.kernels = {"_Z6kernelA" + std::to_string(seed), "_Z6kernelB", "_Z6kernelC"};
  b.meta = {256, 16, static_cast<long long>(seed), -7};
  // Tier-1 binaries of families that take the operators' parameters by reference carry the flag.
  b.tier = seed % 4 == 1 ? 1 : 2;
  b.precompiled = true;
  b.register_capped = seed % 2 == 0;
  b.states_by_reference = b.tier == 1;
  return b;
}

bool same(const built_binary& a, const built_binary& b) {
  return a.modules == b.modules && a.module_of == b.module_of && a.kernels == b.kernels &&
         a.meta == b.meta && a.tier == b.tier && a.precompiled == b.precompiled &&
         a.register_capped == b.register_capped && a.states_by_reference == b.states_by_reference;
}

std::uint64_t rejects() {
  return cupar::detail::jit::engine_counters().disk_rejects.load();
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::vector<std::string> files_in(const std::string& dir) {
  std::vector<std::string> names;
  if (DIR* d = opendir(dir.c_str())) {
    while (const dirent* e = readdir(d)) {
      const std::string n = e->d_name;
      if (n != "." && n != "..") names.push_back(n);
    }
    closedir(d);
  }
  return names;
}

/// A fresh directory, removed with its files afterwards.
class temp_dir {
 public:
  temp_dir() {
    char tmpl[] = "/tmp/cupar_disk_cache_XXXXXX";
    const char* d = mkdtemp(tmpl);
    if (d == nullptr) std::abort();
    path_ = d;
  }
  ~temp_dir() {
    chmod(path_.c_str(), 0700);
    for (const auto& n : files_in(path_))
      std::remove((path_ + "/" + n).c_str());
    rmdir(path_.c_str());
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

/// Runs `child` in a forked process; returns its exit status (or 128 + signal).
template <class F>
int in_child(F&& child) {
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    int code = 1;
    try {
      code = child();
    } catch (...) {
      code = 3;
    }
    _exit(code);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

TEST(DiskCache, StoresAndLoadsAnEntry) {
  temp_dir dir;
  disk_cache cache(dir.path());
  ASSERT_TRUE(cache.enabled());
  EXPECT_FALSE(cache.load(key_90).has_value()) << "empty cache";
  const built_binary b = make_binary(1);
  ASSERT_TRUE(cache.store(key_90, b));
  const auto loaded = cache.load(key_90);
  ASSERT_TRUE(loaded.has_value());
  EXPECT_TRUE(same(*loaded, b));
  EXPECT_EQ(files_in(dir.path()).size(), 1u) << "no temporary file left";
  // Another process (another cache object on the same directory) sees it.
  disk_cache other(dir.path());
  ASSERT_TRUE(other.load(key_90).has_value());
}

TEST(DiskCache, EveryTruncationAndTheEmptyFileAreRejected) {
  temp_dir dir;
  disk_cache cache(dir.path());
  ASSERT_TRUE(cache.store(key_90, make_binary(2, 300)));
  const std::string path = cache.path_for(key_90);
  const std::string whole = read_file(path);
  for (std::size_t length = 0; length < whole.size(); ++length) {
    write_file(path, whole.substr(0, length));
    const std::uint64_t before = rejects();
    EXPECT_FALSE(cache.load(key_90).has_value()) << "truncated to " << length;
    EXPECT_EQ(rejects(), before + 1) << "truncated to " << length;
  }
  write_file(path, whole + "x");  // one byte too many
  EXPECT_FALSE(cache.load(key_90).has_value());
  write_file(path, whole);
  EXPECT_TRUE(cache.load(key_90).has_value());
}

TEST(DiskCache, EveryBitFlipIsRejected) {
  temp_dir dir;
  disk_cache cache(dir.path());
  const built_binary b = make_binary(3, 200);
  ASSERT_TRUE(cache.store(key_90, b));
  const std::string path = cache.path_for(key_90);
  const std::string whole = read_file(path);
  int accepted = 0;
  for (std::size_t i = 0; i < whole.size(); ++i) {
    for (int bit = 0; bit < 8; ++bit) {
      std::string flipped = whole;
      flipped[i] = static_cast<char>(flipped[i] ^ (1 << bit));
      write_file(path, flipped);
      if (cache.load(key_90).has_value()) ++accepted;
    }
  }
  EXPECT_EQ(accepted, 0) << "of " << whole.size() * 8 << " single-bit flips";
  write_file(path, whole);
  ASSERT_TRUE(cache.load(key_90).has_value());
  EXPECT_TRUE(same(*cache.load(key_90), b));
}

/// The file of a valid entry for `stored_key`, written where `key` is looked up.
void plant_foreign_entry(const disk_cache& cache, const std::string& key,
                         const std::string& stored_key, const temp_dir& scratch) {
  disk_cache other(scratch.path());
  ASSERT_TRUE(other.store(stored_key, make_binary(9)));
  write_file(cache.path_for(key), read_file(other.path_for(stored_key)));
}

TEST(DiskCache, EntriesOfAnotherVersionOrArchitectureAreMisses) {
  temp_dir dir, scratch;
  disk_cache cache(dir.path());
  auto replaced = [](std::string k, const std::string& from, const std::string& to) {
    const std::size_t at = k.find(from);
    EXPECT_NE(at, std::string::npos);
    return k.replace(at, from.size(), to);
  };
  for (const std::string& foreign :
       {replaced(key_90, "arch=90", "arch=80"), replaced(key_90, "cupar=0.1.0", "cupar=0.0.9"),
        replaced(key_90, "nvrtc=13.0", "nvrtc=12.4"), replaced(key_90, "tier=2", "tier=1"),
        replaced(key_90, "a + b", "a - b")}) {
    SCOPED_TRACE(foreign);
    plant_foreign_entry(cache, key_90, foreign, scratch);
    EXPECT_FALSE(cache.load(key_90).has_value());
  }
  // An entry of another format version (magic CUPARJC2) is rejected.
  ASSERT_TRUE(cache.store(key_90, make_binary(4)));
  std::string file = read_file(cache.path_for(key_90));
  file[7] = '2';
  write_file(cache.path_for(key_90), file);
  const std::uint64_t before = rejects();
  EXPECT_FALSE(cache.load(key_90).has_value());
  EXPECT_EQ(rejects(), before + 1);
  // A store replaces the foreign entry.
  ASSERT_TRUE(cache.store(key_90, make_binary(5)));
  ASSERT_TRUE(cache.load(key_90).has_value());
  EXPECT_TRUE(same(*cache.load(key_90), make_binary(5)));
}

TEST(DiskCache, ForgedSizesAndNonFilesAreRejectedQuickly) {
  temp_dir dir;
  disk_cache cache(dir.path());
  const std::string path = cache.path_for(key_90);
  // A header declaring huge sizes: rejected without allocating them.
  for (std::uint64_t declared :
       {std::uint64_t(1) << 62, ~std::uint64_t(0), std::uint64_t(1) << 33}) {
    std::string file = "CUPARJC1";
    file.append(reinterpret_cast<const char*>(&declared), 8);
    file.append(reinterpret_cast<const char*>(&declared), 8);
    file.append(8, '\0');
    file += key_90;
    write_file(path, file);
    EXPECT_FALSE(cache.load(key_90).has_value());
  }
  // A directory, a FIFO (a read would block for ever) and a link to /dev/zero (endless) where
  // the entry should be: rejected at once.
  std::remove(path.c_str());
  ASSERT_EQ(mkdir(path.c_str(), 0700), 0);
  EXPECT_FALSE(cache.load(key_90).has_value());
  rmdir(path.c_str());
  ASSERT_EQ(mkfifo(path.c_str(), 0600), 0);
  const auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(cache.load(key_90).has_value());
  std::remove(path.c_str());
  ASSERT_EQ(symlink("/dev/zero", path.c_str()), 0);
  EXPECT_FALSE(cache.load(key_90).has_value());
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  std::remove(path.c_str());
  // And the cache works afterwards.
  ASSERT_TRUE(cache.store(key_90, make_binary(6)));
  EXPECT_TRUE(cache.load(key_90).has_value());
}

TEST(DiskCache, AReadOnlyDirectoryServesItsEntriesAndTakesNoNewOnes) {
  temp_dir dir;
  {
    disk_cache writer(dir.path());
    ASSERT_TRUE(writer.store(key_90, make_binary(7)));
  }
  ASSERT_EQ(chmod(dir.path().c_str(), 0555), 0);
  // Root ignores permissions: the check runs as an unprivileged user in a child then.
  const int status = in_child([&] {
    if (geteuid() == 0) {
      const passwd* nobody = getpwnam("nobody");
      if (nobody == nullptr || setgid(nobody->pw_gid) != 0 || setuid(nobody->pw_uid) != 0) {
        return 10;
      }
    }
    disk_cache cache(dir.path());
    if (!cache.enabled()) return 11;
    const auto loaded = cache.load(key_90);
    if (!loaded || !same(*loaded, make_binary(7))) return 12;
    if (cache.store(key_90 + "x", make_binary(8))) return 13;  // cannot write
    if (cache.load(key_90 + "x").has_value()) return 14;
    return 0;
  });
  EXPECT_EQ(status, 0) << "10: could not drop privileges; 11: disabled; 12: entry not served; "
                          "13: store succeeded; 14: served what was never stored";
  chmod(dir.path().c_str(), 0700);
  EXPECT_EQ(files_in(dir.path()).size(), 1u) << "no temporary files left";
}

TEST(DiskCache, ADirectoryThatCannotBeCreatedDisablesTheCache) {
  temp_dir dir;
  const std::string file = dir.path() + "/a_file";
  write_file(file, "x");
  for (const std::string& where : {file + "/cache", file, std::string("/proc/cupar_cache")}) {
    SCOPED_TRACE(where);
    disk_cache cache(where);
    EXPECT_FALSE(cache.enabled());
    EXPECT_FALSE(cache.store(key_90, make_binary(1)));
    EXPECT_FALSE(cache.load(key_90).has_value());
  }
}

TEST(DiskCache, AFileSizeLimitNeitherKillsTheProcessNorLeavesAPartialEntry) {
  temp_dir dir;
  for (bool ignore_signal : {false, true}) {
    SCOPED_TRACE(ignore_signal ? "SIGXFSZ ignored" : "SIGXFSZ default (would end the process)");
    const int status = in_child([&] {
      if (ignore_signal) signal(SIGXFSZ, SIG_IGN);
      const rlimit limit{4096, 4096};
      if (setrlimit(RLIMIT_FSIZE, &limit) != 0) return 10;
      disk_cache cache(dir.path());
      const std::string key = key_90 + (ignore_signal ? "1" : "2");
      if (cache.store(key, make_binary(1, 100000))) return 11;  // 100 KB > 4 KiB
      if (cache.load(key).has_value()) return 12;
      if (!cache.store(key, make_binary(2, 1000))) return 13;  // fits: stored
      if (!cache.load(key).has_value()) return 14;
      return 0;
    });
    EXPECT_EQ(status, 0) << "11: a store past the limit succeeded; 12: partial entry served; "
                            "13/14: a store within the limit failed; 128+n: killed by signal n";
  }
  EXPECT_EQ(files_in(dir.path()).size(), 2u) << "only the entries that fitted";
}

// A file system that fills up while the entry is written (a 64 KiB tmpfs mounted in a child's
// own mount namespace): the write fails at close(), nothing is renamed into place.
TEST(DiskCache, AFullFileSystemLeavesNoPartialEntry) {
  temp_dir dir;
  const int status = in_child([&] {
    if (unshare(CLONE_NEWNS) != 0) return 77;
    if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) return 77;
    if (mount("tmpfs", dir.path().c_str(), "tmpfs", 0, "size=64k") != 0) return 77;
    disk_cache cache(dir.path());
    if (!cache.enabled()) return 10;
    if (!cache.store(key_90, make_binary(1, 20000))) return 11;          // fits
    if (cache.store(key_90 + "big", make_binary(2, 200000))) return 12;  // does not
    if (cache.load(key_90 + "big").has_value()) return 13;
    const auto small = cache.load(key_90);
    if (!small || !same(*small, make_binary(1, 20000))) return 14;
    if (files_in(dir.path()).size() != 1) return 15;  // no temporary file left
    return 0;
  });
  if (status == 77) GTEST_SKIP() << "cannot mount a small tmpfs here (needs CAP_SYS_ADMIN)";
  EXPECT_EQ(status, 0) << "11: a store that fits failed; 12: a store that cannot fit succeeded; "
                          "13: a partial entry was served; 14: the earlier entry was lost; 15: a "
                          "temporary file was left";
}

TEST(DiskCache, TwoProcessesWritingOneEntryAtOnce) {
  temp_dir dir;
  const built_binary a = make_binary(11, 50000), b = make_binary(12, 70000);
  std::vector<pid_t> writers;
  for (const built_binary* mine : {&a, &b}) {
    std::fflush(nullptr);
    const pid_t pid = fork();
    if (pid == 0) {
      disk_cache cache(dir.path());
      for (int i = 0; i < 300; ++i) {
        if (!cache.store(key_90, *mine)) _exit(1);
      }
      _exit(0);
    }
    writers.push_back(pid);
  }
  disk_cache reader(dir.path());
  int loads = 0, found = 0, wrong = 0, writer_failures = 0;
  std::vector<bool> finished(writers.size(), false);
  while (!(finished[0] && finished[1])) {
    if (const auto got = reader.load(key_90)) {
      ++found;
      if (!same(*got, a) && !same(*got, b)) ++wrong;
    }
    ++loads;
    for (std::size_t i = 0; i < writers.size(); ++i) {
      int status = 0;
      if (!finished[i] && waitpid(writers[i], &status, WNOHANG) == writers[i]) {
        finished[i] = true;
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) ++writer_failures;
      }
    }
  }
  EXPECT_EQ(writer_failures, 0) << "every store of both writers succeeded";
  EXPECT_EQ(wrong, 0) << "of " << found << " entries read while two processes wrote";
  EXPECT_GT(found, 0) << loads << " loads";
  const auto last = reader.load(key_90);
  ASSERT_TRUE(last.has_value());
  EXPECT_TRUE(same(*last, a) || same(*last, b));
  EXPECT_EQ(files_in(dir.path()).size(), 1u) << "no temporary files left";
}

TEST(DiskCache, AWriterKilledMidWriteLeavesTheOldEntryAndItsTemporaryIsCleanedUp) {
  temp_dir dir;
  const built_binary old_entry = make_binary(21, 1000);
  {
    disk_cache cache(dir.path());
    ASSERT_TRUE(cache.store(key_90, old_entry));
  }
  const built_binary big = make_binary(22, std::size_t(48) << 20);  // long enough to interrupt
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    disk_cache cache(dir.path());
    for (;;)
      cache.store(key_90, big);
  }
  // Kill it while a temporary file exists (it is being written).
  bool seen = false;
  for (int i = 0; i < 20000 && !seen; ++i) {
    for (const auto& n : files_in(dir.path()))
      seen = seen || n.find(".tmp") != std::string::npos;
    if (!seen) usleep(100);
  }
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  ASSERT_TRUE(seen) << "the writer never started a temporary file";
  disk_cache cache(dir.path());
  const auto got = cache.load(key_90);
  ASSERT_TRUE(got.has_value());
  EXPECT_TRUE(same(*got, old_entry) || same(*got, big)) << "a complete entry, never a partial one";
  // The dead writer's temporary file stays until it is old enough, then the next store removes
  // it (its process is gone).
  std::string temp;
  for (const auto& n : files_in(dir.path())) {
    if (n.find(".tmp") != std::string::npos) temp = dir.path() + "/" + n;
  }
  if (!temp.empty()) {  // the kill may have landed between a rename and the next open
    ASSERT_TRUE(cache.store(key_90 + "other", make_binary(23)));
    EXPECT_EQ(access(temp.c_str(), F_OK), 0) << "a young temporary file is left alone";
    const timeval old_times[2] = {{std::time(nullptr) - 3600, 0}, {std::time(nullptr) - 3600, 0}};
    ASSERT_EQ(utimes(temp.c_str(), old_times), 0);
    ASSERT_TRUE(cache.store(key_90 + "another", make_binary(24)));
    EXPECT_NE(access(temp.c_str(), F_OK), 0) << "the dead writer's temporary file was removed";
  }
}

}  // namespace
