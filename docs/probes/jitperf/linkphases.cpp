// Probe (no GPU needed, 2026-11-29): where a distinct operator's LTO link of a precompiled set
// spends its time (nvJitLink -time: NVVM's "create PTX" vs ptxas's "finish"), by link option.
// Usage: linkphases SET.ltoir "OPTIONS" ... (one link per argument, each with a new operator:
// "a + b * k" with an inline-assembly comment so that no two links repeat; run with
// CUDA_CACHE_DISABLE=1 where a driver is installed). SET.ltoir: a set's LTO-IR as the build writes
// it (build/src/precompiled/reduce_f32_sm90.ltoir). Build: g++ -std=c++17 -O2 linkphases.cpp
// -I/usr/local/cuda/include -L/usr/local/cuda/lib64 -lnvJitLink -lnvrtc -o linkphases
#include <nvJitLink.h>
#include <nvrtc.h>
#include <chrono>
#include <cstdio>
#include <cstring>
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
      "extern \"C\" __device__ float cupar_jit_op(const unsigned char* st, float a, float b) { "
      "asm volatile(\"// op " +
      std::to_string(k) + "\"); return a + b * " + std::to_string(1 + k) + ".0f; }";
  nvrtcProgram p;
  nvrtcCreateProgram(&p, src.c_str(), "op.cu", 0, 0, 0);
  const char* o[] = {"-arch=compute_90", "-dlto", "-rdc=true"};
  if (nvrtcCompileProgram(p, 3, o) != NVRTC_SUCCESS) {
    size_t n;
    nvrtcGetProgramLogSize(p, &n);
    std::string l(n, 0);
    nvrtcGetProgramLog(p, l.data());
    printf("%s\n", l.c_str());
  }
  size_t sz;
  nvrtcGetLTOIRSize(p, &sz);
  std::vector<char> r(sz);
  nvrtcGetLTOIR(p, r.data());
  nvrtcDestroyProgram(&p);
  return r;
}
int main(int argc, char** argv) {
  auto k = rd(argv[1]);
  static int salt = 100;
  for (int a = 2; a < argc; ++a) {
    std::vector<std::string> opts = {"-lto", "-arch=sm_90", "-time"};
    for (char* t = strtok(argv[a], " "); t; t = strtok(nullptr, " "))
      opts.push_back(t);
    std::vector<const char*> ov;
    for (auto& s : opts)
      ov.push_back(s.c_str());
    auto ir = op_ir(++salt);
    auto t = clk::now();
    nvJitLinkHandle h;
    nvJitLinkCreate(&h, ov.size(), ov.data());
    nvJitLinkAddData(h, NVJITLINK_INPUT_LTOIR, k.data(), k.size(), "k");
    nvJitLinkAddData(h, NVJITLINK_INPUT_LTOIR, ir.data(), ir.size(), "op");
    int r = nvJitLinkComplete(h);
    double total = ms(t);
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
      if (c == '\n') c = '|';
    printf("[%s] r=%d total %.0f ms cubin %zu | %s %s\n", argv[a], r, total, cs, log.c_str(),
           el.substr(0, 200).c_str());
    nvJitLinkDestroy(&h);
  }
}
