#!/usr/bin/env bash
# Builds cupar with its benchmarks (Release; Ninja when available), runs the whole benchmark suite
# on this machine's GPU writing Google Benchmark JSON, and writes the report (RESULTS.md and
# plots/) with scripts/bench_report.py.
#
# Usage: scripts/run-benchmarks.sh [options] [cupar_bench arguments...]
#   -o, --out DIR        results.json, bench.log, RESULTS.md and plots/ go here (default: bench/)
#   -B, --build-dir DIR  build directory (default: build-bench)
#   --no-build           run the existing build
#   --build-only         build, then stop
#   --min-time S         --benchmark_min_time per row and size, seconds (default 0.05)
#   --repetitions N      --benchmark_repetitions (default 1; with N > 1 only the aggregates are
#                        kept and the report uses the median)
#   --part P             run part of the suite, so that each part fits a time limit (one call of
#                        the team's GPU machine: 10 minutes): "kernels" (every row but the
#                        jit_latency ones: results.json), or the same rows in parts split at the
#                        families of --split: "kernels-1" (the families before the first split
#                        family in the suite's order: results_kernels-1.json), "kernels-2" (that
#                        family up to the next split family), ... "kernels-K" (K = the number of
#                        split families + 1), and "latency" (the jit_latency rows:
#                        results_latency.json). "kernels" and "kernels-1" start a run (they drop
#                        every other results*.json of DIR); each part's report is written from
#                        every results*.json of DIR, so the last part's report covers the run
#   --split F1[,F2...]   the first families of "kernels-2", "kernels-3", ... (default
#                        merge_sort_keys,histogram_even,group_by_100: four kernel parts)
#   --readme FILE        also refresh the headline block of FILE (between the markers
#                        <!-- cupar-bench:begin --> and <!-- cupar-bench:end -->)
#   -h, --help           this text
# Every other argument goes to cupar_bench, e.g. a filter (keep copy/ in it for the report's
# "% of copy bandwidth" column):
#   scripts/run-benchmarks.sh --benchmark_filter='^(copy|reduce_sum|radix_sort_keys)/'
#
# Expected duration (the H100 machine, 16 cores, 2026-12-06, commit 5e37ce9): the library and the
# benchmarks from scratch 272 s (the gpu preset's targets cupar_bench and cupar_jit_latency, which
# building cupar_bench builds too, since its jit_latency rows run it); the suite 731 s: kernels-1
# 145 s (the CPU baselines' sequential radix sorts of 2^26 keys among its rows), kernels-2 177 s,
# kernels-3 233 s, kernels-4 66 s (group-by, join, top-k), latency 110 s (129 rows, fresh
# processes); the report about 10 s. Where one command may run at most 10 minutes, build and run
# apart, and the suite in parts:
#   scripts/run-benchmarks.sh --build-only
#   scripts/run-benchmarks.sh --no-build --part kernels-1
#   scripts/run-benchmarks.sh --no-build --part kernels-2
#   scripts/run-benchmarks.sh --no-build --part kernels-3
#   scripts/run-benchmarks.sh --no-build --part kernels-4
#   scripts/run-benchmarks.sh --no-build --part latency
#
# Environment: CMAKE_ARGS (extra CMake arguments), PYTHON (interpreter for the report; default:
# the first of python3, /usr/bin/python3 that has matplotlib), OMP_NUM_THREADS (threads of the
# cpu_omp rows; default: all cores), CUPAR_JIT_MODE (fast: the cupar_jit rows time the
# out-of-line tier-1 build instead of the optimised one; the report says so).
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="$repo/bench"
build="$repo/build-bench"
do_build=1
do_run=1
min_time=0.05
repetitions=1
readme=""
part=""
split=merge_sort_keys,histogram_even,group_by_100
passthrough=()
# The command line as typed, for the report: arguments with shell characters in single quotes.
quote() {
  if [[ $1 =~ ^[A-Za-z0-9_./=:,+@%-]+$ ]]; then
    printf '%s' "$1"
  else
    printf "'%s'" "${1//\'/\'\\\'\'}"
  fi
}
invocation="scripts/run-benchmarks.sh"
for arg in "$@"; do invocation+=" $(quote "$arg")"; done

usage() { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//'; }

while [[ $# -gt 0 ]]; do
  case "$1" in
    -o|--out) out="$2"; shift 2 ;;
    --out=*) out="${1#*=}"; shift ;;
    -B|--build-dir) build="$2"; shift 2 ;;
    --build-dir=*) build="${1#*=}"; shift ;;
    --no-build) do_build=0; shift ;;
    --build-only) do_run=0; shift ;;
    --min-time) min_time="$2"; shift 2 ;;
    --min-time=*) min_time="${1#*=}"; shift ;;
    --repetitions) repetitions="$2"; shift 2 ;;
    --repetitions=*) repetitions="${1#*=}"; shift ;;
    --part) part="$2"; shift 2 ;;
    --part=*) part="${1#*=}"; shift ;;
    --split) split="$2"; shift 2 ;;
    --split=*) split="${1#*=}"; shift ;;
    --readme) readme="$2"; shift 2 ;;
    --readme=*) readme="${1#*=}"; shift ;;
    -h|--help) usage; exit 0 ;;
    --) shift; passthrough+=("$@"); break ;;
    *) passthrough+=("$1"); shift ;;
  esac
done

