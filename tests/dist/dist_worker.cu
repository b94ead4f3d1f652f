// cupar tests: one rank of a multi-process run (one process per GPU, the shape that spans nodes).
//   cupar_dist_worker <rank> <size> <id-file> [case ...]
// Rank 0 makes the NCCL id and writes it to <id-file>; the others read it
// (unique_id::exchange_via_file). The rank uses device <rank> (modulo the visible devices), runs
// the cases of tests/dist/cases.cuh (all of them when none is named) and prints one line per
// case: "PASS <case>" or "FAIL <case>: <message>". Exit status: 0 when every case passed, 1 when
// one failed, 2 for an exception, 77 without a GPU.
#include "dist/cases.hpp"

#include <cuda_runtime_api.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  using namespace cupar::dist_testing;
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s <rank> <size> <id-file> [case ...]\n", argv[0]);
    return 2;
  }
  const int rank = std::atoi(argv[1]);
  const int size = std::atoi(argv[2]);
  const std::string id_file = argv[3];
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) return 77;
  try {
    cupar::dist::config cfg;
    cfg.timeout = std::chrono::seconds(120);  // a peer that dies must not hang this one forever
    const auto id =
        cupar::dist::unique_id::exchange_via_file(id_file, rank, std::chrono::seconds(60));
    cupar::dist::communicator comm(id, size, rank, rank % devices, cfg);
    cudaSetDevice(comm.device());
    cudaStream_t s = nullptr;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    int failed = 0;
    for (const auto& [name, run] : all_cases()) {
      bool wanted = argc == 4;
      for (int i = 4; i < argc; ++i)
        wanted = wanted || name == argv[i];
      if (!wanted) continue;
      rank_ctx c{comm, s};
      failures f;
      run(c, f);
      if (f.ok()) {
        std::printf("PASS %s\n", name.c_str());
      } else {
        ++failed;
        for (const auto& m : f.messages)
          std::printf("FAIL %s: rank %d: %s\n", name.c_str(), rank, m.c_str());
      }
      std::fflush(stdout);
    }
    cudaStreamSynchronize(s);
    cudaStreamDestroy(s);
    return failed == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::printf("ERROR rank %d: %s\n", rank, e.what());
    return 2;
  }
}
