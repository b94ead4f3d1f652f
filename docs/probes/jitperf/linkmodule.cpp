// Probe (docs/JIT.md, "Where a tier-2 link's time goes"): the optimised link of a module holding
// one CUB kernel (reduce_kernel_alone.cu built with nvcc -std=c++17 -arch=sm_90 -dlto -rdc=true
// --fatbin) with a new operator, three times per fatbin given.
//   g++ -std=c++17 -O2 linkmodule.cpp -I$CUDA/include -L$CUDA/lib64 -lnvJitLink -lnvrtc
//   CUDA_CACHE_DISABLE=1 ./a.out k.fatbin
#include "link_probe.hpp"

#include <cstdio>
#include <vector>

int main(int argc, char** argv) {
  for (int a = 1; a < argc; ++a) {
    const auto module = probe::read_file(argv[a]);
    for (int rep = 0; rep < 3; ++rep) {
      const auto ir = probe::distinct_operator_ltoir(700 + 10 * a + rep);
      const auto r = probe::link({{NVJITLINK_INPUT_FATBIN, &module}, {NVJITLINK_INPUT_LTOIR, &ir}},
                                 {"-lto", "-arch=sm_90", "-time"});
      std::printf("%s r=%d %.0f ms cubin %zu | %s %s\n", argv[a], r.status, r.ms, r.cubin.size(),
                  probe::one_line(r.info).c_str(), r.error.substr(0, 200).c_str());
    }
  }
}
