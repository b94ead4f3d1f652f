// cupar tests: run-time operators that fault on the GPU (issue 12): __trap(), wild reads and
// writes, integer division by zero, and recovery with cudaDeviceReset. Each case runs in a child
// process (cupar_fault_child) because a device fault makes the process's CUDA context unusable;
// this process checks what the child reports, that it neither crashed nor hung, and that its own
// context still works. Labelled `fault`: scripts/sanitize.sh leaves it out (memcheck would report
// the planted faults, which are the point here).
#include "common/child_process.hpp"
#include "common/gpu.hpp"
#include "common/streams.hpp"

#include <cupar/cupar.hpp>

#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

namespace cupar::testing {
namespace {

std::string child_path() {
  return sibling_executable("cupar_fault_child");
}

struct child_result {
  int status = -1;  // exit code, 128 + signal, or -2: killed after the time limit
  std::string output;
};

child_result run_child(const std::string& mode, int seconds = 120) {
  child_result r;
  spawned_child c = spawn_child({child_path(), mode});
  if (c.pid == 0) return r;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  int status = 0;
  for (;;) {
    const pid_t done = waitpid(c.pid, &status, WNOHANG);
    if (done == c.pid) {
      r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      break;
    }
    if (std::chrono::steady_clock::now() > deadline) {
      kill(c.pid, SIGKILL);
      waitpid(c.pid, &status, 0);
      r.status = -2;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  r.output = take_output(c);
  return r;
}

bool has(const std::string& s, const std::string& needle) {
  return s.find(needle) != std::string::npos;
}

/// This process's context is not affected by the child's fault.
void expect_parent_works() {
  owned_stream s;
  std::vector<int> h(5000, 3);
  device_buffer<int> in(h, s);
  EXPECT_EQ(cupar::reduce_value(in.data(), h.size(), cupar::jit::op("a + b"), 0, s), 15000);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

class Fault : public ::testing::TestWithParam<const char*> {};

TEST_P(Fault, IsReportedAsATypedErrorWithoutCrashOrHang) {
  CUPAR_REQUIRE_GPU();
  const std::string mode = GetParam();
  const child_result r = run_child(mode);
  ASSERT_NE(r.status, -2) << "the child hung:\n" << r.output;
  ASSERT_LT(r.status, 128) << "the child crashed:\n" << r.output;
  EXPECT_EQ(r.status, 0) << r.output;
  if (mode == "trap" || mode == "recover" || mode == "wild_read") {
    // The call that synchronised names itself, and says the context is gone.
    EXPECT_TRUE(has(r.output, "fault call: cupar::reduce_value")) << r.output;
    EXPECT_TRUE(has(r.output, "the CUDA context is unusable after this error")) << r.output;
  }
  if (mode == "recover") {
    // Right results, or (as CUDA documents for these errors) a typed error from every call.
    EXPECT_TRUE(has(r.output, "after reset: 200000 200000 2") ||
                has(r.output, "after reset: typed error"))
        << r.output;
  }
  std::printf("--- cupar_fault_child %s\n%s", mode.c_str(), r.output.c_str());
  expect_parent_works();
}

INSTANTIATE_TEST_SUITE_P(RunTimeOperators, Fault,
                         ::testing::Values("trap", "wild_read", "wild_write", "sort_trap",
                                           "divide_by_zero", "recover"),
                         [](const auto& info) { return std::string(info.param); });

// A malformed operator given to an algorithm call: the typed error names the call.
TEST(CompileErrors, NameTheCall) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  std::vector<float> h(1000, 1.0f);
  device_buffer<float> in(h, s), out(1000, s);
  try {
    cupar::transform(in.data(), out.data(), 1000, cupar::jit::op("x +"), s);
    FAIL() << "expected cupar::jit_error";
  } catch (const cupar::jit_error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("cupar::transform: run-time operator failed", 0), 0u)
        << e.what();
  }
  try {
    (void)cupar::reduce_value(in.data(), 1000,
                              cupar::jit::op::untrusted("#include \"/etc/passwd\"\na"), 0.0f, s);
    FAIL() << "expected cupar::jit_error";
  } catch (const cupar::jit_error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("cupar::reduce_value: run-time operator failed", 0), 0u)
        << e.what();
    EXPECT_FALSE(has(e.what(), "root:")) << e.what();
  }
  expect_parent_works();
}

}  // namespace
}  // namespace cupar::testing
