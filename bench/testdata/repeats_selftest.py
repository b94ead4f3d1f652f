#!/usr/bin/env python3
"""Self-test of scripts/bench_repeats.py on synthetic runs whose ratios are known.

Two processes; reduce_sum f32 at 2^20: cupar 10 us in both, cub 9 us in the first and 11 us in
the second (per-process ratios 0.900 and 1.100, pooled medians 10 / 10 = 1.000); cupar_jit 12.5 us
against cupar (0.800); host overhead: cupar 4.0 us per call, cub 3.5 (+0.50 us). Aggregate and
failed rows must be ignored. Exit code 0 on success.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile


def row(name, median_us=None, us_per_call=None, run_type="iteration", error=False):
    r = {"name": name, "run_name": name, "run_type": run_type, "real_time": 1.0, "time_unit": "us"}
    if median_us is not None:
        r["median_us"] = median_us
    if us_per_call is not None:
        r["us_per_call"] = us_per_call
    if error:
        r["error_occurred"] = True
    return r


def process(cub_us):
    n = "reduce_sum/{}/f32/1048576/manual_time"
    rows = []
    for _ in range(2):  # two repetitions
        rows += [row(n.format("cupar"), 10.0), row(n.format("cub"), cub_us),
                 row(n.format("cupar_jit"), 12.5),
                 row("host_overhead/cupar/reduce_f32/1024/real_time", us_per_call=4.0),
                 row("host_overhead/cub/reduce_f32/1024/real_time", us_per_call=3.5)]
    rows += [row(n.format("cupar"), 1000.0, run_type="aggregate"),
             row(n.format("cub"), 0.001, error=True)]
    return {"context": {"date": "2026-11-21T00:00:00+00:00", "gpu": "Test GPU"}, "benchmarks": rows}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--script", required=True)
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as d:
        paths = []
        for i, cub in enumerate((9.0, 11.0)):
            path = os.path.join(d, f"rep{i}.json")
            with open(path, "w", encoding="utf-8") as f:
                json.dump(process(cub), f)
            paths.append(path)
        out = os.path.join(d, "REPEATS.md")
        subprocess.run([sys.executable, args.script, *paths, "-o", out, "--command", "cmd"],
                       check=True)
        text = open(out, encoding="utf-8").read()
    expected = [
        "| reduce_sum | f32 | 2^20 | cupar | cub | 10.00 | 10.00 | 1.000 | 0.900 .. 1.100 | 4 |",
        "| reduce_sum | f32 | 2^20 | cupar_jit | cupar | 12.50 | 10.00 | 0.800 | 0.800 .. 0.800 | 4 |",
        "| host_overhead | reduce_f32 | 1,024 | cupar | cub | 4.00 | 3.50 | +0.50 us | +0.50 .. +0.50 "
        "| 4 |",
        "- cupar / cub: 1.000 (reduce_sum f32 at 2^20)",
        "- cupar_jit / cupar: 0.800 (reduce_sum f32 at 2^20)",
        "- GPU: Test GPU", "- Command: `cmd`", "- Processes: 2",
    ]
    missing = [e for e in expected if e not in text]
    for e in missing:
        print(f"repeats_selftest: missing line: {e}", file=sys.stderr)
    if missing:
        print(text, file=sys.stderr)
        return 1
    print("repeats_selftest: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
