#!/usr/bin/env python3
"""The peer's kernels on cupar_bench's data: cuda.compute (CCCL's Python algorithms) timed on the
workloads of the cupar_bench rows it has an algorithm for, written as Google Benchmark JSON rows
named <family>/cuda_compute/<type>/<n>/manual_time, so that scripts/bench_report.py and
scripts/peer_report.py put them beside the cupar, cupar_jit and cub rows of the same run.

Usage (on a GPU machine with CuPy and cuda-cccl; numba-cuda for Python operators):
    bench/peer_cuda_compute.py -o peer.json [--sizes 16777216,268435456] [--ops numba|cpp]
                               [--families three_way_partition,select_if,...] [--reps 20]

Data: the same values as cupar_bench's (bench/data.hpp's hash of (seed, index) and the runners'
seeds and ranges, reproduced here by a kernel with the same arithmetic), rotated over copies as
cupar_bench rotates inputs smaller than twice the L2 cache. Operators (what the cupar_jit rows
give as text, here Python functions compiled by numba-cuda, or with --ops cpp the same C++ source
compiled by NVRTC to LTO-IR and given as a RawOp):
    select_if            u32, x < 2^31
    three_way_partition  u32, x < 2^30 first, then x < 2^31
    unique_by_key        u32 keys in runs (mean 1,000), f32 values, a == b
    segmented_reduce     f32 over [-1, 1) in segments of 1-1,999 items, a + b from 0
    merge_sort_keys      f32 over [-1e6, 1e6), a < b
    lower_bound          u32 needles over [0, 8 n) into sorted[i] = 8 i + (hash % 8), a < b
                         (cuda.compute writes 8-byte positions where cupar writes 4-byte ones)
Timing: as cupar_bench times a row on a held stream (bench/common.hpp's time_gpu): 3 warm-up
calls, then each timed call queued behind a kernel that spins for --hold-us microseconds, between
two CUDA events recorded after the spin, so the events time the GPU work of the call alone (the
Python call's host time is reported separately, and a call whose queueing outlasted the spin is
counted in the row's `late` counter). The row's time is the median. Each algorithm object's
build (make_*) is timed too (`build_s`): the peer's time until a new operator is ready.
Each row's result is checked against a reference (counts, sums, sortedness, positions).
"""

import argparse
import json
import math
import platform
import statistics
import sys
import time

import numpy as np

if not hasattr(np, "row_stack"):  # NumPy 2.4 removed it; numba's typing of NumPy still names it
    np.row_stack = np.vstack

try:
    import cupy as cp
except ImportError:  # pragma: no cover - the GPU machine has CuPy
    sys.exit("peer_cuda_compute: CuPy is needed")

# ---------------------------------------------------------------------------------------------
# Data: bench/data.hpp's generator, the same arithmetic in a kernel.

SEED_INPUT, SEED_VALUES, SEED_SEGMENTS = 1, 3, 4
MEAN_RUN, MAX_SEGMENT, SEARCH_STRIDE = 1000, 1999, 8

