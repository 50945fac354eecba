#!/usr/bin/env python3
"""Converted PyTorch models against PyTorch's own modules: export with tools/python/export_torch.py,
convert with `attnrt convert`, run with `attnrt run`, and compare with the module's output
computed in float64 (module.double(): the float32 weights widened exactly):
max|attnrt - torch| <= 1e-4 * max(1, max|torch|), over the non-padded positions when a key
padding mask is given (outputs at padded queries are whatever the math gives).

What is checked:
  CASES            fresh seeded modules of every architecture exported through export_torch.py's
                   command line (run in this process: importing torch per case would dominate),
                   with its own reference run (random input, masks, causal)
  SEQUENCE_CASES   mha, encoder-layer and encoder (stacks of 1-4 layers, post-/pre-norm, relu /
                   gelu, final norm or not, batch_first true and false, stored is_causal), with
                   bool key padding masks (--key-padding-mask, True = padding; every row padded
                   somewhere, never fully), attention masks and the causal flag
  VIT_CASES        torchvision VisionTransformers of several shapes on (2, 3, H, W) images
  existing modules export_module() on modules built and trained directly with PyTorch's
                   classes; a torch.save'd module and a torch.save'd state_dict through
                   export_torch.py --module
  refusals         export_module() naming unsupported settings (add_zero_attn, kdim, ...),
                   export_torch.py --module failing cleanly, `attnrt convert` on a .pt file

Masks never leave a row without a visible key (key 0 is never padded nor masked), so torch
produces no NaN anywhere, not even at padded positions that later layers read.

Usage: model_parity_test.py --attnrt PATH [--threads N]. Exits 77 (CTest skip) when torch or
torchvision is missing."""
import contextlib
import copy
import importlib.util
import io
import json
import os
import subprocess
import sys
import tempfile
import time

from script_setup import ROOT, skip_without_modules

with skip_without_modules():
    import numpy as np
    import torch
    import torch.nn.functional as F
    import torchvision  # noqa: F401  (the vit cases)
    from torch import nn

import attnrt_cli  # noqa: E402
EXPORT = os.path.join(ROOT, "tools", "python", "export_torch.py")
TOLERANCE = 1e-4  # f32 weights; --dtype sets attnrt_cli.DTYPE_TOLERANCE[dtype]
DTYPE = "f32"

_spec = importlib.util.spec_from_file_location("attnrt_export_torch", EXPORT)
export_torch = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(export_torch)
tm = export_torch.tm  # tools/python/torch_modules.py

# Fresh modules through the export_torch.py command line and its reference run:
# (arch, config, [(batch, seq, mask kind or None, causal)])
CASES = [
    ("mha", {"embed_dim": 16, "num_heads": 2},
     [(2, 7, None, False), (1, 70, "bool", False), (2, 33, "float", True), (1, 1, None, False)]),
    ("mha", {"embed_dim": 24, "num_heads": 3, "bias": False},
     [(2, 65, None, True), (1, 9, "bool", True)]),
    ("mha", {"embed_dim": 64, "num_heads": 8}, [(1, 130, "float", False)]),
    ("mha", {"embed_dim": 16, "num_heads": 4, "batch_first": False}, [(3, 12, "bool", False)]),
    ("encoder-layer", {"d_model": 32, "nhead": 4, "dim_feedforward": 64, "activation": "relu"},
     [(2, 17, None, False), (1, 66, "bool", True)]),
    ("encoder-layer", {"d_model": 24, "nhead": 2, "dim_feedforward": 40, "activation": "gelu",
                       "norm_first": True, "bias": False, "layer_norm_eps": 1e-6},
     [(2, 31, "float", False), (1, 5, None, True)]),
    ("encoder", {"d_model": 16, "nhead": 2, "dim_feedforward": 24, "num_layers": 2,
                 "final_norm": True}, [(2, 9, "float", True)]),
    ("vit", {"image_size": 8, "patch_size": 2, "num_layers": 1, "num_heads": 2, "hidden_dim": 8,
             "mlp_dim": 12, "num_classes": 3}, [(3, None, None, False)]),
    ("self-attention", {"d_model": 16, "d_k": 8, "d_v": 12}, [(2, 7, None, False), (1, 129, None, False)]),
    ("self-attention", {"d_model": 10}, [(3, 10, None, False)]),
    ("single-head", {"embedding_dim": 16, "attention_dim": 8}, [(2, 7, None, False), (1, 100, None, False)]),
    ("single-head", {"embedding_dim": 12, "attention_dim": 5}, [(1, 64, None, False)]),
]

