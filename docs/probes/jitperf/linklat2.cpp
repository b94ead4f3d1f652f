// Probe: tier-1 (non-LTO) and tier-2 (LTO, split compile) build latency for new operators.
#include <nvJitLink.h>
#include <nvrtc.h>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>
using clk = std::chrono::steady_clock;
static double msince(clk::time_point t) {
  return std::chrono::duration<double, std::milli>(clk::now() - t).count();
}
std::vector<char> rd(const char* p) {
  std::ifstream f(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), {}};
}
int counter = 0;
std::vector<char> op_bin(int kind /*0 ltoir 1 ptx 2 cubin*/) {
  std::string src =
      "extern \"C\" __device__ float cupar_op_f32(const char* st, float a, float b) { return a * " +
      std::to_string(++counter) + ".5f + b; }";
  nvrtcProgram p;
  nvrtcCreateProgram(&p, src.c_str(), "op.cu", 0, 0, 0);
  std::vector<const char*> o = {kind == 2 ? "-arch=sm_90" : "-arch=compute_90", "-rdc=true"};
  if (kind == 0) o.push_back("-dlto");
  if (nvrtcCompileProgram(p, o.size(), o.data()) != NVRTC_SUCCESS) printf("nvrtc failed\n");
  size_t sz;
  std::vector<char> r;
  if (kind == 0) {
    nvrtcGetLTOIRSize(p, &sz);
    r.resize(sz);
    nvrtcGetLTOIR(p, r.data());
  } else if (kind == 1) {
    nvrtcGetPTXSize(p, &sz);
    r.resize(sz);
    nvrtcGetPTX(p, r.data());
  } else {
    nvrtcGetCUBINSize(p, &sz);
    r.resize(sz);
    nvrtcGetCUBIN(p, r.data());
  }
  nvrtcDestroyProgram(&p);
  return r;
}
double link(const std::vector<char>& k, const std::vector<char>& op, int kind,
            std::vector<const char*> lo) {
  auto t = clk::now();
  nvJitLinkHandle h;
  nvJitLinkCreate(&h, lo.size(), lo.data());
  nvJitLinkAddData(h, NVJITLINK_INPUT_FATBIN, k.data(), k.size(), "k");
  nvJitLinkAddData(h,
                   kind == 0   ? NVJITLINK_INPUT_LTOIR
                   : kind == 1 ? NVJITLINK_INPUT_PTX
                               : NVJITLINK_INPUT_CUBIN,
                   op.data(), op.size(), "op");
  int r = nvJitLinkComplete(h);
  size_t cs = 0;
  nvJitLinkGetLinkedCubinSize(h, &cs);
  if (r) {
    size_t ls;
    nvJitLinkGetErrorLogSize(h, &ls);
    std::string log(ls, 0);
    nvJitLinkGetErrorLog(h, log.data());
    printf("link error %d: %s\n", r, log.c_str());
  }
  nvJitLinkDestroy(&h);
  return msince(t);
}
int main(int argc, char** argv) {
  setvbuf(stdout, nullptr, _IONBF, 0);
  auto k = rd(argv[1]);
  for (int i = 0; i < 3; ++i) {
    auto t = clk::now();
    auto op = op_bin(1);
    double c = msince(t);
    printf("tier1 op->PTX   nvrtc %6.1f ms link %6.1f ms\n", c, link(k, op, 1, {"-arch=sm_90"}));
  }
  for (int i = 0; i < 3; ++i) {
    auto t = clk::now();
    auto op = op_bin(2);
    double c = msince(t);
    printf("tier1 op->cubin nvrtc %6.1f ms link %6.1f ms\n", c, link(k, op, 2, {"-arch=sm_90"}));
  }
  for (const char* sc : {"", "-split-compile=0", "-split-compile=4", "-split-compile=16"})
    for (int i = 0; i < 2; ++i) {
      auto t = clk::now();
      auto op = op_bin(0);
      double c = msince(t);
      std::vector<const char*> lo = {"-lto", "-arch=sm_90"};
      if (*sc) lo.push_back(sc);
      printf("tier2 LTO %-18s nvrtc %6.1f ms link %6.1f ms\n", sc, c, link(k, op, 0, lo));
    }
}
