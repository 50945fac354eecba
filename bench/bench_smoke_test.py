#!/usr/bin/python3
"""CTest smoke test of the benchmark tools (seconds; never asserts on speed).

Checks that `attnrt bench sdpa --json` and `attnrt bench peak --json` print only
JSON on stdout (an object with every key the report scripts read; a list of them
for a --seq sweep) and their summary on stderr; that the numbers agree with the
shape (flop counts recomputed here from B, H, L, S, E, Ev: gflops counts the
causal visible pairs, gflops_dense every pair; min <= median; stddev >= 0;
read_ms only for L = 1); that the default output is a table with one row per
--seq value; that a bad kernel name fails; and that a tiny sdpa_bench sweep runs
every registered benchmark without an error.
"""
import argparse
import json
import subprocess
import sys

SDPA_KEYS = {"median_ms", "min_ms", "gflops", "gflops_needed", "kernel", "isa", "threads",
             "scratch_bytes", "batch", "heads", "seq", "seq_kv", "dim", "dim_v", "causal",
             "flops", "flops_needed", "runs", "cpu_ms", "stddev_ms", "flops_dense",
             "gflops_dense"}
DECODE_KEYS = {"read_ms", "read_ratio", "read_bytes", "read_cpu_ms"}
PEAK_KEYS = {"isa", "lanes", "measured_gflops", "clock_mhz", "theoretical_gflops",
             "assumed_fma_units", "fma_per_cycle"}

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print(f"FAIL: {what}")


def only_json(cmd):
    """stdout of cmd parsed as one JSON document; the summary is on stderr."""
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} exited {proc.returncode}: {proc.stderr}")
    check(proc.stderr.strip() != "", f"{cmd}: a summary on stderr")
    try:
        return json.loads(proc.stdout)
    except ValueError as e:
        raise SystemExit(f"{' '.join(cmd)}: stdout is not only JSON ({e}): {proc.stdout[:300]!r}")


def visible_pairs(L, S, causal):
    offset = {"none": None, "upper-left": 0, "lower-right": S - L}[causal]
    if offset is None:
        return L * S
    return sum(min(S, max(0, i + offset + 1)) for i in range(L))


