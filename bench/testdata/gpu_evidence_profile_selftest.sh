#!/usr/bin/env bash
# Self-test of scripts/gpu-evidence.sh's `profile` stage with a stand-in for ncu: Nsight Compute
# runs twice on cupar_bench with the row's filter, the kernels' regex, the launches skipped and
# counted, first in tier 1 (CUPAR_JIT_MODE=fast) and then in the default mode, the disk cache off
# both times, each run's report in its own log and its summary lines printed.
#   gpu_evidence_profile_selftest.sh <repo> <work dir>
set -euo pipefail
repo=$1
work=$2
rm -rf "$work" && mkdir -p "$work/bin" "$work/build/bench" "$work/out"
cat >"$work/bin/ncu" <<STUB
#!/usr/bin/env bash
echo "\$* mode=\${CUPAR_JIT_MODE:-default} disk=\${CUPAR_DISABLE_DISK_CACHE:-0}" >>"$work/calls"
echo "  void DeviceStubKernel<int>(int) (10, 1, 1)x(256, 1, 1), Context 1, Stream 13"
echo "    Duration                         us        12.50"
echo "    Registers Per Thread             register/thread              40"
STUB
chmod +x "$work/bin/ncu"
fail() { echo "FAIL: $*"; echo "$summary"; cat "$work/calls" 2>/dev/null; exit 1; }
# The stub named by CUPAR_NCU: the script puts /usr/local/cuda/bin first on PATH, so where the
# toolkit has Nsight Compute (the GPU machines) a stub on PATH would lose to the real ncu.
summary=""
summary=$(cd "$repo" && env -u CUPAR_JIT_MODE OUT="$work/out" CUPAR_NCU="$work/bin/ncu" \
  CUPAR_BUILD_DIR="$work/build" CUPAR_PROFILE_SKIP=7 \
  scripts/gpu-evidence.sh profile '^row/cupar_jit/f32/16777216/' 'Stub(A|B)Kernel') ||
  fail "the profile stage failed"
[ "$(wc -l <"$work/calls")" = 2 ] || fail "ncu should run twice"
first=$(sed -n 1p "$work/calls")
second=$(sed -n 2p "$work/calls")
for call in "$first" "$second"; do
  for want in "-k regex:Stub(A|B)Kernel" "--launch-skip 7" "--launch-count 2" \
              "$work/build/bench/cupar_bench" "--benchmark_filter=^row/cupar_jit/f32/16777216/" \
              "disk=1"; do
    [[ "$call" == *"$want"* ]] || fail "missing '$want' in: $call"
  done
done
[[ "$first" == *"mode=fast"* ]] || fail "the first run is tier 1: $first"
[[ "$second" == *"mode=default"* ]] || fail "the second run is the default mode: $second"
for m in fast default; do
  grep -q "Duration" "$work/out/profile_$m.log" || fail "no report in profile_$m.log"
done
[ "$(grep -c "Registers Per Thread" <<<"$summary")" = 2 ] || fail "summary lines not printed"
echo "gpu-evidence profile self-test passed"
