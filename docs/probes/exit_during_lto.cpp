// Probe (no GPU needed, 2026-11-27): a thread in nvJitLink LTO links while the program ends.
// Issue 28's quickstart crash. nvJitLink registers the destructors of some statics during its
// first LTO link; exit handlers and static destructors run in reverse order of registration, so
// an exit handler that stops the linking thread must be registered after that first link.
//
//   g++ -O1 exit_during_lto.cpp -o exit_during_lto -I/usr/local/cuda/include
//       -L/usr/local/cuda/lib64 -lnvrtc -lnvJitLink -lpthread     (one line)
//   exit_during_lto 0|1 <delay_us>
//     0: the handler registered before the thread's first LTO link (the old order)
//     1: after it (cupar's order since 2026-11-27: the first submit waits for the warm-up link)
//
// 40 runs each, delays 0-15 ms, on the 2-core development machine: order 1 exited 0 every time;
// order 0 failed 30 times (8 SIGSEGV, 15 SIGABRT, 7 hung until killed after 20 s).
#include <nvJitLink.h>
#include <nvrtc.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <thread>
#include <vector>

namespace {
std::vector<char> ir;
std::atomic<bool> stop{false};
std::thread* linker = nullptr;

void lto_link() {
  const char* options[] = {"-arch=sm_90", "-lto"};
  nvJitLinkHandle h;
  nvJitLinkCreate(&h, 2, options);
  nvJitLinkAddData(h, NVJITLINK_INPUT_LTOIR, ir.data(), ir.size(), "probe");
  nvJitLinkComplete(h);
  nvJitLinkDestroy(&h);
}

void stop_at_exit() {
  stop = true;
  if (linker->joinable()) linker->join();
}
}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  const int order = std::atoi(argv[1]);
  const int delay_us = std::atoi(argv[2]);
  nvrtcProgram p;
  nvrtcCreateProgram(&p, "extern \"C\" __global__ void k(float* p) { *p = sinf(*p) * cosf(p[1]); }",
                     "probe.cu", 0, nullptr, nullptr);
  const char* options[] = {"-arch=compute_90", "-rdc=true", "-dlto"};
  nvrtcCompileProgram(p, 3, options);
  std::size_t n = 0;
  nvrtcGetLTOIRSize(p, &n);
  ir.resize(n);
  nvrtcGetLTOIR(p, ir.data());
  nvrtcDestroyProgram(&p);
  std::atomic<bool> warmed{false};
  linker = new std::thread([&] {
    lto_link();
    warmed = true;
    while (!stop)
      lto_link();
  });
  if (order == 1) {
    while (!warmed)
      std::this_thread::yield();
  }
  std::atexit(stop_at_exit);
  std::this_thread::sleep_for(std::chrono::microseconds(delay_us));
  return 0;
}
