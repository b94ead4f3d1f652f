#!/usr/bin/env bash
# Builds and runs the cupar demo:   scripts/demo.sh [n]     (n elements, default 2^26)
#
# Every algorithm family with a C++ lambda and with a run-time (JIT) operator, each checked
# against the CPU's std:: algorithm, printed as a table of GPU time, CPU time and speed-up.
# Needs the CUDA toolkit (12.4+), CMake 3.25+ and a GPU; without a GPU it says so and exits 1
# after showing that the run-time compiler works. Build directory: $CUPAR_DEMO_BUILD_DIR
# (default build-demo).
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi
build=${CUPAR_DEMO_BUILD_DIR:-build-demo}
generator=()
if command -v ninja >/dev/null 2>&1 && [ ! -f "$build/Makefile" ]; then generator=(-G Ninja); fi
cmake -S . -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DCUPAR_BUILD_TESTS=OFF \
  -DCUPAR_BUILD_BENCHMARKS=OFF -DCUPAR_BUILD_EXAMPLES=ON >/dev/null
cmake --build "$build" --target cupar_demo -j "$(nproc)"
exec "$build/examples/cupar_demo" "$@"