_GEN_SRC = r"""
__device__ __forceinline__ unsigned long long hash64(unsigned long long seed, unsigned long long i) {
  unsigned long long z = seed * 0x9E3779B97F4A7C15ull + i + 0x632BE59BD9B4E019ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
extern "C" __global__ void gen_u32_bits(unsigned* d, unsigned long long n, unsigned long long seed) {
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
       i += (unsigned long long)gridDim.x * blockDim.x)
    d[i] = (unsigned)hash64(seed, i);
}
extern "C" __global__ void gen_f32(float* d, unsigned long long n, unsigned long long seed,
                                   float lo, float span) {
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
       i += (unsigned long long)gridDim.x * blockDim.x) {
    const float u = (float)(hash64(seed, i) >> 40) * (1.0f / 16777216.0f);
    d[i] = __fadd_rn(lo, __fmul_rn(span, u));
  }
}
extern "C" __global__ void gen_u32_range(unsigned* d, unsigned long long n, unsigned long long seed,
                                         long long lo, unsigned long long count) {
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
       i += (unsigned long long)gridDim.x * blockDim.x)
    d[i] = (unsigned)(lo + (long long)(hash64(seed, i) % count));
}
extern "C" __global__ void run_starts(unsigned* d, unsigned long long n, unsigned long long seed,
                                      unsigned long long mean_run) {
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
       i += (unsigned long long)gridDim.x * blockDim.x)
    d[i] = (i > 0 && hash64(seed, i) % mean_run == 0) ? 1u : 0u;
}
extern "C" __global__ void keys_of_runs(unsigned* d, unsigned long long n, unsigned long long seed) {
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
       i += (unsigned long long)gridDim.x * blockDim.x)
    d[i] = (unsigned)hash64(seed ^ 0x5BD1E995ull, d[i]);
}
extern "C" __global__ void search_range(unsigned* d, unsigned long long n, unsigned long long seed,
                                        unsigned stride) {
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
       i += (unsigned long long)gridDim.x * blockDim.x)
    d[i] = (unsigned)(stride * i + hash64(seed, i) % stride);
}
extern "C" __global__ void spin(unsigned long long ns) {
  unsigned long long t0, t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do { asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); } while (t - t0 < ns);
}
"""
_module = None


def _kernel(name):
    global _module
    if _module is None:
        _module = cp.RawModule(code=_GEN_SRC, options=("-std=c++17",))
    return _module.get_function(name)


def _launch(name, n, *args):
    if n == 0:
        return
    _kernel(name)((1024,), (256,), args)


def fill_u32_bits(d, seed):
    _launch("gen_u32_bits", d.size, d, np.uint64(d.size), np.uint64(seed))


def fill_f32(d, seed, lo, hi):
    _launch("gen_f32", d.size, d, np.uint64(d.size), np.uint64(seed), np.float32(lo),
            np.float32(hi - lo))


def fill_u32_range(d, seed, lo, hi):
    _launch("gen_u32_range", d.size, d, np.uint64(d.size), np.uint64(seed), np.int64(lo),
            np.uint64(int(hi) - int(lo) + 1))


def fill_run_keys(d, seed):
    """bench/by_key.cu's fill_run_keys: run numbers by an inclusive sum of run starts, then each
    run's key. Returns the number of runs."""
    n = d.size
    _launch("run_starts", n, d, np.uint64(n), np.uint64(seed), np.uint64(MEAN_RUN))
    cp.cumsum(d, dtype=cp.uint32, out=d)
    runs = int(d[-1]) + 1 if n else 0
    _launch("keys_of_runs", n, d, np.uint64(n), np.uint64(seed))
    return runs


def fill_search_range(d, seed):
    _launch("search_range", d.size, d, np.uint64(d.size), np.uint64(seed), np.uint32(SEARCH_STRIDE))


def hash64_np(seed, i):
    """data.hpp's hash64 over a numpy array of indices (uint64 arithmetic wraps)."""
    with np.errstate(over="ignore"):
        z = np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15) + i.astype(np.uint64) + \
            np.uint64(0x632BE59BD9B4E019)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def segment_offsets(n):
    """segmented_runners.hpp's segment_offsets: sizes 1 + hash % 1999, the last cut at n."""
    if n == 0:
        return np.zeros(1, dtype=np.int64)
    guess = n // 500 + 16
    while True:
        sizes = 1 + hash64_np(SEED_SEGMENTS, np.arange(guess, dtype=np.uint64)) % np.uint64(MAX_SEGMENT)
        ends = np.cumsum(sizes.astype(np.int64))
        if ends[-1] >= n:
            break
        guess *= 2
    last = int(np.searchsorted(ends, n))  # the first segment reaching n
    ends = np.minimum(ends[:last + 1], n)
    return np.concatenate([np.zeros(1, dtype=np.int64), ends])


