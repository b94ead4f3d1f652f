#!/usr/bin/env python3
"""Turns cupar_bench's Google Benchmark JSON into bench/RESULTS.md and bench/plots/*.png.

Usage:
    scripts/bench_report.py results.json [more.json ...] [-o OUT_DIR] [--command CMD]
                            [--readme README.md] [--min-log2 20] [--tolerance 0.98]

Writes OUT_DIR/RESULTS.md (default OUT_DIR: the repository's bench/) and OUT_DIR/plots/<family>.png.
Several JSON files may be given (e.g. the kernel benchmarks and a separate JIT latency run); the
machine description is taken from the first.

Row names (see bench/rows.hpp): <family>/<impl>/<type>/<n>[/manual_time|/real_time], impl one of
cupar, cupar_jit, cupar_jit_named, cupar_jit_plan, cub, cub_i64, cub_malloc_async, thrust,
cuda_compute (bench/peer_cuda_compute.py's JSON), cpu_seq, cpu_omp, cuda_memcpy (other names are
shown too). The cupar* impls are the subjects: each
is compared with CUB, Thrust and the CPU, and the cupar_jit* ones with cupar too. Counters read:
`bytes` and `n` (per run), `median_us` (median time of a run; else Google Benchmark's time),
`us_per_call` and `enqueue_us_per_call` (host overhead rows), `seconds` and `max_seconds` (JIT
latency rows; `seconds` defaults to the row's time).

JIT latency rows: jit_latency/<measure>/<case>, measure one of
    cold_process            first call in a fresh process with an empty cache directory
    disk_cache_process      first call in a fresh process whose disk cache holds the build
    warm_in_process         a repeated call in the same process (in-process cache hit)
    new_operator_in_process a new operator in a process that has already built the algorithm
    switch_in_process       what the call that switches to the optimised build pays over the
                            calls after it (a difference: may be below 0)
and case naming the algorithm and types (e.g. reduce_f32; cupar_bench adds <case>_optimized, a
cold process with CUPAR_JIT_MODE=optimized). The value is the counter `seconds` if present, else
the row's (manual or real) time; a measure whose rows carry `max_seconds` (new operators: median
and max over several) gets a second column with the max.

Standard library only, plus matplotlib for the plots (Debian: python3-matplotlib); without
matplotlib the tables are written and the plots skipped with a warning.
"""

import argparse
import json
import os
import re
import statistics
import sys
import textwrap
from collections import OrderedDict, defaultdict

IMPL_ORDER = ["cupar", "cupar_jit", "cupar_jit_literal", "cupar_jit_expr", "cupar_jit_named", "cupar_jit_plan",
              "cupar_not_guaranteed", "cupar_jit_named_not_guaranteed", "cupar_hash", "cupar_into", "cupar_sort", "cub",
              "cub_i64", "cub_flat",
              "cub_malloc_async", "thrust", "cuda_compute", "cpu_seq", "cpu_omp", "cuda_memcpy"]
SUBJECTS = ["cupar", "cupar_into", "cupar_jit", "cupar_jit_literal", "cupar_jit_expr", "cupar_jit_named", "cupar_jit_plan",
            "cupar_not_guaranteed", "cupar_jit_named_not_guaranteed"]  # the rows the report judges
GPU_PEERS = ["cub", "cub_i64", "cub_flat", "thrust", "cuda_compute", "cupar_sort"]
CPU_PEERS = ["cpu_seq", "cpu_omp"]
FAMILY_ORDER = ["reduce_sum", "reduce_max", "inclusive_scan", "exclusive_scan", "transform_unary",
                "transform_binary", "transform_mixed", "radix_sort_keys", "radix_sort_pairs", "merge_sort_keys",
                "merge_sort_pairs", "reduce_struct", "inclusive_scan_struct", "histogram_even",
                "histogram_even_op", "histogram_range", "reduce_sum_squares", "dot", "argmax",
                "argmax32", "zip8", "zip16", "count_where", "scan_squares", "inclusive_scan_out", "merge_sort_computed",
                "reduce_sum_to_f32", "reduce_any", "inclusive_scan_max", "group_by_100", "group_by_1k", "group_by_4k", "group_by_32k",
                "group_by_1m", "group_by_16m", "join"]
SPECIAL_FAMILIES = {"copy", "host_overhead", "jit_latency"}
JIT_MEASURES = ["cold_process", "disk_cache_process", "warm_in_process",
                "new_operator_in_process", "switch_in_process"]
