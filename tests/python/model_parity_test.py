#!/usr/bin/env python3
"""Converted PyTorch modules against PyTorch: for every architecture, several
configs, sizes, masks and causal settings, export a seeded torch module with
tools/export_torch.py (which also writes the module's float64 output for a
random input), convert it with `attnrt convert`, run it with `attnrt run`, and
compare: max|attnrt - torch| <= 1e-4 * max(1, max|torch|).

Usage: model_parity_test.py --attnrt PATH [--threads N]. Exits 77 (CTest skip)
when torch is missing."""
import argparse
import json
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
    import torch  # noqa: F401  (export_torch.py needs it)
except ImportError:
    sys.exit(77)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXPORT = os.path.join(ROOT, "tools", "export_torch.py")
TOLERANCE = 1e-4

# (arch, config, [(batch, seq, mask kind or None, causal)])
CASES = [
    ("mha", {"embed_dim": 16, "num_heads": 2},
     [(2, 7, None, False), (1, 70, "bool", False), (2, 33, "float", True), (1, 1, None, False)]),
    ("mha", {"embed_dim": 24, "num_heads": 3, "bias": False},
     [(2, 65, None, True), (1, 9, "bool", True)]),
    ("mha", {"embed_dim": 64, "num_heads": 8}, [(1, 130, "float", False)]),
    ("encoder-layer", {"d_model": 32, "nhead": 4, "dim_feedforward": 64, "activation": "relu"},
     [(2, 17, None, False), (1, 66, "bool", True)]),
    ("encoder-layer", {"d_model": 24, "nhead": 2, "dim_feedforward": 40, "activation": "gelu",
                       "norm_first": True, "bias": False, "layer_norm_eps": 1e-6},
     [(2, 31, "float", False), (1, 5, None, True)]),
    ("self-attention", {"d_model": 16, "d_k": 8, "d_v": 12}, [(2, 7, None, False), (1, 129, None, False)]),
    ("self-attention", {"d_model": 10}, [(3, 10, None, False)]),
    ("single-head", {"embedding_dim": 16, "attention_dim": 8}, [(2, 7, None, False), (1, 100, None, False)]),
    ("single-head", {"embedding_dim": 12, "attention_dim": 5}, [(1, 64, None, False)]),
]


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True)


def check_case(attnrt, threads, workdir, index, arch, config, batch, seq, mask_kind, causal):
    d = os.path.join(workdir, f"case{index}")
    os.makedirs(d, exist_ok=True)
    cfg = os.path.join(d, "in_config.json")
    with open(cfg, "w") as f:
        json.dump(config, f)
    export = [sys.executable, EXPORT, "--arch", arch, "--config", cfg, "--out-dir", d,
              "--seed", str(index), "--batch", str(batch), "--seq", str(seq),
              "--input-out", os.path.join(d, "x.npy"), "--output-out", os.path.join(d, "y.npy")]
    if mask_kind:
        export += ["--mask-out", os.path.join(d, "m.npy"), "--mask-kind", mask_kind]
    if causal:
        export += ["--causal"]
    p = run(export)
    if p.returncode != 0:
        return None, "export failed: " + p.stderr.strip()
    model = os.path.join(d, "model.attnrt")
    p = run([attnrt, "convert", "--arch", arch, "--config", os.path.join(d, "config.json"),
             os.path.join(d, "model.safetensors"), "-o", model])
    if p.returncode != 0:
        return None, "convert failed: " + p.stderr.strip()
    cmd = [attnrt, "run", model, "--input", os.path.join(d, "x.npy"), "--out",
           os.path.join(d, "out.npy"), "--threads", str(threads)]
    if mask_kind:
        cmd += ["--mask", os.path.join(d, "m.npy")]
    if causal:
        cmd += ["--causal", "upper-left"]
    p = run(cmd)
    if p.returncode != 0:
        return None, "run failed: " + p.stderr.strip()
    got = np.load(os.path.join(d, "out.npy")).astype(np.float64)
    want = np.load(os.path.join(d, "y.npy")).astype(np.float64)
    if got.shape != want.shape:
        return None, f"shape {got.shape} != {want.shape}"
    err = float(np.abs(got - want).max(initial=0.0) / max(1.0, float(np.abs(want).max(initial=0.0))))
    return err, None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--attnrt", required=True)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    passed = failed = 0
    worst = {}
    with tempfile.TemporaryDirectory(prefix="attnrt_models_") as workdir:
        index = 0
        for arch, config, shapes in CASES:
            for batch, seq, mask_kind, causal in shapes:
                index += 1
                err, problem = check_case(args.attnrt, args.threads, workdir, index, arch, config,
                                          batch, seq, mask_kind, causal)
                desc = f"{arch} {json.dumps(config)} batch={batch} seq={seq} mask={mask_kind} causal={causal}"
                if problem is None and err <= TOLERANCE:
                    passed += 1
                    worst[arch] = max(worst.get(arch, 0.0), err)
                else:
                    failed += 1
                    print(f"FAIL {desc}: " + (problem if problem else f"error {err:.3g} > {TOLERANCE}"))
    for arch, err in sorted(worst.items()):
        print(f"largest relative error {arch}: {err:.3g}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
