#!/usr/bin/env bash
# Host sanitizers (issue 12): builds cupar and its tests with AddressSanitizer + UndefinedBehavior-
# Sanitizer, or with ThreadSanitizer, and runs the tests that exercise host code.
#
#   scripts/sanitize-host.sh address [build-dir]   ASan + UBSan (LeakSanitizer included)
#   scripts/sanitize-host.sh thread  [build-dir]   TSan: the JIT engine under concurrency
#
# address: the tests that need no GPU (label cpu: run-time compile and link, operator checks and
# hostile snippets, the disk cache's faults, argument checks, the JIT under concurrency); on a
# machine with a GPU, also `--gpu`: the JIT runtime test and the memory tests (GPU code is not
# instrumented, host code around it is). thread: cupar_jit_concurrency_tests (its GPU part runs
# where there is a GPU: background builds finishing while calls run, clear_memory_cache racing
# calls), and with `--gpu` cupar_jit_runtime_tests.
#
# Default build directories: build-asan, build-tsan. Each is a full build of the library (the
# precompiled JIT kernel sets included): about 25 minutes on 2 cores, so this is not part of CI
# (.ci/run); docs/RELIABILITY.md gives the measured times. Environment: CUPAR_JOBS (build jobs).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

kind=${1:-}
shift || true
gpu=0
build=""
for arg in "$@"; do
  case "$arg" in
    --gpu) gpu=1 ;;
    *) build=$arg ;;
  esac
done
case "$kind" in
  address)
    flags="address,undefined"
    build=${build:-build-asan}
    tests="cupar_unit_tests cupar_jit_compile_tests cupar_jit_compile_dp_tests cupar_hostile_snippet_tests cupar_disk_cache_tests cupar_jit_concurrency_tests"
    gpu_tests="cupar_jit_runtime_tests cupar_memory_reliability_tests cupar_disk_cache_gpu_tests cupar_fault_tests"
    ;;
  thread)
    flags="thread"
    build=${build:-build-tsan}
    tests="cupar_jit_concurrency_tests"
    gpu_tests="cupar_jit_runtime_tests"
    ;;
  *)
    echo "usage: scripts/sanitize-host.sh address|thread [build-dir] [--gpu]" >&2
    exit 2
    ;;
esac
if ((gpu)); then tests="$tests $gpu_tests"; fi
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi
jobs=${CUPAR_JOBS:-$(nproc)}
generator=()
if command -v ninja >/dev/null 2>&1 && [ ! -f "$build/Makefile" ]; then generator=(-G Ninja); fi

start=$(date +%s)
# shellcheck disable=SC2086
cmake -S . -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCUPAR_SANITIZE="$flags" -DCUPAR_BUILD_BENCHMARKS=OFF -DCUPAR_BUILD_EXAMPLES=OFF \
  ${CUPAR_CMAKE_ARGS:-} >/dev/null
targets=()
for t in $tests; do targets+=(--target "$t"); done
# The children the GPU tests start.
if ((gpu)); then targets+=(--target cupar_fault_child --target cupar_disk_cache_child); fi
cmake --build "$build" -j "$jobs" "${targets[@]}"
built=$(date +%s)

# CUDA maps memory where AddressSanitizer keeps its shadow gap; the suppressions name leaks
# and races inside NVIDIA's libraries (not instrumented, so only their allocations show).
export ASAN_OPTIONS="protect_shadow_gap=0:detect_leaks=1:abort_on_error=0:halt_on_error=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export LSAN_OPTIONS="suppressions=$root/scripts/sanitize/lsan.supp:print_suppressions=0"
export TSAN_OPTIONS="suppressions=$root/scripts/sanitize/tsan.supp:halt_on_error=1:second_deadlock_stack=1"
regex="^($(echo "$tests" | tr ' ' '|'))$"
status=0
ctest --test-dir "$build" --output-on-failure -R "$regex" || status=$?
done_at=$(date +%s)
echo "sanitize-host: $kind ($flags): build $((built - start)) s, tests $((done_at - built)) s," \
  "in $build; ctest status $status"
exit "$status"
