#!/usr/bin/python3
"""Language-model speed report: `attnrt bench lm` beside PyTorch eager, in one run.

At llama2.c's stories15M shape (bench/configs/stories15m.json, random weights, tied
embeddings) it runs, interleaved, `attnrt bench lm --json` and bench/lm_torch_bench.py
(PyTorch eager with a KV cache) at 1 and 2 threads, and prints a markdown table against the
targets of the language-model issue:
  decode, 1 thread, context 256   <= 1.3x read_ms (one vectorized read of the weights and the
                                  KV bytes a step reads, measured in the same attnrt run)
                                  and >= 5x faster than PyTorch
  prefill 256 tokens, 1 thread    >= 50% of the one-core FMA peak (attnrt's flop count:
                                  2 * layer matrix parameters * tokens, the output matrix
                                  once, the causal attention pairs)
  2 threads                       decode >= 1.6x and prefill >= 1.8x the 1-thread speed
Every number goes to --json-out too. Timings on a loaded machine are noisy: the load average is
printed with them, and --rounds > 1 keeps each row's best (lowest) median.

With --dtypes (e.g. f16,q8,q4_0) it instead times the weight types against each other (issue 32):
`attnrt bench lm CONFIG --dtype W --json` for every config of --configs (default stories15M and
SmolLM2-135M's shape, bench/configs/) and type, interleaved round by round at --threads, and
prints decode ms/token (wall and process CPU time), read_ms and prefill ms per type (medians over
rounds) with the ratio of each type's decode CPU time to the first type's taken within each round
(the figure to trust on a shared machine: wall time there includes other processes' turns), and
the CPU, its kernels and the load average.
"""
import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CONFIG = os.path.join(HERE, "configs", "stories15m.json")
sys.path.insert(0, os.path.join(ROOT, "tools", "python"))
from command_json import CommandJsonError, run_json  # noqa: E402
from machine_info import cpu_model, load_average  # noqa: E402
from output_files import clashing_paths, write_text_atomically  # noqa: E402


def median(values):
    values = sorted(values)
    mid = len(values) // 2
    return values[mid] if len(values) % 2 else 0.5 * (values[mid - 1] + values[mid])


