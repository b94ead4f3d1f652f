// Probe: nvJitLink LTO latency for new vs repeated operators, in one process.
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
std::vector<char> op_ir(const std::string& body) {
  std::string src =
      "extern \"C\" __device__ float cupar_op_f32(const char* st, float a, float b) { return " +
      body + "; }";
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
  setvbuf(stdout, nullptr, _IONBF, 0);
  auto k = rd(argv[1]);
  const char* ops[] = {"a + b", "a * b", "a + b", "fmaxf(a, b)", "a - b * 0.5f", "a + b"};
  for (const char* o : ops) {
    auto t = clk::now();
    auto ir = op_ir(o);
    double tc = msince(t);
    t = clk::now();
    nvJitLinkHandle h;
    const char* lo[] = {"-lto", "-arch=sm_90", "-time"};
    nvJitLinkCreate(&h, 3, lo);
    nvJitLinkAddData(h, NVJITLINK_INPUT_FATBIN, k.data(), k.size(), "k");
    nvJitLinkAddData(h, NVJITLINK_INPUT_LTOIR, ir.data(), ir.size(), "op");
    int r = nvJitLinkComplete(h);
    size_t ls;
    nvJitLinkGetInfoLogSize(h, &ls);
    std::string log(ls, 0);
    nvJitLinkGetInfoLog(h, log.data());
    for (auto& c : log)
      if (c == '\n') c = ' ';
    printf("op %-14s nvrtc %6.1f ms  link %7.1f ms r=%d | %s\n", o, tc, msince(t), r, log.c_str());
    nvJitLinkDestroy(&h);
  }
}
