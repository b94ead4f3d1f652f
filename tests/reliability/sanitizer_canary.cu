// cupar tests: planted defects that scripts/sanitize.sh runs under compute-sanitizer to show that
// each tool catches what it is for: a clean run of cupar's tests then means something (a
// sanitizer step that passes because the tool never ran is a known failure of CI set-ups).
//
//   cupar_sanitizer_canary oob    out-of-bounds global write             memcheck
//   cupar_sanitizer_canary leak   device allocation never freed          memcheck --leak-check full
//   cupar_sanitizer_canary race   unsynchronised shared-memory writes    racecheck
//   cupar_sanitizer_canary sync   __syncthreads() in divergent code      synccheck
//   cupar_sanitizer_canary init   read of uninitialised global memory    initcheck
//
// Not a ctest test: without the sanitizer the defects go unnoticed (exit 0), so as a test it
// could not fail. Exit 77 without a GPU, 2 for an unknown mode.
#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstring>

namespace {

constexpr int threads = 256;

__global__ void write_past_end(int* data, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i <= n) data[i] = i;  // `<=`: one element too many
}

// Each thread writes its own slot and reads the slot of a thread in the next warp, with no
// barrier between: a read-after-write hazard between warps. (The first version had every thread
// write one shared word and read it back: the compiler forwards the stored value, and racecheck
// on the H100 reported nothing, 2026-11-23.)
__global__ void shared_race(int* out) {
  __shared__ int slots[threads];
  slots[threadIdx.x] = static_cast<int>(threadIdx.x);
  out[threadIdx.x] = slots[(threadIdx.x + 32) % threads];
}

__global__ void divergent_barrier(int* out) {
  if (threadIdx.x < 48) {
    __syncthreads();  // reached by part of the block only
  }
  out[threadIdx.x] = threadIdx.x;
}

__global__ void read_uninitialised(const int* in, int* out) {
  out[threadIdx.x] = in[threadIdx.x] + 1;
}

int check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::printf("cupar_sanitizer_canary: %s: %s\n", what, cudaGetErrorString(e));
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::printf("cupar_sanitizer_canary: no usable CUDA device: skipped\n");
    return 77;
  }
  // `b` only where a second array is needed: memcheck reports an access outside every
  // allocation, and cudaMalloc places consecutive small allocations next to each other, so a
  // write one past `a` landed in `b` and went unreported on the H100 (2026-11-23).
  const bool second = std::strcmp(mode, "init") == 0;
  int* a = nullptr;
  int* b = nullptr;
  if (check(cudaMalloc(&a, threads * sizeof(int)), "cudaMalloc") ||
      (second && check(cudaMalloc(&b, threads * sizeof(int)), "cudaMalloc"))) {
    return 1;
  }
  if (std::strcmp(mode, "oob") == 0) {
    write_past_end<<<2, threads>>>(a, threads);  // writes a[threads]: one past the allocation
  } else if (std::strcmp(mode, "leak") == 0) {
    int* leaked = nullptr;
    if (check(cudaMalloc(&leaked, 4096), "cudaMalloc")) return 1;
  } else if (std::strcmp(mode, "race") == 0) {
    shared_race<<<1, threads>>>(a);
  } else if (std::strcmp(mode, "sync") == 0) {
    divergent_barrier<<<1, threads>>>(a);
  } else if (std::strcmp(mode, "init") == 0) {
    read_uninitialised<<<1, threads>>>(b, a);
  } else {
    std::printf("usage: cupar_sanitizer_canary oob|leak|race|sync|init\n");
    return 2;
  }
  // Without a sanitizer these defects are silent: the out-of-bounds write lands in the rest of
  // the allocation's granule. The status is printed, not checked: the tool's report is what counts.
  const cudaError_t e = cudaDeviceSynchronize();
  std::printf("cupar_sanitizer_canary %s: ran (%s)\n", mode, cudaGetErrorString(e));
  cudaFree(a);
  if (b != nullptr) cudaFree(b);
  return 0;
}