def check_sdpa(attnrt, B, H, L, S, E, Ev, causal, kernel="auto"):
    cmd = [attnrt, "bench", "sdpa", "--batch", str(B), "--heads", str(H), "--seq", str(L),
           "--seq-kv", str(S), "--dim", str(E), "--dim-v", str(Ev), "--causal", causal,
           "--kernel", kernel, "--repeats", "5", "--threads", "1", "--json"]
    j = only_json(cmd)
    name = " ".join(cmd[2:])
    check(SDPA_KEYS <= j.keys(), f"{name}: missing keys {SDPA_KEYS - j.keys()}")
    if L == 1:
        check(DECODE_KEYS <= j.keys(), f"{name}: missing decode keys {DECODE_KEYS - j.keys()}")
        check(j.get("read_bytes") == 4 * B * H * S * (E + Ev), f"{name}: read_bytes is K+V bytes")
    else:
        check(not DECODE_KEYS & j.keys(), f"{name}: read_ms only for L = 1")
    shape = (j.get("batch"), j.get("heads"), j.get("seq"), j.get("seq_kv"), j.get("dim"),
             j.get("dim_v"), j.get("causal"))
    check(shape == (B, H, L, S, E, Ev, causal), f"{name}: shape echoed as {shape}")
    dense = 2.0 * B * H * L * S * (E + Ev)
    needed = 2.0 * B * H * visible_pairs(L, S, causal) * (E + Ev)
    check(j.get("flops_dense") == dense, f"{name}: dense flops {j.get('flops_dense')} != {dense}")
    check(j.get("flops") == needed, f"{name}: flops {j.get('flops')} != needed {needed}")
    check(j.get("flops_needed") == needed, f"{name}: needed flops {j.get('flops_needed')} != {needed}")
    ms = j.get("median_ms", 0)
    check(0 < j.get("min_ms", 0) <= ms, f"{name}: 0 < min_ms <= median_ms")
    check(j.get("stddev_ms", -1) >= 0, f"{name}: stddev_ms >= 0")
    check(abs(j.get("gflops", 0) - needed / (ms * 1e6)) <= 1e-6 * needed / (ms * 1e6),
          f"{name}: gflops = needed flops / median")
    check(abs(j.get("gflops_dense", 0) - dense / (ms * 1e6)) <= 1e-6 * dense / (ms * 1e6),
          f"{name}: gflops_dense = dense flops / median")
    check(j.get("runs") == 5, f"{name}: --repeats 5 gives 5 runs")
    check(j.get("threads") == 1, f"{name}: --threads 1 reported")
    check(j.get("scratch_bytes", -1) >= 0 and isinstance(j.get("scratch_bytes"), int),
          f"{name}: integer scratch_bytes")
    return j


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--attnrt", required=True)
    ap.add_argument("--sdpa-bench", required=True)
    args = ap.parse_args()

    listing = subprocess.run([args.attnrt, "kernels", "--json"], capture_output=True, text=True,
                             check=True)
    kernels = [k["name"] for k in json.loads(listing.stdout) if k["available"]]
    for kernel in kernels:
        j = check_sdpa(args.attnrt, 1, 2, 17, 33, 8, 12, "upper-left", kernel)
        check(j.get("kernel") == kernel, f"--kernel {kernel} reported as {j.get('kernel')}")
    check_sdpa(args.attnrt, 2, 2, 16, 16, 16, 16, "none")
    check_sdpa(args.attnrt, 1, 4, 1, 300, 16, 16, "lower-right")

    # A sweep: a list of objects with --json, a table with one row per L by default.
    sweep = only_json([args.attnrt, "bench", "sdpa", "--heads", "2", "--seq", "8,16,32", "--dim", "8",
                       "--repeats", "3", "--threads", "1", "--causal", "upper-left", "--json"])
    check(isinstance(sweep, list) and [r.get("seq") for r in sweep] == [8, 16, 32],
          f"--seq 8,16,32 --json gives one object per L, got {sweep!r:.200}")
    table = subprocess.run([args.attnrt, "bench", "sdpa", "--heads", "2", "--seq", "8,16", "--dim", "8",
                            "--repeats", "3", "--threads", "1"], capture_output=True, text=True,
                           timeout=60)
    rows = [line.split() for line in table.stdout.splitlines()]
    check(table.returncode == 0 and any(r[:2] == ["8", "8"] for r in rows)
          and any(r[:2] == ["16", "16"] for r in rows) and "stddev" in table.stdout
          and "runs" in table.stdout, f"bench sdpa table has a row per L: {table.stdout!r:.400}")
    # --seconds caps the timed runs even when --repeats asks for more.
    capped = only_json([args.attnrt, "bench", "sdpa", "--heads", "1", "--seq", "64", "--dim", "8",
                        "--repeats", "1000000", "--seconds", "0.05", "--threads", "1", "--json"])
    check(1 <= capped.get("runs", 0) < 1000000 and capped.get("capped_by_seconds") is True,
          f"--seconds 0.05 caps --repeats 1000000: {capped.get('runs')} runs")

    bad = subprocess.run([args.attnrt, "bench", "sdpa", "--seq", "4", "--kernel", "no-such-kernel"],
                         capture_output=True, text=True)
    check(bad.returncode != 0 and "no-such-kernel" in bad.stderr, "unknown kernel fails with its name")

    peak = only_json([args.attnrt, "bench", "peak", "--seconds", "0.02", "--trials", "2", "--json"])
    check(PEAK_KEYS <= peak.keys(), f"bench peak: missing keys {PEAK_KEYS - peak.keys()}")
    check(peak.get("measured_gflops", 0) > 0 and peak.get("lanes", 0) >= 1, "bench peak: positive")

    proc = subprocess.run([args.sdpa_bench, "--attnrt_max_seq=128", "--benchmark_min_time=0.001",
                           "--benchmark_format=json"], capture_output=True, text=True, timeout=150)
    check(proc.returncode == 0, f"sdpa_bench exited {proc.returncode}: {proc.stderr[-500:]}")
    if proc.returncode == 0:
        runs = json.loads(proc.stdout)["benchmarks"]
        errors = [b["name"] for b in runs if b.get("error_occurred")]
        check(not errors, f"sdpa_bench errors in {errors}")
        names = {b["name"] for b in runs}
        for kernel in kernels:
            for family in ("sdpa", "decode"):
                check(any(n.startswith(f"{family}/{kernel}/") for n in names),
                      f"sdpa_bench has {family} runs for {kernel}")
        check(any(n.startswith("read_kv/") for n in names), "sdpa_bench has read_kv runs")
        check(any(n.endswith("_BigO") for n in names), "sdpa_bench fits complexity")
        gflops = [b for b in runs if b.get("run_type") == "iteration" and "GFLOPs" in b]
        check(gflops and all("scratch_bytes" in b for b in gflops), "GFLOPs and scratch counters")

    print(f"bench_smoke: {len(failures)} failure(s)" if failures else "bench_smoke: all checks passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
