// Probe (docs/JIT.md, "Where a tier-2 link's time goes"): an optimised build through PTX instead
// of LTO. The set's LTO-IR is linked once (it could be at build time) with a placeholder
// operator that is not inlined and uses every parameter (-ptx): the kernels' PTX calling
// cupar_jit_op. A new operator's PTX function replaces the placeholder's, and ptxas compiles the
// whole module: does it inline the call, and how long does it take?
//   g++ -std=c++17 -O2 ptxroute.cpp -I$CUDA/include -L$CUDA/lib64 -lnvJitLink -lnvrtc -lpthread
//   CUDA_CACHE_DISABLE=1 ./a.out reduce_f32_sm90.ltoir && ptxas -arch=sm_90 -v spliced.ptx
// (the set's LTO-IR: src/precompiled/reduce_f32_sm90.ltoir in a build.)
#include "link_probe.hpp"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::vector<char> op_ltoir(const std::string& body, bool noinline) {
  return probe::operator_ltoir(body, "cupar_jit_op", noinline ? "__noinline__" : "");
}

std::string op_ptx(const std::string& body, double& ms) {
  const auto t = probe::clk::now();
  const std::string src = std::string(
                              "extern \"C\" __device__ __noinline__ float cupar_jit_op(const "
                              "unsigned char* st, float a, float b) { ") +
                          body + " }";
  nvrtcProgram p;
  nvrtcCreateProgram(&p, src.c_str(), "op.cu", 0, nullptr, nullptr);
  const char* o[] = {"-arch=compute_90", "-rdc=true"};
  if (nvrtcCompileProgram(p, 2, o) != NVRTC_SUCCESS) std::printf("compile failed\n");
  std::size_t size = 0;
  nvrtcGetPTXSize(p, &size);
  std::string ptx(size, '\0');
  nvrtcGetPTX(p, ptx.data());
  nvrtcDestroyProgram(&p);
  ms = probe::ms(t);
  return ptx;
}

/// The text of `.func ... name(...) { ... }` (its declaration line to the closing brace).
std::string func_of(const std::string& ptx, const std::string& name, std::size_t& at,
                    std::size_t& end) {
  std::size_t p = 0;
  for (;;) {
    p = ptx.find(name, p);
    if (p == std::string::npos) return {};
    const std::size_t line = ptx.rfind('\n', p) + 1;
    const std::string head = ptx.substr(line, p - line);
    if (head.find(".func") != std::string::npos && head.find(".extern") == std::string::npos) {
      std::size_t brace = ptx.find('{', p);
      const std::size_t semi = ptx.find(';', p);
      if (semi < brace) {
        p += name.size();
        continue;
      }  // a declaration
      int depth = 0;
      std::size_t i = brace;
      for (; i < ptx.size(); ++i) {
        if (ptx[i] == '{') ++depth;
        if (ptx[i] == '}' && --depth == 0) break;
      }
      at = line;
      end = i + 1;
      return ptx.substr(line, end - line);
    }
    p += name.size();
  }
}

}  // namespace

int main(int argc, char** argv) {
  const auto set = probe::read_file(argv[1]);
  const std::vector<std::string> kernels(argv + 2, argv + argc);
  // 1. The LTO link as the library does it (operator inlined), for reference.
  {
    auto ir = op_ltoir("asm volatile(\"// ref\"); return a + b;", false);
    const auto r = probe::link({{NVJITLINK_INPUT_LTOIR, &set}, {NVJITLINK_INPUT_LTOIR, &ir}},
                               {"-lto", "-arch=sm_90"});
    std::printf("lto link (inlined): %.0f ms status %d\n", r.ms, r.status);
    std::ofstream("lto.cubin", std::ios::binary).write(r.cubin.data(), r.cubin.size());
  }
  // 2. Once per set (could be at build time): -ptx with a noinline operator.
  std::string ptx;
  {
    auto ir = op_ltoir("asm volatile(\"// cupar placeholder\" :: \"l\"(st)); return a + b;", true);
    std::vector<const char*> a = {"-lto", "-arch=sm_90", "-ptx"};
    nvJitLinkHandle h;
    const auto t = probe::clk::now();
    nvJitLinkCreate(&h, 3, a.data());
    nvJitLinkAddData(h, NVJITLINK_INPUT_LTOIR, set.data(), set.size(), "set");
    nvJitLinkAddData(h, NVJITLINK_INPUT_LTOIR, ir.data(), ir.size(), "op");
    const int st = nvJitLinkComplete(h);
    std::size_t n = 0;
    nvJitLinkGetLinkedPtxSize(h, &n);
    ptx.assign(n, '\0');
    nvJitLinkGetLinkedPtx(h, ptx.data());
    nvJitLinkGetErrorLogSize(h, &n);
    std::string err(n, '\0');
    nvJitLinkGetErrorLog(h, err.data());
    nvJitLinkDestroy(&h);
    std::printf("ptx link (once per set): %.0f ms status %d, %zu bytes %s\n", probe::ms(t), st,
                ptx.size(), err.substr(0, 200).c_str());
    std::ofstream("set.ptx") << ptx;
  }
  // 3. A new operator: its PTX function replaces the set's, ptxas compiles the module.
  double op_ms = 0;
  const std::string op = op_ptx("asm volatile(\"// new op 7\"); return a + b * 3.0f;", op_ms);
  std::size_t a0 = 0, a1 = 0, b0 = 0, b1 = 0;
  const std::string old_f = func_of(ptx, "cupar_jit_op", a0, a1);
  const std::string new_f = func_of(op, "cupar_jit_op", b0, b1);
  std::printf("operator ptx %.1f ms; old func %zu bytes, new func %zu bytes\n", op_ms, old_f.size(),
              new_f.size());
  // The placeholder is declared internal (.func) by the link; the operator's PTX is .visible.
  std::string fn = new_f;
  if (fn.rfind(".visible ", 0) == 0) fn.erase(0, 9);
  std::string spliced = ptx.substr(0, a0) + fn + ptx.substr(a1);
  // The PTX strings end in a NUL.
  for (std::size_t q; (q = spliced.find('\0')) != std::string::npos;)
    spliced.erase(q, 1);
  // Drop .noinline from the spliced function, so ptxas may inline it.
  for (std::size_t q; (q = spliced.find(".noinline")) != std::string::npos;)
    spliced.erase(q, 9);
  std::ofstream("spliced.ptx") << spliced;
  return 0;
}
