// cupar tests: a run-time operator that faults on the GPU, in a process of its own (issue 12).
// Started by fault_test.cpp, one case per process, because a device fault leaves the process's
// CUDA context unusable. Prints what it saw, one "key: value" line each, and exits 0 when the
// fault was reported as documented (docs/RELIABILITY.md, "Faults on the GPU"), 1 otherwise,
// 77 without a GPU.
//
//   cupar_fault_child trap|wild_read|wild_write|sort_trap|divide_by_zero|recover|recover_keep
#include <cupar/cupar.hpp>

#include <execinfo.h>
#include <signal.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

namespace {

using cupar::jit::op;

void say(const char* key, const std::string& value) {
  std::printf("%s: %s\n", key, value.c_str());
  std::fflush(stdout);
}

/// Runs `f`; returns the cuda_error it threw (code 0 when it threw none).
template <class F>
cupar::cuda_error fault_of(F&& f) {
  try {
    f();
  } catch (const cupar::cuda_error& e) {
    return e;
  } catch (const std::exception& e) {
    say("unexpected exception", e.what());
    return cupar::cuda_error(-1, "", e.what());
  }
  return cupar::cuda_error(0, "", "");
}

void report(const char* what, const cupar::cuda_error& e) {
  say((std::string(what) + " code").c_str(), std::to_string(e.code()));
  say((std::string(what) + " call").c_str(), e.call());
  say((std::string(what) + " what").c_str(), e.what());
}

bool is_fault(int code) {
  return code == cudaErrorLaunchFailure || code == cudaErrorIllegalAddress ||
         code == cudaErrorIllegalInstruction || code == cudaErrorMisalignedAddress;
}

/// On a crash, the stack (function names of exported symbols) goes to stderr before the process
/// dies, so the parent's log shows where.
void on_crash(int sig) {
  void* frames[64];
  const int n = backtrace(frames, 64);
  const char head[] = "crash: stack follows\n";
  (void)!write(2, head, sizeof head - 1);
  backtrace_symbols_fd(frames, n, 2);
  signal(sig, SIG_DFL);
  raise(sig);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  signal(SIGSEGV, on_crash);
  signal(SIGABRT, on_crash);
  signal(SIGBUS, on_crash);
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    say("skipped", "no GPU");
    return 77;
  }
  cudaStream_t raw = nullptr;
  if (cudaStreamCreateWithFlags(&raw, cudaStreamNonBlocking) != cudaSuccess) return 1;
  const cupar::stream_ref s(raw);
  const std::size_t n = 100000;
  std::vector<int> h(n);
  std::iota(h.begin(), h.end(), 0);
  h[n / 2] = 12345678;  // the value the faulting operators react to
  cupar::device_buffer<int> in(h, s), out(n, s);

