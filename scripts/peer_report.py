#!/usr/bin/env python3
"""One table of cupar against the peer (cuda.compute) and of tier 1 against the optimised build,
from one run: cupar_bench's JSON (the cupar, cupar_jit and cub rows), optionally a second run of
the cupar_jit rows in tier 1, and optionally bench/peer_cuda_compute.py's JSON, as markdown.

Usage:
    scripts/peer_report.py --bench bench.json [--peer peer.json] [--tier1 tier1.json]
                           [--latency latency.log] [-o table.md]

Columns: each implementation's median time (us) per family, type and n; the peer's build time of
a new operator (its make_* call); and the cupar_jit rows' speed over the peer's (the peer's time
over cupar_jit's: above 1, cupar is faster), for the optimised build and, with --tier1, for the
tier-1 kernels (`CUPAR_JIT_MODE=fast CUPAR_DISABLE_DISK_CACHE=1`: a disk-cache hit would serve the
optimised build even in fast mode).

--latency: cupar_jit_latency's `result` lines (scripts/gpu-evidence.sh tiers) for the cases of the
table's rows (case reduce_f32 is row reduce_sum f32, group_by_u32_stats row group_by_1k u32_stats,
partition_u32 row partition u32, otherwise case <family>_<type> is row <family> <type>): the first
call of a new operator (the tier-1 build and the call, ms), the time from that call until its
optimised build is ready (s), each the median of the case's result lines (scripts/gpu-evidence.sh
tiers runs three fresh processes), the optimised build of a new operator alone (median, ms), and a
burst of 8 new operators called back to back until every optimised build is done (s). Measured at
the n the stage gives (2^24 by default), the same on each n's row.
"""

import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_report  # noqa: E402  (the JSON reader and row-name parser of the main report)

COLUMNS = ["cupar", "cupar_jit_tier1", "cupar_jit", "cupar_jit_literal", "cub", "cuda_compute"]
HEADERS = {"cupar": "cupar (C++)", "cupar_jit_tier1": "cupar_jit tier 1",
           "cupar_jit": "cupar_jit optimised",
           "cupar_jit_literal": "cupar_jit, constants in the text", "cub": "CUB by hand",
           "cuda_compute": "cuda.compute"}


# Latency cases whose bench rows are named otherwise.
CASE_ROWS = {"reduce_f32": ("reduce_sum", "f32"),
             "scan_squares_f32": ("scan_squares (expression)", "f32"),
             "group_by_u32_stats": ("group_by_1k", "u32_stats")}
# An iterator expression's rows (cupar_bench's cupar_jit_expr implementation) are a row of their
# own, "<family> (expression)", its cupar_jit columns the expression's, the others the family's.
EXPR_IMPL, EXPR_SUFFIX = "cupar_jit_expr", " (expression)"
LATENCY = [("first_call", "seconds", "first call (ms)", 1e3),
           ("first_call", "optimized_ready_seconds", "optimised ready (s)", 1),
           ("build", "seconds", "optimised build (ms)", 1e3),
           ("drain", "seconds", "burst of 8 (s)", 1)]


def case_row(case):
    """(family, type) of the bench rows a cupar_jit_latency case measures."""
    if case in CASE_ROWS:
        return CASE_ROWS[case]
    m = re.match(r"(.+?)_((?:[uif](?:8|16|32|64)_?)+)$", case)
    return (m.group(1), m.group(2).rstrip("_")) if m else (case, "")


