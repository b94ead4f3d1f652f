#!/usr/bin/env python3
"""Self-test of scripts/peer_report.py on synthetic runs whose table is known.

select_if u32 at 2^24: cupar_jit 50 us optimised and 100 us in tier 1 (0.50x), cub 48 us, the
peer (cuda.compute) 60 us built in 2.5 s (cupar_jit 1.20x faster optimised, 0.60x in tier 1);
reduce_sum f32 at 2^24 without a peer row: its tier-1 ratio only. cupar_jit_latency's lines for
reduce_f32 (the reduce_sum row): a first call of 41.2 ms, optimised ready after 0.61 s, an
optimised build of 512 ms, a burst of 8 in 1.73 s; select_if_u32's first call only, measured in
three processes (38, 97 and 35 ms, optimised ready after 0.7, 0.9 and 0.5 s: the medians 38 ms and
0.70 s); group_by_1k u32_stats at 2^24 (no CUB row: "-") with case group_by_u32_stats's first call
of 60 ms; comment lines and a measure of no case ignored. Exit code 0 on success.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile


def rows(entries, date="2026-11-30T00:00:00+00:00"):
    out = []
    for name, us, extra in entries:
        r = {"name": name + "/manual_time_median", "run_name": name + "/manual_time",
             "run_type": "aggregate", "aggregate_name": "median", "real_time": us,
             "time_unit": "us"}
        r.update(extra)
        out.append(r)
    return {"context": {"date": date, "gpu": "Test GPU", "executable": "peer.py"},
            "benchmarks": out}


def write(path, data):
    with open(path, "w", encoding="utf-8") as f:
        f.write(data if isinstance(data, str) else json.dumps(data))


def cells(text, family, type_, size):
    for line in text.splitlines():
        parts = [c.strip() for c in line.strip().strip("|").split("|")]
        if parts[:3] == [family, type_, size]:
            return parts
    raise AssertionError(f"no row {family} {type_} {size} in:\n{text}")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--script", required=True)
    a = p.parse_args()
    with tempfile.TemporaryDirectory() as d:
        bench, tier1, peer, lat = (os.path.join(d, f) for f in
                                   ("bench.json", "tier1.json", "peer.json", "latency.log"))
        s, r = "select_if/{}/u32/16777216", "reduce_sum/{}/f32/16777216"
        g = "group_by_1k/{}/u32_stats/16777216"
        write(bench, rows([(s.format("cupar_jit"), 50.0, {}), (s.format("cub"), 48.0, {}),
                           (r.format("cupar_jit"), 22.0, {}), (r.format("cub"), 21.0, {}),
                           (g.format("cupar_jit"), 400.0, {})]))
        write(tier1, rows([(s.format("cupar_jit"), 100.0, {}), (r.format("cupar_jit"), 33.0, {}),
                           (g.format("cupar_jit"), 500.0, {})]))
        write(peer, rows([(s.format("cuda_compute"), 60.0, {"build_s": 2.5})]))
        write(lat, "# cupar_jit_latency\n"
              "result case=reduce_f32 measure=first_call mode=tiered seconds=0.0412 "
              "optimized_ready_seconds=0.61 stored=1\n"
              "result case=reduce_f32 measure=build seconds=0.512 min_seconds=0.4\n"
              "result case=reduce_f32 measure=drain seconds=1.73 calls_seconds=0.3\n"
              "result case=select_if_u32 measure=first_call seconds=0.038 "
              "optimized_ready_seconds=0.7\n"
              "result case=select_if_u32 measure=first_call seconds=0.097 "
              "optimized_ready_seconds=0.9\n"
              "result case=select_if_u32 measure=first_call seconds=0.035 "
              "optimized_ready_seconds=0.5\n"
              "result case=group_by_u32_stats measure=first_call seconds=0.060 "
              "optimized_ready_seconds=1.2\n"
              "result measure=first_call seconds=9\n")
        run = lambda *args: subprocess.run([sys.executable, a.script, "--bench", bench, *args],
                                           check=True, capture_output=True, text=True).stdout
        with_peer = run("--tier1", tier1, "--peer", peer)
        c = cells(with_peer, "select_if", "u32", "2^24")
        # tier 1, optimised, CUB, peer; tier 1 / optimised; build; speed vs peer (optimised, tier 1)
        assert c[3:] == ["100.0", "50.0", "48.0", "60.0", "0.50x", "2.50", "1.20x", "0.60x"], c
        assert "Test GPU" in with_peer.splitlines()[0], with_peer
        tiers = run("--tier1", tier1, "--latency", lat)
        c = cells(tiers, "reduce_sum", "f32", "2^24")
        assert c[3:] == ["33.0", "22.0", "21.0", "0.67x", "41.2", "0.61", "512", "1.7"], c
        c = cells(tiers, "select_if", "u32", "2^24")
        assert c[3:] == ["100.0", "50.0", "48.0", "0.50x", "38.0", "0.70", "-", "-"], c
        c = cells(tiers, "group_by_1k", "u32_stats", "2^24")
        assert c[3:] == ["500.0", "400.0", "-", "0.80x", "60.0", "1.2", "-", "-"], c
    print("peer_report_selftest: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
