// Probe (issue 26): what the driver says about memory of device 0 asked from device 1's context:
// cuPointerGetAttributes' MEMORY_TYPE, DEVICE_ORDINAL and ACCESS_FLAGS for cudaMalloc,
// cudaMallocAsync (pool) and managed memory, before and after peer access is enabled. It decides
// how cupar::set_device_checks tells memory the stream's device cannot reach.
//   nvcc -arch=sm_90 -o pointer_access pointer_access.cu -lcuda && ./pointer_access
#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cstdio>

static void show(const char* what, void* p) {
  unsigned int type = 0, managed = 0;
  int ordinal = -1;
  unsigned long long access = 99;
  CUpointer_attribute a[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                             CU_POINTER_ATTRIBUTE_IS_MANAGED};
  void* d[] = {&type, &ordinal, &managed};
  const CUresult r3 = cuPointerGetAttributes(3, a, d, reinterpret_cast<CUdeviceptr>(p));
  CUpointer_attribute b[] = {CU_POINTER_ATTRIBUTE_ACCESS_FLAGS};
  void* e[] = {&access};
  const CUresult r1 = cuPointerGetAttributes(1, b, e, reinterpret_cast<CUdeviceptr>(p));
  unsigned long long access2 = 99;
  const CUresult r0 = cuPointerGetAttribute(&access2, CU_POINTER_ATTRIBUTE_ACCESS_FLAGS,
                                            reinterpret_cast<CUdeviceptr>(p));
  int current = -1;
  cudaGetDevice(&current);
  std::printf(
      "%-34s from device %d: attrs rc=%d type=%u ordinal=%d managed=%u | access rc=%d "
      "flags=%llu | single rc=%d flags=%llu\n",
      what, current, r3, type, ordinal, managed, r1, access, r0, access2);
}

int main() {
  int n = 0;
  cudaGetDeviceCount(&n);
  if (n < 2) {
    std::printf("needs two GPUs\n");
    return 77;
  }
  cudaSetDevice(0);
  void *plain = nullptr, *pool = nullptr, *managed = nullptr;
  cudaMalloc(&plain, 4096);
  cudaMallocAsync(&pool, 4096, cudaStreamLegacy);
  cudaMallocManaged(&managed, 4096);
  cudaDeviceSynchronize();
  show("cudaMalloc (device 0)", plain);
  cudaSetDevice(1);
  cudaFree(nullptr);
  show("cudaMalloc (device 0)", plain);
  show("cudaMallocAsync (device 0)", pool);
  show("cudaMallocManaged", managed);
  cudaDeviceEnablePeerAccess(0, 0);
  show("cudaMalloc, peer access on", plain);
  show("cudaMallocAsync, peer access on", pool);
  cudaMemPool_t mp = nullptr;
  cudaDeviceGetDefaultMemPool(&mp, 0);
  cudaMemAccessDesc desc{};
  desc.location.type = cudaMemLocationTypeDevice;
  desc.location.id = 1;
  desc.flags = cudaMemAccessFlagsProtReadWrite;
  cudaMemPoolSetAccess(mp, &desc, 1);
  show("cudaMallocAsync, pool access on", pool);
  return 0;
}
