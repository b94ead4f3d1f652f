// cupar tests: faults of the JIT's disk cache through real calls on a GPU (issue 12). Each step
// runs cupar_disk_cache_child in a fresh process (so only the disk can serve the build) on a
// cache directory whose entry this test has damaged: truncated, emptied, bit-flipped, written
// for another version or architecture, or holding a binary the driver refuses although its
// checksum is right; and two processes that build and store one entry at once. Every run must
// give the right result, from the disk when the entry is sound and from a compile otherwise.
// (disk_cache_test.cpp covers the same faults and more on the files alone, without a GPU.)
#include "common/child_process.hpp"
#include "common/gpu.hpp"

#include <gtest/gtest.h>

#include <dirent.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

extern char** environ;

namespace {

struct child_run {
  int status = -1;
  long hits = -1, rejects = -1, writes = -1, compiles = -1;
  std::string output;
};

std::string sibling(const char* name) {
  return cupar::testing::sibling_executable(name);
}

pid_t spawn(const std::string& dir, const std::string& source, const std::string& out_file) {
  std::vector<std::string> env_text;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string v = *e;
    if (v.rfind("CUPAR_DISABLE_DISK_CACHE=", 0) == 0 || v.rfind("CUPAR_CACHE_DIR=", 0) == 0 ||
        v.rfind("CUPAR_JIT_MODE=", 0) == 0) {
      continue;
    }
    env_text.push_back(v);
  }
  env_text.push_back("CUPAR_CACHE_DIR=" + dir);
  env_text.push_back("CUPAR_JIT_MODE=optimized");
  std::vector<char*> env;
  for (auto& v : env_text)
    env.push_back(v.data());
  env.push_back(nullptr);
  const std::string path = sibling("cupar_disk_cache_child");
  std::vector<char*> argv = {const_cast<char*>(path.c_str()), const_cast<char*>(source.c_str()),
                             nullptr};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, out_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0600);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid = -1;
  if (posix_spawn(&pid, path.c_str(), &actions, nullptr, argv.data(), env.data()) != 0) pid = -1;
  posix_spawn_file_actions_destroy(&actions);
  return pid;
}

