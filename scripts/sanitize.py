#!/usr/bin/env python3
"""Runs cupar's GPU tests under NVIDIA compute-sanitizer (issue 12).

    scripts/sanitize.sh [-B build] [-j jobs] [--tools memcheck,racecheck,synccheck,initcheck]
                        [--shards 4] [--scale small] [-R regex] [--timeout 900]

After a build (`cmake --build build`), on a machine with a GPU. Every test labelled `gpu` in
ctest (found with `ctest -N -L gpu --show-only=json-v1`, so new test binaries are picked up; tests
labelled `large` or `fault` are left out: the first need 80 GB, the second fault on purpose) runs
under memcheck with the leak check; the tests not labelled `jit` (the C++-operator conformance
suites, the memory, reset and two-GPU tests) also run under racecheck, synccheck and initcheck.
The run-time-operator suites build the same CUB kernels with the operator linked in, so shared
memory and barriers are the same code, while every new operator's module costs the tools an
instrumentation pass: under memcheck they run with CUPAR_JIT_MODE=fast (the tier-1 build only,
one module per operator; `--jit-mode tiered` adds the background tier-2 builds) and in more
shards. Problem sizes are scaled down with CUPAR_TEST_SCALE (default `small`: at most 65,537
elements, see tests/common/data.hpp), GoogleTest binaries are split into shards
(GTEST_TOTAL_SHARDS) and the jobs run in parallel, longest first, so that the whole run fits in
8 minutes on an H100 machine with 16 cores.

Cases that provoke what a tool reports on purpose (an allocation larger than the GPU, damaged
disk-cache entries the driver refuses, a device reset with blocks kept) run in a job of their own
with that one report turned off (PLANTED below, with the reasons); the exit leak test and the
examples run under memcheck only. Unless --all-types, typed-test instances of i8, i16, i32, i64,
u32 and u64 are left out where a tool runs many kernels for little new coverage (the jit suites
under memcheck, the C++ suites under the other three tools): u8, u16, f32 and f64 take the same
kernels for each size, and the C++ suites under memcheck run every type. Under racecheck and
synccheck only f32 and the structs run, and the memory and radix sort suites (no shared-memory
kernel of cupar's own) not at all (SHARED_MEMORY_SKIP below).

Then the canaries (tests/reliability/sanitizer_canary.cu: an out-of-bounds write, a leaked
allocation, a shared-memory race, a divergent barrier, an uninitialised read) run under the tool
that should catch each. The script fails when any cupar test reports an error, leaks, fails or
times out, when a tool did not run, or when a canary is NOT reported: a clean run must mean
something. The summary table comes last; logs are kept under <build>/sanitize/.

Exit status: 0 clean, 1 findings or failures, 77 no GPU (nothing was run).
"""

import argparse
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import time

TOOLS = ["memcheck", "racecheck", "synccheck", "initcheck"]
# Canary mode, the tool that must catch it, and what the tool reports.
CANARIES = [
    ("oob", "memcheck", "Invalid __global__ write"),
    ("leak", "memcheck", "Leaked"),
    ("race", "racecheck", "hazard"),
    ("sync", "synccheck", "Barrier error"),
    ("init", "initcheck", "Uninitialized __global__ memory read"),
]
# Cases that provoke, on purpose, what a tool reports: they run in a job of their own with the
# check that would report the planted condition turned off (every other check stays on), and
# the rest of their binary runs normally. (test, gtest filter or "*", extra tool options, why)
PLANTED = [
    ("cupar_memory_tests", "DefaultResource.IsOnePoolThatAlignsAndReportsOutOfMemory:"
     "ResourceAdaptor.OutOfMemoryLeaksNothingAndTheNextCallWorks",
     ["--report-api-errors", "no"], "asks for more memory than the GPU has (cudaMallocAsync fails)"),
    ("cupar_disk_cache_gpu_tests", "DiskCacheOnGpu.SoundEntriesAreServedAndDamagedOnesRebuilt",
     ["--report-api-errors", "no"], "loads damaged and foreign cache entries (the driver refuses them)"),
    ("cupar_device_reset_tests", "*", ["--leak-check", "no"],
     "resets the device while blocks are kept, which memcheck reports as leaked at the reset"),
]
# Jobs that run alone, after the parallel ones: tests that measure the device's free memory or
# take a quarter of it (in the first H100 run, a parallel job's cudaStreamCreate ran out of
# memory beside them).
EXCLUSIVE = {"cupar_memory_tests"}
# Jobs that run alone under one tool, after the parallel ones: initcheck reports uninitialised
# reads in CUB's kernels of the multi-threaded memory suites (DeviceScanKernel reading the tile
# states its init kernel wrote, DeviceReduceSingleTileKernel reading the first pass's partials),
# and once an illegal address, only while other processes use the GPU: 15 concurrent initcheck
# runs of the suite on the H100 (2026-11-24) reported in 2 of 5 runs with cupar's block cache off
# (CUPAR_KEEP_BLOCKS=0: plain cudaMallocAsync / cudaFreeAsync per call), in 2 of 5 with every
# launch synchronous (CUDA_LAUNCH_BLOCKING=1: no kernel overlaps the one before it, programmatic
# dependent launch included), and never alone; memcheck and ctest, concurrent too, report
# nothing (docs/RELIABILITY.md, Found and fixed). (tool, test)
ALONE = {("initcheck", "cupar_memory_tests"), ("initcheck", "cupar_memory_no_keep_tests"),
         ("initcheck", "cupar_memory_reliability_tests")}
