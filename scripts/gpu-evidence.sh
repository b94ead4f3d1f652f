#!/usr/bin/env bash
# The evidence runs of a GPU session, in stages that each fit one call of the team's GPU machine
# (10 minutes a call; the machine keeps the build between calls made within 30 s of each other).
#
#   scripts/gpu-evidence.sh build [ARGS]     configure (ARGS: more cache arguments) and build
#                                            everything (312-546 s on 16 cores);
#                                            $CUPAR_BUILD_TARGETS: those targets only
#   scripts/gpu-evidence.sh ctest K N        part K of N of `ctest -LE large` (-I K,,N), -j8;
#                                            $CUPAR_CTEST_SECONDS: stop starting and running tests
#                                            that many seconds from now (ctest --stop-time), so a
#                                            call's time limit does not cut the summary off
#   scripts/gpu-evidence.sh ctest-rest       the suites of `ctest -LE large` that neither passed
#                                            nor skipped in the build directory's last ctest or
#                                            ctest-rest run (failed, timed out or never started:
#                                            a call cut by its time), -j8, $CUPAR_CTEST_SECONDS as
#                                            above ($CUPAR_CTEST: the ctest to run)
#   scripts/gpu-evidence.sh sanitize         scripts/sanitize.sh, logs packed in one file
#   scripts/gpu-evidence.sh bench REGEX      cupar_bench rows matching REGEX, 5 repetitions, JSON
#   scripts/gpu-evidence.sh profile ROW KERNELS  Nsight Compute on one cupar_bench row's kernels
#                                            (names matching KERNELS) in tier 1 and optimised:
#                                            time, registers, occupancy, IPC, stalls, DRAM
#   scripts/gpu-evidence.sh builds CASE...   issue 28 item 2: the optimised build of new operators
#                                            per case (cupar_jit_latency --distinct --measure
#                                            build,drain, $CUPAR_LATENCY_OPERATORS of each, default
#                                            6, 2^24 elements, the driver's cache off), linked
#                                            whole (CUPAR_JIT_SPLIT_LINKS=0) and kernel by kernel,
#                                            each in a fresh process with an empty disk cache
#   scripts/gpu-evidence.sh latency CASE...  cupar_jit_latency per case, each with its own empty
#                                            disk cache: a first process (first call), a second
#                                            one on the disk cache it left, a third timing new
#                                            operators with and without background builds running
#                                            ($CUPAR_LATENCY_OPERATORS of each, default 10); the
#                                            driver's cache off (nvJitLink's cache lives there)
#
#   scripts/gpu-evidence.sh peer [REGEX]     issue 28 items 5-6: the cupar_bench rows (cupar, cupar_jit,
#                                            cub) of the families cuda.compute has, the cupar_jit rows
#                                            again in tier 1 (CUPAR_JIT_MODE=fast, no disk cache), and
#                                            bench/peer_cuda_compute.py on the same data, in one call;
#                                            scripts/peer_report.py's table. cuda-cccl travels as a
#                                            wheel in .whl/ (carry it; installed into /tmp/site)
#   scripts/gpu-evidence.sh tier1 REGEX      the same without the peer: the rows of REGEX, their
#                                            cupar_jit rows again in tier 1, and the table of tier 1
#                                            against the optimised build (an implementation group
#                                            naming cupar_jit_expr adds an iterator expression's
#                                            rows, e.g. scan_squares: "<family> (expression)")
#   scripts/gpu-evidence.sh tiers REGEX CASE...  issue 28 item 6: tier1's table with, for each
#                                            cupar_jit_latency CASE (reduce_f32, select_if_u32,
#                                            ...: the rows' families), a new operator's first call
#                                            and the time until its optimised build is ready (the
#                                            median of three fresh processes, empty disk caches,
#                                            the driver's cache off: CUDA_CACHE_DISABLE=1),
#                                            its optimised build alone (3 operators) and a burst
#                                            of 8 new operators until every optimised build is
#                                            done, at $CUPAR_TIERS_N elements (default 2^24)
#                                            With CUPAR_TIERS_AB="VAR=value ..." the tier-1 rows
#                                            and the first calls run again with that environment
#                                            (e.g. CUPAR_JIT_QUICK_OFC=min) and a second table,
#                                            tiers_table_ab.md, compares them in the same run
#   scripts/gpu-evidence.sh exit [RUNS]      issue 28 item 3: cupar_exit_tests with RUNS runs
#                                            (default 1,000), 16 at a time, the disk cache off
#                                            (build it first, e.g. CUPAR_LEAN_ARGS=
#                                            "-DCUPAR_LIBRARY_TYPES=i32" lean '^reduce<i32>$'
#                                            cupar_exit_tests: 93 s on the 16-core machine)
#
# During development, a filtered build of the work at hand (170-260 s instead of the full build):
#   scripts/gpu-evidence.sh lean FILTER TARGET...  configure with CUPAR_JIT_PRECOMPILE_FILTER=FILTER
#                                            (e.g. '^(join|group_by|reduce_by_key|for_each|
#                                            transform)[<+]': the families' sets the targets use)
#                                            and build the named targets (test suites, cupar_bench);
#                                            $CUPAR_LEAN_ARGS: more cache arguments
#   scripts/gpu-evidence.sh tests REGEX      ctest -R REGEX (suites built by `lean`), -j4, with each
#                                            suite's time
#   scripts/gpu-evidence.sh probe NAME ARGS...  docs/probes/NAME.cu built for sm_90 (nvcc -O3,
#                                            -lineinfo) and run once for each quoted ARGS
#                                            ("26 20 8" "26 12 0"), e.g. NAME blocktable;
#                                            NCU=1 adds an Nsight Compute report of the kernels
#                                            matching $NCU_KERNELS (ncu --clock-control none)
#   scripts/gpu-evidence.sh gtest TARGET FILTER  one test binary (found under the build directory)
#                                            with --gtest_filter=FILTER and the suites' environment
#                                            (shape-cache checks, an empty disk cache), its result
#                                            lines printed as they come: what still shows when a
#                                            call's time runs out (ctest prints at the end)
# with CUPAR_BUILD_DIR=build-lean for every stage of such a session (the bench stage included).
#
# Writes its logs to $OUT (default ./gpu-evidence) and prints their summaries. Needs the CUDA
# toolkit, CMake, ninja, and GoogleTest / Google Benchmark installed or packed into .testdeps
# (../shared/device/pack-test-deps). Build directory: $CUPAR_BUILD_DIR (default build-gpu).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
export PATH=/usr/local/cuda/bin:$PATH
out=${OUT:-$PWD/gpu-evidence}
mkdir -p "$out"
build=${CUPAR_BUILD_DIR:-build-gpu}
prefix=()
if [ -d .testdeps ]; then
  prefix=(-DCMAKE_PREFIX_PATH="$PWD/.testdeps")
  export LD_LIBRARY_PATH=$PWD/.testdeps/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