start=$(date +%s)
jobs="$(nproc 2>/dev/null || echo 4)"

if [[ $do_build -eq 1 ]]; then
  generator=()
  if [[ ! -f "$build/CMakeCache.txt" ]] && command -v ninja >/dev/null 2>&1; then
    generator=(-G Ninja)
  fi
  echo "== configuring $build"
  # shellcheck disable=SC2086  # CMAKE_ARGS is a list of arguments
  cmake -S "$repo" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
    -DCUPAR_BUILD_BENCHMARKS=ON -DCUPAR_BUILD_TESTS=OFF -DCUPAR_BUILD_EXAMPLES=OFF \
    ${CMAKE_ARGS:-}
  echo "== building cupar_bench ($jobs jobs)"
  cmake --build "$build" --target cupar_bench -j "$jobs"
  echo "== built in $(( $(date +%s) - start )) s"
fi
[[ $do_run -eq 1 ]] || exit 0

bench="$build/bench/cupar_bench"
if [[ ! -x "$bench" ]]; then
  echo "run-benchmarks: $bench not found (build first, without --no-build)" >&2
  exit 1
fi

mkdir -p "$out"
out="$(cd "$out" && pwd)"
json="$out/results.json"
log="$out/bench.log"
case "$part" in
  "") rm -f "$out"/results_*.json ;;
  kernels)
    passthrough+=("--benchmark_filter=-^jit_latency/")
    rm -f "$out"/results_*.json ;;
  kernels-[1-9])
    # The suite's families in its order (bench/rows.hpp), cut before each family of $split.
    families=$("$bench" --benchmark_list_tests=true | cut -d/ -f1 | awk 'NF && !seen[$0]++' |
               grep -vx jit_latency) || true
    IFS=, read -r -a splits <<<"$split"
    previous=1  # the first family starts kernels-1: no split there, and none twice
    for f in "${splits[@]}"; do
      if ! grep -qx -- "$f" <<<"$families"; then
        echo "run-benchmarks: --split: no family '$f' in the suite" >&2
        exit 2
      fi
      at=$(grep -nx -- "$f" <<<"$families" | cut -d: -f1)
      if (( at <= previous )); then
        echo "run-benchmarks: --split: '$f' must come after the suite's first family and the" \
             "split family before it (the order: cupar_bench --benchmark_list_tests)" >&2
        exit 2
      fi
      previous=$at
    done
    k=${part#kernels-}
    if (( k > ${#splits[@]} + 1 )); then
      echo "run-benchmarks: --part $part: --split makes $(( ${#splits[@]} + 1 )) parts" >&2
      exit 2
    fi
    # Part k: from split k-1 (or the first family) up to, not including, split k (or the end).
    pick=$families
    if (( k > 1 )); then pick=$(sed -n "/^${splits[k-2]}\$/,\$p" <<<"$pick"); fi
    if (( k <= ${#splits[@]} )); then pick=$(sed "/^${splits[k-1]}\$/,\$d" <<<"$pick"); fi
    [[ "$k" == 1 ]] && rm -f "$out"/results*.json
    passthrough+=("--benchmark_filter=^($(paste -sd'|' <<<"$pick"))/")
    json="$out/results_${part}.json"
    log="$out/bench_${part}.log" ;;
  latency)
    passthrough+=("--benchmark_filter=^jit_latency/")
    json="$out/results_latency.json"
    log="$out/bench_latency.log" ;;
  *) echo "run-benchmarks: --part is kernels, kernels-K or latency, not '$part'" >&2
     exit 2 ;;
esac
args=(--benchmark_min_time="$min_time" --benchmark_out="$json" --benchmark_out_format=json)
if [[ "$repetitions" != 1 ]]; then
  args+=(--benchmark_repetitions="$repetitions" --benchmark_report_aggregates_only=true)
fi

echo "== running $bench ${args[*]} ${passthrough[*]:-}"
echo "   console log: $log"
run_start=$(date +%s)
rm -f "$json"  # never report a previous run's results
status=0
CUPAR_BENCH_INVOCATION="$invocation" "$bench" "${args[@]}" "${passthrough[@]}" 2>&1 \
  | tee "$log" || status=$?
echo "== suite ran in $(( $(date +%s) - run_start )) s (exit status $status)"
if [[ ! -s "$json" ]]; then
  echo "run-benchmarks: no results were written to $json" >&2
  exit $(( status == 0 ? 1 : status ))
fi

python="${PYTHON:-}"
if [[ -z "$python" ]]; then
  for candidate in python3 /usr/bin/python3; do
    if command -v "$candidate" >/dev/null 2>&1 && "$candidate" -c 'import matplotlib' 2>/dev/null
    then
      python="$candidate"
      break
    fi
  done
fi
if [[ -z "$python" ]]; then
  echo "run-benchmarks: no Python with matplotlib (apt-get install python3-matplotlib):" \
       "writing the tables without plots" >&2
  python=python3
fi
# The report: every part of this run so far (the parts that start a run dropped older ones).
jsons=()
for j in "$out"/results*.json; do [[ -s "$j" ]] && jsons+=("$j"); done
report_args=("${jsons[@]}" -o "$out" --command "$invocation")
[[ -n "$readme" ]] && report_args+=(--readme "$readme")
"$python" "$repo/scripts/bench_report.py" "${report_args[@]}"
echo "== done in $(( $(date +%s) - start )) s: $out/RESULTS.md"
exit "$status"