# Programs checked under memcheck only: the exit leak test is memcheck's leak-check target, and
# the examples run the same kernels as the conformance suites at larger sizes.
MEMCHECK_ONLY = re.compile(r"^(cupar_exit_leak_test|example_.*)$")
# Binaries that need more shards than the rest to keep up (minutes under memcheck).
# The third version's run on the H100 (2026-11-23) took 580 s for memcheck and racecheck alone:
# racecheck spent 1,143 s on cupar_merge_sort_tests (two of its four shards hit the 420 s
# limit), 498 s on cupar_by_key_tests and 324 s on cupar_select_tests, so these get 8 shards too.
HEAVY = {"cupar_library_radix_sort_tests": 8, "cupar_segmented_tests": 8,
         "cupar_merge_sort_tests": 8, "cupar_by_key_tests": 8, "cupar_select_tests": 8}
# Typed-test instances left out by --type-subset: one type of each size (u8, u16, f32, f64) and
# every struct type stay; the other integer types take the same kernels' paths as those.
SUBSET_OUT = ["i8", "i16", "i32", "i64", "u32", "u64"]
# racecheck and synccheck look at shared memory and barriers, which in these suites are CUB's
# kernels' except for cupar's own (the segmented scan, the binary search): elsewhere they run
# f32 and the structs only. The H100 run of 2026-11-23 spent 1,800 job-seconds of racecheck on
# the radix sort suite and 900 on merge sort at four types, and did not end within 580 s.
# The fifth version's run (2026-11-23, night, H100) still did not end within 580 s: racecheck of
# cupar_segmented_tests at four types and the structs hit the 420 s job limit on four of its
# eight shards, of cupar_memory_tests and the radix sort suite on one each. So cupar's own
# kernels now run f32 and the structs under the shared-memory tools as well (the kernel template
# is the same for every 4-byte type; the structs cover the other sizes), and suites with no
# kernel of cupar's own that uses shared memory skip those two tools (they still run under
# memcheck and initcheck): the memory suites test the pool and streams around CUB's reduce, and
# the radix sort suite runs CUB's onesweep.
SHARED_MEMORY_TOOLS = {"racecheck", "synccheck"}
SUBSET_OUT_SHARED = SUBSET_OUT + ["u8", "u16", "f64"]
SHARED_MEMORY_SKIP = {"cupar_memory_tests", "cupar_memory_no_keep_tests",
                      "cupar_memory_reliability_tests",
                      "cupar_library_radix_sort_tests"}
