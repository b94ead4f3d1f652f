// Probe (no GPU needed, 2026-11-30): the registers of the optimised (tier-2) reduce over
// transform<float>(zip(K columns), "x._0 + ... + x._K-1"): K = 8 (state in the kernels'
// parameters) against K = 16 (a wide state in device memory; docs/PERFORMANCE_NOTES.md, "Wide
// expressions"). A compile-only build: run with CUPAR_JIT_LINK_LOG=1 (every link's options and
// ptxas -v on stderr) and CUPAR_DISABLE_DISK_CACHE=1, e.g. `wide_zip_registers 16 2>&1 | grep -E
// "minnctapersm|Used"`. Build against a cupar build: g++ -std=c++17 -O1 wide_zip_registers.cpp
// -Iinclude -I/usr/local/cuda/include -Lbuild/src -lcupar -Wl,-rpath,$PWD/build/src
// -L/usr/local/cuda/lib64 -lcudart -o wide_zip_registers
#include <cupar/cupar.hpp>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace jit = cupar::jit;

int main(int argc, char** argv) {
  const int k = argc > 1 ? std::atoi(argv[1]) : 16;
  const float* column = nullptr;  // compile only: never read
  std::vector<jit::field> columns;
  std::string sum;
  for (int i = 0; i < k; ++i) {
    columns.push_back({"_" + std::to_string(i), column});
    sum += (i ? " + x._" : "x._") + std::to_string(i);
  }
  const jit::build_report r = jit::compile_reduce<float>(
      jit::transform<float>(jit::zip(columns), jit::op(sum)), jit::plus, 90, true);
  std::printf("%d columns: set %s, tier %d, register target held %d, cubin %zu bytes\n", k,
              r.kernel_set.c_str(), r.tier, static_cast<int>(r.register_capped), r.cubin_bytes);
  return 0;
}