# Fresh modules (export_model) run with key padding: (arch, config, [(batch, seq, mask kind or
# None, key padding (False, True for bool, "float" for -inf / finite values added), causal flag at
# run time)]). Key-padded runs need batch >= 2 and seq >= 3 (see make_key_padding).
_ENC = {"d_model": 16, "nhead": 2, "dim_feedforward": 32}
SEQUENCE_CASES = [
    ("mha", {"embed_dim": 16, "num_heads": 4, "batch_first": False},
     [(2, 11, None, True, False), (3, 6, "float", True, True)]),
    ("mha", {"embed_dim": 12, "num_heads": 3},
     [(2, 9, "bool", True, False), (2, 6, None, "float", False), (3, 7, "float", "float", True)]),
    ("mha", {"embed_dim": 12, "num_heads": 3, "batch_first": False, "is_causal": True},
     [(2, 7, None, True, False), (1, 5, None, False, False)]),
    ("encoder-layer", {**_ENC, "batch_first": False},
     [(2, 10, "bool", True, False), (1, 4, None, False, False)]),
    ("encoder-layer", {**_ENC, "activation": "gelu", "norm_first": True, "is_causal": True},
     [(3, 8, "float", True, False)]),
    ("encoder", {**_ENC, "num_layers": 1},  # post-norm relu, batch_first false, no final norm
     [(2, 9, None, True, False), (1, 5, None, False, False)]),
    ("encoder", {**_ENC, "num_layers": 2, "activation": "gelu", "norm_first": True,
                 "batch_first": True, "final_norm": True, "final_norm_eps": 1e-6},
     [(3, 12, "bool", True, False), (2, 7, "float", True, False), (2, 8, "bool", "float", False)]),
    ("encoder", {"d_model": 24, "nhead": 3, "dim_feedforward": 40, "num_layers": 3,
                 "activation": "gelu", "final_norm": True, "bias": False},
     [(2, 17, "float", True, True), (2, 6, None, True, False)]),
    ("encoder", {**_ENC, "num_layers": 4, "norm_first": True, "layer_norm_eps": 1e-6,
                 "is_causal": True},
     [(2, 10, None, True, False), (2, 8, "bool", True, False)]),
    ("encoder", {"d_model": 32, "nhead": 4, "dim_feedforward": 48, "num_layers": 2,
                 "batch_first": True, "enable_nested_tensor": False},
     [(2, 33, "bool", True, False), (2, 5, None, False, True)]),
]

VIT_CASES = [
    {"image_size": 16, "patch_size": 4, "num_layers": 2, "num_heads": 4, "hidden_dim": 32,
     "mlp_dim": 48, "num_classes": 10},
    {"image_size": 24, "patch_size": 8, "num_layers": 3, "num_heads": 2, "hidden_dim": 24,
     "mlp_dim": 40, "num_classes": 7},
    {"image_size": 12, "patch_size": 3, "num_layers": 1, "num_heads": 3, "hidden_dim": 12,
     "mlp_dim": 20, "num_classes": 4, "dropout": 0.1, "attention_dropout": 0.1},
]


class Failure(Exception):
    pass


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True)


class Context(attnrt_cli.CaseContext):
    """A case's context, with the conversions and runs the model cases share."""

    def convert(self, d, arch=None):
        """Converts d/model.safetensors with d/config.json (weight matrices as --dtype); without
        arch the config names it."""
        p, model = attnrt_cli.convert_model(self.attnrt, d, arch=arch, dtype=DTYPE)
        if p.returncode != 0:
            raise Failure("convert failed: " + p.stderr.strip())
        return model

    def run_model(self, model, x, mask=None, key_padding=None, causal=False):
        d = os.path.dirname(model)
        cmd = [self.attnrt, "run", model, "--input", os.path.join(d, "x.npy"), "--out",
               os.path.join(d, "out.npy"), "--threads", str(self.threads)]
        np.save(os.path.join(d, "x.npy"), x)
        if mask is not None:
            np.save(os.path.join(d, "m.npy"), mask)
            cmd += ["--mask", os.path.join(d, "m.npy")]
        if key_padding is not None:
            np.save(os.path.join(d, "kpm.npy"), key_padding)
            cmd += ["--key-padding-mask", os.path.join(d, "kpm.npy")]
        if causal:
            cmd += ["--causal", "upper-left"]
        p = run(cmd)
        if p.returncode != 0:
            raise Failure("run failed: " + p.stderr.strip())
        return np.load(os.path.join(d, "out.npy"))