# Cases of cupar's own kernels' suites that run CUB's kernels only, left out under the
# shared-memory tools: the segmented sorts (CUB's segmented radix sort) took two of
# cupar_segmented_tests' eight racecheck shards past the 420 s limit in the sixth version's run
# (2026-11-24, H100), where the rest of the run took 461 s.
SHARED_MEMORY_CUB_CASES = {"cupar_segmented_tests": ["SegmentedSort*"]}
# Reports triaged as not concerning cupar's code, left out under one tool with the reason
# (docs/RELIABILITY.md): (test, gtest pattern, tool, why).
TRIAGED = [
    ("cupar_iterator_tests", "Iterators.ArgmaxOverAZip*", "initcheck",
     "CUB's second reduce pass loads the first pass's (long long, float) tuples as two 8-byte "
     "words, and the 4 bytes of padding after the float were never written: 9 reports per run, "
     "on padding no code uses"),
]
# Job-seconds per shard measured on the H100 (2026-11-23, 16 jobs at a time) by tool, for the
# longest-first order: racecheck costs several times memcheck per kernel.
TOOL_WEIGHT = {"memcheck": 1.0, "racecheck": 4.0, "synccheck": 1.5, "initcheck": 1.0}
EMPTY_SHARD = "Target application terminated before first instrumented API call"
# "ERROR SUMMARY: 5086 errors", and past the print limit a second line "ERROR SUMMARY: 5036 errors
# were not printed" counting a subset of them (the H100 run of 2026-11-24 added the two).
ERRORS = re.compile(r"ERROR SUMMARY: (\d+) errors?\b(?! were not printed)")
PASSED = re.compile(r"\[  PASSED  \] \d+ tests?\.")
# racecheck reports its hazards in a summary of its own and "ERROR SUMMARY: 0 errors" beside it
# (the first H100 runs counted its canary's hazard as 0 errors for that reason).
RACE_ERRORS = re.compile(r"RACECHECK SUMMARY: \d+ hazards? displayed \((\d+) errors?")
LEAKS = re.compile(r"LEAK SUMMARY: (\d+) bytes leaked in (\d+) allocation")
ERROR_EXIT = 86


def find_sanitizer(explicit):
    if explicit:
        return explicit
    found = shutil.which("compute-sanitizer")
    if found:
        return found
    for root in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if root and os.access(os.path.join(root, "bin", "compute-sanitizer"), os.X_OK):
            return os.path.join(root, "bin", "compute-sanitizer")
    return None


def gpu_present():
    try:
        out = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=60)
        return out.returncode == 0 and "GPU" in out.stdout
    except (OSError, subprocess.TimeoutExpired):
        return False


def discover(build, regex):
    cmd = ["ctest", "--test-dir", build, "-N", "-L", "gpu", "-LE", "large|fault",
           "--show-only=json-v1"]
    if regex:
        cmd += ["-R", regex]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True)
    tests, missing = [], []
    for t in json.loads(out.stdout).get("tests", []):
        if "command" not in t:  # ctest found no executable: not built
            missing.append(t["name"])
            continue
        props = {p["name"]: p["value"] for p in t.get("properties", [])}
        labels = props.get("LABELS", [])
        env = {}
        for item in props.get("ENVIRONMENT", []):
            key, _, value = item.partition("=")
            env[key] = value
        tests.append({
            "name": t["name"],
            "command": t["command"],
            "env": env,
            "cwd": props.get("WORKING_DIRECTORY"),
            "skip_code": props.get("SKIP_RETURN_CODE"),
            "gtest": any(a.startswith("--gtest") for a in t["command"][1:]),
            "jit": "jit" in labels,
        })
    return tests, missing


def sanitizer_command(sanitizer, tool, extra=()):
    cmd = [sanitizer, "--tool", tool, "--error-exitcode", str(ERROR_EXIT),
           "--target-processes", "all", "--print-limit", "50"]
    if tool == "memcheck" and "--leak-check" not in extra:
        cmd += ["--leak-check", "full"]
    return cmd + list(extra)


