#!/usr/bin/python3
"""Speed report: attnrt against PyTorch eager on the speed targets, in one run.

For each target row it runs `attnrt bench sdpa ... --json` and, right after, the
PyTorch peer (bench/torch_peer.py) on the same shape and thread count, measures
the machine's fp32 FMA peak with `attnrt bench peak --json`, and prints a
markdown table: case, kernel, ISA, threads, ours ms, PyTorch ms, ratio
(PyTorch time / ours), GFLOP/s, % of peak, target, met?. Every number is also
written as JSON (--json-out).

GFLOP/s counts 2*B*H*(visible query-key pairs)*(E+Ev) flops: 4*B*H*L*S*E here
(E = Ev = 64) without a causal rule, about half of that for the causal row
(`attnrt bench sdpa`'s gflops; gflops_dense counts every pair). % of peak = GFLOP/s / (measured one-core FMA peak x
threads); the peak is one core's, measured over CPU time before and after the
rows (the higher counts). Each row also shows the ratio and % of peak by process
CPU time (cpu_ms), which other load on a shared machine disturbs less; targets
are judged on wall time. Rows (B=1, H=8, E=Ev=64):
  L=S=1024, no mask, 1 thread      >= 3x PyTorch and >= 50% of peak
  L=S=1024, causal upper-left      >= 5x PyTorch (PyTorch with masked_fill)
  L=S=2048, 1 and 2 threads        2 threads >= 1.8x the 1-thread speed
  L=1, S=8192, causal lower-right  <= 1.3x the plain read of K and V (read_ms)
  flash scratch                    the same bytes per worker for every L, S
Timings on a loaded machine are noisy; the load average is printed with them.
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tools", "python"))
from command_json import CommandJsonError, run_json  # noqa: E402
from machine_info import cpu_model, load_average as loadavg  # noqa: E402
from output_files import clashing_paths, write_text_atomically  # noqa: E402

# id, L, S, causal, threads, target text. The checks are in judge().
CASES = [
    ("dense-1024", 1024, 1024, "none", 1, ">= 3x PyTorch, >= 50% of peak"),
    ("causal-1024", 1024, 1024, "upper-left", 1, ">= 5x PyTorch (masked_fill)"),
    ("dense-2048", 2048, 2048, "none", 1, "(1-thread baseline)"),
    ("dense-2048-2t", 2048, 2048, "none", 2, ">= 1.8x the 1-thread speed"),
    ("decode-8192", 1, 8192, "lower-right", 1, "<= 1.3x plain read of K+V"),
]
# Shapes whose flash scratch must all be equal per worker (L, S).
SCRATCH_SHAPES = [(64, 64), (1024, 1024), (4096, 4096), (1, 8192), (64, 8192)]


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--attnrt", default=os.path.join(ROOT, "build", "release", "bin", "attnrt"))
    ap.add_argument("--kernel", default="auto", help="kernel for the speed rows")
    ap.add_argument("--flash-kernel", default=None,
                    help="kernel for the scratch row (default: the listed name containing 'flash')")
    ap.add_argument("--seconds", type=float, default=1.0, help="timing budget per measurement")
    ap.add_argument("--only", nargs="*", help="case ids to run (default all)")
    ap.add_argument("--json-out", help="write every number here")
    ap.add_argument("--markdown-out", help="write the table here too")
    return ap.parse_args()


def last_json(cmd):
    """Runs cmd; returns the JSON object on its last stdout line (echoing the rest).

    attnrt's --json prints only the JSON on stdout and its summary on stderr
    (echoed here); torch_peer.py prints prose lines before its JSON line."""
    result, proc = run_json(cmd)
    lines = proc.stdout.strip().splitlines()
    for line in proc.stderr.strip().splitlines() + lines[:-1]:
        print("  " + line[:300], flush=True)
    return result


def ours(args, L, S, causal, threads, kernel, extra=()):
    return last_json([args.attnrt, "bench", "sdpa", "--batch", "1", "--heads", "8",
                      "--seq", str(L), "--seq-kv", str(S), "--dim", "64", "--causal", causal,
                      "--kernel", kernel, "--threads", str(threads),
                      "--seconds", str(args.seconds), "--json", *extra])


def torch_peer(args, L, S, causal, threads):
    result = last_json([sys.executable, os.path.join(HERE, "torch_peer.py"), "--seq", str(L),
                        "--seq-kv", str(S), "--causal", causal, "--threads", str(threads),
                        "--seconds", str(args.seconds), "--no-memory"])
    return result["runs"][0], result["blas"]


def flash_kernel_name(args):
    if args.flash_kernel:
        return args.flash_kernel
    listing = subprocess.run([args.attnrt, "kernels", "--json"], capture_output=True, text=True,
                             check=True)
    names = [k["name"] for k in json.loads(listing.stdout) if k["available"]]
    flash = [n for n in names if "flash" in n]
    if not flash:
        sys.exit(f"run_speed_report: no flash kernel among {names}")
    return flash[0]


def judge(case_id, row, rows):
    """(met, measured-value text) for a row's target; met is None for rows without one."""
    if case_id == "dense-1024":
        pct = row["pct_peak"]
        return row["ratio"] >= 3 and pct >= 50, f"{row['ratio']:.2f}x, {pct:.0f}% of peak"
    if case_id == "causal-1024":
        return row["ratio"] >= 5, f"{row['ratio']:.2f}x"
    if case_id == "dense-2048-2t" and "dense-2048" in rows:
        speedup = rows["dense-2048"]["ours_ms"] / row["ours_ms"]
        row["speedup_vs_1_thread"] = speedup
        return speedup >= 1.8, f"{speedup:.2f}x of 1 thread"  # wall only: CPU time adds up
    if case_id == "decode-8192":
        cpu_ratio = row["ours_cpu_ms"] / row["read_cpu_ms"]
        return row["read_ratio"] <= 1.3, (f"{row['read_ratio']:.2f}x read of {row['read_ms']:.3f} ms; "
                                          f"CPU {cpu_ratio:.2f}x")
    return None, ""


