// Probe: op inlined by LTO vs op called across a non-LTO link, against CUB with a lambda.
#include <cuda.h>
#include <nvJitLink.h>
#include <nvrtc.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cub/detail/launcher/cuda_driver.cuh>
#include <cub/device/device_merge_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>
#include "common.cuh"
#define CK(x)                                                     \
  do {                                                            \
    auto e = (x);                                                 \
    if (int(e) != 0) {                                            \
      printf("%s:%d %s -> %d\n", __FILE__, __LINE__, #x, int(e)); \
      exit(1);                                                    \
    }                                                             \
  } while (0)
using clk = std::chrono::steady_clock;
static double msince(clk::time_point t) {
  return std::chrono::duration<double, std::milli>(clk::now() - t).count();
}
static std::vector<char> rd(const char* p) {
  std::ifstream f(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), {}};
}
static cudaStream_t st;
template <class F>
double time_it(F f, int reps = 15) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  for (int i = 0; i < 3; ++i)
    f();
  std::vector<float> ts;
  for (int i = 0; i < reps; ++i) {
    CK(cudaEventRecord(a, st));
    f();
    CK(cudaEventRecord(b, st));
    CK(cudaEventSynchronize(b));
    float ms;
    CK(cudaEventElapsedTime(&ms, a, b));
    ts.push_back(ms);
  }
  std::sort(ts.begin(), ts.end());
  return ts[ts.size() / 2] * 1000.0;
}
std::vector<char> nvrtc(const char* src, bool lto) {
  nvrtcProgram p;
  CK(nvrtcCreateProgram(&p, src, "op.cu", 0, 0, 0));
  const char* o[] = {"-arch=sm_90", "-rdc=true", "-dlto"};
  const char* ol[] = {"-arch=compute_90", "-rdc=true", "-dlto"};
  CK(nvrtcCompileProgram(p, lto ? 3 : 2, lto ? ol : o));
  size_t sz;
  std::vector<char> r;
  if (lto) {
    CK(nvrtcGetLTOIRSize(p, &sz));
    r.resize(sz);
    CK(nvrtcGetLTOIR(p, r.data()));
  } else {
    CK(nvrtcGetCUBINSize(p, &sz));
    r.resize(sz);
    CK(nvrtcGetCUBIN(p, r.data()));
  }
  nvrtcDestroyProgram(&p);
  return r;
}
struct built {
  CUlibrary lib;
  CUkernel red_st, red_main, red_st2, ms_block, ms_part, ms_merge;
};
built build(bool lto, const char* kfile) {
  const char* op =
      "extern \"C\" __device__ float cupar_op_f32(const char* s, float a, float b) { return "
      "fmaxf(a, b); }\n"
      "extern \"C\" __device__ bool cupar_less_f32(const char* s, float a, float b) { return a < "
      "b; }\n";
  auto t = clk::now();
  auto opbin = nvrtc(op, lto);
  double tc = msince(t);
  t = clk::now();
  auto k = rd(kfile);
  nvJitLinkHandle h;
  const char* lo_lto[] = {"-lto", "-arch=sm_90"};
  const char* lo[] = {"-arch=sm_90"};
  CK(nvJitLinkCreate(&h, lto ? 2 : 1, lto ? lo_lto : lo));
  CK(nvJitLinkAddData(h, lto ? NVJITLINK_INPUT_FATBIN : NVJITLINK_INPUT_CUBIN, k.data(), k.size(),
                      "k"));
  CK(nvJitLinkAddData(h, lto ? NVJITLINK_INPUT_LTOIR : NVJITLINK_INPUT_CUBIN, opbin.data(),
                      opbin.size(), "op"));
  CK(nvJitLinkComplete(h));
  size_t cs;
  CK(nvJitLinkGetLinkedCubinSize(h, &cs));
  std::vector<char> cubin(cs);
  CK(nvJitLinkGetLinkedCubin(h, cubin.data()));
  nvJitLinkDestroy(&h);
  double tl = msince(t);
  t = clk::now();
  built b{};
  CK(cuLibraryLoadData(&b.lib, cubin.data(), 0, 0, 0, 0, 0, 0));
  unsigned cnt;
  CK(cuLibraryGetKernelCount(&cnt, b.lib));
  std::vector<CUkernel> ks(cnt);
  CK(cuLibraryEnumerateKernels(ks.data(), cnt, b.lib));
  for (auto kk : ks) {
    const char* name;
    CK(cuKernelGetName(&name, kk));
    std::string n = name;
    if (n.find("DeviceReduceKernel") != std::string::npos)
      b.red_main = kk;
    else if (n.find("DeviceReduceSingleTileKernel") != std::string::npos) {
      if (n.find("PKf") != std::string::npos)
        b.red_st = kk;
      else
        b.red_st2 = kk;
    } else if (n.find("BlockSortKernel") != std::string::npos)
      b.ms_block = kk;
    else if (n.find("PartitionKernel") != std::string::npos)
      b.ms_part = kk;
    else if (n.find("MergeKernel") != std::string::npos)
      b.ms_merge = kk;
  }
  printf("%s: op compile %.1f ms, link %.1f ms, load %.1f ms, cubin %zu bytes, %u kernels\n",
         lto ? "LTO    " : "non-LTO", tc, tl, msince(t), cs, cnt);
  return b;
}
struct red_src {
  const built* b;
  CUkernel SingleTileKernel() const { return b->red_st; }
  CUkernel ReductionKernel() const { return b->red_main; }
  CUkernel SingleTileSecondKernel() const { return b->red_st2; }
  static constexpr size_t AccumSize() { return 4; }
};
struct ms_src {
  const built* b;
  CUkernel MergeSortBlockSortKernel() const { return b->ms_block; }
  CUkernel MergeSortPartitionKernel() const { return b->ms_part; }
  CUkernel MergeSortMergeKernel() const { return b->ms_merge; }
};
__global__ void fill(float* f, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x) {
    uint32_t h = uint32_t(i) * 2654435761u;
    h ^= h >> 13;
    h *= 0x5bd1e995;
    h ^= h >> 15;
    f[i] = (h & 0xffffff) / float(1 << 24);
  }
}
int main() {
  setvbuf(stdout, nullptr, _IONBF, 0);
  CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  CK(cudaFree(0));
  CUdevice dev;
  CK(cuCtxGetDevice(&dev));
  built lto = build(true, "probe/jitperf/kernels_lto.fatbin");
  built lto2 = build(true, "probe/jitperf/kernels_lto.fatbin");
  built rel = build(false, "probe/jitperf/kernels_rel.cubin");
  size_t N = size_t(1) << 28;
  float *in, *out, *tmp;
  void* t;
  size_t tb = size_t(2) << 30;
  CK(cudaMalloc(&in, N * 4));
  CK(cudaMalloc(&out, N * 4));
  CK(cudaMalloc(&tmp, N * 4));
  CK(cudaMalloc(&t, tb));
  fill<<<1024, 256, 0, st>>>(in, N);
  cub::detail::CudaDriverLauncherFactory fac{dev, 900};
  jit_op op{};
  jit_less less{};
  for (int lg : {20, 24, 28}) {
    size_t n = size_t(1) << lg;
    auto jr = [&](const built& b) {
      return [&, bp = &b] {
        size_t bytes = tb;
        CK((cub::DispatchReduce<
            const float*, float*, red_off, jit_op, float, float, ::cuda::std::__identity, red_hub,
            red_src, cub::detail::CudaDriverLauncherFactory>::Dispatch(t, bytes, in, out,
                                                                       red_off(n), op, 0.f, st, {},
                                                                       red_src{bp}, fac)));
      };
    };
    auto cr = [&] {
      size_t bytes = tb;
      CK(cub::DeviceReduce::Reduce(
          t, bytes, in, out, n, [] __device__(float a, float b) -> float { return fmaxf(a, b); },
          0.f, st));
    };
    double a = time_it(cr), b = time_it(jr(lto)), c = time_it(jr(rel));
    float r1, r2, r3;
    jr(lto)();
    CK(cudaMemcpy(&r1, out, 4, cudaMemcpyDeviceToHost));
    jr(rel)();
    CK(cudaMemcpy(&r2, out, 4, cudaMemcpyDeviceToHost));
    cr();
    CK(cudaMemcpy(&r3, out, 4, cudaMemcpyDeviceToHost));
    printf(
        "reduce max f32 2^%d: CUB lambda %.1f us, JIT LTO %.1f us (%.3f), JIT non-LTO %.1f us "
        "(%.3f)  results %g %g %g\n",
        lg, a, b, a / b, c, a / c, r1, r2, r3);
    if (lg > 24) continue;
    auto jm = [&](const built& bb) {
      return [&, bp = &bb] {
        CK(cudaMemcpyAsync(tmp, in, n * 4, cudaMemcpyDeviceToDevice, st));
        size_t bytes = tb;
        CK((cub::DispatchMergeSort<
            float*, cub::NullType*, float*, cub::NullType*, ms_off, jit_less, ms_hub, ms_src,
            cub::detail::CudaDriverLauncherFactory>::Dispatch(t, bytes, tmp, nullptr, tmp, nullptr,
                                                              ms_off(n), less, st, ms_src{bp},
                                                              fac)));
      };
    };
    auto cm = [&] {
      CK(cudaMemcpyAsync(tmp, in, n * 4, cudaMemcpyDeviceToDevice, st));
      size_t bytes = tb;
      CK(cub::DeviceMergeSort::SortKeys(
          t, bytes, tmp, (long long)n, [] __device__(float a, float b) -> bool { return a < b; },
          st));
    };
    a = time_it(cm, 7);
    b = time_it(jm(lto), 7);
    c = time_it(jm(rel), 7);
    jm(rel)();
    std::vector<float> h(n);
    CK(cudaMemcpy(h.data(), tmp, n * 4, cudaMemcpyDeviceToHost));
    bool ok = std::is_sorted(h.begin(), h.end());
    printf(
        "merge sort f32 2^%d (+copy): CUB lambda %.1f us, JIT LTO %.1f us (%.3f), JIT non-LTO %.1f "
        "us (%.3f) sorted=%d\n",
        lg, a, b, a / b, c, a / c, ok);
  }
}