def run_job(job, timeout):
    start = time.monotonic()
    env = dict(os.environ)
    env.update(job["env"])
    with open(job["log"], "w") as log:
        log.write("$ " + " ".join(job["cmd"]) + "\n")
        log.flush()
        try:
            proc = subprocess.run(job["cmd"], env=env, cwd=job.get("cwd"), stdout=log,
                                  stderr=subprocess.STDOUT, timeout=timeout)
            code = proc.returncode
        except subprocess.TimeoutExpired:
            code = None
    with open(job["log"], errors="replace") as log:
        text = log.read()
    errors = [int(m) for m in ERRORS.findall(text)] + [int(m) for m in RACE_ERRORS.findall(text)]
    if (not errors and EMPTY_SHARD in text and PASSED.search(text)
            and "[  FAILED  ]" not in text):
        # A shard with no tests, or whose tests all passed without a CUDA call (the host-side
        # checks of check_segments, say): the tool had nothing to instrument (and exits 255).
        return dict(job, code=0, seconds=time.monotonic() - start, ran=True, empty=True,
                    errors=0, leaked_bytes=0, leaked_allocations=0, text=text)
    leaks = [(int(b), int(n)) for b, n in LEAKS.findall(text)]
    return dict(job, code=code, seconds=time.monotonic() - start, ran=bool(errors), empty=False,
                errors=sum(errors), leaked_bytes=sum(b for b, _ in leaks),
                leaked_allocations=sum(n for _, n in leaks), text=text)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-B", "--build", default="build")
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 4)
    parser.add_argument("--tools", default=",".join(TOOLS))
    parser.add_argument("--shards", type=int, default=4,
                        help="GoogleTest shards per binary and tool (default 4)")
    parser.add_argument("--jit-shards", type=int, default=8,
                        help="shards per run-time-operator suite (label jit; default 8)")
    parser.add_argument("--jit-mode", default="fast", choices=["fast", "tiered", "optimized"],
                        help="CUPAR_JIT_MODE for the jit suites (default fast)")
    parser.add_argument("--all-tools-on-jit", action="store_true",
                        help="run racecheck, synccheck and initcheck on the jit suites as well")
    parser.add_argument("--all-types", action="store_true",
                        help="every typed-test instance under every tool (default: the jit "
                             "suites under memcheck and the C++ suites under racecheck, "
                             "synccheck and initcheck run u8, u16, f32, f64 and the structs)")
    parser.add_argument("--scale", default="small",
                        help="CUPAR_TEST_SCALE under memcheck (default small: 65,537)")
    parser.add_argument("--other-scale", default="8192",
                        help="CUPAR_TEST_SCALE under racecheck, synccheck and initcheck (default "
                             "8192: still several tiles of every kernel, and these tools' cost "
                             "grows with every shared-memory access)")
    parser.add_argument("--racecheck-scale", default="4096",
                        help="CUPAR_TEST_SCALE under racecheck (default 4096: racecheck is the "
                             "slowest tool per shared-memory access; a merge sort tile is 2,048 "
                             "to 4,096 items, so several tiles still run)")
    parser.add_argument("-R", "--regex", help="only the ctest tests matching this")
    parser.add_argument("--timeout", type=int, default=420, help="seconds per job")
    parser.add_argument("--sanitizer", help="path of compute-sanitizer")
    parser.add_argument("--no-canaries", action="store_true")
    parser.add_argument("--list", action="store_true",
                        help="print the jobs (tool, shard, filter) and exit; needs no GPU")
    args = parser.parse_args()

    tools = [t for t in args.tools.split(",") if t]
    for t in tools:
        if t not in TOOLS:
            parser.error(f"unknown tool {t}")
    sanitizer = find_sanitizer(args.sanitizer)
    if not sanitizer:
        print("sanitize: compute-sanitizer not found (PATH, CUDA_HOME, /usr/local/cuda)")
        return 1
    build = os.path.abspath(args.build)
    out_dir = os.path.join(build, "sanitize")
    os.makedirs(out_dir, exist_ok=True)
    tests, missing = discover(build, args.regex)
    if missing and args.list:
        tests += [{"name": m, "command": [m, "--gtest_color=no"], "env": {}, "cwd": None,
                   "skip_code": None, "gtest": True, "jit": "jit" in m} for m in missing]
    elif missing:
        print(f"sanitize: not built, so not checked: {', '.join(missing)} (build everything first)")
        return 1
    if not tests:
        print(f"sanitize: no GPU tests found in {build} (build first)")
        return 1
    version = subprocess.run([sanitizer, "--version"], capture_output=True, text=True).stdout
    version = version.strip().splitlines()[-1] if version.strip() else "?"

    jobs = []

    def excluding(light, cases, out=SUBSET_OUT):
        """A negative gtest filter: the left-out types (when light) and the named cases."""
        patterns = ([f"*/{x}.*" for x in out] if light else []) + cases
        return "-" + ":".join(patterns) if patterns else None

    def add(tool, t, shards, gfilter, extra, note, alone=False):
        for shard in range(shards):
            scale = {"memcheck": args.scale, "racecheck": args.racecheck_scale}.get(
                tool, args.other_scale)
            env = dict(t["env"], CUPAR_TEST_SCALE=scale)
            if t["jit"]:
                env["CUPAR_JIT_MODE"] = args.jit_mode
            if shards > 1:
                env.update(GTEST_TOTAL_SHARDS=str(shards), GTEST_SHARD_INDEX=str(shard))
            command = list(t["command"])
            # A ctest entry may name its own filter (cupar_memory_no_keep_tests): GoogleTest
            # takes the last --gtest_filter only, so its positive patterns and the job's
            # negative ones become one filter, "POSITIVE-NEGATIVE".
            own = [a for a in command if a.startswith("--gtest_filter=")]
            command = [a for a in command if not a.startswith("--gtest_filter=")]
            if own:
                positive = own[-1][len("--gtest_filter="):]
                if not gfilter:
                    gfilter = positive
                elif gfilter.startswith("-"):
                    gfilter = positive + gfilter
                # else: a positive job filter (a planted case) is the narrower one
            cmd = sanitizer_command(sanitizer, tool, extra) + command
            if gfilter:
                cmd.append("--gtest_filter=" + gfilter)
            tag = f"{tool}.{t['name']}" + (f".{note}" if note else "") + \
                (f".{shard}" if shards > 1 else "")
            jobs.append({"kind": "test", "tool": tool, "test": t["name"], "shard": shard,
                         "cmd": cmd, "env": env, "cwd": t["cwd"], "skip_code": t["skip_code"],
                         "weight": (3 if t["jit"] else 1) * TOOL_WEIGHT[tool] *
                                   HEAVY.get(t["name"], 4) / 4 / shards,
                         "alone": alone,
                         "log": os.path.join(out_dir, tag + ".log")})

    for tool in tools:
        for t in tests:
            if t["jit"] and tool != "memcheck" and not args.all_tools_on_jit:
                continue
            if MEMCHECK_ONLY.match(t["name"]) and tool != "memcheck":
                continue
            if tool in SHARED_MEMORY_TOOLS and t["name"] in SHARED_MEMORY_SKIP:
                continue
            shards = (args.jit_shards if t["jit"] else HEAVY.get(t["name"], args.shards)) \
                if t["gtest"] else 1
            light = t["gtest"] and not args.all_types and (t["jit"] == (tool == "memcheck"))
            out = SUBSET_OUT_SHARED if tool in SHARED_MEMORY_TOOLS else SUBSET_OUT
            # The leak check is memcheck's; API errors are reported by every tool.
            planted = [p for p in PLANTED if p[0] == t["name"] and
                       (tool == "memcheck" or p[2][0] != "--leak-check")]
            whole = [p for p in planted if p[1] == "*"]
            if whole:
                add(tool, t, shards, excluding(light, [], out), whole[0][2], "planted")
                continue
            left_out = [p[1] for p in planted]
            if tool in SHARED_MEMORY_TOOLS:
                left_out += SHARED_MEMORY_CUB_CASES.get(t["name"], [])
            left_out += [x[1] for x in TRIAGED if x[0] == t["name"] and x[2] == tool]
            add(tool, t, shards, excluding(light, left_out, out), (), None,
                alone=(tool, t["name"]) in ALONE)
            for p in planted:
                add(tool, t, 1, p[1], p[2], "planted", alone=t["name"] in EXCLUSIVE)
    canary = os.path.join(build, "tests", "reliability", "cupar_sanitizer_canary")
    if not args.no_canaries:
        if not os.access(canary, os.X_OK) and not args.list:
            print(f"sanitize: {canary} is missing (build it: it proves the tools work)")
            return 1
        for mode, tool, expect in CANARIES:
            if tool not in tools:
                continue
            jobs.append({"kind": "canary", "tool": tool, "test": f"canary {mode}", "shard": 0,
                         "expect": expect, "cmd": sanitizer_command(sanitizer, tool) +
                         [canary, mode], "env": {}, "cwd": None, "skip_code": None, "weight": 9,
                         "log": os.path.join(out_dir, f"{tool}.canary_{mode}.log")})

    # Canaries first (seconds each), then longest first, so the small jobs fill the gaps at the end.
    jobs.sort(key=lambda j: -j["weight"])
    if args.list:
        for j in jobs:
            print(" ".join(f"{k}={v}" for k, v in j["env"].items()
                           if k.startswith(("GTEST_SHARD", "CUPAR_JIT_MODE"))),
                  " ".join(os.path.basename(c) if c.startswith("/") else c
                           for c in j["cmd"][1:]))
        print(f"{len(jobs)} jobs")
        return 0
    if not gpu_present():
        print("sanitize: no GPU (nvidia-smi -L): nothing was run")
        return 77
    print(f"sanitize: {len(tests)} GPU test binaries, {len(tools)} tools "
          f"({len(jobs)} jobs, {args.jobs} at a time, CUPAR_TEST_SCALE={args.scale} under "
          f"memcheck, {args.racecheck_scale} under racecheck and {args.other_scale} under "
          f"the others, "
          f"{args.shards} shards per GoogleTest binary); {version}", flush=True)
    start = time.monotonic()
    results = []
    def finished(r):
        results.append(r)
        state = "timeout" if r["code"] is None else f"exit {r['code']}"
        shard = f" shard {r['shard']}" if "GTEST_TOTAL_SHARDS" in r["env"] else ""
        print(f"  {r['seconds']:7.1f} s  {r['tool']:9} {r['test']}{shard}: "
              f"{r['errors']} errors, {state}", flush=True)

    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = [pool.submit(run_job, j, args.timeout) for j in jobs if not j.get("alone")]
        for f in concurrent.futures.as_completed(futures):
            finished(f.result())
    for j in jobs:
        if j.get("alone"):
            finished(run_job(j, args.timeout))
    wall = time.monotonic() - start

    problems = []
    rows = {}
    for r in results:
        if r["kind"] == "canary":
            continue
        key = (r["test"], r["tool"])
        row = rows.setdefault(key, {"errors": 0, "leaked": 0, "seconds": 0.0, "status": "ok"})
        row["errors"] += r["errors"]
        row["leaked"] += r["leaked_bytes"]
        row["seconds"] = max(row["seconds"], r["seconds"])
        status = None
        if r["code"] is None:
            status = "TIMEOUT"
        elif not r["ran"]:
            status = "TOOL DID NOT RUN"
        elif r["errors"] or r["leaked_bytes"]:
            status = "ERRORS"
        elif r["code"] not in (0, r["skip_code"]):
            status = f"FAILED (exit {r['code']})"
        elif r["code"] != 0:
            row["status"] = "skipped" if row["status"] == "ok" else row["status"]
        if status:
            row["status"] = status
            tail = "\n      ".join(r["text"].strip().splitlines()[-6:])
            problems.append(f"{r['tool']} {r['test']} shard {r['shard']}: {status}: {r['log']}"
                            f"\n      {tail}")

    canaries = [r for r in results if r["kind"] == "canary"]
    for r in canaries:
        caught = (r["errors"] > 0 or r["leaked_bytes"] > 0) and r["expect"] in r["text"]
        r["caught"] = caught
        if not caught:
            problems.append(f"{r['tool']} did NOT report the {r['test']} ({r['expect']!r}): "
                            f"{r['log']}")

    print()
    print(f"| test | {' | '.join(tools)} |")
    print("|---|" + "---|" * len(tools))
    for name in sorted({k[0] for k in rows}):
        cells = []
        for tool in tools:
            row = rows.get((name, tool))
            if row is None:
                cells.append("-")
                continue
            text = f"{row['errors']} errors"
            if tool == "memcheck":
                text += f", {row['leaked']} B leaked"
            text += f", {row['seconds']:.0f} s"
            if row["status"] != "ok":
                text += f", {row['status']}"
            cells.append(text)
        print(f"| {name} | {' | '.join(cells)} |")
    print()
    print("| canary (planted defect) | tool | reported errors | caught |")
    print("|---|---|---|---|")
    for r in sorted(canaries, key=lambda r: r["test"]):
        print(f"| {r['test']} | {r['tool']} | {r['errors']} (+{r['leaked_bytes']} B leaked) | "
              f"{'yes' if r['caught'] else 'NO'} |")
    total_errors = sum(r["errors"] for r in results if r["kind"] == "test")
    total_leaked = sum(r["leaked_bytes"] for r in results if r["kind"] == "test")
    print()
    print(f"sanitize: cupar's tests: {total_errors} errors, {total_leaked} bytes leaked, "
          f"{sum(1 for p in problems if 'canary' not in p)} failing jobs; canaries caught "
          f"{sum(1 for r in canaries if r['caught'])} of {len(canaries)}; "
          f"wall time {wall:.0f} s ({wall / 60:.1f} min); logs in {out_dir}")
    with open(os.path.join(out_dir, "summary.json"), "w") as f:
        json.dump({"wall_seconds": wall, "scale": args.scale, "tools": tools, "version": version,
                   "jobs": [{k: r[k] for k in ("kind", "tool", "test", "shard", "code", "seconds",
                                               "errors", "leaked_bytes", "log")}
                            for r in results]}, f, indent=1)
    if problems:
        print("\nsanitize: FAILED")
        for p in problems:
            print("  " + p)
        return 1
    print("sanitize: OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
