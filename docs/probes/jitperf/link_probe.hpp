// Shared by the link probes (linklat.cpp, linkphases.cpp, linkmodule.cpp, linkperkernel.cpp):
// wall time, reading a file, an operator's LTO-IR from NVRTC, and one nvJitLink link with its
// logs. Header-only; each probe builds alone with g++ (its first lines say how).
#pragma once

#include <nvJitLink.h>
#include <nvrtc.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace probe {

using clk = std::chrono::steady_clock;

inline double ms(clk::time_point since) {
  return std::chrono::duration<double, std::milli>(clk::now() - since).count();
}

inline std::vector<char> read_file(const char* path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), {}};
}

/// LTO-IR of `extern "C" __device__ <qualifiers> float <symbol>(const unsigned char*, float a,
/// float b)` whose body is `body`; NVRTC's log is printed when the compile fails.
inline std::vector<char> operator_ltoir(const std::string& body,
                                        const char* symbol = "cupar_jit_op",
                                        const char* qualifiers = "") {
  const std::string src = std::string("extern \"C\" __device__ ") + qualifiers + " float " +
                          symbol + "(const unsigned char* st, float a, float b) { " + body + " }";
  nvrtcProgram p;
  nvrtcCreateProgram(&p, src.c_str(), "op.cu", 0, nullptr, nullptr);
  const char* o[] = {"-arch=compute_90", "-dlto", "-rdc=true"};
  if (nvrtcCompileProgram(p, 3, o) != NVRTC_SUCCESS) {
    std::size_t n = 0;
    nvrtcGetProgramLogSize(p, &n);
    std::string log(n, '\0');
    nvrtcGetProgramLog(p, log.data());
    std::printf("%s\n", log.c_str());
  }
  std::size_t size = 0;
  nvrtcGetLTOIRSize(p, &size);
  std::vector<char> ir(size);
  nvrtcGetLTOIR(p, ir.data());
  nvrtcDestroyProgram(&p);
  return ir;
}

/// A new operator for each k ("a + b * (1 + k)" with an inline-assembly comment that reaches the
/// PTX): no two links repeat, so the driver's cache serves none of them.
inline std::vector<char> distinct_operator_ltoir(int k) {
  return operator_ltoir("asm volatile(\"// op " + std::to_string(k) + "\"); return a + b * " +
                        std::to_string(1 + k) + ".0f;");
}

struct input {
  nvJitLinkInputType type;
  const std::vector<char>* bytes;
};

struct outcome {
  int status = 0;
  double ms = 0;  // nvJitLinkCreate to nvJitLinkComplete
  std::string info, error;
  std::vector<char> cubin;
};

/// One link of `inputs` with `options` (e.g. -lto -arch=sm_90 ...).
inline outcome link(const std::vector<input>& inputs, const std::vector<std::string>& options) {
  std::vector<const char*> argv;
  for (const auto& o : options)
    argv.push_back(o.c_str());
  outcome out;
  const auto start = clk::now();
  nvJitLinkHandle h;
  nvJitLinkCreate(&h, static_cast<std::uint32_t>(argv.size()), argv.data());
  for (const input& in : inputs)
    nvJitLinkAddData(h, in.type, in.bytes->data(), in.bytes->size(), "in");
  out.status = nvJitLinkComplete(h);
  out.ms = ms(start);
  std::size_t n = 0;
  nvJitLinkGetInfoLogSize(h, &n);
  out.info.assign(n, '\0');
  nvJitLinkGetInfoLog(h, out.info.data());
  nvJitLinkGetErrorLogSize(h, &n);
  out.error.assign(n, '\0');
  nvJitLinkGetErrorLog(h, out.error.data());
  if (nvJitLinkGetLinkedCubinSize(h, &n) == NVJITLINK_SUCCESS) {
    out.cubin.resize(n);
    nvJitLinkGetLinkedCubin(h, out.cubin.data());
  }
  nvJitLinkDestroy(&h);
  return out;
}

/// `s` on one line (newlines replaced by `sep`).
inline std::string one_line(std::string s, char sep = ' ') {
  for (char& c : s)
    if (c == '\n') c = sep;
  return s;
}

}  // namespace probe
