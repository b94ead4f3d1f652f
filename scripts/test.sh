#!/usr/bin/env bash
# Builds cupar and runs its tests:   scripts/test.sh [extra ctest arguments]
#
# Needs the CUDA toolkit (12.4+, nvcc on PATH or in /usr/local/cuda), CMake 3.25+ and a C++17
# host compiler. Installs GoogleTest and Google Benchmark from the distribution's packages
# (apt-get) when they are missing. Without a GPU every GPU test skips itself with the reason and
# the compile-only tests still run. Tests over 2^31 elements are labelled `large` and left out;
# run them on a GPU with:   scripts/test.sh -L large
# Environment: CUPAR_BUILD_DIR (default build), CUPAR_CMAKE_ARGS (extra configure arguments),
# CUPAR_JOBS (parallel build/test jobs, default: all cores).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi

missing=()
for pkg in libgtest-dev libgmock-dev libbenchmark-dev; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
if ((${#missing[@]})); then
  if [ -n "${CMAKE_PREFIX_PATH:-}" ]; then
    echo "test.sh: ${missing[*]} not installed; using CMAKE_PREFIX_PATH=$CMAKE_PREFIX_PATH"
  elif command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    echo "test.sh: installing ${missing[*]}"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    echo "test.sh: please install ${missing[*]} (GoogleTest, Google Benchmark)" >&2
    exit 1
  fi
fi

build=${CUPAR_BUILD_DIR:-build}
jobs=${CUPAR_JOBS:-$(nproc)}
generator=()
if command -v ninja >/dev/null 2>&1 && [ ! -f "$build/Makefile" ]; then generator=(-G Ninja); fi
# shellcheck disable=SC2086
cmake -S . -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release ${CUPAR_CMAKE_ARGS:-}
cmake --build "$build" -j "$jobs"
if [ "$#" -gt 0 ]; then
  ctest --test-dir "$build" --output-on-failure -j "$jobs" "$@"
else
  ctest --test-dir "$build" --output-on-failure -j "$jobs" -LE large
fi