child_run finish(pid_t pid, const std::string& out_file) {
  child_run r;
  int status = 0;
  if (pid > 0 && waitpid(pid, &status, 0) == pid) {
    r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
  std::ifstream in(out_file);
  std::stringstream text;
  text << in.rdbuf();
  r.output = text.str();
  std::remove(out_file.c_str());
  const std::size_t at = r.output.find("stats: ");
  if (at != std::string::npos) {
    std::sscanf(r.output.c_str() + at, "stats: hits=%ld rejects=%ld writes=%ld compiles=%ld",
                &r.hits, &r.rejects, &r.writes, &r.compiles);
  }
  return r;
}

child_run run_child(const std::string& dir, const std::string& source) {
  const std::string out = dir + ".out";
  return finish(spawn(dir, source, out), out);
}

// --- the entry file: magic, key size, payload size, checksum, key, payload ------------------

std::uint64_t fnv1a(const std::string& s, std::uint64_t h = 1469598103934665603ull) {
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

struct entry {
  std::string path, magic, key, payload;
  void save() const {
    std::string file = magic;
    const std::uint64_t sizes[3] = {key.size(), payload.size(), fnv1a(payload, fnv1a(key))};
    file.append(reinterpret_cast<const char*>(sizes), sizeof sizes);
    file += key + payload;
    std::ofstream(path, std::ios::binary | std::ios::trunc).write(file.data(), file.size());
  }
};

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

/// The only entry in `dir`.
entry only_entry(const std::string& dir) {
  entry e;
  if (DIR* d = opendir(dir.c_str())) {
    while (const dirent* f = readdir(d)) {
      const std::string n = f->d_name;
      if (n.size() > 6 && n.compare(n.size() - 6, 6, ".cupar") == 0) e.path = dir + "/" + n;
    }
    closedir(d);
  }
  const std::string file = read_file(e.path);
  if (file.size() < 32) return e;
  std::uint64_t sizes[3];
  std::memcpy(sizes, file.data() + 8, sizeof sizes);
  e.magic = file.substr(0, 8);
  e.key = file.substr(32, sizes[0]);
  e.payload = file.substr(32 + sizes[0], sizes[1]);
  return e;
}

class temp_dir {
 public:
  temp_dir() {
    char tmpl[] = "/tmp/cupar_disk_gpu_XXXXXX";
    path_ = mkdtemp(tmpl);
  }
  ~temp_dir() {
    if (DIR* d = opendir(path_.c_str())) {
      while (const dirent* f = readdir(d)) {
        const std::string n = f->d_name;
        if (n != "." && n != "..") std::remove((path_ + "/" + n).c_str());
      }
      closedir(d);
    }
    rmdir(path_.c_str());
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

const std::string source = "a + b * 1.0f";  // one operator: its optimised build is the entry

/// A cache holding the operator's entry, written by a first run.
void populate(const temp_dir& dir) {
  const child_run first = run_child(dir.path(), source);
  ASSERT_EQ(first.status, 0) << first.output;
  EXPECT_EQ(first.hits, 0) << first.output;
  EXPECT_EQ(first.writes, 1) << first.output;
  ASSERT_FALSE(only_entry(dir.path()).path.empty());
}

/// A run on the damaged cache: right result; `served` from the disk, else rebuilt and stored.
void expect_run(const temp_dir& dir, bool served, bool rejected) {
  const child_run r = run_child(dir.path(), source);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(r.hits, served ? 1 : 0) << r.output;
  EXPECT_EQ(r.rejects, rejected ? 1 : 0) << r.output;
  EXPECT_EQ(r.writes, served ? 0 : 1) << r.output;
  EXPECT_EQ(r.compiles, served ? 0 : 1) << r.output;
  if (!served) {  // the rebuilt entry replaced the damaged one and serves the next process
    const child_run next = run_child(dir.path(), source);
    ASSERT_EQ(next.status, 0) << next.output;
    EXPECT_EQ(next.hits, 1) << next.output;
  }
}

TEST(DiskCacheOnGpu, SoundEntriesAreServedAndDamagedOnesRebuilt) {
  CUPAR_REQUIRE_GPU();
  {
    SCOPED_TRACE("sound entry");
    temp_dir dir;
    populate(dir);
    expect_run(dir, true, false);
  }
  {
    SCOPED_TRACE("truncated to half");
    temp_dir dir;
    populate(dir);
    const entry e = only_entry(dir.path());
    const std::string file = read_file(e.path);
    std::ofstream(e.path, std::ios::binary | std::ios::trunc).write(file.data(), file.size() / 2);
    expect_run(dir, false, true);
  }
  {
    SCOPED_TRACE("empty file");
    temp_dir dir;
    populate(dir);
    std::ofstream(only_entry(dir.path()).path, std::ios::trunc);
    expect_run(dir, false, true);
  }
  {
    SCOPED_TRACE("one bit flipped in the binary");
    temp_dir dir;
    populate(dir);
    const entry e = only_entry(dir.path());
    std::string file = read_file(e.path);
    file[file.size() - 100] = static_cast<char>(file[file.size() - 100] ^ 0x10);
    std::ofstream(e.path, std::ios::binary | std::ios::trunc).write(file.data(), file.size());
    expect_run(dir, false, true);
  }
  {
    SCOPED_TRACE("another format version");
    temp_dir dir;
    populate(dir);
    entry e = only_entry(dir.path());
    e.magic[7] = '9';
    e.save();
    expect_run(dir, false, true);
  }
  for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
           {"cupar=", "cupar=9"}, {"nvrtc=", "nvrtc=9"}, {"arch=", "arch=1"}}) {
    SCOPED_TRACE("an entry of another " + from + " at this entry's path");
    temp_dir dir;
    populate(dir);
    entry e = only_entry(dir.path());
    const std::size_t at = e.key.find(from);
    ASSERT_NE(at, std::string::npos) << e.key;
    e.key.replace(at, from.size(), to);
    e.save();
    expect_run(dir, false, false);  // a valid entry for another key: a plain miss
  }
  {
    SCOPED_TRACE("a binary the driver refuses, with a valid checksum");
    temp_dir dir;
    populate(dir);
    entry e = only_entry(dir.path());
    const std::size_t elf = e.payload.find(
        "\x7f"
        "ELF");  // the cubin's header
    ASSERT_NE(elf, std::string::npos);
    e.payload.replace(elf, 4, "NOPE");
    e.save();
    expect_run(dir, false, true);
  }
}

TEST(DiskCacheOnGpu, TwoProcessesBuildingOneEntryAtOnce) {
  CUPAR_REQUIRE_GPU();
  temp_dir dir;
  const std::string out_a = dir.path() + ".a", out_b = dir.path() + ".b";
  const pid_t a = spawn(dir.path(), source, out_a);
  const pid_t b = spawn(dir.path(), source, out_b);
  const child_run ra = finish(a, out_a), rb = finish(b, out_b);
  ASSERT_EQ(ra.status, 0) << ra.output;
  ASSERT_EQ(rb.status, 0) << rb.output;
  EXPECT_EQ(ra.rejects + rb.rejects, 0);
  const child_run next = run_child(dir.path(), source);
  ASSERT_EQ(next.status, 0) << next.output;
  EXPECT_EQ(next.hits, 1) << next.output;
}

}  // namespace
