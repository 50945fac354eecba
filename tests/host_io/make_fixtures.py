#!/usr/bin/python3
"""Fixtures for host_io_test (run by CMake at build time; needs torch and numpy).

Usage: make_fixtures.py --attnrt PATH OUT_DIR  (PATH: the attnrt whose architectures
export_torch.py reads, `attnrt architectures --json`)

For each architecture in ARCH_CONFIGS, OUT_DIR/<case>/ gets model.safetensors and config.json
from tools/python/export_torch.py's export_model, names.txt (the state_dict keys in order) and
npy/<key>.npy for every state_dict tensor saved straight from the torch module with np.save, so
the C++ test checks export_torch.py's writer and the C++ reader together against torch itself.

OUT_DIR/halfs/ holds halfs.safetensors with an F16 tensor (numpy float16) and a BF16 tensor
(torch.bfloat16), plus f16.npy and bf16.npy: the same values widened to float32 by numpy / torch.
OUT_DIR/stamp is written last.
"""
import importlib.util
import os
import sys

import numpy as np
import torch

_HERE = os.path.dirname(os.path.abspath(__file__))
_EXPORT_PATH = os.path.join(_HERE, os.pardir, os.pardir, "tools", "python", "export_torch.py")

# The small configs host_io_test expects; safetensors_test.cc spells out their names and shapes.
ARCH_CONFIGS = {
    "mha": ("mha", {"embed_dim": 16, "num_heads": 2}),
    "mha_nobias": ("mha", {"embed_dim": 16, "num_heads": 2, "bias": False}),
    "encoder_layer": ("encoder-layer", {"d_model": 16, "nhead": 2, "dim_feedforward": 32}),
    "encoder_layer_nobias": ("encoder-layer", {"d_model": 16, "nhead": 2, "dim_feedforward": 32,
                                               "bias": False}),
    "self_attention": ("self-attention", {"d_model": 16, "d_k": 8, "d_v": 12}),
    "single_head": ("single-head", {"embedding_dim": 16, "attention_dim": 8}),
}


def load_export_torch():
    spec = importlib.util.spec_from_file_location("attnrt_export_torch", _EXPORT_PATH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def write_arch(export, case_dir, arch, config):
    module, _ = export.export_model(arch, config, case_dir, seed=7, init="perturbed")
    npy_dir = os.path.join(case_dir, "npy")
    os.makedirs(npy_dir, exist_ok=True)
    names = []
    for name, tensor in module.state_dict().items():
        np.save(os.path.join(npy_dir, name + ".npy"), tensor.detach().numpy())
        names.append(name)
    with open(os.path.join(case_dir, "names.txt"), "w") as f:
        f.write("\n".join(names) + "\n")


def half_values():
    """Every kind of float16: zeros, subnormals, normals, extremes, infinities, NaN."""
    special = [0.0, -0.0, 2.0 ** -24, -(2.0 ** -24), 2.0 ** -14 - 2.0 ** -24, 2.0 ** -14, 1.0,
               -1.5, 65504.0, -65504.0, np.inf, -np.inf, np.nan, 1.0 / 3.0, 1e-6, 3.14159]
    spread = np.random.RandomState(3).standard_normal(48) * 100.0
    return np.concatenate([special, spread])


def write_halfs(export, out_dir):
    halfs_dir = os.path.join(out_dir, "halfs")
    os.makedirs(halfs_dir, exist_ok=True)
    values = half_values()
    f16 = values.astype("<f2").reshape(4, 16)
    bf16 = torch.from_numpy(np.concatenate([values, [1e38, -3e-39, 1e-40]])).to(torch.bfloat16)
    bf16_bits = bf16.view(torch.int16).numpy().astype("<i2")
    export.write_safetensors(os.path.join(halfs_dir, "halfs.safetensors"), [
        ("f16", "F16", f16.shape, f16.tobytes()),
        ("bf16", "BF16", bf16_bits.shape, bf16_bits.tobytes()),
    ], {"what": "half precision fixture"})
    np.save(os.path.join(halfs_dir, "f16.npy"), f16.astype(np.float32))
    np.save(os.path.join(halfs_dir, "bf16.npy"), bf16.to(torch.float32).numpy())


def main(attnrt, out_dir):
    export = load_export_torch()
    export.tm.runtime.use(attnrt)
    for case, (arch, config) in ARCH_CONFIGS.items():
        write_arch(export, os.path.join(out_dir, case), arch, config)
    write_halfs(export, out_dir)
    with open(os.path.join(out_dir, "stamp"), "w") as f:
        f.write("ok\n")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] != "--attnrt":
        sys.exit(__doc__)
    sys.exit(main(sys.argv[2], sys.argv[3]))