# ---------------------------------------------------------------------------------------------
# Rotation and timing (bench/common.hpp).

def padded_bytes(itemsize, n):
    return (n * itemsize + 255) // 256 * 256


def rotation_sets(bytes_per_set):
    l2 = cp.cuda.Device().attributes["L2CacheSize"]
    target = 2 * l2
    if bytes_per_set == 0 or bytes_per_set >= target:
        return 1
    return (target + bytes_per_set - 1) // bytes_per_set


class Rotating:
    """`sets` copies of n elements in one allocation (each on a 256-byte boundary), filled as
    cupar_bench fills them: one generator call over all copies."""

    def __init__(self, dtype, n, sets):
        unit = 256 // math.gcd(256, np.dtype(dtype).itemsize)
        self.n, self.sets = n, sets
        self.stride = (n + unit - 1) // unit * unit
        self.data = cp.zeros(max(self.stride * sets, 1), dtype=dtype)

    def __getitem__(self, s):
        k = (s % self.sets) * self.stride
        return self.data[k:k + self.n]


WARMUP = 3


def time_gpu(run, sets, reps, hold_us):
    """Median GPU time (us) of run(set) over `reps` calls, each behind a spinning kernel."""
    null = cp.cuda.Stream.null
    for i in range(WARMUP):
        run(i % sets)
    cp.cuda.Device().synchronize()
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    times, host, late = [], [], 0
    s = WARMUP % sets
    for _ in range(reps):
        _launch_spin(hold_us)
        t0 = time.perf_counter()
        start.record(null)
        run(s)
        stop.record(null)
        host_us = (time.perf_counter() - t0) * 1e6
        stop.synchronize()
        if host_us > 0.8 * hold_us:
            late += 1
        times.append(cp.cuda.get_elapsed_time(start, stop) * 1000.0)
        host.append(host_us)
        s = (s + 1) % sets
    return statistics.median(times), statistics.median(host), late


def _launch_spin(us):
    _kernel("spin")((1,), (1,), (np.uint64(int(us * 1000)),))


# ---------------------------------------------------------------------------------------------
# Operators: Python functions (numba-cuda), or C++ source compiled to LTO-IR (RawOp).

CPP_OPS = {
    "below_2_30": ("unsigned char", ["unsigned"], "return *a0 < 0x40000000u;"),
    "below_2_31": ("unsigned char", ["unsigned"], "return *a0 < 0x80000000u;"),
    "equal_u32": ("unsigned char", ["unsigned", "unsigned"], "return *a0 == *a1;"),
    "plus_f32": ("float", ["float", "float"], "return *a0 + *a1;"),
    "less_f32": ("unsigned char", ["float", "float"], "return *a0 < *a1;"),
    "less_u32": ("unsigned char", ["unsigned", "unsigned"], "return *a0 < *a1;"),
}


T30, T31 = np.uint32(0x40000000), np.uint32(0x80000000)


def below_2_30(x):
    return x < T30


def below_2_31(x):
    return x < T31


def equal_u32(a, b):
    return a == b


def plus_f32(a, b):
    return a + b


def less_f32(a, b):
    return a < b


def less_u32(a, b):
    return a < b


def _python_ops():
    """Module-level functions (numba-cuda compiles them; the thresholds are global constants)."""
    return {f.__name__: f for f in (below_2_30, below_2_31, equal_u32, plus_f32, less_f32,
                                    less_u32)}


