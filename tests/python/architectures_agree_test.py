#!/usr/bin/python3
"""tools/python against the runtime's architecture records (`attnrt architectures --json`).

tools/python keeps no list of its own: torch_modules.py reads the names, config keys, types,
required and fixed keys and defaults from the runtime (attnrt_architectures.py). This test fails
when:
  - Python does not follow the runtime: through a stand-in attnrt that prints the real list
    with a key added to mha, an encoder default changed and a required key made optional,
    resolve_config must accept and fill in the new key, use the changed defaults, and write
    them, as read (a copy of the keys kept in Python would not);
  - a runtime architecture has no PyTorch side: every one must have a tiny config here, build,
    export, and convert with `attnrt convert` (unless it is in HF_ONLY: imported from Hugging
    Face folders, which hf_parity_test.py checks) (the written config keys and tensor names must
    also be the record's: keys it lists, names its patterns match);
  - a table torch_modules keeps on top of the runtime's (EXPORT_DEFAULTS, TORCH_LACKS, the
    ignored keys, the value choices, the heads checks) names an architecture or key the
    runtime no longer has, or with another type.
The export check is also run against a record with a tensor planted away, which must be reported.

Usage: architectures_agree_test.py --attnrt PATH. Exits 77 (CTest skip) without torch."""
import argparse
import copy
import json
import os
import stat
import subprocess
import sys
import tempfile

from script_setup import import_tools_python, skip_without_modules

with skip_without_modules():
    import numpy  # noqa: F401
    import torch  # noqa: F401

from failure_report import report  # noqa: E402
import_tools_python()
import export_torch  # noqa: E402

tm = export_torch.tm
runtime = tm.runtime

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

# Records with no PyTorch module of their own: they come in as Hugging Face folders, and
# tests/python/hf_parity_test.py converts a folder of each against its float64 reference.
HF_ONLY = {"qwen2", "qwen3", "gemma3", "gpt2"}

# What the stand-in attnrt changes in the real list (see stand_in()).
PLANTED_KEY = {"name": "planted_width", "type": "int", "required": False, "default": 7,
               "fixed": False}
PLANTED_DEFAULT = ("encoder", "dim_feedforward", 99)
PLANTED_OPTIONAL = ("single-head", "attention_dim", 5)

STAND_IN = """#!{python}
import json, subprocess, sys
listed = json.loads(subprocess.run([{real!r}, "architectures", "--json"], check=True,
                                   capture_output=True, text=True).stdout)
by_name = {{a["name"]: a for a in listed}}
by_name["mha"]["config_keys"].append({planted_key!r})
for arch, key, value in ({planted_default!r}, {planted_optional!r}):
    for k in by_name[arch]["config_keys"]:
        if k["name"] == key:
            k["default"], k["required"] = value, False
print(json.dumps(listed))
"""


def stand_in(real, work):
    """An executable that prints the real attnrt's list with the planted changes."""
    path = os.path.join(work, "attnrt-planted")
    with open(path, "w") as f:
        f.write(STAND_IN.format(python=sys.executable, real=real, planted_key=PLANTED_KEY,
                                planted_default=PLANTED_DEFAULT,
                                planted_optional=PLANTED_OPTIONAL))
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
    return path


def follows_the_runtime(real, work):
    """resolve_config and written_config under the stand-in: what does not follow it."""
    found = []
    runtime.use(stand_in(real, work))
    try:
        mha = tm.resolve_config("mha", {"embed_dim": 8, "num_heads": 2})
        if mha.get("planted_width") != 7:
            found.append(f"a key the runtime added to mha is not filled in: {mha}")
        try:
            tm.resolve_config("mha", {"embed_dim": 8, "num_heads": 2, "planted_width": 3})
        except ValueError as e:
            found.append(f"a key the runtime added to mha is refused: {e}")
        if "planted_width" not in tm.written_config("mha", mha):
            found.append("a key the runtime added to mha is not written")
        arch, key, value = PLANTED_DEFAULT
        got = tm.resolve_config(arch, {**TINY_CONFIGS[arch], key: None})[key]  # null: default
        if got != value:
            found.append(f"{arch}.{key}: the runtime's default is {value}, python used {got}")
        arch, key, value = PLANTED_OPTIONAL
        try:
            got = tm.resolve_config(arch, {"embedding_dim": 8})[key]
            if got != value:
                found.append(f"{arch}.{key}: the runtime's default is {value}, python used {got}")
        except ValueError as e:
            found.append(f"{arch}.{key} is optional in the runtime, python says: {e}")
    finally:
        runtime.use(real)
    try:
        tm.resolve_config("mha", {"embed_dim": 8, "num_heads": 2, "planted_width": 3})
        found.append("the real runtime's mha took the planted key: the stand-in leaked")
    except ValueError:
        pass
    return found


