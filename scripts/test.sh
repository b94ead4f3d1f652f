#!/usr/bin/env bash
# Builds cupar and runs its tests:   scripts/test.sh [extra ctest arguments]
#
# Needs the CUDA toolkit (12.4+, nvcc on PATH or in /usr/local/cuda), CMake 3.25+ and a C++17
# host compiler. Installs GoogleTest, Google Benchmark and matplotlib (for the benchmark report's
# self-test) from the distribution's packages (apt-get) when they are missing. Without a GPU
# every GPU test skips itself with the reason and the compile-only tests still run. Tests over 2^31 elements are labelled `large` and left out;
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

# The benchmark report's self-test (bench_report_selftest) needs matplotlib for the system's
# Python 3 (the one CMake's check finds at /usr/bin/python3); install it where apt can.
if ! /usr/bin/python3 -c "import matplotlib" >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    echo "test.sh: installing python3-matplotlib (for bench_report_selftest)"
    if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
      apt-get install -y -qq python3-matplotlib >/dev/null; }; then
      echo "test.sh: could not install python3-matplotlib: bench_report_selftest will be skipped"
    fi
  else
    echo "test.sh: python3-matplotlib is not installed: bench_report_selftest will be skipped"
  fi
fi

# NCCL for cupar::dist (the distributed algorithms): CMake finds a system NCCL, CUPAR_NCCL_ROOT or
# the nvidia-nccl-cu13 Python package. Where none is installed, the package's wheel is
# downloaded once (pip, about 300 MB) and unpacked under the user's cache, outside the trees.
nccl_args=()
if [[ "${CUPAR_CMAKE_ARGS:-} ${CUPAR_NCCL_ROOT:-}" != *NCCL* ]] && [ -z "${CUPAR_NCCL_ROOT:-}" ] &&
  ! [ -f /usr/include/nccl.h ] && ! [ -f /usr/local/include/nccl.h ] &&
  ! python3 -c "import nvidia.nccl" >/dev/null 2>&1; then
  nccl_dir=${XDG_CACHE_HOME:-$HOME/.cache}/cupar/deps/nccl-cu13-2.28.9
  if [ ! -f "$nccl_dir/nvidia/nccl/include/nccl.h" ]; then
    echo "test.sh: NCCL not found: fetching the nvidia-nccl-cu13 2.28.9 wheel into $nccl_dir"
    rm -rf "$nccl_dir.dl" && mkdir -p "$nccl_dir.dl"
    if python3 -m pip download --no-deps -q -d "$nccl_dir.dl" nvidia-nccl-cu13==2.28.9 &&
      python3 -m zipfile -e "$nccl_dir.dl"/nvidia_nccl_cu13-*.whl "$nccl_dir"; then
      rm -rf "$nccl_dir.dl"
    else
      echo "test.sh: could not fetch NCCL: cupar::dist (and its tests) will not be built"
    fi
  fi
  if [ -f "$nccl_dir/nvidia/nccl/include/nccl.h" ]; then
    nccl_args=("-DCUPAR_NCCL_ROOT=$nccl_dir/nvidia/nccl")
  fi
fi

build=${CUPAR_BUILD_DIR:-build}
jobs=${CUPAR_JOBS:-$(nproc)}
generator=()
# Ninja where it is installed (the presets' generator), Make otherwise or for a Make build folder.
if ! command -v ninja >/dev/null 2>&1 || [ -f "$build/Makefile" ]; then generator=(-G "Unix Makefiles"); fi
# Without a GPU (CI) nothing runs device code: the "ci" preset builds the compiled library for five
# element types and precompiles a selection of the JIT kernel sets (the others are compiled from
# source where a compile-only test asks for them),
# instantiates the GPU suites' typed tests for one type per group (they only compile there),
# compiles device code to PTX only without optimisation and host code at -O0, and skips the
# benchmark build and the tests above 2^31 elements, which keeps CI under 20 minutes on a 2-core
# machine (docs/TESTING.md has the measurements). With a GPU: everything ("gpu").
# CUPAR_CMAKE_ARGS overrides either.
preset=gpu
if [[ "${CUPAR_CMAKE_ARGS:-}" != *CUPAR_JIT_PRECOMPILE_TYPES* ]] &&
  ! { command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU'; }; then
  echo "test.sh: no GPU found: the \"ci\" preset (CMakePresets.json): the compiled library for i32," \
    "u32, u64, f32 and f64 only, precompiling the JIT kernel" \
    "sets of those types and the struct classes s8a4, s16a4, s16a8 (for reduce, scans," \
    "merge sort; no struct classes of the data-processing families) only, without the named-plus," \
    "histogram and arithmetic merge-sort-pair sets, GPU suites for one type per group, device code" \
    "as PTX only and host code at -O0 (nothing runs the device code), no benchmark build (its" \
    "report scripts' self-tests still run), no tests above 2^31 elements (label large), and of the" \
    "distributed tests only those that need no GPU (the GPU cases still compile)"
  preset=ci
fi
preset_args=(--preset "$preset")
if [ "$preset" = ci ] && [ -n "${CUDAARCHS:-}" ]; then
  preset_args+=("-DCMAKE_CUDA_ARCHITECTURES=$CUDAARCHS")
fi
# shellcheck disable=SC2086
cmake "${preset_args[@]}" -B "$build" "${generator[@]}" "${nccl_args[@]}" ${CUPAR_CMAKE_ARGS:-}
cmake --build "$build" -j "$jobs"
if [ "$#" -gt 0 ]; then
  ctest --test-dir "$build" --output-on-failure -j "$jobs" "$@"
else
  ctest --test-dir "$build" --output-on-failure -j "$jobs" -LE large
fi
