#!/usr/bin/env bash
# Self-test of scripts/gpu-evidence.sh's `tiers` stage with stand-ins for cupar_bench and
# cupar_jit_latency: the rows run twice (the second time in tier 1: CUPAR_JIT_MODE=fast, the disk
# cache off, the filter narrowed to cupar_jit), each case's latency measured in fresh processes (the
# first call on an empty cache three times, the optimised build of 3 distinct operators, a burst
# of 8), each with the driver's cache off, and one table with the latency columns beside the
# rows; an iterator expression's rows (cupar_jit_expr) in tier 1 too, as a row of their own.
#   gpu_evidence_tiers_selftest.sh <repo> <work dir>
set -euo pipefail
repo=$1
work=$2
rm -rf "$work" && mkdir -p "$work/build/bench" "$work/out"
cat >"$work/build/bench/cupar_bench" <<STUB
#!/usr/bin/env bash
for a in "\$@"; do
  case "\$a" in
    --benchmark_out=*) out=\${a#*=} ;;
    --benchmark_filter=*) echo "\${a#*=} mode=\${CUPAR_JIT_MODE:-tiered} disk=\${CUPAR_DISABLE_DISK_CACHE:-0}" >>"$work/filters" ;;
  esac
done
jit=22.0 expr=50.0
[ "\${CUPAR_JIT_MODE:-}" = fast ] && jit=33.0 expr=100.0
row() { printf '{"name": "%s/manual_time_median", "run_name": "%s/manual_time", "run_type": "aggregate", "aggregate_name": "median", "real_time": %s, "time_unit": "us"}' "\$1" "\$1" "\$2"; }
{
  echo '{"context": {"date": "2026-11-30T00:00:00+00:00"}, "benchmarks": ['
  row reduce_sum/cupar_jit/f32/16777216 "\$jit"; echo ','
  row reduce_sum/cub/f32/16777216 21.0; echo ','
  row scan_squares/cupar_jit_expr/f32/16777216 "\$expr"
  [ "\${CUPAR_JIT_MODE:-}" = fast ] || { echo ','; row scan_squares/cub/f32/16777216 48.0; }
  echo ']}'
} >"\$out"
STUB
cat >"$work/build/bench/cupar_jit_latency" <<STUB
#!/usr/bin/env bash
echo "\$* cache=\${CUPAR_CACHE_DIR:+set} driver_cache_off=\${CUDA_CACHE_DISABLE:-}" >>"$work/latency_calls"
measure=
while [ \$# -gt 0 ]; do
  case "\$1" in
    --case) c=\$2; shift ;;
    --measure) measure=\$2; shift ;;
  esac
  shift
done
case "\$measure" in
  first_call) echo "result case=\$c measure=first_call mode=tiered seconds=0.0412 optimized_ready_seconds=0.61" ;;
  build) echo "result case=\$c measure=build mode=tiered seconds=0.512 min_seconds=0.4" ;;
  drain) echo "result case=\$c measure=drain mode=tiered seconds=1.73 calls_seconds=0.3" ;;
esac
STUB
chmod +x "$work/build/bench/cupar_bench" "$work/build/bench/cupar_jit_latency"
fail() { echo "FAIL: $*"; exit 1; }
OUT="$work/out" CUPAR_BUILD_DIR="$work/build" "$repo/scripts/gpu-evidence.sh" tiers \
  '^(reduce_sum|scan_squares)/(cupar_jit|cupar_jit_expr|cub)/f32/(16777216)/' reduce_f32 \
  scan_squares_f32 >"$work/log" 2>&1 || fail "the tiers stage failed: $(tail -5 "$work/log")"
[ "$(sed -n 1p "$work/filters")" = "^(reduce_sum|scan_squares)/(cupar_jit|cupar_jit_expr|cub)/f32/(16777216)/ mode=tiered disk=1" ] ||
  fail "rows: $(sed -n 1p "$work/filters")"
[ "$(sed -n 2p "$work/filters")" = "^(reduce_sum|scan_squares)/(cupar_jit|cupar_jit_expr)/f32/(16777216)/ mode=fast disk=1" ] ||
  fail "tier-1 rows: $(sed -n 2p "$work/filters")"
calls=$(cat "$work/latency_calls")
grep -qE -- "^--case reduce_f32 --n 16777216 --measure first_call cache=set driver_cache_off=1\$" \
  <<<"$calls" || fail "first call: $calls"
[ "$(grep -c -- "--case reduce_f32 .*--measure first_call" <<<"$calls")" = 3 ] || fail "first calls: $calls"
# nvJitLink keeps links in the driver's cache across processes: every fresh process runs with it
# off, so that no link of an earlier process serves a new operator's first call or builds.
[ "$(grep -c "driver_cache_off=1$" <<<"$calls")" = 10 ] || fail "driver cache: $calls"
grep -q -- "--distinct --operators 3 --measure build cache=set driver_cache_off=1" <<<"$calls" || fail "build: $calls"
grep -q -- "--distinct --operators 8 --measure drain cache=set driver_cache_off=1" <<<"$calls" || fail "burst: $calls"
row=$(grep '^| reduce_sum | f32 | 2^24 |' "$work/out/tiers_table.md") ||
  fail "no reduce_sum row: $(cat "$work/out/tiers_table.md")"
[ "$row" = "| reduce_sum | f32 | 2^24 | 33.0 | 22.0 | 21.0 | 0.67x | 41.2 | 0.61 | 512 | 1.7 |" ] ||
  fail "row: $row"
row=$(grep '^| scan_squares (expression) | f32 | 2^24 |' "$work/out/tiers_table.md") ||
  fail "no expression row: $(cat "$work/out/tiers_table.md")"
[ "$row" = "| scan_squares (expression) | f32 | 2^24 | 100.0 | 50.0 | 48.0 | 0.50x | 41.2 | 0.61 | 512 | 1.7 |" ] ||
  fail "expression row: $row"
echo "gpu_evidence_tiers_selftest: ok"