def dtype_table(args):
    """Weight types against each other, interleaved; returns the exit code."""
    dtypes = args.dtypes.split(",")
    configs = args.configs.split(",") if args.configs else [
        CONFIG, os.path.join(HERE, "configs", "smollm2_135m.json")]
    runs = {}  # (config, dtype) -> list of per-round JSON results
    loads = []
    for r in range(args.rounds):
        for config in configs:
            for dtype in dtypes:
                print(f"round {r + 1}/{args.rounds}: {os.path.basename(config)} {dtype}",
                      file=sys.stderr)
                loads.append(load_average())
                runs.setdefault((config, dtype), []).append(run_json(
                    [args.attnrt, "bench", "lm", config, "--json", "--dtype", dtype,
                     "--threads", str(args.threads), "--seconds", str(args.seconds),
                     "--prompt-len", str(args.prompt_len), "--gen", "32"])[0])
    lines = [f"CPU: {cpu_model()}; {args.threads} thread(s); load average before each run "
             f"{loads[0]} .. {loads[-1]}; {args.rounds} interleaved round(s); prompt "
             f"{args.prompt_len} tokens, decode 32; medians over rounds, ratios per round", "",
             "| shape | weights | kernel | decode ms/token (wall) | decode CPU ms/token | x "
             f"{dtypes[0]} (CPU, per round) | wall x own read | prefill ms (CPU) |",
             "|---|---|---|---:|---:|---:|---:|---:|"]
    report = {"cpu": cpu_model(), "threads": args.threads, "loads": loads, "results": {}}
    for config in configs:
        base = runs[(config, dtypes[0])]
        for dtype in dtypes:
            got = runs[(config, dtype)]
            cpu = "decode_cpu_ms_per_token"
            ratios = [g[cpu] / b[cpu] for g, b in zip(got, base)]
            decode = median([g["decode_ms_per_token"] for g in got])
            decode_cpu = median([g[cpu] for g in got])
            read = median([g["decode_read_ratio"] for g in got])
            prefill = median([g["prefill_ms"] for g in got])
            prefill_cpu = median([g["prefill_cpu_ms"] for g in got])
            kernel = f"{got[0].get('linear_kernel', '?')} {got[0].get('linear_isa', got[0]['isa'])}"
            lines.append(f"| {os.path.basename(config)} | {dtype} | {kernel} | {decode:.3f} | "
                         f"{decode_cpu:.3f} | {median(ratios):.2f} ({min(ratios):.2f}-"
                         f"{max(ratios):.2f}) | {read:.2f} | {prefill:.1f} ({prefill_cpu:.1f}) |")
            report["results"][f"{os.path.basename(config)}/{dtype}"] = got
    text = "\n".join(lines)
    print(text)
    for path, content in ((args.json_out, json.dumps(report, indent=2)), (args.md_out, text)):
        if path:
            write_text_atomically(path, content + "\n")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--attnrt", default=os.path.join(ROOT, "build", "release", "bin", "attnrt"))
    ap.add_argument("--config", default=CONFIG)
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--rounds", type=int, default=1, help="repeat every measurement, keep the best")
    ap.add_argument("--json-out", default=os.path.join(HERE, "results", "lm_speed_report.json"))
    ap.add_argument("--md-out", default=os.path.join(HERE, "results", "lm_speed_report.md"))
    ap.add_argument("--dtypes", help="compare these weight types instead (comma-separated; the "
                    "first is the ratio's base)")
    ap.add_argument("--configs", help="with --dtypes: comma-separated configs (default stories15M "
                    "and SmolLM2-135M's shape)")
    ap.add_argument("--threads", type=int, default=1, help="with --dtypes: attnrt's threads")
    ap.add_argument("--prompt-len", type=int, default=64, help="with --dtypes: prefill tokens")
    args = ap.parse_args()
    if args.dtypes:
        if args.json_out == ap.get_default("json_out"):
            args.json_out = os.path.join(HERE, "results", "dtype_lm_report.json")
        if args.md_out == ap.get_default("md_out"):
            args.md_out = os.path.join(HERE, "results", "dtype_lm_report.md")
        return dtype_table(args)
    clash = clashing_paths([args.json_out, args.md_out], [args.config])
    if clash:
        print(f"run_lm_report: {clash}", file=sys.stderr)
        return 2

    ours, torch = {}, {}
    for r in range(args.rounds):
        for threads in (1, 2):
            print(f"round {r + 1}/{args.rounds}: {threads} thread(s)", file=sys.stderr)
            common = ["--threads", str(threads), "--seconds", str(args.seconds), "--prompt-len",
                      "256", "--gen", "32"]
            a, _ = run_json([args.attnrt, "bench", "lm", args.config, "--json"] + common)
            t, _ = run_json([sys.executable, os.path.join(HERE, "lm_torch_bench.py"),
                             args.config, "--attnrt", args.attnrt] + common)
            for store, new in ((ours, a), (torch, t)):
                old = store.get(threads)
                if old is None:
                    store[threads] = new
                else:  # keep each phase's best median
                    for key in ("prefill_ms", "decode_ms_per_token"):
                        if new[key] < old[key]:
                            old[key] = new[key]
                            for k in new:
                                if k.startswith(key.split("_")[0]):
                                    old[k] = new[k]
                    if "read_ms" in new and new["read_ms"] < old["read_ms"]:
                        old["read_ms"] = new["read_ms"]

    a1, a2, t1, t2 = ours[1], ours[2], torch[1], torch[2]
    peak = a1["fma_peak_gflops_per_core"]
    flops = a1["prefill_gflops"] * a1["prefill_ms"] * 1e6
    rows = []

    def row(case, value, target, met):
        rows.append({"case": case, "value": value, "target": target, "met": bool(met)})

    read_ratio = a1["decode_ms_per_token"] / a1["read_ms"]
    row("decode 1 thread vs read_ms",
        f"{a1['decode_ms_per_token']:.3f} ms / {a1['read_ms']:.3f} ms = x{read_ratio:.2f}",
        "<= 1.3x", read_ratio <= 1.3)
    speedup = t1["decode_ms_per_token"] / a1["decode_ms_per_token"]
    row("decode 1 thread vs PyTorch",
        f"{a1['decode_ms_per_token']:.3f} ms vs {t1['decode_ms_per_token']:.3f} ms = {speedup:.1f}x",
        ">= 5x", speedup >= 5)
    fraction = flops / (a1["prefill_ms"] * 1e6) / peak
    row("prefill 256 tokens, 1 thread, % of FMA peak",
        f"{a1['prefill_ms']:.2f} ms, {flops / (a1['prefill_ms'] * 1e6):.1f} GFLOP/s of "
        f"{peak:.1f} = {100 * fraction:.0f}% (PyTorch {t1['prefill_ms']:.2f} ms)",
        ">= 50%", fraction >= 0.5)
    d2 = a1["decode_ms_per_token"] / a2["decode_ms_per_token"]
    row("decode 2 threads vs 1", f"{a2['decode_ms_per_token']:.3f} ms = {d2:.2f}x", ">= 1.6x",
        d2 >= 1.6)
    p2 = a1["prefill_ms"] / a2["prefill_ms"]
    row("prefill 2 threads vs 1", f"{a2['prefill_ms']:.2f} ms = {p2:.2f}x", ">= 1.8x", p2 >= 1.8)

    load = load_average()
    header = (f"CPU: {cpu_model()}, kernels {a1['isa']}; shape stories15M (dim 288, 6 layers, "
              f"6 heads, hidden 768, vocab 32000), random weights; load average {load}; "
              f"best of {args.rounds} round(s)")
    lines = [header, "", "| case | measured | target | met |", "|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['case']} | {r['value']} | {r['target']} | {'yes' if r['met'] else 'NO'} |")
    text = "\n".join(lines)
    print(text)
    report = {"cpu": cpu_model(), "load_average": load, "rows": rows,
              "attnrt": {"1": a1, "2": a2}, "pytorch": {"1": t1, "2": t2}}
    for path, content in ((args.json_out, json.dumps(report, indent=2)), (args.md_out, text)):
        if path:
            write_text_atomically(path, content + "\n")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except CommandJsonError as e:  # a run failed or printed no JSON: say which, not a traceback
        sys.exit(f"run_lm_report: {e}")
