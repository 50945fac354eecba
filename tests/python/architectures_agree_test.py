#!/usr/bin/python3
"""The Python side of export against the runtime's architecture records.

The runtime lists what it knows with `attnrt architectures --json` (read from the C++ records,
models/src/arch_*.cc). tools/python/torch_modules.py keeps the PyTorch constructor signatures
(its own defaults, so the exporter runs where no attnrt is built). This test fails when the two
disagree:
  - the architecture names, in order;
  - per architecture the config keys, their types, which of them are required, and which are
    accepted only at their default ("fixed");
  - the keys export_torch.py writes into config.json and the tensor names it writes into
    model.safetensors (a tiny module of every architecture), against the runtime's keys and
    its tensor name patterns.
It also plants a difference and checks that it is reported, so the check itself cannot go blind.

Usage: architectures_agree_test.py --attnrt PATH. Exits 77 (CTest skip) without torch."""
import argparse
import copy
import json
import os
import re
import subprocess
import sys
import tempfile

from script_setup import ROOT, import_tools_python, skip_without_modules

with skip_without_modules():
    import numpy  # noqa: F401
    import torch  # noqa: F401

from failure_report import report  # noqa: E402
import_tools_python()
import export_torch  # noqa: E402

tm = export_torch.tm

# Where the PyTorch side knowingly differs, and why.
KNOWN_EXTRA_RUNTIME_KEYS = {
    # Seed 003's module has no causal option; the runtime's record accepts is_causal anyway.
    "self-attention": {"is_causal"},
}

# Defaults the PyTorch side keeps on purpose. The first three predate the records (see
# torch_modules' docstring); llama's None means "derived" there: n_kv_heads = n_heads, and
# multiple_of is unused because hidden_dim is required.
KNOWN_DEFAULT_DIFFERENCES = {("mha", "batch_first"), ("encoder-layer", "batch_first"),
                             ("encoder-layer", "dropout"), ("llama", "n_kv_heads"),
                             ("llama", "multiple_of")}

# The smallest module of every architecture, for the export check.
TINY_CONFIGS = {
    "mha": {"embed_dim": 8, "num_heads": 2},
    "encoder-layer": {"d_model": 8, "nhead": 2, "dim_feedforward": 12},
    "self-attention": {"d_model": 8, "d_k": 4, "d_v": 6},
    "single-head": {"embedding_dim": 8, "attention_dim": 4},
    "encoder": {"d_model": 8, "nhead": 2, "dim_feedforward": 12, "num_layers": 2,
                "final_norm": True},
    "vit": {"image_size": 8, "patch_size": 4, "num_layers": 1, "num_heads": 2, "hidden_dim": 8,
            "mlp_dim": 12, "num_classes": 3},
    "llama": {"dim": 8, "n_layers": 2, "n_heads": 2, "vocab_size": 16, "hidden_dim": 12,
              "max_seq_len": 8},
}


def runtime_architectures(attnrt):
    """name -> record, in the runtime's order, from `attnrt architectures --json`."""
    proc = subprocess.run([attnrt, "architectures", "--json"], capture_output=True, text=True,
                          check=True)
    return {a["name"]: a for a in json.loads(proc.stdout)}


def same_default(key, python):
    """Whether a runtime key's default is python's (None there: no default or "same as")."""
    if key["required"] or python is tm.REQUIRED:
        return True  # no default to compare; the required check reports a mismatch
    if python is None:
        return key["default"] is None
    return key["default"] == python


def key_differences(runtime):
    """Every disagreement between the runtime's records and torch_modules.CONFIG_KEYS."""
    found = []
    if tuple(runtime) != tuple(tm.ARCHITECTURES):
        found.append(f"architectures: runtime {list(runtime)}, python {list(tm.ARCHITECTURES)}")
    for arch in set(runtime) & set(tm.CONFIG_KEYS):
        keys = {k["name"]: k for k in runtime[arch]["config_keys"]}
        python = tm.CONFIG_KEYS[arch]
        extra = set(keys) - set(python) - KNOWN_EXTRA_RUNTIME_KEYS.get(arch, set())
        if extra or set(python) - set(keys):
            found.append(f"{arch}: keys only in the runtime {sorted(extra)}, "
                         f"only in python {sorted(set(python) - set(keys))}")
        for name in set(keys) & set(python):
            if keys[name]["required"] != (python[name] is tm.REQUIRED):
                found.append(f"{arch}.{name}: required {keys[name]['required']} in the runtime")
            if keys[name]["fixed"] != (name in tm.FIXED_KEYS):
                found.append(f"{arch}.{name}: fixed {keys[name]['fixed']} in the runtime")
            if (arch, name) not in KNOWN_DEFAULT_DIFFERENCES and \
                    not same_default(keys[name], python[name]):
                found.append(f"{arch}.{name}: default {keys[name]['default']!r} in the runtime, "
                             f"{python[name]!r} in python")
            if keys[name]["type"] != tm.key_type(name):
                found.append(f"{arch}.{name}: type {keys[name]['type']} in the runtime, "
                             f"{tm.key_type(name)} in python")
    return found


def name_pattern(record):
    """A regex matching every tensor name the runtime's record can produce."""
    prefix = re.escape(record["layer_prefix"]).replace(r"\{i\}", r"\d+")
    names = [prefix + re.escape(t["name"]) for t in record["layer_tensors"]]
    names += [re.escape(t["name"]) for t in record["model_tensors"]]
    return re.compile("|".join(names))


def export_differences(runtime, work):
    """Keys and tensor names export_torch.py writes that the runtime does not know."""
    found = []
    for arch, config in TINY_CONFIGS.items():
        if arch not in runtime:
            continue  # reported by key_differences
        out_dir = os.path.join(work, arch)
        export_torch.export_model(arch, config, out_dir, seed=0, init="torch")
        with open(os.path.join(out_dir, "config.json"), encoding="utf-8") as f:
            written = json.load(f)
        keys = {k["name"] for k in runtime[arch]["config_keys"]}
        unknown = sorted(set(written) - keys - {"architecture"})
        if unknown or written.get("architecture") != arch:
            found.append(f"{arch}: config.json has keys the runtime does not read: {unknown}")
        with open(os.path.join(out_dir, "model.safetensors"), "rb") as f:
            size = int.from_bytes(f.read(8), "little")
            tensors = set(json.loads(f.read(size))) - {"__metadata__"}
        pattern = name_pattern(runtime[arch])
        stray = sorted(n for n in tensors if not pattern.fullmatch(n))
        if stray:
            found.append(f"{arch}: tensors outside the runtime's patterns: {stray}")
    return found


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--attnrt", required=True)
    args = ap.parse_args()
    runtime = runtime_architectures(args.attnrt)
    failures = key_differences(runtime)
    planted = copy.deepcopy(runtime)
    planted["mha"]["config_keys"].pop()
    if not key_differences(planted):
        failures.append("a key dropped from the runtime's mha record went unnoticed")
    missing = set(runtime) - set(TINY_CONFIGS)
    if missing:
        failures.append(f"no tiny config for {sorted(missing)}: add one to TINY_CONFIGS")
    with tempfile.TemporaryDirectory(prefix="attnrt_arch_") as work:
        failures += export_differences(runtime, work)
    return report(failures, f"{len(runtime)} architectures compared; {len(failures)} difference(s)")


if __name__ == "__main__":
    sys.exit(main())
