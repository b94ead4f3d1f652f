// Probe: nvJitLink LTO latency for new vs repeated operators, in one process.
#include "link_probe.hpp"

#include <cstdio>
#include <string>

int main(int /*argc*/, char** argv) {
  std::setvbuf(stdout, nullptr, _IONBF, 0);
  const auto set = probe::read_file(argv[1]);
  const char* ops[] = {"a + b", "a * b", "a + b", "fmaxf(a, b)", "a - b * 0.5f", "a + b"};
  for (const char* o : ops) {
    const auto t = probe::clk::now();
    const auto ir = probe::operator_ltoir(std::string("return ") + o + ";", "cupar_op_f32");
    const double tc = probe::ms(t);
    const auto r = probe::link({{NVJITLINK_INPUT_FATBIN, &set}, {NVJITLINK_INPUT_LTOIR, &ir}},
                               {"-lto", "-arch=sm_90", "-time"});
    std::printf("op %-14s nvrtc %6.1f ms  link %7.1f ms r=%d | %s\n", o, tc, r.ms, r.status,
                probe::one_line(r.info).c_str());
  }
}
