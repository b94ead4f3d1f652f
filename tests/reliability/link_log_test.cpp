// cupar tests: the ptxas report of a link that asks for it (src/jit/core/link.cpp, compiled in:
// the library keeps it hidden). The optimised builds link a kernel under an occupancy target and
// keep the capped code only when ptxas reports no spills in nvJitLink's info log. Where a CUDA
// driver is present nvJitLink keeps a cache of its own across processes (the driver's compute
// cache), and a link served from it carries no ptxas report: a cap that spilled then looked like
// one that held. Every link here must carry the report, the first in this process or not, on a
// machine with a driver (where the cache is active: this test calls cuInit first) or without.
#include "jit/core/link.hpp"

#include <gtest/gtest.h>
#include <nvrtc.h>

#include <dlfcn.h>
#include <unistd.h>

#include <string>
#include <vector>

namespace {

using cupar::detail::jit::link;
using cupar::detail::jit::link_input;
using cupar::detail::jit::reports_registers;
using cupar::detail::jit::reports_spills;

/// nvJitLink caches only once the driver is initialised: cuInit where libcuda is present.
void init_driver_if_present() {
  void* cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (cuda == nullptr) return;
  using init_fn = int (*)(unsigned);
  if (auto init = reinterpret_cast<init_fn>(dlsym(cuda, "cuInit"))) (void)init(0);
}

/// LTO-IR of a kernel that keeps 64 loaded values live (spills under a cap of 24 registers);
/// `salt` changes nothing but the text, so each test run can also link a kernel the cache has
/// not seen.
std::vector<char> pressure_kernel_ltoir(const std::string& salt) {
  const std::string src =
      "// " + salt +
      "\nextern \"C\" __global__ void cupar_pressure(float* p, int n) {\n"
      "  float a[64];\n"
      "#pragma unroll\n  for (int i = 0; i < 64; ++i) a[i] = p[i * n + threadIdx.x];\n"
      "  float s = 0;\n"
      "#pragma unroll\n  for (int i = 0; i < 64; ++i) s += a[i] * a[(i * 7) % 64];\n"
      "  p[threadIdx.x] = s;\n}\n";
  nvrtcProgram prog = nullptr;
  EXPECT_EQ(nvrtcCreateProgram(&prog, src.c_str(), "pressure.cu", 0, nullptr, nullptr),
            NVRTC_SUCCESS);
  const char* options[] = {"-arch=compute_90", "-dlto", "-rdc=true"};
  EXPECT_EQ(nvrtcCompileProgram(prog, 3, options), NVRTC_SUCCESS);
  std::size_t size = 0;
  EXPECT_EQ(nvrtcGetLTOIRSize(prog, &size), NVRTC_SUCCESS);
  std::vector<char> ir(size);
  EXPECT_EQ(nvrtcGetLTOIR(prog, ir.data()), NVRTC_SUCCESS);
  nvrtcDestroyProgram(&prog);
  return ir;
}

TEST(JitLinkLog, EveryVerboseLinkCarriesPtxasReportAndItsSpills) {
  init_driver_if_present();
  for (const std::string& salt : {std::string("the same kernel every run"),
                                  "pid " + std::to_string(static_cast<long>(getpid()))}) {
    SCOPED_TRACE(salt);
    const std::vector<char> ir = pressure_kernel_ltoir(salt);
    ASSERT_FALSE(ir.empty());
    const std::vector<link_input> in = {{ir.data(), ir.size(), NVJITLINK_INPUT_LTOIR, "pressure"}};
    // The same link three times: the second and third would be the cache's.
    for (int k = 0; k < 3; ++k) {
      SCOPED_TRACE("link " + std::to_string(k));
      const auto capped = link(in, 90, true, {"-maxrregcount=24", "-Xptxas=-v"});
      EXPECT_FALSE(capped.cubin.empty());
      EXPECT_TRUE(reports_registers(capped.info_log)) << capped.info_log;
      EXPECT_TRUE(reports_spills(capped.info_log)) << capped.info_log;
      const auto free = link(in, 90, true, {"-Xptxas=-v"});
      EXPECT_TRUE(reports_registers(free.info_log)) << free.info_log;
      EXPECT_FALSE(reports_spills(free.info_log)) << free.info_log;
    }
  }
}

TEST(JitLinkLog, SpillReportsAreReadFromPtxasLines) {
  EXPECT_TRUE(
      reports_spills("ptxas         .     864 bytes stack frame, 1724 bytes spill stores, "
                     "2080 bytes spill loads\n"));
  EXPECT_FALSE(
      reports_spills("ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 "
                     "bytes spill loads\n"));
  EXPECT_FALSE(reports_spills(""));
  EXPECT_TRUE(reports_registers("ptxas info    : Used 32 registers, used 1 barriers\n"));
  EXPECT_FALSE(reports_registers("info    : 16 bytes gmem\n"));  // a link the cache served
  EXPECT_FALSE(reports_registers("Used registers"));
  EXPECT_FALSE(reports_registers(""));
}

}  // namespace
