#!/usr/bin/python3
"""Exports a seeded PyTorch attention module as DIR/model.safetensors + DIR/config.json, the input
of `attnrt convert`, and optionally a random input with the module's float64 output for it.

  export_torch.py --arch {mha,encoder-layer,self-attention,single-head} --config CONFIG.json \\
                  --out-dir DIR [--seed N] [--init {perturbed,torch}]
                  [--input-out X.npy --output-out Y.npy --batch B --seq L
                   [--mask-out M.npy --mask-kind {bool,float}] [--causal] [--weights-out W.npy]]

Needs only torch 1.13 and numpy (Debian's /usr/bin/python3). The modules and the config keys are
defined in tests/python/torch_modules.py (the PyTorch constructor arguments); config.json gets the
resolved config (every default filled in) plus "architecture".

model.safetensors is written by hand: u64 little-endian header length N, N bytes of compact JSON
padded with spaces to a multiple of 8, then the tensors as little-endian F32 in state_dict order,
back to back. Tensor names are the state_dict keys. __metadata__ holds format "pt",
architecture, seed and init.

--init perturbed (default) adds U(-0.2, 0.2) to every 1-D parameter after PyTorch's own
initialisation, because PyTorch starts MultiheadAttention biases at 0 and LayerNorm at (1, 0) and a
converter that dropped them would go unnoticed; --init torch keeps PyTorch's initialisation.

Reference run (all of --input-out, --output-out, --batch, --seq): X is standard normal float32
(batch, seq, dim) from numpy's RandomState(seed); Y is the module's output for X computed in
float64 (the float32 weights widened exactly), saved as float64. Masks are (seq, seq) and follow
attnrt's `run --mask` semantics, those of F.scaled_dot_product_attention: bool True = may attend
(about 70% True, diagonal always True so no row is empty), float = added to the scaled scores
(standard normal, about 25% -inf off the diagonal). Masks apply to mha and encoder-layer only;
--causal (upper-left, key j visible to query i iff j <= i) to those too, and single-head is always
causal. --weights-out saves the attention weights: (batch, heads, seq, seq) per head for mha,
(batch, seq, seq) for self-attention.
"""
import argparse
import importlib.util
import json
import os
import sys

import numpy as np
import torch

_HERE = os.path.dirname(os.path.abspath(__file__))
_MODULES_PATH = os.path.join(_HERE, os.pardir, "tests", "python", "torch_modules.py")


def _load_torch_modules():
    spec = importlib.util.spec_from_file_location("attnrt_torch_modules", _MODULES_PATH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


tm = _load_torch_modules()

def write_safetensors(path, entries, metadata=None):
    """Writes a safetensors file. entries: (name, dtype, shape, raw little-endian bytes) in data
    order, dtype a safetensors name ("F32", "F16", "BF16", ...); metadata: str -> str."""
    header = {}
    if metadata:
        header["__metadata__"] = {str(k): str(v) for k, v in metadata.items()}
    offset = 0
    for name, dtype, shape, data in entries:
        if name in header:
            raise ValueError(f"duplicate tensor name {name!r}")
        header[name] = {"dtype": dtype, "shape": [int(d) for d in shape],
                        "data_offsets": [offset, offset + len(data)]}
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)  # the data buffer starts 8-byte aligned
    with open(path, "wb") as f:
        f.write(len(text).to_bytes(8, "little"))
        f.write(text)
        for _, _, _, data in entries:
            f.write(data)


def state_dict_entries(module):
    """(name, "F32", shape, bytes) for every state_dict tensor, in state_dict order."""
    entries = []
    for name, tensor in module.state_dict().items():
        array = np.ascontiguousarray(tensor.detach().cpu().numpy(), dtype="<f4")
        entries.append((name, "F32", array.shape, array.tobytes()))
    return entries


def random_mask(rng, seq, kind):
    """A (seq, seq) mask in attnrt's semantics; the diagonal always stays visible."""
    diagonal = np.eye(seq, dtype=bool)
    if kind == "bool":
        return (rng.random_sample((seq, seq)) < 0.7) | diagonal
    values = rng.standard_normal((seq, seq)).astype(np.float32)
    blocked = (rng.random_sample((seq, seq)) < 0.25) & ~diagonal
    values[blocked] = -np.inf
    return values