def _cpp_ops(arch):
    from cuda.bindings import nvrtc
    import cuda.compute as cc

    def check(result):
        err = result[0]
        if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
            raise RuntimeError(f"NVRTC: {err}")
        return result[1:] if len(result) > 2 else (result[1] if len(result) == 2 else None)

    ops = {}
    for name, (ret, args, body) in CPP_OPS.items():
        params = ", ".join(f"void* p{i}" for i in range(len(args)))
        loads = "".join(f"  const {t}* a{i} = static_cast<const {t}*>(p{i});\n"
                        for i, t in enumerate(args))
        src = (f'extern "C" __device__ void {name}({params}, void* out) {{\n{loads}'
               f"  *static_cast<{ret}*>(out) = [&]() -> {ret} {{ {body} }}();\n}}\n")
        prog = check(nvrtc.nvrtcCreateProgram(src.encode(), f"{name}.cu".encode(), 0, [], []))
        opts = [b"-dlto", b"-rdc=true", f"-arch=sm_{arch}".encode(), b"-std=c++17"]
        err = nvrtc.nvrtcCompileProgram(prog, len(opts), opts)[0]
        if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
            size = check(nvrtc.nvrtcGetProgramLogSize(prog))
            log = b" " * size
            nvrtc.nvrtcGetProgramLog(prog, log)
            raise RuntimeError(f"NVRTC compile of {name}: {log.decode(errors='replace')}")
        size = check(nvrtc.nvrtcGetLTOIRSize(prog))
        ltoir = b" " * size
        check(nvrtc.nvrtcGetLTOIR(prog, ltoir))
        ops[name] = cc.RawOp(ltoir=ltoir, name=name)
    return ops


# ---------------------------------------------------------------------------------------------
# The families. Each returns (build_s, run(set), check(), bytes, n, sets).

def _temp(nbytes):
    return cp.empty(max(int(nbytes), 1), dtype=cp.uint8)


def _built(make, kw, **fixed):
    """The algorithm object make(**kw(0)), its build timed (a new operator's build), its temporary
    storage sized by a call without it, and run(s): a call on copy s. `fixed`: the call's
    arguments that make() does not take (num_items, num_segments)."""
    t0 = time.perf_counter()
    alg = make(**kw(0))
    build = time.perf_counter() - t0
    temp = _temp(alg(temp_storage=None, **fixed, **kw(0)))

    def run(s):
        alg(temp_storage=temp, **fixed, **kw(s))

    return build, run


def fam_select_if(cc, ops, n):
    sets = rotation_sets(2 * padded_bytes(4, n) + padded_bytes(8, 1))
    inp, out, cnt = Rotating(cp.uint32, n, sets), Rotating(cp.uint32, n, sets), \
        Rotating(cp.uint64, 1, sets)
    fill_u32_bits(inp.data, SEED_INPUT)
    kw = lambda s: dict(d_in=inp[s], d_out=out[s], d_num_selected_out=cnt[s],
                        cond=ops["below_2_31"])
    build, run = _built(cc.make_select, kw, num_items=n)

    def check():
        run(0)
        want = int((inp[0] < np.uint32(0x80000000)).sum())
        got = int(cnt[0][0])
        ok = got == want and bool(cp.all(out[0][:got] < np.uint32(0x80000000)))
        return ok, f"count {got} (want {want})"

    return build, run, check, 1.5 * n * 4, sets


def fam_three_way_partition(cc, ops, n):
    sets = rotation_sets(4 * padded_bytes(4, n) + padded_bytes(8, 2))
    inp = Rotating(cp.uint32, n, sets)
    first, second, rest = (Rotating(cp.uint32, n, sets) for _ in range(3))
    cnt = Rotating(cp.uint64, 2, sets)
    fill_u32_bits(inp.data, SEED_INPUT)
    kw = lambda s: dict(d_in=inp[s], d_first_part_out=first[s], d_second_part_out=second[s],
                        d_unselected_out=rest[s], d_num_selected_out=cnt[s],
                        select_first_part_op=ops["below_2_30"],
                        select_second_part_op=ops["below_2_31"])
    build, run = _built(cc.make_three_way_partition, kw, num_items=n)

    def check():
        run(0)
        x = inp[0]
        want = (int((x < np.uint32(0x40000000)).sum()),
                int(((x >= np.uint32(0x40000000)) & (x < np.uint32(0x80000000))).sum()))
        got = tuple(int(v) for v in cnt[0].get())
        ok = got == want and bool(cp.all(first[0][:got[0]] < np.uint32(0x40000000)))
        return ok, f"counts {got} (want {want})"

    return build, run, check, 2.0 * n * 4, sets


