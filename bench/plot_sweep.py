#!/usr/bin/python3
"""Plots a seq_len sweep: time and memory against seq_len, per variant and PyTorch.

Inputs: the Google Benchmark JSON of bench/sdpa_bench (--benchmark_out=FILE
--benchmark_out_format=json, or --benchmark_format=json on stdout) and,
optionally, the JSON of bench/torch_peer.py over the same seq values.
Output: one PNG (matplotlib, Agg backend) with log-log panels:
  row "no mask" and row "causal upper-left" (L = S = seq):
      time per call (ms) | memory besides inputs and output (bytes)
  row "decode" (L = 1, S = seq, causal lower-right): time | memory, with the
      plain read of K and V (read_kv) as the floor.
Time is the wall time per call (--time cpu: process CPU time, steadier on a
shared machine): Google Benchmark's median aggregate when the sweep ran with
--benchmark_repetitions, else its mean over one run's iterations; PyTorch's
median. Memory is scratch_bytes for attnrt (the arena bytes SdpaScratchBytes plans) and
the peak bytes PyTorch's allocator holds besides the output for PyTorch.
"""
import argparse
import collections
import json
import sys

import os

import matplotlib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "tools", "python"))
from command_json import last_line_json  # noqa: E402
from machine_info import cpu_model  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROWS = [("none", "no mask, L = S"), ("causal", "causal upper-left, L = S"),
        ("decode", "decode L = 1, causal lower-right (x: S)")]
TORCH_RULE = {"none": "none", "causal": "upper-left"}


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gbench", required=True, help="Google Benchmark JSON of sdpa_bench")
    ap.add_argument("--torch", help="torch_peer.py JSON over the same seq values")
    ap.add_argument("--out", required=True, help="PNG to write")
    ap.add_argument("--cpu", help="CPU named in the title (default: this machine's)")
    ap.add_argument("--time", choices=["real", "cpu"], default="real",
                    help="wall time (default) or process CPU time, which other load on a "
                         "shared machine disturbs less")
    return ap.parse_args()


def load_json(path):
    """A JSON file, or captured output whose last line is the JSON object."""
    with open(path) as f:
        text = f.read()
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return last_line_json(text)


def gbench_entries(benchmarks):
    """The per-shape entries to plot: the median aggregates when the run had
    --benchmark_repetitions, else the plain iteration entries (their time is the
    mean over the iterations of one run)."""
    ok = [b for b in benchmarks if not b.get("error_occurred")]
    medians = [b for b in ok if b.get("run_type") == "aggregate" and b.get("aggregate_name") == "median"]
    return medians or [b for b in ok if b.get("run_type", "iteration") == "iteration"]


def load_gbench(path, time_key):
    """{row: {label: [(seq, ms, scratch_bytes)]}}."""
    data = load_json(path)
    series = collections.defaultdict(lambda: collections.defaultdict(list))
    for b in gbench_entries(data["benchmarks"]):
        parts = b.get("run_name", b["name"]).split("/")
        while parts[-1] in ("real_time", "process_time"):  # added by UseRealTime() etc.
            parts.pop()
        if not parts[-1].isdigit():
            continue
        scale = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}[b.get("time_unit", "ns")]
        point = (int(parts[-1]), b[time_key] * scale, b.get("scratch_bytes", 0))
        if parts[0] == "sdpa":  # sdpa/<variant>/<isa>/<mask>/<seq>
            series[parts[3]][f"{parts[1]} ({parts[2]})"].append(point)
        elif parts[0] == "decode":  # decode/<variant>/<isa>/<S>
            series["decode"][f"{parts[1]} ({parts[2]})"].append(point)
        elif parts[0] == "read_kv":
            series["decode"]["plain read of K+V"].append(point)
    return series


def load_torch(path, time_key):
    """{row: [(seq, ms, intermediate_bytes)]} for the square rows."""
    data = load_json(path)
    out = collections.defaultdict(list)
    for r in data["runs"]:
        for row, rule in TORCH_RULE.items():
            if r["causal"] == rule and r["seq"] == r["seq_kv"]:
                ms = r["median_ms"] if time_key == "real_time" else r.get("cpu_ms", 0)
                out[row].append((r["seq"], ms, r.get("intermediate_bytes") or 0))
    return out, data.get("threads", 1)


# Distinct markers and dashes: several variants overlap almost exactly (the same scratch
# bytes, times within a few percent), and only shape tells them apart there.
MARKERS = "oDv^s<>pPX*h"
DASHES = ["-", "--", "-.", ":"]


def draw_line(ax, points, column, label, style, color):
    points = sorted(p for p in points if p[column] > 0)
    if points:
        ax.plot([p[0] for p in points], [p[column] for p in points], style, label=label,
                color=color, markersize=5, markerfacecolor="none", linewidth=1.2)


def main():
    args = parse_args()
    time_key = f"{args.time}_time"
    series = load_gbench(args.gbench, time_key)
    torch_series, torch_threads = load_torch(args.torch, time_key) if args.torch else ({}, 1)
    # One color per variant across all panels.
    labels = sorted({label for row in series.values() for label in row})
    palette = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    color = {label: palette[i % len(palette)] for i, label in enumerate(labels)}
    style = {label: MARKERS[i % len(MARKERS)] + DASHES[i % len(DASHES)]
             for i, label in enumerate(labels)}
    rows = [r for r in ROWS if series.get(r[0])]
    if not rows:
        sys.exit(f"plot_sweep: no sdpa/decode benchmarks in {args.gbench}")
    fig, axes = plt.subplots(len(rows), 2, figsize=(15, 4.2 * len(rows)), squeeze=False)
    for (key, title), (ax_time, ax_mem) in zip(rows, axes):
        for label, points in sorted(series[key].items()):
            draw_line(ax_time, points, 1, label, style[label], color[label])
            draw_line(ax_mem, points, 2, label, style[label], color[label])
        if key in torch_series:
            label = f"PyTorch eager ({torch_threads} thread)"
            draw_line(ax_time, torch_series[key], 1, label, "s--", "black")
            draw_line(ax_mem, torch_series[key], 2, label, "s--", "black")
        ax_time.set_title(f"time: {title}")
        ax_time.set_ylabel(f"ms per call ({'wall' if args.time == 'real' else 'CPU'} time)")
        ax_mem.set_title(f"memory: {title}")
        ax_mem.set_ylabel("scratch bytes (PyTorch: temporaries)")
        for ax in (ax_time, ax_mem):
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.set_xlabel("seq_len")
            ax.grid(True, which="both", alpha=0.3)
        handles, names = ax_time.get_legend_handles_labels()
        if handles:  # one legend per row, outside the axes, right of the memory panel
            ax_mem.legend(handles, names, fontsize=8, loc="upper left",
                          bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0)
    fig.suptitle(f"attnrt SDPA sweep on {args.cpu or cpu_model()}: B=1, H=8, E=Ev=64, fp32")
    fig.tight_layout()
    fig.savefig(args.out, dpi=110, bbox_inches="tight")
    print(f"plot_sweep: wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
