#!/usr/bin/python3
"""Draws an attention-weight matrix as a PNG with axes, labels and a colour bar.

`attnrt demo --png` calls it with the (queries, keys) matrix of one head as a float32 .npy.
Rows are scaled to their own maximum, as the terminal heatmap shows them, so every query's
most attended key is full colour. The PNG is written beside the target and renamed over it,
so a failure leaves an existing file as it was.
Usage: plot_heatmap.py WEIGHTS.npy OUT.png [--title TEXT]
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from output_files import clashing_paths, write_atomically  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("weights")
    ap.add_argument("out")
    ap.add_argument("--title", default="attention weights")
    args = ap.parse_args()
    clash = clashing_paths([args.out], [args.weights])
    if clash:
        print(f"plot_heatmap: {clash}", file=sys.stderr)
        return 2
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import numpy as np
    except ImportError as e:
        print(f"plot_heatmap: {e} (install python3-matplotlib and python3-numpy)", file=sys.stderr)
        return 3
    try:
        w = np.load(args.weights)
    except (OSError, ValueError) as e:
        print(f"plot_heatmap: cannot read {args.weights}: {e}", file=sys.stderr)
        return 2
    if w.ndim != 2:
        print(f"plot_heatmap: {args.weights}: expected a 2-D matrix, got shape {w.shape}",
              file=sys.stderr)
        return 2
    row_max = w.max(axis=1, keepdims=True)
    scaled = np.divide(w, row_max, out=np.zeros_like(w), where=row_max > 0)
    fig, ax = plt.subplots(figsize=(6.4, 5.4), dpi=100)
    image = ax.imshow(scaled, cmap="magma", vmin=0.0, vmax=1.0, interpolation="nearest")
    ax.set_xlabel("key position j")
    ax.set_ylabel("query position i")
    ax.set_title(args.title, fontsize=10)
    bar = fig.colorbar(image, ax=ax)
    bar.set_label("weight / its row's maximum")
    fig.tight_layout()
    try:
        write_atomically(args.out, lambda f: fig.savefig(f, format="png"))
    except OSError as e:
        print(f"plot_heatmap: cannot write {args.out}: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
