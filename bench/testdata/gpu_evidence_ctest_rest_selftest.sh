#!/usr/bin/env bash
# Self-test of scripts/gpu-evidence.sh's `ctest` and `ctest-rest` stages with a stand-in for ctest
# ($CUPAR_CTEST): a first run in which one suite passes, one is skipped, one fails and one never
# starts (a call cut by its time); ctest-rest then runs exactly the failed and the unstarted ones,
# a second ctest-rest only what still did not pass, and a third nothing.
#   gpu_evidence_ctest_rest_selftest.sh <repo> <work dir>
set -euo pipefail
repo=$1
work=$2
rm -rf "$work" && mkdir -p "$work/build" "$work/out"
cat >"$work/ctest" <<STUB
#!/usr/bin/env bash
# -N lists the four suites; a run prints a result line for each suite its -R selects (all without
# one), from the outcomes in $work/outcomes ("name result" lines; "none": never started).
echo "\$*" >>"$work/calls"
regex=.
list=0
while [ \$# -gt 0 ]; do
  case "\$1" in
    -N) list=1 ;;
    -R) regex=\$2; shift ;;
  esac
  shift
done
n=0
for t in alpha_tests beta_tests gamma_tests delta_tests; do
  n=\$((n + 1))
  if [ \$list = 1 ]; then echo "  Test  #\$n: \$t"; continue; fi
  grep -qE -- "\$regex" <<<"\$t" || continue
  r=\$(sed -n "s/^\$t //p" "$work/outcomes")
  case "\$r" in
    none) ;;
    Skipped) echo "\$n/4 Test  #\$n: \$t ..........***Skipped   0.01 sec" ;;
    Failed) echo "\$n/4 Test  #\$n: \$t ..........***Failed    1.00 sec" ;;
    *) echo "\$n/4 Test  #\$n: \$t ..........   Passed    1.00 sec" ;;
  esac
done
[ \$list = 1 ] && echo "Total Tests: 4"
exit 0
STUB
chmod +x "$work/ctest"
fail() { echo "FAIL: $*"; cat "$work/calls" 2>/dev/null; exit 1; }
stage() {
  (cd "$repo" && OUT="$work/out" CUPAR_BUILD_DIR="$work/build" CUPAR_CTEST="$work/ctest" \
    scripts/gpu-evidence.sh "$@")
}
printf 'alpha_tests Passed\nbeta_tests Skipped\ngamma_tests Failed\ndelta_tests none\n' >"$work/outcomes"
stage ctest 1 1 >"$work/log1" 2>&1 || fail "ctest stage: $(cat "$work/log1")"
[ -f "$work/build/ctest_last.log" ] || fail "no ctest_last.log in the build directory"
: >"$work/calls"
# gamma now passes; delta fails.
printf 'alpha_tests Passed\nbeta_tests Skipped\ngamma_tests Passed\ndelta_tests Failed\n' >"$work/outcomes"
out=$(stage ctest-rest 2>&1) || fail "ctest-rest: $out"
grep -qF -- "-R ^(delta_tests|gamma_tests)$ " "$work/calls" || fail "first rest: $(cat "$work/calls")"
grep -q "ctest-rest: 2 suites" <<<"$out" || fail "first rest said: $out"
: >"$work/calls"
printf 'alpha_tests Passed\nbeta_tests Skipped\ngamma_tests Passed\ndelta_tests Passed\n' >"$work/outcomes"
out=$(stage ctest-rest 2>&1) || fail "second ctest-rest: $out"
grep -qF -- "-R ^(delta_tests)$ " "$work/calls" || fail "second rest: $(cat "$work/calls")"
: >"$work/calls"
out=$(stage ctest-rest 2>&1) || fail "third ctest-rest: $out"
grep -q "every suite passed" <<<"$out" || fail "third rest said: $out"
grep -q -- "-R" "$work/calls" && fail "third rest ran suites: $(cat "$work/calls")"
echo "gpu_evidence_ctest_rest_selftest: ok"
