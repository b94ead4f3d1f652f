// Probe (docs/JIT.md, "Where a tier-2 link's time goes"): wall time of the optimised (LTO) link of
// a kernel set's LTO-IR with a new operator: the whole set, the named kernels (-kernels-used),
// each named kernel alone, and each alone in parallel threads.
//   g++ -std=c++17 -O2 linkperkernel.cpp -I$CUDA/include -L$CUDA/lib64 -lnvJitLink -lnvrtc
//   -lpthread CUDA_CACHE_DISABLE=1 ./a.out reduce_f32_sm90.ltoir <mangled kernel name>...
// (the set's LTO-IR: src/precompiled/reduce_f32_sm90.ltoir in a build; the kernel names:
// cuobjdump -elf of full.cubin, which the probe writes.)
#include "link_probe.hpp"

#include <cstdio>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace {

/// One LTO link of the set with a new operator and `extra` options; its time. Writes the cubin
/// to `dump` when given.
double link(const std::vector<char>& set, const std::vector<char>& ir,
            const std::vector<std::string>& extra, const char* dump = nullptr) {
  std::vector<std::string> opts = {"-lto", "-arch=sm_90"};
  opts.insert(opts.end(), extra.begin(), extra.end());
  const auto r = probe::link({{NVJITLINK_INPUT_LTOIR, &set}, {NVJITLINK_INPUT_LTOIR, &ir}}, opts);
  if (r.status != 0) std::printf("link error %d %s\n", r.status, r.error.substr(0, 300).c_str());
  if (dump != nullptr) {
    std::ofstream(dump, std::ios::binary)
        .write(r.cubin.data(), static_cast<std::streamsize>(r.cubin.size()));
  }
  return r.ms;
}

}  // namespace

int main(int argc, char** argv) {
  const auto set = probe::read_file(argv[1]);
  const std::vector<std::string> kernels(argv + 2, argv + argc);
  int salt = 1000;
  std::printf("full: %.0f ms\n",
              link(set, probe::distinct_operator_ltoir(++salt), {}, "full.cubin"));
  std::printf("full: %.0f ms\n", link(set, probe::distinct_operator_ltoir(++salt), {}));
  if (kernels.empty()) return 0;
  std::vector<std::string> used;
  for (const auto& n : kernels)
    used.push_back("-kernels-used=" + n);
  std::printf("all named (%zu): %.0f ms\n", kernels.size(),
              link(set, probe::distinct_operator_ltoir(++salt), used));
  for (const auto& n : kernels)
    std::printf("one (%s...): %.0f ms\n", n.substr(0, 60).c_str(),
                link(set, probe::distinct_operator_ltoir(++salt), {"-kernels-used=" + n}));
  // parallel: each kernel alone, concurrently
  std::vector<std::vector<char>> irs;
  for (std::size_t i = 0; i < kernels.size(); ++i)
    irs.push_back(probe::distinct_operator_ltoir(++salt));
  const auto t = probe::clk::now();
  std::vector<std::thread> th;
  std::vector<double> each(kernels.size());
  for (std::size_t i = 0; i < kernels.size(); ++i)
    th.emplace_back([&, i] { each[i] = link(set, irs[i], {"-kernels-used=" + kernels[i]}); });
  for (auto& x : th)
    x.join();
  std::printf("parallel (%zu threads): wall %.0f ms (each", kernels.size(), probe::ms(t));
  for (double e : each)
    std::printf(" %.0f", e);
  std::printf(")\n");
}
