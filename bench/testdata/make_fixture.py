#!/usr/bin/env python3
"""Writes fixture.json: a small synthetic cupar_bench output in Google Benchmark 1.7.1's JSON
format, with throughputs chosen so the report's ratios are known (report_selftest.py checks
them). Regenerate with: python3 bench/testdata/make_fixture.py > bench/testdata/fixture.json
"""

import json
import sys

N16, N20, N24 = 1 << 16, 1 << 20, 1 << 24

rows = []
family_index = {}


def add(name, n, time_us, bytes_=None, extra=None, run_type="iteration", aggregate=None,
        repetitions=1, repetition_index=0, error=None, time_unit="us", suffix="manual_time"):
    fam = family_index.setdefault(name, len(family_index))
    run_name = f"{name}/{n}/{suffix}" if n is not None else f"{name}/{suffix}"
    e = {
        "name": run_name + (f"_{aggregate}" if aggregate else ""),
        "family_index": fam,
        "per_family_instance_index": 0,
        "run_name": run_name,
        "run_type": run_type,
        "repetitions": repetitions,
        "threads": 1,
    }
    if aggregate:
        e["aggregate_name"] = aggregate
        e["aggregate_unit"] = "time"
    else:
        e["repetition_index"] = repetition_index
    if error:
        e.update({"error_occurred": True, "error_message": error, "iterations": 0,
                  "real_time": 0.0, "cpu_time": 0.0, "time_unit": time_unit})
        rows.append(e)
        return
    scale = {"ns": 1e3, "us": 1.0, "ms": 1e-3, "s": 1e-6}[time_unit]
    e.update({"iterations": 100, "real_time": time_us * scale, "cpu_time": 5.0 * scale,
              "time_unit": time_unit})
    if bytes_ is not None:
        e["bytes"] = float(bytes_)
        e["bytes_per_second"] = bytes_ / (time_us * 1e-6)
    if n is not None:
        e["items_per_second"] = n / (time_us * 1e-6)
        e["n"] = float(n)
    if extra:
        e.update(extra)
    rows.append(e)


def gbps_row(name, n, bytes_, gbps, **kw):
    t = bytes_ / (gbps * 1e3)  # us
    add(name, n, t * 1.1, bytes_, {"median_us": t, "min_us": t * 0.95, "sets": 1.0}, **kw)


def keys_row(name, n, key_bytes, gkeys):
    t = n / (gkeys * 1e3)
    add(name, n, t, 2 * n * key_bytes, {"median_us": t, "min_us": t, "sets": 1.0})


# Device copy: GB/s at each n (read + write of n 4-byte words). The 2^16 row's name carries the
# option Google Benchmark appends to a row with its own minimum time (cupar_bench's small GPU
# rows), which the parser drops.
copy = {N16: 500.0, N20: 1500.0, N24: 2800.0}
for n, g in copy.items():
    gbps_row("copy/cuda_memcpy/u32", n, 8 * n, g,
             suffix="min_time:0.005/manual_time" if n == N16 else "manual_time")

# reduce_sum f32: cupar at 2^20 is 0.950 of cub (flagged), at 2^16 0.900 (small list);
# cupar_jit at 2^24 is 0.950 of cub and of cupar (flagged twice); cupar_jit_named equals cub
# (1.053 of cupar at 2^20, not flagged).
reduce = {
    "cupar": {N16: 90.0, N20: 1425.0, N24: 2900.0},
    "cupar_jit": {N16: 95.0, N20: 1500.0, N24: 2755.0},
    "cupar_jit_named": {N16: 100.0, N20: 1500.0, N24: 2900.0},
    "cub": {N16: 100.0, N20: 1500.0, N24: 2900.0},
    "thrust": {N16: 20.0, N20: 600.0, N24: 2500.0},
    "cpu_seq": {N16: 10.0, N20: 9.0, N24: 8.7},
    "cpu_omp": {N16: 5.0, N20: 60.0, N24: 74.0},
}
for impl, by_n in reduce.items():
    for n, g in by_n.items():
        gbps_row(f"reduce_sum/{impl}/f32", n, 4 * n + 4, g)

# radix_sort_keys u32 in Gkeys/s: cupar at 2^20 is 0.960 of cub, 1.017 of cub_i64.
sort = {
    "cupar": {N20: 12.0, N24: 35.6},
    "cub": {N20: 12.5, N24: 35.0},
    "cub_i64": {N20: 11.8, N24: 35.6},
    "thrust": {N20: 8.0, N24: 30.0},
    "cpu_seq": {N20: 0.08, N24: 0.07},
    "cpu_omp": {N20: 0.5, N24: 0.9},
}
for impl, by_n in sort.items():
    for n, g in by_n.items():
        keys_row(f"radix_sort_keys/{impl}/u32", n, 4, g)

