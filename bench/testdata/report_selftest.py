#!/usr/bin/env python3
"""Self-test of scripts/bench_report.py (ctest: bench_report_selftest).

Runs the report on the synthetic fixture (make_fixture.py) into a fresh directory and checks that
RESULTS.md and the plots exist and that the report states the ratios the fixture was built with.
Exits 77 (skipped) when matplotlib cannot be imported.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile

EXPECTED = [
    # header
    "NVIDIA H100 80GB HBM3 (synthetic fixture)",
    "Command: `scripts/run-benchmarks.sh --fixture`",
    # the context's small_min_time (cupar_bench's GPU rows at n <= 2^20)
    "GPU rows at n <= 2^20 run for 0.005 s of GPU time",
    # reduce_sum f32 at 2^20: cupar 1425 GB/s vs cub 1500 (0.950), 95% of copy bandwidth;
    # at 2^24: 333x over cpu_seq, 39x over cpu_omp; cupar_jit/cub 0.950 at 2^24
    "| 2^20 | 1,425 | 1,500 | 1,500 | 1,500 | 600 | 9.00 | 60.0 | 95% | 100% | 100% | 0.950 |",
    "| 333x | 39x | 0.950 |",
    "cupar_jit/cub",
    # the run-time operator paths against cupar, last: 1.053 at 2^20; 0.950 and 1.000 at 2^24
    "| cupar_jit/cupar | cupar_jit_named/cupar |",
    "| 1.053 | 1.053 |",
    "| 0.950 | 1.000 |",
    "reduce_sum f32 at n = 2^24: cupar_jit 2,755 GB/s is 5.0% slower than cupar (2,900 GB/s; "
    "ratio 0.950)",
    "reduce_sum f32 at n = 2^20: cupar 1,425 GB/s is 5.0% slower than cub (1,500 GB/s; "
    "ratio 0.950)",
    "reduce_sum f32 at n = 2^24: cupar_jit 2,755 GB/s is 5.0% slower than cub",
    # below 2^20: listed apart
    "reduce_sum f32 at n = 2^16: cupar 90.0 GB/s is 10.0% slower than cub",
    # radix sort keys: Gkeys/s, both CUB offset widths
    "radix_sort_keys u32 at n = 2^20: cupar 12.0 Gkeys/s is 4.0% slower than cub (12.5 Gkeys/s; "
    "ratio 0.960)",
    "| 2^20 | 12.0 | 12.5 | 11.8 | 8.00 | 0.080 | 0.500 | 6% | 0.960 | 1.017 | 1.500 | 150x |",
    # top-k's headline peer: CUB's sort of the same keys, a ratio of times
    "| top_k_100 | u32 | GB/s | cub radix_sort_keys | 120 | 2.400 | 70.0 | 0.500 | - | - |",
    # repetitions: the median aggregate (2950 GB/s, ratio 0.983, not flagged)
    "| 2^20 | 2,950 | 3,000 | 197% | 0.983 |",
    # host overhead
    "| reduce_f32 | 4.10 | 5.00 | 3.70 | 3.46 | 4.33 | +0.64 | +1.54 | +0.24 |",
    "cupar_jit_plan costs 0.24 us per call more than cub",
    "cupar costs 0.64 us per call more than cub with preallocated storage (4.10 vs 3.46 us; "
    "within the 1 us target)",
    "cupar_jit costs 1.54 us per call more than cub",
    "misses the target of 1 us",
    # JIT latency: seconds counters and the time fallback (19 ms); the max column of the new
    # operators; a cold-only case
    "| case | cold_process (ms) | disk_cache_process (ms) | warm_in_process (ms) | "
    "new_operator_in_process (ms) | new_operator_in_process max (ms) |",
    "| reduce_f32 | 412 | 21.0 | 0.002 | 19.0 | - |",
    "| merge_sort_keys_f32 | 650 | 30.0 | 0.350 | 45.0 | 120 |",
    "| reduce_f32_optimized | 905 | - | - | - | - |",
    # failed rows
    "merge_sort_keys/cupar/f32 at n = 2^24: output is not sorted",
    # plots linked
    "![reduce_sum](plots/reduce_sum.png)",
]
UNEXPECTED = [
    "transform_unary f32 at n = 2^20",  # 0.983 is within the tolerance
    "transform_f32: cupar costs",       # cupar is cheaper than cub there
    "cupar_jit_named 1,500",            # never slower than a peer
]
PLOTS = ["reduce_sum", "radix_sort_keys", "transform_unary", "host_overhead", "jit_latency"]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--script", required=True)
    p.add_argument("--fixture", required=True)
    p.add_argument("--workdir", default=None)
    args = p.parse_args()
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print("SKIP: matplotlib is not importable by", sys.executable,
              "(Debian: apt-get install python3-matplotlib)")
        return 77

    work = args.workdir or tempfile.mkdtemp(prefix="cupar_report_")
    if os.path.isdir(work):
        shutil.rmtree(work)
    os.makedirs(work)
    readme = os.path.join(work, "README.md")
    with open(readme, "w", encoding="utf-8") as f:
        f.write("# cupar\n\nintro\n\n<!-- cupar-bench:begin -->\nold\n<!-- cupar-bench:end -->\n"
                "\nrest\n")
    cmd = [sys.executable, args.script, args.fixture, "-o", work, "--readme", readme]
    res = subprocess.run(cmd, capture_output=True, text=True)
    print(res.stdout, res.stderr, sep="")
    failures = []
    if res.returncode != 0:
        failures.append(f"exit status {res.returncode}")
    results = os.path.join(work, "RESULTS.md")
    text = ""
    if not os.path.isfile(results):
        failures.append("RESULTS.md was not written")
    else:
        with open(results, encoding="utf-8") as f:
            text = f.read()
    for s in EXPECTED:
        if s not in text:
            failures.append(f"RESULTS.md lacks: {s}")
    for s in UNEXPECTED:
        if s in text:
            failures.append(f"RESULTS.md should not contain: {s}")
    for name in PLOTS:
        path = os.path.join(work, "plots", name + ".png")
        if not os.path.isfile(path):
            failures.append(f"missing plot {path}")
            continue
        with open(path, "rb") as f:
            if f.read(8) != b"\x89PNG\r\n\x1a\n" or os.path.getsize(path) < 5000:
                failures.append(f"{path} is not a plausible PNG")
    with open(readme, encoding="utf-8") as f:
        r = f.read()
    if "old" in r or "| reduce_sum | f32 | GB/s | cub | 1,425 | 0.950 |" not in r or "rest" not in r:
        failures.append("README block not refreshed as expected:\n" + r)
    if failures:
        print("FAILED:\n  " + "\n  ".join(failures))
        return 1
    print(f"OK: report, {len(PLOTS)} plots and README block checked in {work}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
