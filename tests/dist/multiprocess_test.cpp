// cupar tests: the distributed algorithms with one process per GPU, bootstrapped through a file
// (no MPI): launches cupar_dist_worker once per GPU (at least two), each running every case of
// tests/dist/cases.cuh on its rank, and checks that all of them passed. Skips with fewer than
// two GPUs.
#include "common/child_process.hpp"
#include "common/gpu.hpp"

#include <gtest/gtest.h>

#include <cuda_runtime_api.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

extern char** environ;

namespace {

#ifndef CUPAR_DIST_WORKER
#error "CUPAR_DIST_WORKER must name the worker executable"
#endif

struct child {
  pid_t pid = -1;
  std::string log;
};

/// The worker: beside this executable (a build tree moved elsewhere), else where it was built.
std::string worker_path() {
  const std::string beside = cupar::testing::sibling_executable("cupar_dist_worker");
  if (access(beside.c_str(), X_OK) == 0) return beside;
  return CUPAR_DIST_WORKER;
}

int launch_and_wait(int size, const std::string& dir, std::vector<std::string>& logs) {
  const std::string worker = worker_path();
  const std::string id_file = dir + "/nccl.id";
  std::remove(id_file.c_str());
  std::vector<child> children(static_cast<std::size_t>(size));
  for (int r = 0; r < size; ++r) {
    auto& c = children[static_cast<std::size_t>(r)];
    c.log = dir + "/rank" + std::to_string(r) + ".log";
    const std::string rank = std::to_string(r), n = std::to_string(size);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, c.log.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    std::vector<char*> argv{const_cast<char*>(worker.c_str()), const_cast<char*>(rank.c_str()),
                            const_cast<char*>(n.c_str()), const_cast<char*>(id_file.c_str()),
                            nullptr};
    const int e = posix_spawn(&c.pid, worker.c_str(), &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (e != 0) return -1;
  }
  int worst = 0;
  for (auto& c : children) {
    int status = 0;
    waitpid(c.pid, &status, 0);
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    worst = std::max(worst, code);
    std::ifstream in(c.log);
    std::stringstream ss;
    ss << in.rdbuf();
    logs.push_back(ss.str());
  }
  std::remove(id_file.c_str());
  return worst;
}

TEST(DistMultiProcess, EveryCaseOnEveryRankWithOneProcessPerGpu) {
  CUPAR_REQUIRE_GPU();
  int devices = 0;
  cudaGetDeviceCount(&devices);
  if (devices < 2) GTEST_SKIP() << "needs two GPUs, this machine has " << devices;
  char tmpl[] = "/tmp/cupar_dist_XXXXXX";
  const char* dir = mkdtemp(tmpl);
  ASSERT_NE(dir, nullptr);
  std::vector<std::string> logs;
  const int worst = launch_and_wait(devices, dir, logs);
  for (std::size_t r = 0; r < logs.size(); ++r) {
    std::istringstream lines(logs[r]);
    std::string line;
    int passed = 0;
    while (std::getline(lines, line)) {
      if (line.rfind("PASS ", 0) == 0) ++passed;
      if (line.rfind("FAIL ", 0) == 0 || line.rfind("ERROR ", 0) == 0) ADD_FAILURE() << line;
    }
    EXPECT_EQ(passed, 8) << "rank " << r << " log:\n" << logs[r];
  }
  EXPECT_EQ(worst, 0);
  RecordProperty("processes", devices);
}

}  // namespace