# top_k_100 u32 (no peer of its own): its headline ratio is the time of CUB's sort of the same
# keys over its own, 2.400 at 2^20 (120 GB/s) and 0.500 at 2^24 (70.0 GB/s).
for n, g in {N20: 120.0, N24: 70.0}.items():
    t = 4 * n / (g * 1e3)
    add("top_k_100/cupar/u32", n, t, 4 * n, {"median_us": t, "min_us": t, "sets": 1.0})

# transform_unary f32 at 2^20 with 3 repetitions and aggregates: the report must use the median
# aggregate (2950 GB/s, ratio 0.983 to cub's 3000: not flagged).
b = 8 * N20
for i, g in enumerate([2000.0, 2950.0, 3100.0]):
    gbps_row("transform_unary/cupar/f32", N20, b, g, repetitions=3, repetition_index=i)
for agg, g in [("mean", 2683.0), ("median", 2950.0), ("stddev", 1e9)]:
    gbps_row("transform_unary/cupar/f32", N20, b, g, run_type="aggregate", aggregate=agg,
             repetitions=3)
gbps_row("transform_unary/cub/f32", N20, b, 3000.0)

# A row that failed.
add("merge_sort_keys/cupar/f32", N24, 0, error="output is not sorted (3 descents among 16777216 keys)")

# Host overhead (us per call): cupar +0.64 us over cub (within target), cupar_jit +1.54 us
# (misses it), cupar_jit_plan +0.24 us; transform: cupar 0.10 us below cub.
overhead = {
    "reduce_f32": {"cupar": 4.10, "cupar_jit": 5.00, "cupar_jit_plan": 3.70, "cub": 3.46,
                   "cub_malloc_async": 4.33},
    "transform_f32": {"cupar": 2.90, "cub": 3.00},
}
for type_, by_impl in overhead.items():
    for impl, us in by_impl.items():
        add(f"host_overhead/{impl}/{type_}", 1024, us * 1000.0, None,
            {"us_per_call": us, "enqueue_us_per_call": us - 0.5, "median_us_per_call": us,
             "calls": 1000.0}, suffix="real_time")

# JIT latency: seconds counters, and one row with only a time (in ms) to test the fallback.
add("jit_latency/cold_process/reduce_f32", None, 412000.0, extra={"seconds": 0.412},
    suffix="manual_time")
add("jit_latency/disk_cache_process/reduce_f32", None, 21000.0, extra={"seconds": 0.021},
    suffix="manual_time")
add("jit_latency/warm_in_process/reduce_f32", None, 2.0, extra={"seconds": 2.0e-6},
    suffix="manual_time")
add("jit_latency/new_operator_in_process/reduce_f32", None, 19000.0, time_unit="ms",
    suffix="manual_time")
# As cupar_bench writes them: times in ms, a max_seconds counter for new operators (its own
# column), and a cold-only <case>_optimized case.
for measure, sec, extra in [("cold_process", 0.650, {}), ("disk_cache_process", 0.030, {}),
                            ("warm_in_process", 0.00035, {}),
                            ("new_operator_in_process", 0.045, {"max_seconds": 0.120,
                                                                "operators": 20.0})]:
    add(f"jit_latency/{measure}/merge_sort_keys_f32", None, sec * 1e3, time_unit="ms",
        extra={"seconds": sec, **extra}, suffix="manual_time")
add("jit_latency/cold_process/reduce_f32_optimized", None, 905.0, time_unit="ms",
    extra={"seconds": 0.905}, suffix="manual_time")

fixture = {
    "context": {
        "date": "2026-11-21T12:00:00+00:00",
        "host_name": "fixture-host",
        "executable": "./build-bench/bench/cupar_bench",
        "num_cpus": 16,
        "mhz_per_cpu": 3000,
        "cpu_scaling_enabled": False,
        "caches": [],
        "load_avg": [0.1, 0.1, 0.1],
        "library_build_type": "release",
        "bench_command": "./build-bench/bench/cupar_bench --benchmark_min_time=0.05",
        "invocation": "scripts/run-benchmarks.sh --fixture",
        "cccl_version": "3.0.1",
        "cpu_model": "Fixture CPU",
        "cpu_threads": "16",
        "cupar_version": "0.1.0",
        "gpu": "NVIDIA H100 80GB HBM3 (synthetic fixture)",
        "gpu_arch": "sm_90",
        "gpu_sms": "132",
        "gpu_sm_clock_max_mhz": "1980",
        "gpu_sm_clock_now_mhz": "1755",
        "gpu_mem_clock_mhz": "2619",
        "gpu_mem_bus_bits": "5120",
        "gpu_l2_bytes": str(50 << 20),
        "gpu_memory_bytes": str(80 << 30),
        "nvidia_driver": "580.00",
        "cuda_driver": "13.0",
        "cuda_runtime": "13.0",
        "small_min_time": "0.005000",
    },
    "benchmarks": rows,
}
json.dump(fixture, sys.stdout, indent=2)
sys.stdout.write("\n")