# ---- inputs and references -----------------------------------------------------------------

def make_mask(rng, seq, kind):
    """attnrt's (seq, seq) mask; the diagonal and key 0 always stay visible."""
    keep = np.eye(seq, dtype=bool)
    keep[:, 0] = True
    if kind == "bool":
        return (rng.random_sample((seq, seq)) < 0.7) | keep
    values = rng.standard_normal((seq, seq)).astype(np.float32)
    values[(rng.random_sample((seq, seq)) < 0.25) & ~keep] = -np.inf
    return values


def make_key_padding(rng, batch, seq):
    """PyTorch's bool (batch, seq) key padding mask, True = padding. Every row pads something and
    never key 0: even rows a suffix, odd rows scattered keys but never the last one, so a valid
    query there sees a padded key even under the causal rule (the padding matters)."""
    assert batch >= 2 and seq >= 3
    kpm = np.zeros((batch, seq), dtype=bool)
    for b in range(batch):
        if b % 2 == 0:
            kpm[b, seq - rng.randint(1, seq):] = True
        else:
            kpm[b, 1 + rng.permutation(seq - 2)[:rng.randint(1, seq - 1)]] = True
    return kpm


def reference(arch, module, x, mask=None, key_padding=None, causal=False):
    """The module's output for x in float64 (a widened copy; the module stays float32)."""
    module64 = copy.deepcopy(module).double()
    out, _ = tm.forward(arch, module64, torch.from_numpy(x.astype(np.float64)), mask,
                        causal=causal and arch != "single-head", key_padding_mask=key_padding)
    return out.numpy()


def relative_error(got, want, valid=None):
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    if got.shape != want.shape:
        raise Failure(f"shape {got.shape} != {want.shape}")
    if valid is not None:
        got, want = got[valid], want[valid]
    if not np.isfinite(want).all():
        raise Failure("torch's reference is not finite (the test's masks are wrong)")
    if not np.isfinite(got).all():
        return float("inf")
    return float(np.abs(got - want).max(initial=0.0) / max(1.0, float(np.abs(want).max(initial=0.0))))


def check_sequence_run(ctx, arch, model, module, resolved, batch, seq, mask_kind, padded,
                       causal, seed):
    """One attnrt run of a sequence model against torch; returns the relative error."""
    rng = np.random.RandomState(seed)
    x = rng.standard_normal(tm.input_shape(arch, resolved, batch, seq)).astype(np.float32)
    mask = make_mask(rng, seq, mask_kind) if mask_kind else None
    kpm = make_key_padding(rng, batch, seq) if padded else None
    given = kpm
    if padded == "float":  # -inf at padding, finite values added elsewhere
        given = np.where(kpm, -np.inf, 0.5 * rng.standard_normal(kpm.shape)).astype(np.float32)
    causal_ref = causal or tm.stored_causal(arch, resolved)
    want = reference(arch, module, x, mask, given, causal_ref)
    got = ctx.run_model(model, x, mask, given, causal)
    valid = None
    if kpm is not None:
        valid = ~kpm if resolved.get("batch_first", True) else (~kpm).T
        unpadded = reference(arch, module, x, mask, None, causal_ref)
        if np.abs(unpadded - want)[valid].max() < 1e-3:
            raise Failure("the key padding mask changes nothing: the case tests nothing")
    return relative_error(got, want, valid)


# ---- checks: each returns (arch, description, [errors]) or raises Failure --------------------

