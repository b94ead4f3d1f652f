// cupar tests: the background builds' warm-up link and exit safety, without a GPU (issue 28).
//
// A program may end while an optimised build is linking. cupar's exit handler stops the build
// threads first, but exit handlers and static destructors run in reverse order of registration,
// and nvJitLink registers the destructors of some statics during the process's first LTO link: a
// handler registered before that link would run after them, under a running link (the crash of
// docs/probes/exit_during_lto.cpp). So the pool's first thread makes one LTO link first, the
// warm-up, and the handler is registered after it (src/jit/core/engine.cpp, warm_up_lto). The
// warm-up links the kernel LTO-IR the build precompiled with the named operators (tools/
// cupar_precompile.cpp, `cupar_warm_up`). What must hold of that object, checked here with every
// registration of an exit-time function counted (this program's __cxa_atexit, which nvJitLink's
// calls reach first): its link succeeds and registers nvJitLink's destructors, and a later LTO
// link of a larger kernel registers none (a link of a device function alone registered 4 of the 5
// that a kernel's did with nvJitLink 13.0: the object must be a kernel's).
#include <gtest/gtest.h>

#include <dlfcn.h>
#include <nvJitLink.h>
#include <nvrtc.h>

#include <atomic>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace {
std::atomic<int> registrations{0};
}  // namespace

// Every exit-time registration of the process (C++ static destructors, atexit) comes here first;
// it counts and hands on to the C library's.
extern "C" int __cxa_atexit(void (*f)(void*), void* arg, void* dso) {
  registrations.fetch_add(1);
  using real_t = int (*)(void (*)(void*), void*, void*);
  static const real_t real = reinterpret_cast<real_t>(dlsym(RTLD_NEXT, "__cxa_atexit"));
  return real(f, arg, dso);
}

namespace {

/// Registrations made while `link` links `ir` (LTO-IR) for sm_`arch`; the link's result in `rc`.
int registrations_during_link(const std::vector<char>& ir, int arch, nvJitLinkResult& rc) {
  const std::string target = "-arch=sm_" + std::to_string(arch);
  const char* options[] = {target.c_str(), "-lto"};
  const int before = registrations.load();
  nvJitLinkHandle h = nullptr;
  rc = nvJitLinkCreate(&h, 2, options);
  if (rc == NVJITLINK_SUCCESS)
    rc = nvJitLinkAddData(h, NVJITLINK_INPUT_LTOIR, ir.data(), ir.size(), "ir");
  if (rc == NVJITLINK_SUCCESS) rc = nvJitLinkComplete(h);
  if (h != nullptr) nvJitLinkDestroy(&h);
  return registrations.load() - before;
}

std::vector<char> ltoir_of(const char* source, int arch) {
  nvrtcProgram p = nullptr;
  EXPECT_EQ(nvrtcCreateProgram(&p, source, "kernel.cu", 0, nullptr, nullptr), NVRTC_SUCCESS);
  const std::string target = "-arch=compute_" + std::to_string(arch);
  const char* options[] = {target.c_str(), "-dlto", "-rdc=true"};
  EXPECT_EQ(nvrtcCompileProgram(p, 3, options), NVRTC_SUCCESS);
  std::size_t n = 0;
  nvrtcGetLTOIRSize(p, &n);
  std::vector<char> ir(n);
  nvrtcGetLTOIR(p, ir.data());
  nvrtcDestroyProgram(&p);
  return ir;
}

}  // namespace

TEST(WarmUpLink, ThePrecompiledWarmUpRegistersNvJitLinksExitDestructors) {
#if !defined(CUPAR_WARM_UP_LTOIR)
  GTEST_SKIP() << "this build precompiles no JIT objects (CUPAR_JIT_PRECOMPILE=OFF): the warm-up "
                  "compiles its kernel at run time";
#else
  std::ifstream in(CUPAR_WARM_UP_LTOIR, std::ios::binary);
  ASSERT_TRUE(in.good()) << "no warm-up object at " << CUPAR_WARM_UP_LTOIR;
  const std::vector<char> warm_up((std::istreambuf_iterator<char>(in)), {});
  ASSERT_FALSE(warm_up.empty());
  nvJitLinkResult rc = NVJITLINK_SUCCESS;
  // The process's first LTO link: the warm-up's.
  const int first = registrations_during_link(warm_up, CUPAR_WARM_UP_ARCH, rc);
  ASSERT_EQ(rc, NVJITLINK_SUCCESS);
  EXPECT_GT(first, 0) << "the warm-up's link registered no exit-time destructor";
  // A larger kernel, as a real optimised build links: nothing more may be registered after the
  // warm-up (an exit handler registered at this point runs before all of nvJitLink's).
  const std::vector<char> kernel = ltoir_of(
      "extern \"C\" __global__ void k(float* p, int n) {\n"
      "  float s = 0.0f;\n"
      "  for (int i = threadIdx.x; i < n; i += blockDim.x) s += sinf(p[i]) * __expf(p[i]);\n"
      "  __shared__ float t[32];\n"
      "  if (threadIdx.x < 32) t[threadIdx.x] = s;\n"
      "  __syncthreads();\n"
      "  if (threadIdx.x == 0) p[0] = t[0] + t[31];\n"
      "}\n",
      CUPAR_WARM_UP_ARCH);
  const int later = registrations_during_link(kernel, CUPAR_WARM_UP_ARCH, rc);
  ASSERT_EQ(rc, NVJITLINK_SUCCESS);
  EXPECT_EQ(later, 0) << "an LTO link after the warm-up registered exit-time destructors: the "
                         "exit handler would run after them";
#endif
}