def fam_unique_by_key(cc, ops, n):
    sets = rotation_sets(2 * (padded_bytes(4, n) + padded_bytes(4, n)) + padded_bytes(8, 1))
    keys, keys_out = Rotating(cp.uint32, n, sets), Rotating(cp.uint32, n, sets)
    vals, vals_out = Rotating(cp.float32, n, sets), Rotating(cp.float32, n, sets)
    cnt = Rotating(cp.uint64, 1, sets)
    runs = [fill_run_keys(keys[s], SEED_INPUT + s) for s in range(sets)]
    fill_f32(vals.data, SEED_VALUES, -1.0, 1.0)
    kw = lambda s: dict(d_in_keys=keys[s], d_in_items=vals[s], d_out_keys=keys_out[s],
                        d_out_items=vals_out[s], d_out_num_selected=cnt[s], op=ops["equal_u32"])
    build, run = _built(cc.make_unique_by_key, kw, num_items=n)

    def check():
        run(0)
        k = keys[0]
        want = int((k[1:] != k[:-1]).sum()) + 1 if n else 0
        got = int(cnt[0][0])
        return got == want, f"unique keys {got} (want {want}; runs made {runs[0]})"

    return build, run, check, n * 8 + runs[0] * 8, sets


def fam_segmented_reduce(cc, ops, n):
    offsets = segment_offsets(n)
    segs = offsets.size - 1
    d_off = cp.asarray(offsets)
    sets = rotation_sets(padded_bytes(4, n) + padded_bytes(4, segs))
    inp, out = Rotating(cp.float32, n, sets), Rotating(cp.float32, max(segs, 1), sets)
    fill_f32(inp.data, SEED_INPUT, -1.0, 1.0)
    init = np.zeros(1, dtype=np.float32)
    begin, end = d_off[:-1], d_off[1:]
    kw = lambda s: dict(d_in=inp[s], d_out=out[s], start_offsets_in=begin, end_offsets_in=end,
                        op=ops["plus_f32"], h_init=init)
    build, run = _built(cc.make_segmented_reduce, kw, num_segments=segs)

    def check():
        run(0)
        x = inp[0].get().astype(np.float64)
        sums = np.add.reduceat(x, offsets[:-1]) if segs else np.zeros(0)
        got = out[0][:segs].get().astype(np.float64)
        err = float(np.max(np.abs(got - sums))) if segs else 0.0
        return err < 1e-3, f"{segs} segments, max error {err:.2e}"

    return build, run, check, n * 4 + segs * (4 + 16), sets


def fam_merge_sort_keys(cc, ops, n):
    sets = rotation_sets(2 * padded_bytes(4, n))
    inp, out = Rotating(cp.float32, n, sets), Rotating(cp.float32, n, sets)
    fill_f32(inp.data, SEED_INPUT, -1.0e6, 1.0e6)
    kw = lambda s: dict(d_in_keys=inp[s], d_in_values=None, d_out_keys=out[s], d_out_values=None,
                        op=ops["less_f32"])
    build, run = _built(cc.make_merge_sort, kw, num_items=n)

    def check():
        run(0)
        ok = bool(cp.array_equal(cp.sort(inp[0]), out[0]))
        return ok, "sorted" if ok else "not the sorted input"

    return build, run, check, 2.0 * n * 4, sets