def cli_export_case(ctx, index, arch, config, batch, seq, mask_kind, causal):
    """export_torch.py's fresh mode with its reference run, via its main() in this process."""
    d = ctx.new_dir(f"cli_{arch}")
    cfg = os.path.join(d, "in_config.json")
    with open(cfg, "w") as f:
        json.dump(config, f)
    argv = ["--arch", arch, "--config", cfg, "--out-dir", d, "--seed", str(index),
            "--batch", str(batch), "--input-out", os.path.join(d, "x.npy"),
            "--output-out", os.path.join(d, "y.npy")]
    if seq is not None:
        argv += ["--seq", str(seq)]
    if mask_kind:
        argv += ["--mask-out", os.path.join(d, "m.npy"), "--mask-kind", mask_kind]
    if causal:
        argv += ["--causal"]
    stderr = io.StringIO()
    with contextlib.redirect_stderr(stderr):
        try:
            code = export_torch.main(argv)
        except SystemExit as e:
            code = e.code
    if code != 0:
        raise Failure("export failed: " + stderr.getvalue().strip())
    model = ctx.convert(d, arch)
    x = np.load(os.path.join(d, "x.npy"))
    mask = np.load(os.path.join(d, "m.npy")) if mask_kind else None
    got = ctx.run_model(model, x, mask, causal=causal)
    return [relative_error(got, np.load(os.path.join(d, "y.npy")))]


def fresh_sequence_case(ctx, index, arch, config, runs):
    d = ctx.new_dir(f"seq_{arch}")
    module, resolved = export_torch.export_model(arch, config, d, seed=100 + index, init="perturbed")
    model = ctx.convert(d, arch)
    return [check_sequence_run(ctx, arch, model, module, resolved, *r, seed=1000 * index + i)
            for i, r in enumerate(runs)]


def vit_errors(ctx, model, module, config, batch, seed):
    rng = np.random.RandomState(seed)
    x = rng.standard_normal(tm.input_shape("vit", config, batch, None)).astype(np.float32)
    want = reference("vit", module, x)
    if np.abs(want).max() < 1e-2:
        raise Failure("torch's logits are all near zero: the case tests nothing")
    return [relative_error(ctx.run_model(model, x), want)]


def fresh_vit_case(ctx, index, config):
    d = ctx.new_dir("vit")
    module, resolved = export_torch.export_model("vit", config, d, seed=200 + index, init="perturbed")
    return vit_errors(ctx, ctx.convert(d, "vit"), module, resolved, 2, seed=2000 + index)