def read_latency(path):
    """{(family, type): {(measure, field): value}} from cupar_jit_latency's result lines. A case
    measured several times (the first call in several fresh processes) gives the median of its
    values (the lower middle one of an even count)."""
    values = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.startswith("result "):
                continue
            fields = dict(kv.split("=", 1) for kv in line.split()[1:] if "=" in kv)
            if "case" not in fields or "measure" not in fields:
                continue
            row = values.setdefault(case_row(fields["case"]), {})
            for key, value in fields.items():
                try:
                    number = float(value)
                except ValueError:
                    continue
                row.setdefault((fields["measure"], key), []).append(number)
    return {case: {k: sorted(v)[(len(v) - 1) // 2] for k, v in row.items()}
            for case, row in values.items()}


def fmt_latency(v, scale):
    if v is None:
        return "-"
    v *= scale
    return f"{v:,.0f}" if v >= 100 else (f"{v:.1f}" if v >= 1 else f"{v:.2f}")


def fmt_us(v):
    if v is None:
        return "-"
    return f"{v:,.0f}" if v >= 1000 else (f"{v:.1f}" if v >= 10 else f"{v:.2f}")


def fmt_ratio(a, b):
    return f"{b / a:.2f}x" if a and b else "-"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--bench", required=True)
    p.add_argument("--peer", default=None)
    p.add_argument("--tier1", default=None)
    p.add_argument("--latency", default=None)
    p.add_argument("-o", "--out", default=None)
    a = p.parse_args()
    if not a.peer and not a.tier1:
        sys.exit("peer_report: give --peer, --tier1 or both")

    _, rows, errors = bench_report.load([a.bench] + ([a.peer] if a.peer else []))
    context, builds = bench_report.read_json(a.bench).get("context", {}), {}
    if a.peer:
        peer_data = bench_report.read_json(a.peer)
        context = peer_data.get("context", {})
        builds = {bench_report.parse_name(e.get("run_name") or e.get("name", "")): e.get("build_s")
                  for e in peer_data.get("benchmarks", [])}
    tier1 = {}
    if a.tier1:
        _, t_rows, t_errors = bench_report.load([a.tier1])
        errors += t_errors
        tier1 = {(k[0], k[2], k[3]): r for k, r in t_rows.items() if k[1] == "cupar_jit"}
        tier1.update({(k[0] + EXPR_SUFFIX, k[2], k[3]): r for k, r in t_rows.items()
                      if k[1] == EXPR_IMPL})
    table = {}
    for (family, impl, type_, n), row in rows.items():
        if impl in COLUMNS:
            table.setdefault((family, type_, n), {})[impl] = row
    for (family, impl, type_, n), row in rows.items():
        if impl == EXPR_IMPL:
            own = table.setdefault((family + EXPR_SUFFIX, type_, n), {})
            own.update({c: r for c, r in table.get((family, type_, n), {}).items()
                        if not c.startswith("cupar_jit")})
            own["cupar_jit"] = row
    for key, row in tier1.items():
        table.setdefault(key, {})["cupar_jit_tier1"] = row
    subject = "cuda_compute" if a.peer else "cupar_jit_tier1"
    keys = [k for k, v in table.items() if subject in v]
    if not keys:
        sys.exit(f"peer_report: no {subject} rows")
    # Families in the order of the peer's rows (or the benchmark's).
    order = {f: i for i, f in enumerate(dict.fromkeys(k[0] for k in (builds if a.peer else rows)))}
    for f in list(order):  # an expression's row after its family's
        order[f + EXPR_SUFFIX] = order[f] + 0.5
    cols = [c for c in COLUMNS if any(c in table[k] for k in keys)]
    latency = read_latency(a.latency) if a.latency else {}
    extra = ["tier 1 / optimised"] + (
        ["cuda.compute build (s)", "speed vs peer: optimised", "tier 1"] if a.peer else []) + (
        [title for _, _, title, _ in LATENCY] if a.latency else [])
    if a.peer:
        head = (f"Median GPU time of a call (us), {context.get('gpu', '?')}, "
                f"{context.get('date', '?')[:10]}; the peer: {context.get('executable', '?')}.")
    else:
        head = f"Median GPU time of a call (us), {context.get('date', '?')[:10]}."
    lines = [head, "",
             "| family | type | n | " + " | ".join(HEADERS[c] for c in cols) +
             " | " + " | ".join(extra) + " |",
             "|---|---|---|" + "---|" * (len(cols) + len(extra))]
    for key in sorted(keys, key=lambda k: (order.get(k[0], len(order)), k[0], k[2] or 0)):
        family, type_, n = key
        r = table[key]
        t = {c: r[c].time_us if c in r else None for c in cols}
        size = f"2^{n.bit_length() - 1}" if n and n & (n - 1) == 0 else str(n)
        cells = [fmt_us(t[c]) for c in cols]
        cells.append(fmt_ratio(t.get("cupar_jit_tier1"), t.get("cupar_jit")))
        if a.peer:
            build = builds.get((family, "cuda_compute", type_, n))
            # make_* is cached in the process: a second size reuses the first one's build.
            cells.append("-" if build is None else (f"{build:.2f}" if build >= 0.01 else "(cached)"))
            cells.append(fmt_ratio(t.get("cupar_jit"), t.get("cuda_compute")))
            cells.append(fmt_ratio(t.get("cupar_jit_tier1"), t.get("cuda_compute")))
        if a.latency:
            measured = latency.get((family, type_), {})
            cells += [fmt_latency(measured.get((m, f)), scale) for m, f, _, scale in LATENCY]
        lines.append(f"| {family} | {type_} | {size} | " + " | ".join(cells) + " |")
    for e in errors:
        lines.append(f"\nError in {e.family}/{e.impl}/{e.type}/{e.n}: {e.error}")
    text = "\n".join(lines) + "\n"
    if a.out:
        with open(a.out, "w", encoding="utf-8") as f:
            f.write(text)
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