# Not a time to a result but a difference (may be below 0): left out of the latency plot.
JIT_EXTRA_MEASURES = {"switch_in_process"}
FAMILY_TITLES = {
    "reduce_sum": "reduce, sum (cuda::std::plus; CUB DeviceReduce::Sum; cupar_jit: snippet "
                  "`a + b`; cupar_jit_named: cupar::jit::plus, precompiled; *_not_guaranteed: "
                  "determinism::not_guaranteed, the single-pass atomic sum)",
    "reduce_max": "reduce, max with a __device__ lambda (cupar_jit: snippet `a < b ? b : a`); "
                  "f16, bf16: cuda::maximum (cupar_jit: cupar::jit::maximum)",
    "reduce_sum_to_f32": "reduce, sum of halves accumulated in float (transform_reduce with a "
                         "conversion; CUB TransformReduce; cupar_jit: jit::iterator, named plus)",
    "group_by_100": "group-by of u32 keys (100 groups) into count, sum, min, max: "
                    "group_by (cupar: automatic method; cupar_into: the same into caller arrays "
                    "of room n; cupar_hash: the hash table) beside "
                    "the sort-based route by hand (cupar_sort: sort_pairs, reduce_by_key); idle "
                    "stream",
    "group_by_1k": "group-by as group_by_100, 2^10 groups",
    "group_by_4k": "group-by as group_by_100, 2^12 groups",
    "group_by_32k": "group-by as group_by_100, 2^15 groups",
    "group_by_1m": "group-by as group_by_100, 2^20 groups",
    "group_by_16m": "group-by as group_by_100, 2^24 groups",
    "join": "inner join of u32 keys into row-position pairs, n probe rows against n / 4 build "
            "rows (inner_join) beside the sort route by hand (cupar_sort: sort_pairs, "
            "equal_range, a scan, an expanding kernel); idle stream",
    "reduce_any": "reduce, logical or of bools (cupar_jit: cupar::jit::logical_or)",
    "inclusive_scan_max": "inclusive scan, running maximum of halves (cupar_jit: "
                          "cupar::jit::maximum)",
    "inclusive_scan": "inclusive scan, sum (cupar_jit: snippet `a + b`)",
    "transform_unary": "transform, unary 2x + 1 (cupar_jit: snippet `2.0f * x + 1.0f`; "
                       "cupar_jit_expr: over expressions, the for_each kernels)",
    "transform_binary": "transform, binary a + b",
    "transform_mixed": "transform, i32 -> f64 x * 0.5 (cupar_jit: no CUB set for the pair, the "
                       "for_each kernels)",
    "radix_sort_keys": "radix sort, keys",
    "radix_sort_pairs": "radix sort, key-value pairs",
    "merge_sort_keys": "merge sort (comparator `a < b`: lambda; cupar_jit: snippet), keys; "
                       "rec16 by sum, rec32 by key (functor; cupar_jit: snippet on the struct "
                       "class's kernels)",
    "reduce_struct": "reduce of 16-byte records (count, sum, min, max) merged (functor; "
                     "cupar_jit: snippet on the s16a4 class kernels)",
    "inclusive_scan_struct": "inclusive scan of 16-byte records merged (functor; cupar_jit: "
                             "snippet on the s16a4 class kernels)",
    "merge_sort_pairs": "merge sort (comparator `a < b`: lambda; cupar_jit: snippet), key-value "
                        "pairs",
    "histogram_even": "histogram, 256 even bins (library path)",
    "histogram_even_op": "histogram, 256 even bins, samples through a lambda (1 - x; cupar_jit: "
                         "snippet `1.0f - x`)",
    "reduce_sum_squares": "sum of squares, reduce over a transform iterator x * x (fused; "
                          "cupar_unfused: transform into an array, then reduce it; cupar_jit: "
                          "transform_reduce; cupar_jit_expr: over the iterator expression "
                          "transform(x, \"x * x\"))",
    "dot": "dot product, reduce over a transform of a zip of two arrays",
    "argmax": "argmax over zip(counting, x), lowest index on ties (cub: DeviceReduce::ArgMax)",
    "argmax32": "argmax as above with an (int, float) accumulator, 8 bytes (cub: ArgMax)",
    "count_where": "count where x > 0.5, reduce over a transform iterator as u64",
    "scan_squares": "inclusive scan of x * x read through a transform iterator (cupar_jit_expr: "
                    "the iterator expression transform(x, \"x * x\"); compare inclusive_scan)",
    "inclusive_scan_out": "inclusive scan written through a transform output iterator (2 s)",
    "merge_sort_computed": "merge sort of keys |x| computed by a transform iterator",
}
UNIT_SCALE = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}
NAME_OPTIONS = re.compile(r"^(manual_time|real_time|process_time)$|^[a-z_]+:")


# ---------------------------------------------------------------------------------------------
# Reading

class Row:
    """One benchmark row at one size, reduced over repetitions."""

    def __init__(self, family, impl, type_, n):
        self.family, self.impl, self.type, self.n = family, impl, type_, n
        self.time_us = None      # time of one run (median)
        self.bytes = None        # bytes per run
        self.items = None        # items per run
        self.counters = {}
        self.error = None

    @property
    def gbps(self):
        if self.bytes is None or not self.time_us:
            return None
        return self.bytes / self.time_us / 1e3

    @property
    def gitems(self):
        if self.items is None or not self.time_us:
            return None
        return self.items / self.time_us / 1e3


def parse_name(name):
    """(family, impl, type, n) from "family/impl/type/n/manual_time" and the like."""
    parts = [p for p in name.split("/") if p and not NAME_OPTIONS.match(p)]
    n = None
    if parts and parts[-1].isdigit():
        n = int(parts.pop())
    while len(parts) < 3:
        parts.append("")
    family, impl, type_ = parts[0], parts[1], "/".join(parts[2:])
    return family, impl, type_, n


def entry_time_us(e):
    scale = UNIT_SCALE.get(e.get("time_unit", "ns"), 1e-3)
    return float(e.get("real_time", 0.0)) * scale