def fmt(x, spec):
    return "-" if x is None else format(x, spec)


def markdown(report):
    p = report["peak"]
    lines = [
        f"CPU: {report['cpu']}, {os.cpu_count()} hardware threads; load average "
        f"{report['load_before']} before, {report['load_after']} after.",
        f"FMA peak ({p['isa']}, {p['lanes']} lanes): measured {p['measured_gflops']:.1f} "
        f"GFLOP/s per core (best of {len(report['peak_runs'])} measurements: "
        f"{', '.join(format(x['measured_gflops'], '.1f') for x in report['peak_runs'])}); theoretical {p['theoretical_gflops']:.1f} at {p['clock_mhz']:.0f} MHz "
        f"with {p['assumed_fma_units']} FMA units.",
        f"PyTorch build {report['torch_blas']['torch_blas_info']}; BLAS libraries loaded: "
        f"{', '.join(os.path.basename(x) for x in report['torch_blas']['libraries'])}.",
        "",
        "Times are median wall ms; \"CPU\" figures use process CPU time instead (all threads), "
        "which a shared machine disturbs less. Targets are judged on wall time.",
        "",
        "| case | kernel | ISA | threads | ours ms | PyTorch ms | ratio | GFLOP/s | % of peak "
        "| target | met? |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in report["rows"]:
        met = "-" if r["met"] is None else ("yes" if r["met"] else "no")
        if r["measured"]:
            met += f" ({r['measured']})"
        lines.append(
            f"| {r['case']} | {r['kernel']} | {r['isa']} | {r['threads']} | {r['ours_ms']:.3f} | "
            f"{fmt(r['torch_ms'], '.3f')} | {r['ratio']:.2f}x (CPU {r['ratio_cpu']:.2f}x) | "
            f"{r['gflops']:.1f} | {r['pct_peak']:.0f}% (CPU {r['pct_peak_cpu']:.0f}%) | "
            f"{r['target']} | {met} |")
    s = report["scratch"]
    lines.append(
        f"| flash scratch, LxS in {', '.join(s['shapes'])} | {s['kernel']} | | 1 | | | | | | "
        f"same bytes for every L, S | {'yes' if s['met'] else 'no'} "
        f"({', '.join(str(b) for b in sorted(set(s['bytes'].values())))} bytes) |")
    return "\n".join(lines)


def main():
    args = parse_args()
    clash = clashing_paths([args.json_out, args.markdown_out])
    if clash:
        print(f"run_speed_report: {clash}", file=sys.stderr)
        return 2
    if not os.path.exists(args.attnrt):
        sys.exit(f"run_speed_report: no attnrt at {args.attnrt} (build it or pass --attnrt)")
    report = {"cpu": cpu_model(), "load_before": loadavg(), "rows": [],
              "torch_blas": {"torch_blas_info": "not run", "libraries": []}}
    # The peak is measured before and after the rows; other load only lowers a
    # measurement, so the higher one is the reference for "% of peak".
    print("measuring the FMA peak", flush=True)
    peaks = [last_json([args.attnrt, "bench", "peak", "--json"])]

    measured = []
    for case_id, L, S, causal, threads, target in CASES:
        if args.only and case_id not in args.only:
            continue
        print(f"case {case_id}", flush=True)
        o = ours(args, L, S, causal, threads, args.kernel)
        t, report["torch_blas"] = torch_peer(args, L, S, causal, threads)
        measured.append((case_id, L, S, causal, threads, target, o, t))

    flash = flash_kernel_name(args)
    print(f"flash scratch ({flash})", flush=True)
    per_worker = {}
    for L, S in SCRATCH_SHAPES:
        o = ours(args, L, S, "none", 1, flash, ("--repeats", "1", "--warmup", "1"))
        per_worker[f"{L}x{S}"] = o["scratch_bytes"] // o["threads"]
    report["scratch"] = {"kernel": flash, "shapes": list(per_worker), "bytes": per_worker,
                         "met": len(set(per_worker.values())) == 1}

    print("measuring the FMA peak again", flush=True)
    peaks.append(last_json([args.attnrt, "bench", "peak", "--json"]))
    report["peak_runs"] = peaks
    report["peak"] = max(peaks, key=lambda p: p["measured_gflops"])
    report["load_after"] = loadavg()
    peak = report["peak"]["measured_gflops"]

    rows = {}
    for case_id, L, S, causal, threads, target, o, t in measured:
        row = {
            "case": f"L={L} S={S} {causal}", "id": case_id, "kernel": o["kernel"], "isa": o["isa"],
            "threads": threads, "ours_ms": o["median_ms"], "ours_min_ms": o["min_ms"],
            "torch_ms": t["median_ms"], "torch_min_ms": t["min_ms"],
            "ours_cpu_ms": o["cpu_ms"], "torch_cpu_ms": t["cpu_ms"],
            "ratio": t["median_ms"] / o["median_ms"], "ratio_cpu": t["cpu_ms"] / o["cpu_ms"],
            "gflops": o["gflops"],
            "pct_peak_cpu": 100.0 * o["flops"] / (o["cpu_ms"] * 1e6) / peak,
            "gflops_needed": o["gflops_needed"], "pct_peak": 100.0 * o["gflops"] / (peak * threads),
            "scratch_bytes": o["scratch_bytes"], "target": target,
            "read_ms": o.get("read_ms"), "read_ratio": o.get("read_ratio"),
            "read_cpu_ms": o.get("read_cpu_ms"),
        }
        if o["isa"] != report["peak"]["isa"]:
            row["note"] = f"kernel ISA {o['isa']} differs from the peak's {report['peak']['isa']}"
        row["met"], row["measured"] = judge(case_id, row, rows)
        rows[case_id] = row
        report["rows"].append(row)

    table = markdown(report)
    print()
    print(table)
    if args.markdown_out:
        write_text_atomically(args.markdown_out, table + "\n")
    if args.json_out:
        write_text_atomically(args.json_out, json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except CommandJsonError as e:  # a run failed or printed no JSON: say which, not a traceback
        sys.exit(f"run_speed_report: {e}")
