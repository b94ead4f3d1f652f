// Probe (docs/JIT.md, "Where a tier-2 link's time goes"): wall time of the optimised (LTO) link of
// a kernel set's LTO-IR with a new operator: the whole set, the named kernels (-kernels-used),
// each named kernel alone, and each alone in parallel threads.
//   g++ -std=c++17 -O2 linkperkernel.cpp -I$CUDA/include -L$CUDA/lib64 -lnvJitLink -lnvrtc
//   -lpthread CUDA_CACHE_DISABLE=1 ./a.out reduce_f32_sm90.ltoir <mangled kernel name>...
// (the set's LTO-IR: src/precompiled/reduce_f32_sm90.ltoir in a build; the kernel names:
// cuobjdump -elf of full.cubin, which the probe writes.)
#include <nvJitLink.h>
#include <nvrtc.h>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>
using clk = std::chrono::steady_clock;
static double ms(clk::time_point t) {
  return std::chrono::duration<double, std::milli>(clk::now() - t).count();
}
static std::vector<char> rd(const char* p) {
  std::ifstream f(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), {}};
}
static std::vector<char> op_ir(int k) {
  std::string src =
      "extern \"C\" __device__ float cupar_jit_op(const unsigned char* st, float a, float b) { "
      "asm volatile(\"// op " +
      std::to_string(k) + "\"); return a + b * " + std::to_string(1 + k) + ".0f; }";
  nvrtcProgram p;
  nvrtcCreateProgram(&p, src.c_str(), "op.cu", 0, 0, 0);
  const char* o[] = {"-arch=compute_90", "-dlto", "-rdc=true"};
  nvrtcCompileProgram(p, 3, o);
  size_t sz;
  nvrtcGetLTOIRSize(p, &sz);
  std::vector<char> r(sz);
  nvrtcGetLTOIR(p, r.data());
  nvrtcDestroyProgram(&p);
  return r;
}
static double link(const std::vector<char>& k, const std::vector<char>& ir,
                   const std::vector<std::string>& extra, const char* dump = nullptr) {
  std::vector<std::string> opts = {"-lto", "-arch=sm_90"};
  for (auto& e : extra)
    opts.push_back(e);
  std::vector<const char*> ov;
  for (auto& s : opts)
    ov.push_back(s.c_str());
  auto t = clk::now();
  nvJitLinkHandle h;
  nvJitLinkCreate(&h, ov.size(), ov.data());
  nvJitLinkAddData(h, NVJITLINK_INPUT_LTOIR, k.data(), k.size(), "k");
  nvJitLinkAddData(h, NVJITLINK_INPUT_LTOIR, ir.data(), ir.size(), "op");
  int r = nvJitLinkComplete(h);
  double total = ms(t);
  if (r != 0) {
    size_t es;
    nvJitLinkGetErrorLogSize(h, &es);
    std::string el(es, 0);
    nvJitLinkGetErrorLog(h, el.data());
    printf("link error %d %s\n", r, el.substr(0, 300).c_str());
  }
  if (dump) {
    size_t cs = 0;
    nvJitLinkGetLinkedCubinSize(h, &cs);
    std::vector<char> c(cs);
    nvJitLinkGetLinkedCubin(h, c.data());
    std::ofstream(dump, std::ios::binary).write(c.data(), cs);
  }
  nvJitLinkDestroy(&h);
  return total;
}
int main(int argc, char** argv) {
  auto k = rd(argv[1]);
  std::vector<std::string> kernels(argv + 2, argv + argc);
  int salt = 1000;
  printf("full: %.0f ms\n", link(k, op_ir(++salt), {}, "full.cubin"));
  printf("full: %.0f ms\n", link(k, op_ir(++salt), {}));
  if (kernels.empty()) return 0;
  std::vector<std::string> used;
  for (auto& n : kernels)
    used.push_back("-kernels-used=" + n);
  printf("all named (%zu): %.0f ms\n", kernels.size(), link(k, op_ir(++salt), used));
  for (auto& n : kernels)
    printf("one (%s...): %.0f ms\n", n.substr(0, 60).c_str(),
           link(k, op_ir(++salt), {"-kernels-used=" + n}));
  // parallel: each kernel alone, concurrently
  std::vector<std::vector<char>> irs;
  for (size_t i = 0; i < kernels.size(); ++i)
    irs.push_back(op_ir(++salt));
  auto t = clk::now();
  std::vector<std::thread> th;
  std::vector<double> each(kernels.size());
  for (size_t i = 0; i < kernels.size(); ++i)
    th.emplace_back([&, i] { each[i] = link(k, irs[i], {"-kernels-used=" + kernels[i]}); });
  for (auto& x : th)
    x.join();
  printf("parallel (%zu threads): wall %.0f ms (each", kernels.size(), ms(t));
  for (double e : each)
    printf(" %.0f", e);
  printf(")\n");
}