def entry_values(e):
    """Per-run values of one JSON entry."""
    v = {}
    mean_us = entry_time_us(e)
    v["time_us"] = float(e["median_us"]) if e.get("median_us") else mean_us
    if e.get("bytes"):
        v["bytes"] = float(e["bytes"])
    elif e.get("bytes_per_second") and mean_us:
        v["bytes"] = float(e["bytes_per_second"]) * mean_us * 1e-6
    if e.get("n"):
        v["items"] = float(e["n"])
    elif e.get("items_per_second") and mean_us:
        v["items"] = float(e["items_per_second"]) * mean_us * 1e-6
    for key in ("us_per_call", "enqueue_us_per_call", "median_us_per_call", "seconds",
                "max_seconds", "threads", "sets"):
        if key in e:
            v[key] = float(e[key])
    if "seconds" not in v:
        v["seconds_from_time"] = mean_us * 1e-6
    return v


def read_json(path):
    """Google Benchmark writes its JSON as it goes: a run that was stopped leaves it unfinished.
    Such a file is cut after its last complete row and read with a warning."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        pass
    end = text.rfind("\n    }")
    if end >= 0 and '"benchmarks"' in text:
        try:
            data = json.loads(text[:end + 6] + "\n  ]\n}\n")
            print(f"bench_report: {path} is unfinished (the run was stopped?); using its "
                  f"{len(data.get('benchmarks', []))} complete rows", file=sys.stderr)
            return data
        except json.JSONDecodeError:
            pass
    raise SystemExit(f"bench_report: {path} is not Google Benchmark JSON")


def load(paths):
    """Returns (context of the first file, {key: Row}, [errors])."""
    context = None
    entries = defaultdict(list)
    for path in paths:
        data = read_json(path)
        if context is None:
            context = data.get("context", {})
        for e in data.get("benchmarks", []):
            name = e.get("run_name") or e.get("name", "")
            entries[parse_name(name)].append(e)
    rows, errors = OrderedDict(), []
    for key, es in entries.items():
        row = Row(*key)
        failed = [e for e in es if e.get("error_occurred")]
        if failed:
            row.error = failed[0].get("error_message", "error")
            errors.append(row)
            continue
        medians = [e for e in es if e.get("run_type") == "aggregate"
                   and e.get("aggregate_name") == "median"]
        if medians:
            values = [entry_values(medians[0])]
        else:
            values = [entry_values(e) for e in es if e.get("run_type", "iteration") == "iteration"]
        if not values:
            continue
        merged = {}
        for k in set().union(*values):
            xs = [v[k] for v in values if k in v]
            merged[k] = statistics.median(xs)
        row.time_us = merged.get("time_us")
        row.bytes = merged.get("bytes")
        row.items = merged.get("items") if merged.get("items") else (
            float(row.n) if row.n is not None else None)
        row.counters = merged
        rows[key] = row
    return context or {}, rows, errors


# ---------------------------------------------------------------------------------------------
# Formatting

def fmt_num(v):
    if v is None:
        return "-"
    a = abs(v)
    if a >= 100:
        return f"{v:,.0f}"
    if a >= 10:
        return f"{v:.1f}"
    if a >= 1:
        return f"{v:.2f}"
    if a >= 0.01:
        return f"{v:.3f}"
    return f"{v:.2g}"


def fmt_ratio(r):
    return "-" if r is None else f"{r:.3f}"


def fmt_speedup(r):
    if r is None:
        return "-"
    return f"{r:,.0f}x" if r >= 10 else f"{r:.1f}x"


def fmt_pct(p):
    return "-" if p is None else f"{p:.0f}%"


def fmt_n(n):
    if n is None:
        return "-"
    if n > 0 and n & (n - 1) == 0:
        return f"2^{n.bit_length() - 1}"
    return f"{n:,}"


def ordered(items, order):
    known = [x for x in order if x in items]
    return known + sorted(x for x in items if x not in order)


def is_sort(family):
    return "sort" in family


def unit_of(family):
    return "Gkeys/s" if is_sort(family) else "GB/s"


def throughput(row, family):
    if row is None:
        return None
    return row.gitems if is_sort(family) else row.gbps


def ratio(a, b):
    if a is None or b is None or b == 0:
        return None
    return a / b


def md_table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "|".join(["---"] * len(header)) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(out)


# ---------------------------------------------------------------------------------------------
# Analysis

class Report:
    def __init__(self, context, rows, errors, args):
        self.context, self.rows, self.errors, self.args = context, rows, errors, args
        self.min_n = 1 << args.min_log2
        self.tol = args.tolerance
        self.families = defaultdict(lambda: defaultdict(lambda: defaultdict(dict)))
        for (family, impl, type_, n), row in rows.items():
            self.families[family][type_][impl][n] = row
        copy = self.families.get("copy", {})
        self.copy = {}
        for impls in copy.values():
            for n, row in impls.get("cuda_memcpy", {}).items():
                self.copy[n] = row.gbps

    def kernel_families(self):
        return ordered([f for f in self.families if f not in SPECIAL_FAMILIES], FAMILY_ORDER)

    def get(self, family, type_, impl, n):
        return self.families[family][type_].get(impl, {}).get(n)

    def sizes(self, family, type_):
        ns = set()
        for by_n in self.families[family][type_].values():
            ns.update(n for n in by_n if n is not None)
        return sorted(ns)

    # -- per-family table
    def family_table(self, family, type_):
        impls = ordered(self.families[family][type_].keys(), IMPL_ORDER)
        subjects = [s for s in SUBJECTS if s in impls]
        peers = [p for p in GPU_PEERS + CPU_PEERS if p in impls]

        def peers_of(s):
            # The run-time operator paths: the GPU peers only (their CPU speed-ups would repeat
            # cupar's); their ratio to cupar comes last.
            return peers if s == "cupar" else [p for p in peers if p in GPU_PEERS]
        header = ["n"] + [f"{i}" for i in impls]
        for s in subjects:
            header.append(f"{s} % copy")
        for s in subjects:
            for p in peers_of(s):
                header.append(f"{s}/{p}" if p in GPU_PEERS else f"{s} vs {p}")
        # The run-time operator paths against cupar's own (C++ callable) path, last.
        jit_subjects = [s for s in subjects if s != "cupar" and "cupar" in impls]
        for s in jit_subjects:
            header.append(f"{s}/cupar")
        body = []
        for n in self.sizes(family, type_):
            tp = {i: throughput(self.get(family, type_, i, n), family) for i in impls}
            line = [fmt_n(n)] + [fmt_num(tp[i]) for i in impls]
            for s in subjects:
                row = self.get(family, type_, s, n)
                pct = None
                if row is not None and row.gbps is not None and self.copy.get(n):
                    pct = 100.0 * row.gbps / self.copy[n]
                line.append(fmt_pct(pct))
            for s in subjects:
                for p in peers_of(s):
                    r = ratio(tp[s], tp[p])
                    line.append(fmt_ratio(r) if p in GPU_PEERS else fmt_speedup(r))
            for s in jit_subjects:
                line.append(fmt_ratio(ratio(tp[s], tp["cupar"])))
            body.append(line)
        return md_table(header, body)

    # -- every place a subject is slower than a peer
    def slower(self):
        """([findings at n >= min_n], [findings below]); self.compared counts the comparisons."""
        big, small = [], []
        self.compared = 0
        for family in self.kernel_families():
            unit = unit_of(family)
            for type_ in sorted(self.families[family]):
                impls = self.families[family][type_]
                for s in SUBJECTS:
                    if s not in impls:
                        continue
                    peers = [p for p in GPU_PEERS + CPU_PEERS if p in impls]
                    if s != "cupar" and "cupar" in impls:
                        peers = ["cupar"] + peers
                    for n in self.sizes(family, type_):
                        a = throughput(self.get(family, type_, s, n), family)
                        for p in peers:
                            b = throughput(self.get(family, type_, p, n), family)
                            r = ratio(a, b)
                            if r is not None and n >= self.min_n:
                                self.compared += 1
                            if r is None or r >= self.tol:
                                continue
                            text = (f"{family} {type_} at n = {fmt_n(n)}: {s} {fmt_num(a)} {unit} "
                                    f"is {100.0 * (1.0 - r):.1f}% slower than {p} "
                                    f"({fmt_num(b)} {unit}; ratio {r:.3f})")
                            (big if n >= self.min_n else small).append(text)
        return big, small

    # -- host overhead
    def host_overhead(self):
        fam = self.families.get("host_overhead")
        if not fam:
            return None, []
        impls = ordered({i for t in fam.values() for i in t}, IMPL_ORDER)
        subjects = [s for s in SUBJECTS if s in impls]
        header = ["call (1,024 elements)"] + [f"{i} us/call" for i in impls]
        header += [f"{s} - cub (us)" for s in subjects if "cub" in impls]
        header += [f"{i} enqueue us/call" for i in impls]
        body, notes = [], []
        for type_ in sorted(fam):
            def per_call(impl, key="us_per_call"):
                by_n = fam[type_].get(impl, {})
                if not by_n:
                    return None
                row = by_n[sorted(by_n, key=lambda x: x or 0)[0]]
                return row.counters.get(key)
            line = [type_] + [fmt_num(per_call(i)) for i in impls]
            cub = per_call("cub")
            for s in subjects:
                if "cub" not in impls:
                    continue
                mine = per_call(s)
                if mine is None or cub is None:
                    line.append("-")
                    continue
                d = mine - cub
                line.append(f"{d:+.2f}")
                if d > 0:
                    verdict = ("misses the target of 1 us" if d > 1.0
                               else "within the 1 us target")
                    notes.append(f"host overhead, {type_}: {s} costs {d:.2f} us per call more "
                                 f"than cub with preallocated storage ({mine:.2f} vs {cub:.2f} us; "
                                 f"{verdict})")
            line += [fmt_num(per_call(i, "enqueue_us_per_call")) for i in impls]
            body.append(line)
        return md_table(header, body), notes

    # -- JIT latencies
    def jit_latency(self):
        fam = self.families.get("jit_latency")
        if not fam:
            return None
        measures = ordered({m for t in fam.values() for m in t}, JIT_MEASURES)
        # rows keyed by case: family["jit_latency"][type][impl=measure][n]
        with_max = {m for t in fam.values() for m, by_n in t.items()
                    if any("max_seconds" in r.counters for r in by_n.values())}
        header = ["case"]
        for m in measures:
            header.append(f"{m} (ms)")
            if m in with_max:
                header.append(f"{m} max (ms)")
        body = []
        for case in sorted(fam):
            line = [case or "-"]
            for m in measures:
                by_n = fam[case].get(m, {})
                row = next(iter(by_n.values())) if by_n else None
                sec = (row.counters.get("seconds", row.counters.get("seconds_from_time"))
                       if row else None)
                line.append(fmt_num(sec * 1e3) if sec is not None else "-")
                if m in with_max:
                    mx = row.counters.get("max_seconds") if row else None
                    line.append(fmt_num(mx * 1e3) if mx is not None else "-")
            body.append(line)
        return md_table(header, body)

    # -- headline: cupar at 2^20 / 2^24 / 2^28 and its ratio to CUB
    # A headline row's reference: CUB where it has the algorithm, else what the suite times
    # beside cupar (CUB over the rows' bytes as one array, CUB's scan by key on materialised
    # keys, the sort route called by hand, Thrust).
    HEADLINE_PEERS = ("cub", "cub_flat", "cub_scan_by_key", "cupar_sort", "thrust")
    # Families without a peer of their own, and the rows of another family that do the same work
    # on the same data (same type and size): top-k against sorting all n keys with CUB (what
    # ORDER BY ... LIMIT k costs without top-k; CUB 3.0.1 has no top-k). Their ratio is one of
    # times: the peer's time over cupar's.
    HEADLINE_BORROWED = (("top_k", "radix_sort_keys", "cub"),)

    def borrowed_peer(self, family, type_):
        """(family, impl) of the rows that stand in for `family`'s missing peer, or None."""
        for prefix, other, impl in self.HEADLINE_BORROWED:
            if family == prefix or family.startswith(prefix + "_"):
                if impl in self.families.get(other, {}).get(type_, {}):
                    return other, impl
        return None

    def headline(self):
        points = [1 << 20, 1 << 24, 1 << 28]
        header = ["family", "type", "unit", "peer"]
        for p in points:
            header += [f"cupar @{fmt_n(p)}", f"/peer @{fmt_n(p)}"]
        body = []
        for family in self.kernel_families():
            for type_ in sorted(self.families[family]):
                impls = self.families[family][type_]
                if "cupar" not in impls:
                    continue
                peer = next((i for i in self.HEADLINE_PEERS if i in impls), None)
                borrowed = None if peer else self.borrowed_peer(family, type_)
                label = peer or (f"{borrowed[1]} {borrowed[0]}" if borrowed else "-")
                line = [family, type_, unit_of(family), label]
                for p in points:
                    mine = self.get(family, type_, "cupar", p)
                    a = throughput(mine, family)
                    if borrowed:
                        theirs = self.get(borrowed[0], type_, borrowed[1], p)
                        r = ratio(theirs.time_us, mine.time_us) if theirs and mine else None
                    else:
                        r = ratio(a, throughput(self.get(family, type_, peer, p), family)
                                  if peer else None)
                    line += [fmt_num(a), fmt_ratio(r)]
                body.append(line)
        return md_table(header, body) if body else ""

    def machine(self):
        c = self.context
        gpu = c.get("gpu", "unknown GPU")
        bits = []
        if c.get("gpu_arch"):
            bits.append(c["gpu_arch"])
        if c.get("gpu_sms"):
            bits.append(f"{c['gpu_sms']} SMs")
        if c.get("gpu_sm_clock_max_mhz"):
            now = c.get("gpu_sm_clock_now_mhz")
            bits.append(f"SM clock {c['gpu_sm_clock_max_mhz']} MHz max"
                        + (f", {now} MHz at start" if now and now != "0" else ""))
        if c.get("gpu_mem_clock_mhz"):
            bits.append(f"memory clock {c['gpu_mem_clock_mhz']} MHz")
        if c.get("gpu_l2_bytes"):
            bits.append(f"L2 {int(c['gpu_l2_bytes']) >> 20} MiB")
        return gpu + (f" ({', '.join(bits)})" if bits else "")

    def command(self):
        if self.args.command:
            return self.args.command
        return self.context.get("invocation") or self.context.get("bench_command") or "unknown"