def fam_lower_bound(cc, ops, n):
    sets = rotation_sets(3 * padded_bytes(4, n))
    srt, ndl, out = Rotating(cp.uint32, n, sets), Rotating(cp.uint32, n, sets), \
        Rotating(cp.uint64, n, sets)
    for s in range(sets):
        fill_search_range(srt[s], SEED_INPUT + s)
    fill_u32_range(ndl.data, SEED_VALUES, 0, SEARCH_STRIDE * n - 1)
    kw = lambda s: dict(d_data=srt[s], d_values=ndl[s], d_out=out[s], comp=ops["less_u32"])
    t0 = time.perf_counter()
    alg = cc.make_lower_bound(**kw(0))
    build = time.perf_counter() - t0

    def run(s):
        alg(num_items=n, num_values=n, **kw(s))

    def check():
        run(0)
        want = cp.searchsorted(srt[0], ndl[0], side="left")
        bad = int(cp.sum(want.astype(cp.uint64) != out[0]))
        return bad == 0, f"{bad} wrong positions"

    return build, run, check, 2.0 * n * 4, sets


FAMILIES = {
    "select_if": (fam_select_if, "u32"),
    "three_way_partition": (fam_three_way_partition, "u32"),
    "unique_by_key": (fam_unique_by_key, "u32_f32"),
    "segmented_reduce": (fam_segmented_reduce, "f32"),
    "merge_sort_keys": (fam_merge_sort_keys, "f32"),
    "lower_bound": (fam_lower_bound, "u32"),
}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("-o", "--out", required=True, help="JSON file to write (Google Benchmark form)")
    p.add_argument("--sizes", default="16777216,268435456")
    p.add_argument("--families", default=",".join(FAMILIES))
    p.add_argument("--ops", choices=["numba", "cpp"], default="numba")
    p.add_argument("--reps", type=int, default=20)
    p.add_argument("--hold-us", type=float, default=3000.0)
    a = p.parse_args()

    import cuda.compute as cc
    version = "?"
    try:
        from importlib.metadata import version as _v
        version = _v("cuda-cccl")
    except Exception:  # noqa: BLE001 - informational only
        pass
    dev = cp.cuda.Device()
    props = cp.cuda.runtime.getDeviceProperties(dev.id)
    arch = f"{props['major']}{props['minor']}"
    ops = _python_ops() if a.ops == "numba" else _cpp_ops(arch)
    rows, failed = [], 0
    for fam in [f for f in a.families.split(",") if f]:
        maker, type_ = FAMILIES[fam]
        for n in [int(x) for x in a.sizes.split(",") if x]:
            name = f"{fam}/cuda_compute/{type_}/{n}/manual_time"
            try:
                build, run, check, nbytes, sets = maker(cc, ops, n)
                med, host, late = time_gpu(run, sets, a.reps, a.hold_us)
                ok, what = check()
            except Exception as e:  # noqa: BLE001 - one row's failure is reported, not fatal
                print(f"{name}: error: {e!r}", file=sys.stderr, flush=True)
                rows.append({"name": name, "run_name": name, "run_type": "iteration",
                             "error_occurred": True, "error_message": repr(e)})
                failed += 1
                cp.get_default_memory_pool().free_all_blocks()
                continue
            print(f"{name}: {med:10.1f} us  build {build:6.2f} s  host {host:6.1f} us  "
                  f"late {late}  sets {sets}  {'ok' if ok else 'WRONG'}: {what}", flush=True)
            if not ok:
                failed += 1
            rows.append({"name": name, "run_name": name, "run_type": "iteration",
                         "iterations": a.reps, "real_time": med, "cpu_time": host,
                         "time_unit": "us", "median_us": med, "bytes": nbytes, "n": n,
                         "build_s": build, "host_us": host, "late": late, "sets": sets,
                         "checked": 1 if ok else 0,
                         **({"error_occurred": True, "error_message": what} if not ok else {})})
            cp.get_default_memory_pool().free_all_blocks()
    context = {"date": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "host_name": platform.node(),
               "executable": f"bench/peer_cuda_compute.py (cuda-cccl {version}, ops {a.ops})",
               "gpu": props["name"].decode() if isinstance(props["name"], bytes) else props["name"],
               "library_build_type": "release"}
    with open(a.out, "w", encoding="utf-8") as f:
        json.dump({"context": context, "benchmarks": rows}, f, indent=2)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
