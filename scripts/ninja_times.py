#!/usr/bin/env python3
"""Where a build's time went, from ninja's log (the last build of each output; a clean build's
log gives the whole build): CPU-seconds by part (the precompiled kernel sets
and their tool, the library, the tests' objects, the benchmarks' objects, the rest), the wall time
ninja ran, and the longest steps. Each output of a multi-output command counts once.

    scripts/ninja_times.py BUILD_DIR/.ninja_log [--top N]
"""
import argparse
import sys


def part_of(path):
    if "precompiled" in path or "cupar_precompile" in path:
        return "sets and their tool"
    if path.startswith("src/") or "libcupar" in path:
        return "library"
    if path.startswith("tests/"):
        return "tests"
    if path.startswith("bench/"):
        return "benchmarks"
    return "other"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("log")
    ap.add_argument("--top", type=int, default=15)
    args = ap.parse_args()
    latest = {}  # output -> its last entry (the log appends each build's; the last one counts)
    with open(args.log) as f:
        for line in f:
            if line.startswith("#"):
                continue
            fields = line.rstrip("\n").split("\t")
            if len(fields) < 5:
                continue
            start, end, _, path, command_hash = fields[:5]
            latest[path] = (int(start), int(end), command_hash)
    steps = {}  # (start, end, hash) -> an output: one command with several outputs counts once
    for path, step in latest.items():
        steps.setdefault(step, path)
    if not steps:
        sys.exit("no steps in " + args.log)
    totals = {}
    for (start, end, _), path in steps.items():
        totals[part_of(path)] = totals.get(part_of(path), 0.0) + (end - start) / 1000.0
    wall = (max(e for _, e, _ in steps) - min(s for s, _, _ in steps)) / 1000.0
    print(f"ninja: {len(steps)} steps, {wall:.0f} s of wall time, "
          f"{sum(totals.values()):,.0f} CPU-seconds")
    for part, seconds in sorted(totals.items(), key=lambda kv: -kv[1]):
        print(f"  {part:20} {seconds:8,.0f} CPU-s")
    print(f"longest {args.top} steps:")
    ordered = sorted(steps.items(), key=lambda kv: kv[0][0] - kv[0][1])
    for (start, end, _), path in ordered[: args.top]:
        print(f"  {(end - start) / 1000.0:7.1f} s  (from {start / 1000.0:5.0f} s)  {path}")


if __name__ == "__main__":
    main()
