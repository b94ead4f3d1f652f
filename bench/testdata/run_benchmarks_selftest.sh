#!/usr/bin/env bash
# Self-test of scripts/run-benchmarks.sh --part and --split: a stand-in cupar_bench records the filter it was
# given and writes the fixture as its JSON; the kernels part must filter out the latency rows and
# drop an older latency JSON, the latency part must keep the kernels part's JSON and report both.
#   run_benchmarks_selftest.sh <repo> <work dir>
set -euo pipefail
repo=$1
work=$2
rm -rf "$work" && mkdir -p "$work/build/bench" "$work/out"
cat >"$work/build/bench/cupar_bench" <<STUB
#!/usr/bin/env bash
for a in "\$@"; do
  case "\$a" in
    --benchmark_list_tests=true)
      printf '%s\n' copy/cuda_memcpy/u32/1024 reduce_sum/cupar/f32/1024 merge_sort_keys/cupar/f32/1024 \
        histogram_even/cupar/u8/1024 select_if/cupar/u32/1024 group_by_100/cupar/u32_stats/1024 \
        join/cupar/u32/1024 jit_latency/first_call/reduce
      exit 0 ;;
    --benchmark_out=*) out=\${a#*=} ;;
    --benchmark_filter=*) echo "\${a#*=}" >>"$work/filters" ;;
  esac
done
cp "$repo/bench/testdata/fixture.json" "\$out"
STUB
chmod +x "$work/build/bench/cupar_bench"
fail() { echo "FAIL: $*"; exit 1; }
echo stale >"$work/out/results_latency.json"
"$repo/scripts/run-benchmarks.sh" --no-build -B "$work/build" -o "$work/out" --part kernels >"$work/log1" 2>&1 ||
  fail "the kernels part failed: $(tail -5 "$work/log1")"
[ "$(sed -n 1p "$work/filters")" = "-^jit_latency/" ] || fail "kernels part filter: $(sed -n 1p "$work/filters")"
[ ! -e "$work/out/results_latency.json" ] || fail "the kernels part kept an older results_latency.json"
[ -s "$work/out/results.json" ] || fail "no results.json"
"$repo/scripts/run-benchmarks.sh" --no-build -B "$work/build" -o "$work/out" --part latency >"$work/log2" 2>&1 ||
  fail "the latency part failed: $(tail -5 "$work/log2")"
[ "$(sed -n 2p "$work/filters")" = "^jit_latency/" ] || fail "latency part filter: $(sed -n 2p "$work/filters")"
[ -s "$work/out/results.json" ] && [ -s "$work/out/results_latency.json" ] || fail "a part's JSON is missing"
grep -q 'results.json`, `results_latency.json' "$work/out/RESULTS.md" || fail "the report is not made from both parts"
if "$repo/scripts/run-benchmarks.sh" --no-build -B "$work/build" -o "$work/out" --part other >"$work/log3" 2>&1; then
  fail "an unknown part was accepted"
fi
# The kernels rows in four runs, cut before merge_sort_keys, histogram_even and group_by_100 (the
# default --split), then the latency rows: five JSON files, one report; kernels-1 starts a run
# (drops the earlier parts' JSON).
run() { "$repo/scripts/run-benchmarks.sh" --no-build -B "$work/build" -o "$work/out" "$@"; }
run --part kernels-1 >"$work/log4" 2>&1 || fail "kernels-1 failed: $(tail -5 "$work/log4")"
[ "$(sed -n 3p "$work/filters")" = "^(copy|reduce_sum)/" ] || fail "kernels-1 filter: $(sed -n 3p "$work/filters")"
[ ! -e "$work/out/results.json" ] && [ ! -e "$work/out/results_latency.json" ] ||
  fail "kernels-1 kept an earlier run's JSON"
run --part kernels-2 >"$work/log5" 2>&1 || fail "kernels-2 failed: $(tail -5 "$work/log5")"
[ "$(sed -n 4p "$work/filters")" = "^(merge_sort_keys)/" ] ||
  fail "kernels-2 filter: $(sed -n 4p "$work/filters")"
run --part kernels-3 >"$work/log6" 2>&1 || fail "kernels-3 failed: $(tail -5 "$work/log6")"
[ "$(sed -n 5p "$work/filters")" = "^(histogram_even|select_if)/" ] ||
  fail "kernels-3 filter: $(sed -n 5p "$work/filters")"
run --part kernels-4 >"$work/log7" 2>&1 || fail "kernels-4 failed: $(tail -5 "$work/log7")"
[ "$(sed -n 6p "$work/filters")" = "^(group_by_100|join)/" ] ||
  fail "kernels-4 filter: $(sed -n 6p "$work/filters")"
run --part latency >"$work/log8" 2>&1 || fail "latency after kernels-4 failed: $(tail -5 "$work/log8")"
grep -q 'results_kernels-1.json`, `results_kernels-2.json`, `results_kernels-3.json`, `results_kernels-4.json`, `results_latency.json' \
  "$work/out/RESULTS.md" ||
  fail "the report is not made from the five parts: $(grep -m1 results_ "$work/out/RESULTS.md")"
if run --part kernels-5 >"$work/log8b" 2>&1; then
  fail "a fifth kernels part was accepted with three split families"
fi
# One split family: two parts.
run --part kernels-2 --split histogram_even >"$work/log9" 2>&1 ||
  fail "kernels-2 --split histogram_even failed: $(tail -5 "$work/log9")"
[ "$(sed -n 8p "$work/filters")" = "^(histogram_even|select_if|group_by_100|join)/" ] ||
  fail "kernels-2 --split histogram_even filter: $(sed -n 8p "$work/filters")"
if run --part kernels-1 --split no_such_family >"$work/log10" 2>&1; then
  fail "an unknown --split family was accepted"
fi
if run --part kernels-1 --split histogram_even,reduce_sum >"$work/log11" 2>&1; then
  fail "split families out of the suite's order were accepted"
fi
echo "run-benchmarks.sh --part: OK"