def export_model(arch, config, out_dir, seed, init):
    """Builds, seeds and writes the module; returns (module, resolved config)."""
    resolved = tm.resolve_config(arch, config)
    torch.manual_seed(seed)
    module = tm.build_module(arch, resolved)
    if init == "perturbed":
        tm.perturb_constant_parameters(module, torch.Generator().manual_seed(seed + 1))
    os.makedirs(out_dir, exist_ok=True)
    metadata = {"format": "pt", "architecture": arch, "seed": seed, "init": init}
    write_safetensors(os.path.join(out_dir, "model.safetensors"), state_dict_entries(module), metadata)
    with open(os.path.join(out_dir, "config.json"), "w") as f:
        json.dump({"architecture": arch, **resolved}, f, indent=2)
        f.write("\n")
    return module, resolved


def export_reference(arch, module, resolved, args):
    """Writes the random input, optional mask and float64 output (and weights) for `module`."""
    rng = np.random.RandomState(args.seed)
    dim = tm.model_dim(arch, resolved)
    x = rng.standard_normal((args.batch, args.seq, dim)).astype(np.float32)
    mask = random_mask(rng, args.seq, args.mask_kind) if args.mask_out else None
    module64 = module.double()
    out, weights = tm.forward(arch, module64, torch.from_numpy(x.astype(np.float64)), mask,
                              causal=args.causal and arch != "single-head")
    np.save(args.input_out, x)
    np.save(args.output_out, out.numpy())
    if mask is not None:
        np.save(args.mask_out, mask)
    if args.weights_out:
        np.save(args.weights_out, weights.numpy())


def _reject_duplicate_keys(pairs):
    keys = [k for k, _ in pairs]
    duplicates = sorted({k for k in keys if keys.count(k) > 1})
    if duplicates:
        raise ValueError(f"duplicate key(s) {', '.join(duplicates)}")
    return dict(pairs)


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--arch", required=True, choices=tm.ARCHITECTURES)
    p.add_argument("--config", required=True, help="JSON object of constructor arguments")
    p.add_argument("--out-dir", required=True)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--init", choices=("perturbed", "torch"), default="perturbed")
    p.add_argument("--input-out")
    p.add_argument("--output-out")
    p.add_argument("--batch", type=int)
    p.add_argument("--seq", type=int)
    p.add_argument("--mask-out")
    p.add_argument("--mask-kind", choices=("bool", "float"), default="bool")
    p.add_argument("--causal", action="store_true")
    p.add_argument("--weights-out")
    args = p.parse_args(argv)
    if args.seed < 0:
        p.error("--seed must be non-negative")
    if args.mask_out and not tm.supports_mask(args.arch):
        p.error(f"--mask-out: {args.arch} takes no mask (only mha and encoder-layer do)")
    if args.causal and args.arch == "self-attention":
        p.error("--causal: self-attention (seed 003) has no causal option")
    if args.weights_out and args.arch not in ("mha", "self-attention"):
        p.error(f"--weights-out: {args.arch} does not return attention weights")
    run_flags = (args.input_out, args.output_out, args.batch, args.seq)
    if any(f is not None for f in run_flags) or args.mask_out or args.causal or args.weights_out:
        if any(f is None for f in run_flags):
            p.error("a reference run needs all of --input-out, --output-out, --batch, --seq")
        if args.batch <= 0 or args.seq <= 0:
            p.error("--batch and --seq must be positive")
    return args


def main(argv=None):
    args = parse_args(argv)
    try:
        with open(args.config) as f:
            config = json.load(f, object_pairs_hook=_reject_duplicate_keys)
        if not isinstance(config, dict):
            raise ValueError("top level must be a JSON object")
        module, resolved = export_model(args.arch, config, args.out_dir, args.seed, args.init)
    except (OSError, ValueError) as e:
        print(f"export_torch.py: error: {args.config}: {e}", file=sys.stderr)
        return 1
    if args.input_out is not None:
        export_reference(args.arch, module, resolved, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
