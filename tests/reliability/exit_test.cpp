// cupar tests: programs that end while the JIT's optimised builds are queued or running (issue
// 28, "exit is safe"). Runs cupar_exit_child many times, several at once (as ctest runs tests),
// each making new operators and then ending at a different moment after its calls (0 to 20 ms,
// while the background thread warms up, links, or has builds queued), by returning from main, by
// std::exit, after a caught compile error, or after a first operator whose links nvJitLink's
// cache may serve (the same in every process; the others new to the machine). Every run must print
// "ok" and exit 0: no crash, no hang. CUPAR_EXIT_RUNS (default 96) and CUPAR_EXIT_PARALLEL (default
// 8) set the count; the acceptance run is 1,000 runs, 16 at a time.
#include "common/child_process.hpp"
#include "common/gpu.hpp"

#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <thread>
#include <vector>

namespace cupar::testing {
namespace {

std::string child_path() {
  return sibling_executable("cupar_exit_child");
}

int env_or(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && std::atoi(v) > 0 ? std::atoi(v) : fallback;
}

struct running {
  spawned_child child;
  std::string what;
  std::chrono::steady_clock::time_point deadline;
};

TEST(Exit, WhileOptimisedBuildsAreQueuedOrRunningIsClean) {
  CUPAR_REQUIRE_GPU();
  const int runs = env_or("CUPAR_EXIT_RUNS", 96);
  const int parallel = env_or("CUPAR_EXIT_PARALLEL", 8);
  const char* modes[] = {"return", "exit", "after_error", "repeated_first"};
  const std::string path = child_path();
  std::vector<running> live;
  std::map<std::string, int> failures;  // what went wrong -> count
  std::string first_failures;
  int reported = 0;
  int started = 0, finished = 0;
  const auto start = std::chrono::steady_clock::now();
  while (finished < runs) {
    while (started < runs && static_cast<int>(live.size()) < parallel) {
      const int delay_us = (started * 7919) % 20000;  // spread over 0-20 ms
      const std::vector<std::string> args = {path, modes[started % 4], "3",
                                             std::to_string(delay_us), std::to_string(started)};
      running r{spawn_child(args), "",
                std::chrono::steady_clock::now() + std::chrono::seconds(120)};
      ASSERT_NE(r.child.pid, 0) << "cannot start " << path;
      for (std::size_t k = 1; k < args.size(); ++k)
        r.what += args[k] + " ";
      live.push_back(std::move(r));
      ++started;
    }
    for (std::size_t i = 0; i < live.size();) {
      int status = 0;
      const pid_t done = waitpid(live[i].child.pid, &status, WNOHANG);
      std::string verdict;
      if (done == live[i].child.pid) {
        if (WIFSIGNALED(status)) {
          verdict = std::string("signal ") + strsignal(WTERMSIG(status));
        } else if (WEXITSTATUS(status) != 0) {
          verdict = "exit status " + std::to_string(WEXITSTATUS(status));
        }
      } else if (std::chrono::steady_clock::now() > live[i].deadline) {
        kill(live[i].child.pid, SIGKILL);
        waitpid(live[i].child.pid, &status, 0);
        verdict = "hung (killed after 120 s)";
      } else {
        ++i;
        continue;
      }
      const std::string output = take_output(live[i].child);
      if (verdict.empty() && output.find("ok\n") == std::string::npos) verdict = "no \"ok\"";
      if (!verdict.empty()) {
        // By the way the run ended and what went wrong (the first word of `what` is the mode).
        ++failures[live[i].what.substr(0, live[i].what.find(' ')) + ": " + verdict];
        if (++reported <= 4) {  // the first failures' output (a crash's stack among it)
          first_failures += "cupar_exit_child " + live[i].what + ": " + verdict + "\n" + output;
        }
      }
      ++finished;
      live.erase(live.begin() + static_cast<std::ptrdiff_t>(i));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  int failed = 0;
  for (const auto& [what, count] : failures)
    failed += count;
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("cupar_exit_child: %d runs, %d at a time, %d failed, %.1f s\n", runs, parallel,
              failed, seconds);
  for (const auto& [what, count] : failures)
    std::printf("  %d: %s\n", count, what.c_str());
  EXPECT_EQ(failed, 0) << first_failures;
}

}  // namespace
}  // namespace cupar::testing
