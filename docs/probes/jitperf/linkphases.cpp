// Probe (no GPU needed, 2026-11-29): where a distinct operator's LTO link of a precompiled set
// spends its time (nvJitLink -time: NVVM's "create PTX" vs ptxas's "finish"), by link option.
// Usage: linkphases SET.ltoir "OPTIONS" ... (one link per argument, each with a new operator:
// "a + b * k" with an inline-assembly comment so that no two links repeat; run with
// CUDA_CACHE_DISABLE=1 where a driver is installed). SET.ltoir: a set's LTO-IR as the build writes
// it (build/src/precompiled/reduce_f32_sm90.ltoir). Build: g++ -std=c++17 -O2 linkphases.cpp
// -I/usr/local/cuda/include -L/usr/local/cuda/lib64 -lnvJitLink -lnvrtc -o linkphases
#include "link_probe.hpp"

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  const auto set = probe::read_file(argv[1]);
  int salt = 100;
  for (int a = 2; a < argc; ++a) {
    std::vector<std::string> opts = {"-lto", "-arch=sm_90", "-time"};
    for (char* t = std::strtok(argv[a], " "); t; t = std::strtok(nullptr, " "))
      opts.push_back(t);
    const auto ir = probe::distinct_operator_ltoir(++salt);
    const auto r = probe::link({{NVJITLINK_INPUT_LTOIR, &set}, {NVJITLINK_INPUT_LTOIR, &ir}}, opts);
    std::printf("[%s] r=%d total %.0f ms cubin %zu | %s %s\n", argv[a], r.status, r.ms,
                r.cubin.size(), probe::one_line(r.info, '|').c_str(),
                r.error.substr(0, 200).c_str());
  }
}
