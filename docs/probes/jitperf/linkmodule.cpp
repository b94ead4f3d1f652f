// Probe (docs/JIT.md, "Where a tier-2 link's time goes"): the optimised link of a module holding
// one CUB kernel (reduce_kernel_alone.cu built with nvcc -std=c++17 -arch=sm_90 -dlto -rdc=true
// --fatbin) with a new operator, three times per fatbin given.
//   g++ -std=c++17 -O2 linkmodule.cpp -I$CUDA/include -L$CUDA/lib64 -lnvJitLink -lnvrtc
//   CUDA_CACHE_DISABLE=1 ./a.out k.fatbin
#include <nvJitLink.h>
#include <nvrtc.h>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
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
      "extern \"C\" __device__ float cupar_jit_op(const unsigned char* st, float a, float b) { asm "
      "volatile(\"// op " +
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
int main(int argc, char** argv) {
  for (int a = 1; a < argc; ++a) {
    auto k = rd(argv[a]);
    for (int rep = 0; rep < 3; ++rep) {
      auto ir = op_ir(700 + 10 * a + rep);
      const char* opts[] = {"-lto", "-arch=sm_90", "-time"};
      auto t = clk::now();
      nvJitLinkHandle h;
      nvJitLinkCreate(&h, 3, opts);
      nvJitLinkAddData(h, NVJITLINK_INPUT_FATBIN, k.data(), k.size(), "k");
      nvJitLinkAddData(h, NVJITLINK_INPUT_LTOIR, ir.data(), ir.size(), "op");
      int r = nvJitLinkComplete(h);
      size_t ls;
      nvJitLinkGetInfoLogSize(h, &ls);
      std::string log(ls, 0);
      nvJitLinkGetInfoLog(h, log.data());
      size_t es;
      nvJitLinkGetErrorLogSize(h, &es);
      std::string el(es, 0);
      nvJitLinkGetErrorLog(h, el.data());
      size_t cs = 0;
      nvJitLinkGetLinkedCubinSize(h, &cs);
      for (auto& c : log)
        if (c == '\n') c = ' ';
      printf("%s r=%d %.0f ms cubin %zu | %s %s\n", argv[a], r, ms(t), cs, log.c_str(),
             el.substr(0, 200).c_str());
      nvJitLinkDestroy(&h);
    }
  }
}