def randomize(module, seed, amplitude=0.3):
    """Adds U(-amplitude, amplitude) to every parameter: no weight keeps its initial value."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in module.parameters():
            p.add_((torch.rand(p.shape, generator=g) * 2 - 1) * amplitude)
    return module.eval()


def trained_encoder():
    """nn.TransformerEncoder built directly (pre-norm, gelu function, seq-first, final norm of
    another eps), then a few SGD steps in training mode (dropout on) so that the layers differ
    and no bias or norm keeps its initial value."""
    torch.manual_seed(5)
    layer = nn.TransformerEncoderLayer(24, 4, dim_feedforward=40, dropout=0.1, activation=F.gelu,
                                       layer_norm_eps=1e-6, norm_first=True)
    encoder = nn.TransformerEncoder(layer, 3, norm=nn.LayerNorm(24, eps=1e-4))
    optimizer = torch.optim.SGD(encoder.parameters(), lr=0.05)
    encoder.train()
    for _ in range(4):
        x = torch.randn(7, 3, 24)
        loss = ((encoder(x) - x.flip(0)) ** 2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return encoder.eval()


def expect_config(d, expected):
    with open(os.path.join(d, "config.json")) as f:
        written = json.load(f)
    wrong = {k: (written.get(k), v) for k, v in expected.items() if written.get(k) != v}
    if wrong:
        raise Failure(f"config.json differs (written, expected): {wrong}")


def existing_encoder_case(ctx):
    d = ctx.new_dir("export_module_encoder")
    encoder = trained_encoder()
    export_torch.export_module(encoder, d)
    expect_config(d, {"architecture": "encoder", "d_model": 24, "nhead": 4, "dim_feedforward": 40,
                      "activation": "gelu", "layer_norm_eps": 1e-6, "batch_first": False,
                      "norm_first": True, "bias": True, "num_layers": 3, "final_norm": True,
                      "final_norm_eps": 1e-4, "dropout": 0.1})
    model = ctx.convert(d)  # the config's "architecture" names it
    _, resolved = export_torch.module_config(encoder)
    return [check_sequence_run(ctx, "encoder", model, encoder, resolved, *r, seed=3000 + i)
            for i, r in enumerate([(2, 9, "bool", True, False), (3, 6, None, True, True)])]


def existing_mha_causal_case(ctx):
    d = ctx.new_dir("export_module_mha")
    torch.manual_seed(6)
    mha = randomize(nn.MultiheadAttention(16, 2), 6)  # batch_first False, PyTorch's default
    export_torch.export_module(mha, d, causal=True)
    expect_config(d, {"architecture": "mha", "batch_first": False, "is_causal": True})
    model = ctx.convert(d)
    _, resolved = export_torch.module_config(mha, causal=True)
    return [check_sequence_run(ctx, "mha", model, mha, resolved, 2, 8, None, True, False, seed=3100)]


def existing_module_case(ctx, label, build, runs, causal=False):
    """export_module() on a module built by `build`, then runs (batch, seq, mask kind, key
    padding, causal flag) against it."""
    d = ctx.new_dir("export_module_" + label)
    torch.manual_seed(len(label))
    module = randomize(build(), len(label))
    arch, _ = export_torch.export_module(module, d, causal=causal)
    model = ctx.convert(d)
    _, resolved = export_torch.module_config(module, causal=causal)
    return [check_sequence_run(ctx, arch, model, module, resolved, *r, seed=3500 + i)
            for i, r in enumerate(runs)]


def bias_free_encoder_layer():
    """As torch 2.1+ builds TransformerEncoderLayer(..., bias=False): six biases are None."""
    layer = nn.TransformerEncoderLayer(16, 4, dim_feedforward=24, activation=nn.GELU(),
                                       layer_norm_eps=1e-6)
    tm._remove_encoder_biases(layer)
    return layer


def export_cli(args):
    """export_torch.py as a separate process (the way users run it)."""
    return run([sys.executable, EXPORT] + args)


def saved_encoder_case(ctx):
    """torch.save(module) -> export_torch.py --module FILE.pt --out-dir DIR."""
    d = ctx.new_dir("saved_module_encoder")
    torch.manual_seed(7)
    layer = nn.TransformerEncoderLayer(16, 2, dim_feedforward=32, dropout=0.0, batch_first=True)
    encoder = randomize(nn.TransformerEncoder(layer, 2), 7)
    path = os.path.join(d, "encoder.pt")
    torch.save(encoder, path)
    p = export_cli(["--module", path, "--out-dir", d])
    if p.returncode != 0:
        raise Failure("export_torch.py --module failed: " + p.stderr.strip())
    expect_config(d, {"architecture": "encoder", "batch_first": True, "num_layers": 2,
                      "final_norm": False, "activation": "relu"})
    model = ctx.convert(d, "encoder")
    _, resolved = export_torch.module_config(encoder)
    return [check_sequence_run(ctx, "encoder", model, encoder, resolved, 2, 7, "float", True, False,
                               seed=3200)]


def saved_vit_case(ctx):
    d = ctx.new_dir("saved_module_vit")
    torch.manual_seed(8)
    vit = randomize(torchvision.models.VisionTransformer(8, 4, 1, 2, 16, 24, num_classes=5), 8, 0.1)
    path = os.path.join(d, "vit.pt")
    torch.save(vit, path)
    p = export_cli(["--module", path, "--out-dir", d])
    if p.returncode != 0:
        raise Failure("export_torch.py --module failed: " + p.stderr.strip())
    expect_config(d, {"architecture": "vit", "image_size": 8, "patch_size": 4, "hidden_dim": 16,
                      "mlp_dim": 24, "num_heads": 2, "num_layers": 1, "num_classes": 5})
    _, resolved = export_torch.module_config(vit)
    return vit_errors(ctx, ctx.convert(d), vit, resolved, 2, seed=3300)


def saved_state_dict_case(ctx):
    """torch.save(module.state_dict()) -> export_torch.py --module FILE.pt --arch --config."""
    d = ctx.new_dir("saved_state_dict_encoder")
    torch.manual_seed(9)
    layer = nn.TransformerEncoderLayer(20, 4, dim_feedforward=28, activation="gelu")
    encoder = randomize(nn.TransformerEncoder(layer, 3, norm=nn.LayerNorm(20)), 9)
    path = os.path.join(d, "state_dict.pt")
    torch.save(encoder.state_dict(), path)
    config = {"d_model": 20, "nhead": 4, "dim_feedforward": 28, "activation": "gelu",
              "num_layers": 3, "final_norm": True}
    cfg = os.path.join(d, "in_config.json")
    with open(cfg, "w") as f:
        json.dump(config, f)
    p = export_cli(["--module", path, "--arch", "encoder", "--config", cfg, "--out-dir", d])
    if p.returncode != 0:
        raise Failure("export_torch.py --module (state_dict) failed: " + p.stderr.strip())
    model = ctx.convert(d, "encoder")
    resolved = tm.resolve_config("encoder", config)
    return [check_sequence_run(ctx, "encoder", model, encoder, resolved, 2, 10, "bool", True, False,
                               seed=3400)]


# ---- refusals ------------------------------------------------------------------------------

def refused_modules():
    """(description, module, word the ValueError must name)."""
    def encoder_with_mixed_layers():
        encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 2)
        encoder.layers[1].norm1.eps = encoder.layers[1].norm2.eps = 1e-3
        return encoder

    def layer_with_one_bias_removed():
        layer = nn.TransformerEncoderLayer(8, 2, 16)
        tm._drop_parameter(layer.linear1, "bias")
        return layer

    def vit_with_other_norm():
        from functools import partial
        return torchvision.models.VisionTransformer(8, 4, 1, 2, 8, 12,
                                                    norm_layer=partial(nn.LayerNorm, eps=1e-5))

    return [
        ("MultiheadAttention add_zero_attn=True", lambda: nn.MultiheadAttention(8, 2, add_zero_attn=True),
         "add_zero_attn"),
        ("MultiheadAttention add_bias_kv=True", lambda: nn.MultiheadAttention(8, 2, add_bias_kv=True),
         "add_bias_kv"),
        ("MultiheadAttention kdim=4", lambda: nn.MultiheadAttention(8, 2, kdim=4, vdim=4), "kdim"),
        ("TransformerEncoderLayer activation=F.silu",
         lambda: nn.TransformerEncoderLayer(8, 2, 16, activation=F.silu), "activation silu"),
        ("TransformerEncoderLayer nn.GELU(approximate='tanh')",
         lambda: nn.TransformerEncoderLayer(8, 2, 16, activation=nn.GELU(approximate="tanh")),
         "activation"),
        ("TransformerEncoder with differently configured layers", encoder_with_mixed_layers,
         "layers.1"),
        ("TransformerEncoder norm=nn.Identity()",
         lambda: nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 1, norm=nn.Identity()),
         "norm"),
        ("VisionTransformer representation_size=6",
         lambda: torchvision.models.VisionTransformer(8, 4, 1, 2, 8, 12, representation_size=6),
         "representation_size"),
        ("TransformerEncoderLayer without linear1.bias only", layer_with_one_bias_removed,
         "linear1.bias"),
        ("VisionTransformer norm_layer eps 1e-5", vit_with_other_norm, "eps"),
        ("nn.Linear", lambda: nn.Linear(4, 4), "unsupported module class"),
    ]


def refusal_case(ctx, build, needle):
    d = ctx.new_dir("refused")
    try:
        export_torch.export_module(build(), d)
    except ValueError as e:
        if needle not in str(e):
            raise Failure(f"ValueError does not name {needle!r}: {e}")
        if os.listdir(d):
            raise Failure(f"refused export left files: {os.listdir(d)}")
        return []
    raise Failure("export_module accepted it")


def cli_refusal_case(ctx):
    """export_torch.py --module on an unsupported module: exit 1, a message, no traceback."""
    d = ctx.new_dir("cli_refused")
    path = os.path.join(d, "mha.pt")
    torch.save(nn.MultiheadAttention(8, 2, add_zero_attn=True), path)
    p = export_cli(["--module", path, "--out-dir", d])
    if p.returncode != 1 or "add_zero_attn" not in p.stderr or "Traceback" in p.stderr:
        raise Failure(f"exit {p.returncode}, stderr: {p.stderr.strip()}")
    return []


def convert_refuses_torch_archive(ctx):
    d = ctx.new_dir("convert_pt")
    path = os.path.join(d, "encoder.pt")
    torch.save(nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 1), path)
    cfg = os.path.join(d, "config.json")
    with open(cfg, "w") as f:
        json.dump({"d_model": 8, "nhead": 2, "dim_feedforward": 16, "num_layers": 1}, f)
    p = run([ctx.attnrt, "convert", "--arch", "encoder", "--config", cfg, path, "-o",
             os.path.join(d, "model.attnrt")])
    if p.returncode == 0 or "export_torch.py" not in p.stderr:
        raise Failure(f"exit {p.returncode}, stderr: {p.stderr.strip()}")
    return []


def all_checks():
    """(arch or "refusal", description, function(ctx) -> [relative errors])."""
    checks = []
    index = 0
    for arch, config, shapes in CASES:
        for batch, seq, mask_kind, causal in shapes:
            index += 1
            checks.append((arch, f"export_torch.py {arch} {json.dumps(config)} batch={batch} "
                                 f"seq={seq} mask={mask_kind} causal={causal}",
                           lambda ctx, a=(index, arch, config, batch, seq, mask_kind, causal):
                           cli_export_case(ctx, *a)))
    for i, (arch, config, runs) in enumerate(SEQUENCE_CASES):
        checks.append((arch, f"{arch} {json.dumps(config)} runs (batch, seq, mask, key padding, "
                             f"causal) {runs}",
                       lambda ctx, a=(i, arch, config, runs): fresh_sequence_case(ctx, *a)))
    for i, config in enumerate(VIT_CASES):
        checks.append(("vit", f"vit {json.dumps(config)} batch=2",
                       lambda ctx, a=(i, config): fresh_vit_case(ctx, *a)))
    checks += [
        ("encoder", "export_module(trained nn.TransformerEncoder)", existing_encoder_case),
        ("mha", "export_module(nn.MultiheadAttention, causal=True)", existing_mha_causal_case),
        ("encoder-layer", "export_module(bias-free nn.TransformerEncoderLayer, seq-first)",
         lambda ctx: existing_module_case(ctx, "encoder_layer", bias_free_encoder_layer,
                                          [(2, 9, "float", True, False)])),
        ("self-attention", "export_module(seed 003 SelfAttention)",
         lambda ctx: existing_module_case(ctx, "self_attention", lambda: tm.SelfAttention(12, 6, 10),
                                          [(2, 7, None, False, False)])),
        ("single-head", "export_module(seed 001 SingleHeadAttention)",
         lambda ctx: existing_module_case(ctx, "single_head", lambda: tm.SingleHeadAttention(12, 6),
                                          [(2, 7, None, False, False)])),
        ("encoder", "export_torch.py --module (torch.save'd TransformerEncoder)", saved_encoder_case),
        ("vit", "export_torch.py --module (torch.save'd VisionTransformer)", saved_vit_case),
        ("encoder", "export_torch.py --module (state_dict) --arch --config", saved_state_dict_case),
    ]
    for desc, build, needle in refused_modules():
        checks.append(("refusal", f"export_module refuses {desc}",
                       lambda ctx, a=(build, needle): refusal_case(ctx, *a)))
    checks += [
        ("refusal", "export_torch.py --module refuses add_zero_attn cleanly", cli_refusal_case),
        ("refusal", "attnrt convert refuses a torch.save archive", convert_refuses_torch_archive),
    ]
    return checks


def main():
    args = attnrt_cli.parse_parity_arguments()
    tm.runtime.use(args.attnrt)  # the architectures, for export_torch here and in its runs
    global DTYPE, TOLERANCE
    DTYPE, TOLERANCE = args.dtype, attnrt_cli.DTYPE_TOLERANCE[args.dtype]
    torch.set_num_threads(1)  # tiny shapes: threads only add overhead beside attnrt's
    started = time.monotonic()
    passed = failed = 0
    worst = {}
    with tempfile.TemporaryDirectory(prefix="attnrt_models_") as workdir:
        ctx = Context(args.attnrt, args.threads, workdir)
        for arch, desc, check in all_checks():
            try:
                errors = check(ctx)
                problem = next((f"error {e:.3g} > {TOLERANCE}" for e in errors
                                if not e <= TOLERANCE), None)
            except Failure as e:
                errors, problem = [], str(e)
            except Exception as e:  # a bug in the test or in export_torch.py: report, go on
                errors, problem = [], f"{type(e).__name__}: {e}"
            if problem is None:
                passed += 1
                if errors:
                    worst[arch] = max([worst.get(arch, 0.0)] + errors)
            else:
                failed += 1
                print(f"FAIL {desc}: {problem}")
    for arch, err in sorted(worst.items()):
        print(f"largest relative error {arch}: {err:.3g}")
    print(f"weights {DTYPE}, tolerance {TOLERANCE} ({time.monotonic() - started:.1f} s)")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
