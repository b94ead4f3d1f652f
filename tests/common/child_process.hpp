// cupar tests: programs the tests start (the children of the fault, disk cache, exit and
// multi-process tests): where they are, and starting one with its output in a file.
#pragma once

#include <spawn.h>
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

extern char** environ;

namespace cupar::testing {

/// `name` in the directory of this executable (empty directory when /proc/self/exe is unreadable).
inline std::string sibling_executable(const std::string& name) {
  char self[PATH_MAX] = {};
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  const std::string path = n > 0 ? std::string(self, static_cast<std::size_t>(n)) : std::string();
  return path.substr(0, path.rfind('/') + 1) + name;
}

/// A started program: its pid (0: it could not be started) and the file of its output.
struct spawned_child {
  pid_t pid = 0;
  std::string output_file;
};

/// Starts the program argv[0] with the arguments `argv` and this environment, its stdout and
/// stderr into a new temporary file. Does not wait.
inline spawned_child spawn_child(const std::vector<std::string>& argv) {
  spawned_child c;
  char name[] = "/tmp/cupar_child_XXXXXX";
  const int fd = mkstemp(name);
  if (fd < 0) return c;
  c.output_file = name;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fd, 1);
  posix_spawn_file_actions_adddup2(&actions, fd, 2);
  std::vector<char*> args;
  for (const auto& a : argv)
    args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  if (posix_spawn(&c.pid, argv[0].c_str(), &actions, nullptr, args.data(), environ) != 0) {
    c.pid = 0;
  }
  posix_spawn_file_actions_destroy(&actions);
  close(fd);
  return c;
}

/// What the child wrote (call once it ended); removes the file.
inline std::string take_output(spawned_child& c) {
  std::stringstream text;
  text << std::ifstream(c.output_file).rdbuf();
  std::remove(c.output_file.c_str());
  c.output_file.clear();
  return text.str();
}

}  // namespace cupar::testing