  if (mode == "trap" || mode == "recover" || mode == "recover_keep") {
    // __trap() on one element: the kernel ends with cudaErrorLaunchFailure, which reduce_value
    // sees when it synchronises.
    const op trap(
        "[](int a, int b) { if (a == 12345678 || b == 12345678) __trap(); return a + b; }");
    const auto e = fault_of([&] { (void)cupar::reduce_value(in.data(), n, trap, 0, s); });
    report("fault", e);
    if (!is_fault(e.code()) || e.call() != "cupar::reduce_value") return 1;
    // The context is unusable from now on: every later call fails, also an unrelated one.
    const auto after =
        fault_of([&] { (void)cupar::reduce_value(in.data(), n, cupar::jit::plus, 0, s); });
    report("next call", after);
    if (after.code() == 0) return 1;
    if (mode == "trap") return 0;
    // After the reset. CUDA documents cudaErrorLaunchFailure and cudaErrorIllegalAddress as
    // leaving "the process in an inconsistent state": "to continue using CUDA, the process must
    // be terminated and relaunched". On the H100 (driver of 2026-11) a new stream could not be
    // created after the reset. What cupar must guarantee either way: the steps documented in
    // docs/RELIABILITY.md neither crash nor hang, and every later call either gives the right
    // result or throws a typed cupar::cuda_error. `recover_keep` skips the first two steps
    // (the dead context's buffers and stream outlive the reset, against the documentation): a
    // diagnostic that crashes inside the driver (cuMemFreeAsync on the stale stream), not a test.
    say("step", "wait_for_background_builds");
    cupar::jit::wait_for_background_builds();
    if (mode == "recover") {
      say("step", "destroy the old buffers and stream");
      in = cupar::device_buffer<int>();
      out = cupar::device_buffer<int>();
      (void)cudaStreamDestroy(raw);
      (void)cudaGetLastError();
    }
    say("step", "release_cached_memory");
    try {
      cupar::release_cached_memory();
    } catch (const cupar::cuda_error& r) {
      report("release_cached_memory", r);
    }
    say("step", "cudaDeviceReset");
    say("cudaDeviceReset", cudaGetErrorName(cudaDeviceReset()));
    say("cudaGetLastError", cudaGetErrorName(cudaGetLastError()));
    cudaStream_t fresh = nullptr;
    const cudaError_t created = cudaStreamCreateWithFlags(&fresh, cudaStreamNonBlocking);
    say("new stream", cudaGetErrorName(created));
    const cupar::stream_ref t =
        created == cudaSuccess ? cupar::stream_ref(fresh) : cupar::stream_ref::legacy_default();
    std::vector<int> g(n, 2);
    const long long expect = 2LL * static_cast<long long>(n);
    int jit = 0, named = 0, max = 0;
    const auto later = fault_of([&] {
      cupar::device_buffer<int> again(g, t);
      say("step", "reduce_value with a snippet");
      jit = cupar::reduce_value(again.data(), n, op("a + b"), 0, t);
      say("step", "reduce_value with a named operator");
      named = cupar::reduce_value(again.data(), n, cupar::jit::plus, 0, t);
      say("step", "reduce_value with a second snippet");
      max = cupar::reduce_value(again.data(), n, op("a < b ? b : a"), 0, t);
      say("step", "sort_keys");
      cupar::sort_keys(again.data(), again.data(), n, t);
      t.synchronize();
    });
    if (created == cudaSuccess) (void)cudaStreamDestroy(fresh);
    if (later.code() != 0) {
      report("after reset", later);
      // Typed: a CUDA error code and the call that saw it (not an unexpected exception).
      if (later.code() < 0 || later.call().empty()) return 1;
      say("after reset", "typed error");
      return 0;
    }
    say("after reset",
        std::to_string(jit) + " " + std::to_string(named) + " " + std::to_string(max));
    return jit == expect && named == expect && max == 2 ? 0 : 1;
  }
  if (mode == "wild_read") {
    const op wild("[](int a, int b) { return *reinterpret_cast<volatile int*>(0x10) + a + b; }");
    const auto e = fault_of([&] { (void)cupar::reduce_value(in.data(), n, wild, 0, s); });
    report("fault", e);
    return is_fault(e.code()) && e.call() == "cupar::reduce_value" ? 0 : 1;
  }
  if (mode == "wild_write") {
    // An asynchronous call: the fault is reported by the next call that waits for the stream,
    // here device_buffer::to_host.
    const op wild(
        "[](int x) { *reinterpret_cast<volatile int*>(0x7f0000000000ull + 4 * (x & 1023)) = x; "
        "return x; }");
    const auto queued = fault_of([&] { cupar::transform(in.data(), out.data(), n, wild, s); });
    report("transform", queued);
    const auto e = fault_of([&] { (void)out.to_host(); });
    report("fault", e);
    return queued.code() == 0 && is_fault(e.code()) ? 0 : 1;
  }
  if (mode == "sort_trap") {
    const op trap("[](int a, int b) { if (a == 12345678) __trap(); return a < b; }");
    const auto queued = fault_of([&] { cupar::sort_keys(in.data(), out.data(), n, trap, s); });
    report("sort_keys", queued);
    const auto e = fault_of([&] { s.synchronize(); });
    report("fault", e);
    return is_fault(queued.code()) || is_fault(e.code()) ? 0 : 1;
  }
  if (mode == "divide_by_zero") {
    // Integer division by zero does not fault on NVIDIA GPUs: the result is unspecified (no
    // exception exists to raise). The call completes and the context stays usable.
    const op divide("a + b / (b - b)");
    const auto e = fault_of([&] {
      const int r = cupar::reduce_value(in.data(), n, divide, 0, s);
      say("result", std::to_string(r));
    });
    report("call", e);
    const int sum = cupar::reduce_value(in.data(), 1000, op("a + b"), 0, s);
    say("next call", std::to_string(sum));
    return e.code() == 0 && sum == 499500 ? 0 : 1;
  }
  say("usage",
      "cupar_fault_child trap|wild_read|wild_write|sort_trap|divide_by_zero|recover|recover_keep");
  return 2;
}
