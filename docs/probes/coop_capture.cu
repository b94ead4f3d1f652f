// Probe (a GPU needed): whether a cooperative launch (a grid-wide barrier, cooperative_groups'
// grid.sync()) can be recorded by stream capture and replayed as a graph, and whether it then
// still runs as one cooperative launch (all blocks resident, the barrier holding). top_k's passes
// run in one cooperative launch, but take a chain of launches while the stream captures
// (src/compiled/top_k.cu, passes_blocks): this tells whether they need to.
// Three ways: cudaLaunchCooperativeKernel captured; cudaLaunchKernelEx with the cooperative launch
// attribute captured; the same direct (no capture). Each kernel: every block adds 1 to a counter,
// grid.sync(), then every block checks that it sees all blocks' additions (a broken barrier shows
// as a block that saw fewer) and the last pass writes what it saw.
// Last: whether a launch refused under capture leaves the capture usable.
// Build and run: scripts/gpu-evidence.sh probe coop_capture "" (no arguments).
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <cstdio>

namespace cg = cooperative_groups;

__global__ void barrier_check(unsigned* counter, unsigned* wrong, unsigned rounds) {
  const cg::grid_group grid = cg::this_grid();
  for (unsigned r = 0; r < rounds; ++r) {
    if (threadIdx.x == 0) atomicAdd(counter, 1u);
    grid.sync();
    if (threadIdx.x == 0) {
      const unsigned seen = atomicAdd(counter, 0u);
      if (seen < (r + 1) * gridDim.x) atomicAdd(wrong, 1u);
    }
    grid.sync();
  }
}

#define CHECK(x)                                                                        \
  do {                                                                                  \
    const cudaError_t e_ = (x);                                                         \
    if (e_ != cudaSuccess) {                                                            \
      std::printf("  %s: %s (%s)\n", #x, cudaGetErrorName(e_), cudaGetErrorString(e_)); \
      return false;                                                                     \
    }                                                                                   \
  } while (0)

// way 0: cudaLaunchCooperativeKernel, 1: cudaLaunchKernelEx with the cooperative attribute.
bool launch(int way, unsigned grid, unsigned* counter, unsigned* wrong, unsigned rounds,
            cudaStream_t s) {
  if (way == 0) {
    void* args[] = {&counter, &wrong, &rounds};
    CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(barrier_check), grid, 256, args,
                                      0, s));
  } else {
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(grid);
    config.blockDim = dim3(256);
    config.stream = s;
    cudaLaunchAttribute attribute[1];
    attribute[0].id = cudaLaunchAttributeCooperative;
    attribute[0].val.cooperative = 1;
    config.attrs = attribute;
    config.numAttrs = 1;
    CHECK(cudaLaunchKernelEx(&config, barrier_check, counter, wrong, rounds));
  }
  return true;
}

bool run(int way, bool capture, unsigned grid, unsigned* counter, unsigned* wrong, cudaStream_t s) {
  const unsigned rounds = 64;
  CHECK(cudaMemsetAsync(counter, 0, sizeof(unsigned), s));
  CHECK(cudaMemsetAsync(wrong, 0, sizeof(unsigned), s));
  CHECK(cudaStreamSynchronize(s));
  if (capture) {
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    const bool launched = launch(way, grid, counter, wrong, rounds, s);
    cudaGraph_t graph = nullptr;
    const cudaError_t ended = cudaStreamEndCapture(s, &graph);
    if (!launched) return false;
    CHECK(ended);
    cudaGraphExec_t exec = nullptr;
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    for (int replay = 0; replay < 3; ++replay) {  // replays add to the counter: check the last
      CHECK(cudaMemsetAsync(counter, 0, sizeof(unsigned), s));
      CHECK(cudaGraphLaunch(exec, s));
    }
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
  } else {
    if (!launch(way, grid, counter, wrong, rounds, s)) return false;
    CHECK(cudaStreamSynchronize(s));
  }
  unsigned c = 0, w = 0;
  CHECK(cudaMemcpy(&c, counter, sizeof c, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&w, wrong, sizeof w, cudaMemcpyDeviceToHost));
  std::printf("  counter %u (want %u), blocks that saw a broken barrier: %u\n", c, rounds * grid,
              w);
  return c == rounds * grid && w == 0;
}

int main() {
  int device = 0, sms = 0, per_sm = 0, cooperative = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device);
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, barrier_check, 256, 0);
  const unsigned grid = static_cast<unsigned>(sms * per_sm);
  std::printf("coop_capture: %d SMs, %d blocks/SM resident, grid %u, cooperative launch %d\n", sms,
              per_sm, grid, cooperative);
  unsigned *counter = nullptr, *wrong = nullptr;
  cudaMalloc(&counter, sizeof(unsigned));
  cudaMalloc(&wrong, sizeof(unsigned));
  cudaStream_t s = nullptr;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  const char* ways[] = {"cudaLaunchCooperativeKernel", "cudaLaunchKernelEx, cooperative attribute"};
  int failed = 0;
  for (int way = 0; way < 2; ++way) {
    for (bool capture : {false, true}) {
      std::printf("%s, %s:\n", ways[way], capture ? "captured, graph replayed" : "direct");
      const bool ok = run(way, capture, grid, counter, wrong, s);
      std::printf("  %s\n", ok ? "OK" : "FAILED");
      failed += ok ? 0 : 1;
      cudaGetLastError();  // a failed launch's error is not sticky: the next way runs
    }
  }
  // A grid one block larger than can be resident: refused directly, and under capture?
  for (bool capture : {false, true}) {
    std::printf("grid %u + 1 (too large), %s:\n", grid, capture ? "captured" : "direct");
    const bool ok = run(0, capture, grid + 1, counter, wrong, s);
    std::printf("  %s\n", ok ? "ran (unexpected)" : "refused");
    cudaGetLastError();
  }
  // After a refused launch under capture: is the capture still usable (top_k then records the
  // chain of launches), or invalidated?
  {
    std::printf("a refused launch under capture, then a plain kernel:\n");
    cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal);
    unsigned rounds = 1, too_large = grid + 1;
    void* args[] = {&counter, &wrong, &rounds};
    const cudaError_t refused = cudaLaunchCooperativeKernel(
        reinterpret_cast<const void*>(barrier_check), too_large, 256, args, 0, s);
    cudaGetLastError();
    cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    cudaStreamIsCapturing(s, &status);
    const cudaError_t memset = cudaMemsetAsync(counter, 0, sizeof(unsigned), s);
    cudaGraph_t graph = nullptr;
    const cudaError_t ended = cudaStreamEndCapture(s, &graph);
    std::printf("  launch %s, capture status after it %s, next operation %s, end of capture %s\n",
                cudaGetErrorName(refused),
                status == cudaStreamCaptureStatusActive        ? "active"
                : status == cudaStreamCaptureStatusInvalidated ? "invalidated"
                                                               : "none",
                cudaGetErrorName(memset), cudaGetErrorName(ended));
    if (graph != nullptr) cudaGraphDestroy(graph);
    cudaGetLastError();
  }
  std::printf("coop_capture: %d of 4 ways failed\n", failed);
  return failed == 0 ? 0 : 1;
}
