// cupar tests: a program that ends while the JIT's optimised builds are queued or running (issue
// 28). Started by exit_test.cpp, many times at once. It makes new run-time operators (each one's
// quick build, then its optimised build queued on the background thread), checks their results,
// waits `delay_us`, then ends the way `mode` says; it prints "ok" before it ends, and exits 0,
// 1 for a wrong result, 77 without a GPU. On SIGSEGV, SIGABRT or SIGBUS it prints which thread
// crashed (the main one or another) and that thread's stack before it dies of the signal.
//
// Every operator's code is new to the machine: an inline-assembly comment with the process id and
// the time, so that nvJitLink's cache (which a CUDA driver keeps across processes) serves none of
// its links and every build really runs nvJitLink's LTO when the program ends. Operators that
// differ only in text (`a + b + 7 * 0`) compile to the same code, and after the first process
// every link was served from that cache.
//
//   cupar_exit_child return|exit|after_error|repeated_first <operators> <delay_us> <seed>
//     return          returns from main
//     exit            calls std::exit(0) from a function
//     after_error     the first operator is malformed (its typed error caught), then returns
//     repeated_first  the first operator is the same `a + b` in every process (its links served
//                     from nvJitLink's cache after the first process: the process's first LTO
//                     link may be served), the others new; returns from main
#include <cupar/cupar.hpp>

#include <cuda_runtime_api.h>

#include <execinfo.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

namespace {

long main_thread = 0;

/// On a crash: which thread (the main one or another) and its stack, on stderr (the test prints
/// the output of the first failures), then the signal's default action.
void report_crash(int sig) {
  const long self = static_cast<long>(syscall(SYS_gettid));
  char line[96];
  const int len = std::snprintf(line, sizeof line, "cupar_exit_child: signal %d in %s thread\n",
                                sig, self == main_thread ? "the main" : "another");
  if (len > 0) (void)!write(2, line, static_cast<std::size_t>(len));
  void* frames[48];
  backtrace_symbols_fd(frames, backtrace(frames, 48), 2);
  signal(sig, SIG_DFL);
  raise(sig);
}

[[noreturn]] void end_with_exit() {
  std::exit(0);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(
        stderr, "usage: cupar_exit_child return|exit|after_error|repeated_first N DELAY_US SEED\n");
    return 2;
  }
  main_thread = static_cast<long>(syscall(SYS_gettid));
  {
    void* warm[1];
    (void)backtrace(warm, 1);  // loads libgcc before any crash
  }
  signal(SIGSEGV, report_crash);
  signal(SIGABRT, report_crash);
  signal(SIGBUS, report_crash);
  const std::string mode = argv[1];
  const int operators = std::atoi(argv[2]);
  const int delay_us = std::atoi(argv[3]);
  const int seed = std::atoi(argv[4]);
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) return 77;
  const std::size_t n = 100000;
  std::vector<int> h(n, 1);
  int* d = nullptr;
  cudaStream_t s = nullptr;
  if (cudaStreamCreate(&s) != cudaSuccess) return 1;
  if (cudaMalloc(reinterpret_cast<void**>(&d), n * sizeof(int)) != cudaSuccess) return 1;
  cudaMemcpy(d, h.data(), n * sizeof(int), cudaMemcpyHostToDevice);
  if (mode == "after_error") {
    try {
      (void)cupar::reduce_value(d, n, cupar::jit::op("a + "), 0, s);
      std::printf("no error for a malformed operator\n");
      return 1;
    } catch (const cupar::jit_error&) {
    }
  }
  const std::string nonce =
      std::to_string(::getpid()) + "-" +
      std::to_string(std::chrono::steady_clock::now().time_since_epoch().count());
  for (int i = 0; i < operators; ++i) {
    // A new operator each time, new to this machine (the seed and the nonce keep concurrent and
    // earlier children's code apart), but for repeated_first's first one.
    std::string text = "a + b";
    if (mode != "repeated_first" || i > 0) {
      text = "[](auto a, auto b) { asm volatile(\"// cupar_exit_child " + nonce + " " +
             std::to_string(seed) + " " + std::to_string(i) + "\"); return a + b; }";
    }
    const int sum = cupar::reduce_value(d, n, cupar::jit::op(text), 0, s);
    if (sum != static_cast<int>(n)) {
      std::printf("wrong sum %d for %s\n", sum, text.c_str());
      return 1;
    }
  }
  std::printf("ok\n");
  std::fflush(stdout);
  std::this_thread::sleep_for(std::chrono::microseconds(delay_us));
  // The memory and the stream stay: the program ends as a careless one would.
  if (mode == "exit") end_with_exit();
  return 0;
}