def python_tables(records):
    """torch_modules' own tables against the records: architectures and keys that exist, with
    the type each table assumes."""
    found = []

    def check(where, arch, key, types):
        keys = records[arch].keys if arch in records else None
        if keys is None:
            found.append(f"{where}: no architecture {arch!r} in the runtime")
        elif key not in keys:
            found.append(f"{where}: {arch} has no key {key!r} in the runtime")
        elif keys[key].type not in types:
            found.append(f"{where}: {arch}.{key} is a {keys[key].type} in the runtime")

    json_type = {bool: "bool", int: "int", float: "float", str: "string"}
    for arch, defaults in tm.EXPORT_DEFAULTS.items():
        for key, value in defaults.items():
            check("EXPORT_DEFAULTS", arch, key, {json_type[type(value)]})
    for table, name in ((tm.TORCH_LACKS, "TORCH_LACKS"), (tm._IGNORED, "_IGNORED")):
        for arch, keys in table.items():
            for key in keys:
                check(name, arch, key, {"int", "float", "bool", "string"})
    for arch, (width, heads) in tm._HEADS.items():
        check("_HEADS", arch, width, {"int"})
        check("_HEADS", arch, heads, {"int"})
    for key in tm._CHOICES:
        if not any(key in r.keys and r.keys[key].type == "string" for r in records.values()):
            found.append(f"_CHOICES: no architecture has a string key {key!r}")
    for key in tm._PROBABILITIES | tm._EPSILONS:
        if not any(key in r.keys and r.keys[key].type == "float" for r in records.values()):
            found.append(f"_PROBABILITIES / _EPSILONS: no architecture has a float key {key!r}")
    return found


def export_differences(records, work, attnrt=None):
    """Every architecture through export_torch and, with attnrt, `attnrt convert`: config keys
    and tensor names the record does not know, and conversions that fail."""
    found = []
    missing = sorted(set(records) - set(TINY_CONFIGS) - HF_ONLY)
    if missing:
        found.append(f"no tiny config for {missing}: add one to TINY_CONFIGS (or HF_ONLY with "
                     f"a family in hf_parity_test.py)")
    for arch in sorted(HF_ONLY - set(records)):
        found.append(f"HF_ONLY names {arch}, which the runtime does not list")
    for arch, config in TINY_CONFIGS.items():
        if arch not in records:
            found.append(f"TINY_CONFIGS names {arch}, which the runtime does not list")
            continue
        out_dir = os.path.join(work, arch)
        export_torch.export_model(arch, config, out_dir, seed=0, init="torch")
        with open(os.path.join(out_dir, "config.json"), encoding="utf-8") as f:
            written = json.load(f)
        unknown = sorted(set(written) - set(records[arch].keys) - {"architecture"})
        if unknown or written.get("architecture") != arch:
            found.append(f"{arch}: config.json has keys the runtime does not read: {unknown}")
        with open(os.path.join(out_dir, "model.safetensors"), "rb") as f:
            size = int.from_bytes(f.read(8), "little")
            tensors = set(json.loads(f.read(size))) - {"__metadata__"}
        pattern = records[arch].tensor_pattern()
        stray = sorted(n for n in tensors if not pattern.fullmatch(n))
        if stray:
            found.append(f"{arch}: tensors outside the runtime's patterns: {stray}")
        if attnrt is None:
            continue
        proc = subprocess.run([attnrt, "convert", "--config", os.path.join(out_dir, "config.json"),
                               os.path.join(out_dir, "model.safetensors"), "-o",
                               os.path.join(out_dir, "model.attnrt")],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            found.append(f"{arch}: attnrt convert failed on the export: {proc.stderr.strip()}")
    return found


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--attnrt", required=True)
    args = ap.parse_args()
    runtime.use(args.attnrt)
    records = runtime.records()
    failures = python_tables(records)
    with tempfile.TemporaryDirectory(prefix="attnrt_arch_") as work:
        failures += follows_the_runtime(args.attnrt, work)
        failures += export_differences(records, os.path.join(work, "real"), args.attnrt)
        planted = copy.deepcopy(records)
        planted["mha"].layer_tensors.pop()
        if not export_differences(planted, os.path.join(work, "planted")):
            failures.append("a tensor dropped from the runtime's mha record went unnoticed")
    return report(failures, f"{len(records)} architectures compared; "
                            f"{len(failures)} difference(s)")


if __name__ == "__main__":
    sys.exit(main())