# ---------------------------------------------------------------------------------------------
# Plots

def make_plots(report, plot_dir):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("bench_report: matplotlib is not available (Debian: apt-get install "
              "python3-matplotlib); plots skipped", file=sys.stderr)
        return {}
    os.makedirs(plot_dir, exist_ok=True)
    written = {}
    styles = {"cupar": ("C0", "o", "-"), "cupar_jit": ("C1", "s", "-"),
              "cupar_jit_named": ("C9", "*", "-"), "cupar_jit_plan": ("C6", "h", "-"),
              "cub": ("C2", "^", "--"), "cub_i64": ("C8", "v", "--"),
              "cub_malloc_async": ("C4", "P", "--"), "thrust": ("C3", "D", ":"),
              "cpu_seq": ("C7", "x", "-."), "cpu_omp": ("C5", "+", "-.")}
    gpu = report.context.get("gpu", "unknown GPU")
    for family in report.kernel_families():
        types = sorted(report.families[family])
        cols = min(3, len(types))
        rows_ = (len(types) + cols - 1) // cols
        fig, axes = plt.subplots(rows_, cols, figsize=(5.2 * cols, 4.0 * rows_), squeeze=False)
        unit = unit_of(family)
        for k, type_ in enumerate(types):
            ax = axes[k // cols][k % cols]
            impls = ordered(report.families[family][type_].keys(), IMPL_ORDER)
            for impl in impls:
                by_n = report.families[family][type_][impl]
                pts = sorted((n, throughput(r, family)) for n, r in by_n.items()
                             if n is not None and throughput(r, family))
                if not pts:
                    continue
                color, marker, line = styles.get(impl, (None, ".", "-"))
                ax.plot([p[0] for p in pts], [p[1] for p in pts], label=impl, color=color,
                        marker=marker, linestyle=line, markersize=4)
            if not is_sort(family) and report.copy:
                pts = sorted((n, v) for n, v in report.copy.items() if n is not None and v)
                ax.plot([p[0] for p in pts], [p[1] for p in pts], label="device copy",
                        color="black", linestyle=(0, (2, 2)), linewidth=1)
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.set_xlabel("n (elements)")
            ax.set_ylabel(unit)
            ax.set_title(f"{family} {type_}")
            ax.grid(True, which="both", alpha=0.3)
            ax.legend(fontsize=8)
        for k in range(len(types), rows_ * cols):
            axes[k // cols][k % cols].axis("off")
        fig.suptitle(textwrap.fill(f"{family}: throughput against n, {gpu}, "
                                   f"{report.context.get('date', '')[:10]}", 45 * cols),
                     fontsize=9)
        fig.tight_layout()
        path = os.path.join(plot_dir, f"{family}.png")
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written[family] = path
    fam = report.families.get("host_overhead")
    if fam:
        types = sorted(fam)
        impls = ordered({i for t in fam.values() for i in t}, IMPL_ORDER)
        fig, ax = plt.subplots(figsize=(7, 4))
        width = 0.8 / max(1, len(impls))
        for j, impl in enumerate(impls):
            vals = []
            for t in types:
                by_n = fam[t].get(impl, {})
                vals.append(next(iter(by_n.values())).counters.get("us_per_call", 0)
                            if by_n else 0)
            ax.bar([k + j * width for k in range(len(types))], vals, width, label=impl,
                   color=styles.get(impl, (None,))[0])
        ax.set_xticks([k + width * (len(impls) - 1) / 2 for k in range(len(types))])
        ax.set_xticklabels(types)
        ax.set_ylabel("us per call (1,000 calls, one sync)")
        ax.set_title(f"host overhead per call, 1,024 elements ({gpu})", fontsize=9)
        ax.legend(fontsize=8)
        fig.tight_layout()
        path = os.path.join(plot_dir, "host_overhead.png")
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written["host_overhead"] = path
    fam = report.families.get("jit_latency")
    if fam:
        cases = sorted(fam)
        measures = [m for m in ordered({m for t in fam.values() for m in t}, JIT_MEASURES)
                    if m not in JIT_EXTRA_MEASURES]
        fig, ax = plt.subplots(figsize=(7, 4))
        width = 0.8 / max(1, len(measures))
        for j, m in enumerate(measures):
            vals = []
            for c in cases:
                by_n = fam[c].get(m, {})
                row = next(iter(by_n.values())) if by_n else None
                sec = (row.counters.get("seconds", row.counters.get("seconds_from_time"))
                       if row else None)
                vals.append(sec * 1e3 if sec else float("nan"))
            ax.bar([k + j * width for k in range(len(cases))], vals, width, label=m)
        ax.set_xticks([k + width * (len(measures) - 1) / 2 for k in range(len(cases))])
        ax.set_xticklabels([c or "-" for c in cases])
        ax.set_yscale("log")
        ax.set_ylabel("ms")
        ax.set_title(f"JIT latency ({gpu})", fontsize=9)
        ax.legend(fontsize=8)
        fig.tight_layout()
        path = os.path.join(plot_dir, "jit_latency.png")
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written["jit_latency"] = path
    return written


# ---------------------------------------------------------------------------------------------
# Output

def relpath(path, start):
    return os.path.relpath(path, start).replace(os.sep, "/")


def write_results(report, out_dir, plots, json_paths):
    c = report.context
    md = []
    md.append("# cupar benchmark results")
    md.append("")
    md.append("Generated by `scripts/bench_report.py` from the JSON of `cupar_bench`; do not edit "
              "by hand (run `scripts/run-benchmarks.sh` again).")
    md.append("")
    md.append(f"- Date: {c.get('date', 'unknown')}")
    md.append(f"- GPU: {report.machine()}")
    md.append(f"- Driver: {c.get('nvidia_driver', 'unknown')} (CUDA {c.get('cuda_driver', '?')}), "
              f"runtime {c.get('cuda_runtime', '?')}; cupar {c.get('cupar_version', '?')}, "
              f"CCCL {c.get('cccl_version', '?')} (Google Benchmark library: "
              f"{c.get('library_build_type', '?')} build)")
    md.append(f"- CPU: {c.get('cpu_model', '?')}, {c.get('num_cpus', '?')} CPUs, "
              f"{c.get('cpu_threads', '?')} OpenMP threads for cpu_omp; host "
              f"{c.get('host_name', '?')}")
    md.append(f"- Command: `{report.command()}`")
    tier1 = c.get("cupar_jit_mode") == "fast"
    if tier1:
        md.append("- JIT mode: fast (CUPAR_JIT_MODE=fast): the `cupar_jit` rows time the "
                  "out-of-line (tier-1) build, not the optimised one")
    md.append(f"- Data: {', '.join('`' + os.path.basename(p) + '`' for p in json_paths)}")
    md.append("")
    small_min = c.get("small_min_time")
    runs = "timed runs after warm-up runs"
    if small_min:
        runs += (f" (GPU rows at n <= 2^20 run for {float(small_min):g} s of GPU time, the others "
                 "for the command's minimum time: a call there takes 5-20 us, and about a "
                 "thousand calls give the same median as ten thousand)")
    md.append("Method: GPU time from CUDA events on the benchmark's own stream, median of the "
              + runs + "; the stream is held by a spinning kernel while the "
              "start event, the call and the stop event are enqueued (nvbench's method), so launch "
              "latency and host work are not in it: the host-overhead rows measure those; Thrust "
              "rows, which synchronise inside some calls, are timed on an idle stream (launch "
              "latency included); inputs under 2x the L2 size rotated over several "
              "buffers; random data. Throughput counts each input read once and each output "
              "written once (GB/s), or keys per second for sorts (Gkeys/s). `% copy` is the "
              "row's GB/s over `cudaMemcpyAsync` device-to-device at the same n. Ratios "
              "`cupar/x` are throughput over throughput (above 1: cupar is faster); `vs cpu_*` "
              "is the speed-up over the CPU. `cub` passes int num_items, `cub_i64` int64_t. "
              "Thrust rows include Thrust's own temporary allocations (and, for reduce, "
              "returning the value to the host); in-place sorts (Thrust, CPU) have their input "
              "restored outside the timed region. `cupar_jit` rows pass the same operator as "
              "the `cupar` row as a run-time snippet (from code built by the host compiler) and "
              + ("are timed with its out-of-line (tier-1) build (this run's JIT mode: fast)"
                 if tier1 else "are timed once its optimised (inlined) build serves")
              + "; `cupar_jit_named` passes a "
              "named operator (cupar::jit::plus), served by a precompiled CUB instantiation.")
    md.append("")

    big, small = report.slower()
    ho_table, ho_notes = report.host_overhead()
    md.append("## Where cupar is slower")
    md.append("")
    md.append(f"Every size n >= {fmt_n(report.min_n)} where a cupar row reaches less than "
              f"{report.tol:.2f} of a peer's throughput, and every host overhead above CUB's:")
    md.append("")
    if big or ho_notes:
        md += [f"- {t}" for t in big + ho_notes]
    elif report.compared == 0 and not ho_table:
        md.append("- nothing to compare: this run has no cupar row beside a peer at these "
                  "sizes.")
    else:
        md.append(f"- none: cupar is within {100 * (1 - report.tol):.0f}% of every peer at every "
                  f"size from {fmt_n(report.min_n)} up, and no slower per call than CUB.")
    md.append("")
    if small:
        md.append(f"Below {fmt_n(report.min_n)} (launch-bound sizes):")
        md.append("")
        md += [f"- {t}" for t in small]
        md.append("")

    headline = report.headline()
    if headline:
        md.append("## Headline")
        md.append("")
        md.append(HEADLINE_NOTE)
        md.append("")
        md.append(headline)
        md.append("")

    if report.copy:
        md.append("## Device copy bandwidth (the bound)")
        md.append("")
        ns = sorted(n for n in report.copy if n is not None)
        md.append(md_table(["n (4-byte words)"] + [fmt_n(n) for n in ns],
                           [["GB/s (read + write)"] + [fmt_num(report.copy[n]) for n in ns]]))
        md.append("")

    for family in report.kernel_families():
        md.append(f"## {family}")
        md.append("")
        if family in FAMILY_TITLES:
            md.append(FAMILY_TITLES[family] + f"; throughput in {unit_of(family)}.")
            md.append("")
        for type_ in sorted(report.families[family]):
            md.append(f"### {family} {type_}")
            md.append("")
            md.append(report.family_table(family, type_))
            md.append("")
        if family in plots:
            md.append(f"![{family}]({relpath(plots[family], out_dir)})")
            md.append("")

    if ho_table:
        md.append("## Host overhead")
        md.append("")
        md.append("Wall time per call of a loop of 1,000 calls on 1,024 elements, stream "
                  "synchronised once at the end (`us/call`), and of the loop alone before the "
                  "synchronisation (`enqueue`). cupar includes its temporary storage from the "
                  "default pool resource; `cupar_jit` is the same call with a run-time operator "
                  "object reused by every call, `cupar_jit_plan` a JIT plan built once (both "
                  "after the optimised build serves); `cub` uses storage allocated beforehand; "
                  "`cub_malloc_async` wraps each call in cudaMallocAsync/cudaFreeAsync. Target: "
                  "cupar within 1 us of `cub`.")
        md.append("")
        md.append(ho_table)
        md.append("")
        if "host_overhead" in plots:
            md.append(f"![host overhead]({relpath(plots['host_overhead'], out_dir)})")
            md.append("")

    jit = report.jit_latency()
    md.append("## JIT latency")
    md.append("")
    if jit:
        md.append("Time to the first result of a call with a run-time operator, from just "
                  "before the call to the end of the stream synchronisation (CUDA initialised "
                  "and the data on the device beforehand): in a fresh process with an empty "
                  "cache (`cold_process`), in a fresh process with a disk cache hit "
                  "(`disk_cache_process`), a repeated call in the same process "
                  "(`warm_in_process`, median), a new operator in a process that has built the "
                  "algorithm (`new_operator_in_process`, median and max over several new "
                  "operators), and what the call that switches to the optimised build pays over "
                  "the calls after it (`switch_in_process`, median and max over 5 new operators; "
                  "a difference, so noise can make it negative; not in the plot). Cases `*_optimized` ran with CUPAR_JIT_MODE=optimized (the "
                  "inlined build made before the first call returns); the others with the "
                  "default tiered mode (a quick out-of-line build first, the inlined one in the "
                  "background).")
        md.append("")
        md.append(jit)
        md.append("")
        if "jit_latency" in plots:
            md.append(f"![JIT latency]({relpath(plots['jit_latency'], out_dir)})")
            md.append("")
    else:
        md.append("No `jit_latency/...` rows in this run.")
        md.append("")

    if report.errors:
        md.append("## Rows that failed")
        md.append("")
        for row in report.errors:
            md.append(f"- {row.family}/{row.impl}/{row.type} at n = {fmt_n(row.n)}: {row.error}")
        md.append("")

    path = os.path.join(out_dir, "RESULTS.md")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(md))
    return path


HEADLINE_NOTE = ("`cupar`: the C++-callable path. `/peer`: cupar's throughput over the peer's: "
                 "CUB called directly where it has the algorithm, else CUB over the rows' bytes "
                 "as one array (`cub_flat`), CUB's scan by key on materialised segment ids "
                 "(`cub_scan_by_key`), the sort route called by hand (`cupar_sort`: sort_pairs, "
                 "then reduce_by_key), or Thrust; top-k, which CUB lacks, against CUB's radix "
                 "sort of all n keys (`cub radix_sort_keys`: a ratio of times).")

README_BEGIN = "<!-- cupar-bench:begin -->"
README_END = "<!-- cupar-bench:end -->"


def update_readme(report, readme, plots, results_path):
    """Replaces the block between the cupar-bench markers of `readme` with the headline table,
    the date, GPU and command, and one plot. Leaves the file alone without the markers."""
    with open(readme, encoding="utf-8") as f:
        text = f.read()
    if README_BEGIN not in text or README_END not in text:
        print(f"bench_report: {readme} has no {README_BEGIN} ... {README_END} block; not changed",
              file=sys.stderr)
        return False
    base = os.path.dirname(os.path.abspath(readme))
    block = [README_BEGIN, "",
             f"Measured {report.context.get('date', '?')} on {report.machine()} with "
             f"`{report.command()}` (full results: {relpath(results_path, base)}).", "",
             HEADLINE_NOTE, "",
             report.headline() or "(no cupar rows in this run)", ""]
    for family in ("reduce_sum", "radix_sort_keys"):
        if family in plots:
            block += [f"![{family}]({relpath(plots[family], base)})", ""]
            break
    block.append(README_END)
    head, rest = text.split(README_BEGIN, 1)
    tail = rest.split(README_END, 1)[1]
    with open(readme, "w", encoding="utf-8") as f:
        f.write(head + "\n".join(block) + tail)
    return True


def main(argv=None):
    here = os.path.dirname(os.path.abspath(__file__))
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("json", nargs="+", help="Google Benchmark JSON output(s) of cupar_bench")
    p.add_argument("-o", "--out-dir", default=os.path.join(here, "..", "bench"),
                   help="where RESULTS.md and plots/ go (default: the repository's bench/)")
    p.add_argument("--command", default=None,
                   help="the command that produced the JSON (default: from the JSON context)")
    p.add_argument("--readme", default=None,
                   help="also refresh the headline block of this README (between "
                        f"{README_BEGIN} and {README_END})")
    p.add_argument("--min-log2", type=int, default=20,
                   help="sizes from 2^k up are held to the tolerance (default 20)")
    p.add_argument("--tolerance", type=float, default=0.98,
                   help="ratios below this are reported as slower (default 0.98)")
    p.add_argument("--no-plots", action="store_true", help="tables only")
    args = p.parse_args(argv)

    context, rows, errors = load(args.json)
    if not rows and not errors:
        print("bench_report: no benchmark rows in the input", file=sys.stderr)
        return 1
    out_dir = os.path.abspath(args.out_dir)
    os.makedirs(out_dir, exist_ok=True)
    report = Report(context, rows, errors, args)
    plots = {} if args.no_plots else make_plots(report, os.path.join(out_dir, "plots"))
    path = write_results(report, out_dir, plots, args.json)
    print(f"bench_report: wrote {path}" + (f" and {len(plots)} plots" if plots else ""))
    if args.readme:
        update_readme(report, args.readme, plots, path)
    big, _ = report.slower()
    if big:
        print(f"bench_report: cupar is slower than a peer in {len(big)} places at n >= "
              f"{fmt_n(report.min_n)} (see 'Where cupar is slower')")
    return 0


if __name__ == "__main__":
    sys.exit(main())