fi
# The gpu preset for sm_90 into $build, with the extra cache arguments given.
configure() {
  cmake --preset gpu -B "$build" "${prefix[@]}" -DCMAKE_CUDA_ARCHITECTURES=90 "$@" \
    >"$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
}
# $CUPAR_CTEST_SECONDS as ctest's --stop-time (the ctest stages).
ctest_stop=()
if [ -n "${CUPAR_CTEST_SECONDS:-}" ]; then
  ctest_stop=(--stop-time "$(date -d "+${CUPAR_CTEST_SECONDS} seconds" +%H:%M:%S)")
fi
# Appends to $build/ctest_last.log the suites that passed or skipped in ctest's output $1: what
# ctest-rest leaves out (the build directory stays on the machine between calls).
record_done() {
  grep -oE "Test +#[0-9]+: [A-Za-z0-9_.-]+ \.+ *(Passed|\*\*\*Skipped)" "$1" |
    sed -E 's/.*: ([^ ]+) .*/\1/' >>"$build/ctest_last.log"
}
stage=${1:-}
shift || true
start=$(date +%s)
case "$stage" in
  build)
    nvidia-smi -L
    # CMakePresets.json's "gpu" preset: every precompiled set, every test type, benchmarks (the
    # arguments: more cache arguments, e.g. -DCUPAR_LIBRARY_TYPES=...).
    configure "$@"
    # $CUPAR_BUILD_TARGETS: only those targets (e.g. "cupar_bench cupar_jit_latency" for the tiers
    # stage: the library with every set and the benchmarks, no tests).
    targets=()
    for t in ${CUPAR_BUILD_TARGETS:-}; do targets+=(--target "$t"); done
    cmake --build "$build" -j "$(nproc)" "${targets[@]}" >"$out/build.log" 2>&1
    rc=$?
    echo "build: rc=$rc in $(($(date +%s) - start)) s"
    # Where the time went (CPU-seconds by part, the longest steps), and the log for later.
    cp "$build/.ninja_log" "$out/ninja_log.txt" 2>/dev/null &&
      python3 scripts/ninja_times.py "$out/ninja_log.txt" --top 12
    [ $rc = 0 ] || grep -B3 -A15 "error" "$out/build.log" | head -60
    exit $rc
    ;;
  ctest)
    part=${1:?part}
    parts=${2:?parts}
    "${CUPAR_CTEST:-ctest}" --test-dir "$build" -LE large -j8 -I "$part,,$parts" \
      --output-on-failure "${ctest_stop[@]}" >"$out/ctest$part.log" 2>&1
    rc=$?
    : >"$build/ctest_last.log"
    record_done "$out/ctest$part.log"
    echo "ctest part $part of $parts: rc=$rc in $(($(date +%s) - start)) s"
    grep -E "Test +#|tests passed|Total Test" "$out/ctest$part.log" | tail -30
    exit $rc
    ;;
  ctest-rest)
    [ -f "$build/ctest_last.log" ] || { echo "ctest-rest: no earlier ctest in $build"; exit 2; }
    rest=$("${CUPAR_CTEST:-ctest}" --test-dir "$build" -LE large -N |
      sed -nE 's/^ *Test +#[0-9]+: ([^ ]+)$/\1/p' | sort -u |
      comm -23 - <(sort -u "$build/ctest_last.log"))
    if [ -z "$rest" ]; then
      echo "ctest-rest: every suite passed (or skipped) in the last runs"
      exit 0
    fi
    echo "ctest-rest: $(wc -w <<<"$rest") suites: $(echo $rest)"
    "${CUPAR_CTEST:-ctest}" --test-dir "$build" -LE large -j8 -R "^($(echo $rest | tr ' ' '|'))\$" \
      --output-on-failure "${ctest_stop[@]}" >"$out/ctest_rest.log" 2>&1
    rc=$?
    record_done "$out/ctest_rest.log"
    echo "ctest-rest: rc=$rc in $(($(date +%s) - start)) s"
    grep -E "Test +#|tests passed|Total Test" "$out/ctest_rest.log" | tail -30
    exit $rc
    ;;
  sanitize)
    timeout 580 scripts/sanitize.sh -B "$build" -j 16 >"$out/sanitize.log" 2>&1
    rc=$?
    echo "sanitize: rc=$rc in $(($(date +%s) - start)) s"
    tail -60 "$out/sanitize.log"
    (cd "$build/sanitize" && tar czf "$out/sanitize-logs.tgz" ./*.log summary.json 2>/dev/null)
    exit $rc
    ;;
  profile)
    # Nsight Compute on the kernels (names matching KERNELS) of one cupar_bench row, in tier 1
    # (CUPAR_JIT_MODE=fast) and in the default mode once the optimised build serves: launches
    # after the first $CUPAR_PROFILE_SKIP (default 20) matching ones, $CUPAR_PROFILE_COUNT of them
    # (default 2); the disk cache off. Logs profile_fast.log, profile_default.log. $CUPAR_NCU: the
    # ncu to run (default the one on PATH, where /usr/local/cuda/bin comes first).
    regex=${1:?regex of one cupar_bench row}
    kernels=${2:?regex of the kernel names to profile}
    rc=0
    for mode in fast default; do
      env_mode=(CUPAR_DISABLE_DISK_CACHE=1)
      [ "$mode" = fast ] && env_mode+=(CUPAR_JIT_MODE=fast)
      env "${env_mode[@]}" timeout 250 "${CUPAR_NCU:-ncu}" --clock-control none -k "regex:$kernels" \
        --launch-skip "${CUPAR_PROFILE_SKIP:-20}" --launch-count "${CUPAR_PROFILE_COUNT:-2}" \
        --section SpeedOfLight --section Occupancy --section LaunchStats \
        --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis \
        --section MemoryWorkloadAnalysis "$build/bench/cupar_bench" --benchmark_filter="$regex" \
        --benchmark_min_time=0.05 >"$out/profile_$mode.log" 2>&1 || rc=1
      echo "profile $mode: rc=$rc at $(($(date +%s) - start)) s"
      # (the kernels' names, not Google Benchmark's "L1 Data 48 KiB (x16)" lines)
      grep -E "^  [^ ].*\(|Duration|Registers Per|Achieved Occupancy|Executed Ipc Active|SM Active Cycles|No Eligible|DRAM Throughput" \
        "$out/profile_$mode.log" | grep -v " KiB (x" | cut -c1-150 | head -40
    done
    exit $rc
    ;;
  bench)
    regex=${1:?regex}
    "$build/bench/cupar_bench" --benchmark_filter="$regex" --benchmark_min_time=0.05 \
      --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
      --benchmark_out="$out/bench.json" --benchmark_out_format=json >"$out/bench.log" 2>&1
    rc=$?
    echo "bench: rc=$rc in $(($(date +%s) - start)) s"
    grep -E "_median" "$out/bench.log" | head -80
    exit $rc
    ;;
  peer | tier1 | tiers)
    # peer: the families cuda.compute has; tier1, tiers: the rows of REGEX (cupar, cupar_jit, cub)
    if [ "$stage" != peer ]; then
      regex=${1:?regex of cupar_bench rows, e.g. '^reduce_sum/(cupar|cupar_jit|cub)/f32/(16777216|268435456)/'}
      shift
    else
      regex=${1:-'^(select_if|three_way_partition|unique_by_key|segmented_reduce|merge_sort_keys|lower_bound)/(cupar|cupar_jit|cupar_jit_literal|cub)/(u32|u32_f32|f32)/(16777216|268435456)/'}
    fi
    rc=0
    # cupar_bench rows matching $2 into $1 (JSON), with the environment given after them.
    rows() {
      env "${@:3}" "$build/bench/cupar_bench" --benchmark_filter="$2" --benchmark_min_time=0.05 \
        --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
        --benchmark_out="$out/$1.json" --benchmark_out_format=json >"$out/$1.log" 2>&1 || rc=1
      echo "$1: rc=$rc at $(($(date +%s) - start)) s"
    }
    rows bench "$regex" CUPAR_DISABLE_DISK_CACHE=1
    # Tier 1: a disk-cache hit would serve the optimised build at once, even in fast mode.
    # (the rows' implementation group, the first "/(...)/" of REGEX, narrowed to cupar_jit and,
    # where the group names it, cupar_jit_expr: an iterator expression's rows)
    impls=$(sed -nE 's#^[^/]*/\(([a-z_|]*)\)/.*#\1#p' <<<"$regex" | tr '|' '\n' |
      grep -xE 'cupar_jit(_expr)?' | paste -sd'|')
    [ "$impls" = cupar_jit ] || [ -z "$impls" ] || impls="($impls)"
    tier1_regex=$(sed -E "s#/\\([a-z_|]*\\)/#/${impls:-cupar_jit}/#" <<<"$regex")
    rows tier1 "$tier1_regex" CUPAR_JIT_MODE=fast CUPAR_DISABLE_DISK_CACHE=1
    ab=()
    if [ "$stage" = tiers ] && [ -n "${CUPAR_TIERS_AB:-}" ]; then
      # shellcheck disable=SC2206  # CUPAR_TIERS_AB is a list of VAR=value words
      ab=($CUPAR_TIERS_AB)
      rows tier1_ab "$tier1_regex" CUPAR_JIT_MODE=fast CUPAR_DISABLE_DISK_CACHE=1 "${ab[@]}"
    fi
    peer=()
    if [ "$stage" = peer ]; then
      if ls .whl/*.whl >/dev/null 2>&1; then
        python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
          --target /tmp/site .whl/*.whl >"$out/pip.log" 2>&1 || { tail -20 "$out/pip.log"; exit 1; }
        export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}
      fi
      python3 -m pip list 2>/dev/null |
        grep -iE "^(numba|numba-cuda|cuda-core|cuda-bindings|cupy)" | tr '\n' ' '
      echo
      ops=${PEER_OPS:-numba}
      python3 bench/peer_cuda_compute.py -o "$out/peer.json" --ops "$ops" 2>&1 | tee "$out/peer.log"
      prc=${PIPESTATUS[0]}
      if [ "$prc" != 0 ] && [ "$ops" = numba ] && ! grep -q "cuda_compute/.* us " "$out/peer.log"; then
        echo "peer: numba operators failed; again with C++ operators (RawOp)"
        python3 bench/peer_cuda_compute.py -o "$out/peer.json" --ops cpp 2>&1 | tee -a "$out/peer.log"
        prc=${PIPESTATUS[0]}
      fi
      [ "$prc" = 0 ] || rc=1
      echo "peer: rc=$prc at $(($(date +%s) - start)) s"
      peer=(--peer "$out/peer.json")
    fi
    latency=()
    if [ "$stage" = tiers ]; then
      [ $# -gt 0 ] || { echo "tiers: name the cupar_jit_latency cases of the rows"; exit 2; }
      lat="$build/bench/cupar_jit_latency"
      n=${CUPAR_TIERS_N:-16777216}
      # Case $c in a fresh process on an empty disk cache and with the driver's cache off
      # (CUDA_CACHE_DISABLE=1: nvJitLink keeps its links there across processes, and an
      # operator run on the machine before would have its links served, a repeated program's
      # first call, not a new operator's), the measure's arguments after it. No salt: a salted
      # operator's text (an asm comment) costs merge sort's first call 16% more than the plain one.
      fresh() {
        local dir
        dir=$(mktemp -d)
        CUDA_CACHE_DISABLE=1 CUPAR_CACHE_DIR=$dir "$lat" --case "$c" --n "$n" "$@" \
          >>"$out/tiers_latency.log" 2>&1 || rc=1
        rm -rf "$dir"
      }
      # The same first call with the A/B environment, into its own log.
      fresh_ab() {
        local dir
        dir=$(mktemp -d)
        env "${ab[@]}" CUDA_CACHE_DISABLE=1 CUPAR_CACHE_DIR="$dir" "$lat" --case "$c" --n "$n" \
          --measure first_call >>"$out/tiers_latency_ab.log" 2>&1 || rc=1
        rm -rf "$dir"
      }
      for c in "$@"; do
        # The first call in three fresh processes (the report takes the median: one process's
        # first call varied by up to 40 ms between runs); build and drain with distinct
        # operators (the same code would fold to one build).
        for _ in 1 2 3; do
          fresh --measure first_call
          [ ${#ab[@]} = 0 ] || fresh_ab
        done
        fresh --distinct --operators 3 --measure build
        fresh --distinct --operators 8 --measure drain
      done
      echo "latency: rc=$rc at $(($(date +%s) - start)) s"
      latency=(--latency "$out/tiers_latency.log")
    fi
    python3 scripts/peer_report.py --bench "$out/bench.json" --tier1 "$out/tier1.json" \
      "${peer[@]}" "${latency[@]}" -o "$out/${stage}_table.md" || rc=1
    if [ ${#ab[@]} -gt 0 ]; then
      # The second table: tier 1 and first calls with the A/B environment, the rest the same run's.
      python3 scripts/peer_report.py --bench "$out/bench.json" --tier1 "$out/tier1_ab.json" \
        --latency "$out/tiers_latency_ab.log" -o "$out/${stage}_table_ab.md" || rc=1
      echo "A/B ($CUPAR_TIERS_AB): $out/${stage}_table_ab.md"
    fi
    exit $rc
    ;;
  latency)
    [ $# -gt 0 ] || { echo "latency: name the cases (cupar_jit_latency --list)"; exit 2; }
    lat="$build/bench/cupar_jit_latency"
    ops=${CUPAR_LATENCY_OPERATORS:-10}
    rc=0
    # The driver's cache off: nvJitLink keeps its links there across processes, and a case run
    # on the machine before (this stage, the tiers stage, cupar_bench's rows) would be served.
    for c in "$@"; do
      dir=$(mktemp -d)
      {
        echo "## $c: empty disk cache"
        CUDA_CACHE_DISABLE=1 CUPAR_CACHE_DIR=$dir "$lat" --case "$c" --measure first_call || rc=1
        echo "## $c: second process, disk cache"
        CUDA_CACHE_DISABLE=1 CUPAR_CACHE_DIR=$dir "$lat" --case "$c" --measure first_call || rc=1
        echo "## $c: new operators ($ops each), fresh process"
        CUDA_CACHE_DISABLE=1 CUPAR_CACHE_DIR=$dir "$lat" --case "$c" \
          --measure new_operator,new_operator_quiet --operators "$ops" || rc=1
      } >>"$out/latency.log" 2>&1
      rm -rf "$dir"
    done
    echo "latency: rc=$rc in $(($(date +%s) - start)) s"
    grep -E "^##|^result" "$out/latency.log" | sed -E 's/ (operator_compiles|links|loads|memory_hits|disk_writes|background_builds)=[0-9]+//g'
    exit $rc
    ;;
  builds)
    [ $# -gt 0 ] || { echo "builds: name the cases (cupar_jit_latency --list)"; exit 2; }
    lat="$build/bench/cupar_jit_latency"
    ops=${CUPAR_LATENCY_OPERATORS:-6}
    rc=0
    for c in "$@"; do
      for split in 0 1; do
        dir=$(mktemp -d)
        echo "## $c: CUPAR_JIT_SPLIT_LINKS=$split" >>"$out/builds.log"
        CUDA_CACHE_DISABLE=1 CUPAR_JIT_SPLIT_LINKS=$split CUPAR_CACHE_DIR=$dir "$lat" --case "$c" \
          --n 16777216 --distinct --operators "$ops" --measure build,drain >>"$out/builds.log" 2>&1 ||
          rc=1
        rm -rf "$dir"
      done
    done
    echo "builds: rc=$rc in $(($(date +%s) - start)) s"
    grep -E "^##|^result" "$out/builds.log" | sed -E 's/ (operator_compiles|loads|memory_hits|disk_writes|disk_hits|disk_rejects|upgrades|direct_builds)=[0-9]+//g'
    exit $rc
    ;;
  lean)
    filter=${1:?filter}
    shift
    [ $# -gt 0 ] || { echo "lean: name the targets (test suites, cupar_bench)"; exit 2; }
    nvidia-smi -L
    # shellcheck disable=SC2086  # CUPAR_LEAN_ARGS is a list of cache arguments
    configure -DCUPAR_JIT_PRECOMPILE_FILTER="$filter" ${CUPAR_LEAN_ARGS:-}
    grep "precompiling" "$out/configure.log"
    cmake --build "$build" -j "$(nproc)" --target "$@" >"$out/build.log" 2>&1
    rc=$?
    echo "lean build of $*: rc=$rc in $(($(date +%s) - start)) s"
    [ $rc = 0 ] || grep -B3 -A15 "error" "$out/build.log" | head -60
    exit $rc
    ;;
  exit)
    runs=${1:-1000}
    bin=$(find "$build" -type f -name cupar_exit_tests -perm -u+x | head -1)
    [ -n "$bin" ] || { echo "exit: no cupar_exit_tests under $build (build it with the lean stage)"; exit 2; }
    CUPAR_DISABLE_DISK_CACHE=1 CUPAR_EXIT_RUNS=$runs CUPAR_EXIT_PARALLEL=16 "$bin" >"$out/exit.log" 2>&1
    rc=$?
    echo "exit: rc=$rc in $(($(date +%s) - start)) s"
    grep -E "cupar_exit_child:|^  [0-9]+:|PASSED|FAILED" "$out/exit.log"
    exit $rc
    ;;
  tests)
    regex=${1:?regex}
    ctest --test-dir "$build" -R "$regex" -j4 --output-on-failure >"$out/tests.log" 2>&1
    rc=$?
    echo "tests $regex: rc=$rc in $(($(date +%s) - start)) s"
    grep -E "Test +#|tests passed|Total Test" "$out/tests.log" | tail -30
    exit $rc
    ;;
  gtest)
    target=${1:?target}
    filter=${2:?filter}
    bin=$(find "$build" -type f -name "$target" -perm -u+x | head -1)
    [ -n "$bin" ] || { echo "gtest: no $target under $build (build it with the lean stage)"; exit 2; }
    cache=$(mktemp -d)
    CUPAR_CACHE_DIR=$cache CUPAR_JIT_CHECK_SHAPE_CACHE=1 "$bin" --gtest_filter="$filter" 2>&1 |
      tee "$out/gtest-$target.log" | grep --line-buffered -E "^\[ +(OK|FAILED|PASSED) +\]|Failure"
    rc=${PIPESTATUS[0]}
    rm -rf "$cache"
    echo "gtest $target $filter: rc=$rc in $(($(date +%s) - start)) s"
    exit "$rc"
    ;;
  probe)
    name=${1:?probe name}
    shift
    nvcc -std=c++17 -O3 -arch=sm_90 --extended-lambda -lineinfo -Iinclude \
      "docs/probes/$name.cu" -o "$out/$name.bin" >"$out/probe_build.log" 2>&1 ||
      { tail -20 "$out/probe_build.log"; exit 1; }
    rc=0
    for a in "$@"; do
      # shellcheck disable=SC2086  # each ARGS string is a list of the probe's arguments
      timeout 120 "$out/$name.bin" $a | tee -a "$out/probe.log" || rc=1
      if [ -n "${NCU:-}" ]; then
        # shellcheck disable=SC2086
        timeout 200 ncu --clock-control none -k "regex:${NCU_KERNELS:-.}" -c 1 \
          --section SpeedOfLight --section WarpStateStats --section SourceCounters \
          -o "$out/$name.$(echo $a | tr ' ' _)" "$out/$name.bin" $a >>"$out/ncu.log" 2>&1
      fi
    done
    rm -f "$out/$name.bin"
    echo "probe $name: rc=$rc in $(($(date +%s) - start)) s"
    exit $rc
    ;;
  *)
    sed -n 2,42p "$0"
    exit 2
    ;;
esac
