#!/usr/bin/python3
"""Exports a PyTorch attention model as DIR/model.safetensors + DIR/config.json, the input of
`attnrt convert`: an existing module, a state_dict, or a freshly built seeded module (with, on
request, a random input and the module's float64 output for it).

  export_torch.py --module MODEL.pt --out-dir DIR [--is-causal]
  export_torch.py --module STATE_DICT.pt [--arch ARCH] --config CONFIG.json --out-dir DIR
  export_torch.py --arch ARCH --config CONFIG.json --out-dir DIR [--seed N] [--init {perturbed,torch}]
                  [--input-out X.npy --output-out Y.npy --batch B --seq L
                   [--mask-out M.npy --mask-kind {bool,float}] [--causal] [--weights-out W.npy]]
  (each with [--attnrt PATH])

ARCH is one of `attnrt architectures` (mha, encoder-layer, self-attention, single-head, encoder,
vit, llama). Needs torch 1.13 and numpy (Debian's /usr/bin/python3), torchvision for vit, and an
attnrt binary: the architectures, their config keys, types and defaults are the runtime's, read
from `attnrt architectures --json` (tools/python/attnrt_architectures.py) of the attnrt named by
--attnrt, else $ATTNRT, else the one on PATH; without one the export stops and says so. The
modules are built by tools/python/torch_modules.py (PyTorch constructor arguments);
config.json gets "architecture" and the resolved config (every default filled in), except
is_causal when false and the keys attnrt accepts only at their default (add_bias_kv,
add_zero_attn, kdim, vdim, representation_size), which are left out (see
torch_modules.written_config).

Existing modules (--module with a torch.save'd nn.Module, or export_module() from python): the
config is read from the module itself, so batch_first, norm_first, activation, layer_norm_eps,
biases, the final norm and so on cannot be forgotten or mistyped. Supported: nn.MultiheadAttention,
nn.TransformerEncoderLayer, nn.TransformerEncoder (every layer configured alike; norm None or
nn.LayerNorm), torchvision.models.VisionTransformer (representation_size None, no conv stem,
torchvision's LayerNorm eps 1e-6), the seed 001 / 003 classes, and Llama models: torch_modules'
Llama or llama2.c's model.py Transformer, recognised by class name and module tree (config from
its params / attributes and weight shapes; llama2.c's RoPE is interleaved with theta 10000).
Anything attnrt does not run exactly as PyTorch would (add_zero_attn, add_bias_kv, kdim/vdim != embed_dim, an activation other
than relu / exact gelu, another norm class, ...) is refused with a message naming the setting.
--is-causal records is_causal (PyTorch keeps causality out of the module: it is an argument of
its forward; the converted model then applies the causal rule on every run). torch.load
unpickles the file, which runs code it names: load only files you trust. A module saved from a
script's __main__ loads only where that class can be imported.

A state_dict (--module holding name -> tensor, or export_state_dict() from python) needs the
architecture and config: its names and shapes are checked against the module that config builds.

llama (tied embeddings): when output.weight is tok_embeddings.weight (the same storage, as
llama2.c ties them, or equal values) or is absent, the file holds tok_embeddings.weight only and
attnrt's llama uses it for the output as well; __metadata__ says tied_embeddings true / false.
multiple_of and dropout are accepted in a llama config and not written (attnrt ignores them).
sliding_window (Mistral's: each query sees itself and the W - 1 positions before it) is
written when the module's attention layers, its params (ModelArgs) or its config set it, and
left out otherwise (full causal attention).

A fresh module (--arch, --config): built with torch.manual_seed(seed). --init perturbed (default)
adds U(-0.2, 0.2) to every 1-D parameter and every constant parameter after PyTorch's own
initialisation, because PyTorch starts MultiheadAttention biases at 0, LayerNorm at (1, 0) and
torchvision's ViT class token and head at 0, and a converter that dropped them would go unnoticed;
--init torch keeps PyTorch's initialisation. An encoder's layers get distinct weights.

model.safetensors is written by hand: u64 little-endian header length N, N bytes of compact JSON
padded with spaces to a multiple of 8, then the tensors as little-endian F32 (floating-point
tensors of other dtypes are converted) in state_dict order, back to back. Tensor names are the
state_dict keys. __metadata__ holds format "pt", architecture and where the weights came from.
Every output file is written beside its target and renamed onto it, so an interrupted export
never leaves a half-written file.

Reference run (fresh module; all of --input-out, --output-out, --batch and, except for vit,
--seq): X is standard normal float32 from numpy's RandomState(seed), shaped as `attnrt run`
takes it: (batch, seq, dim), (seq, batch, dim) when batch_first is false, (batch, 3, H, W) for
vit; for llama X is int64 token ids (batch, seq), uniform over the vocabulary (`attnrt run
--tokens`), and Y the logits (batch, seq, vocab_size). Y is the module's output for X computed
in float64 (the float32 weights widened exactly), saved as float64. Masks are (seq, seq) and follow attnrt's `run --mask` semantics, those of
F.scaled_dot_product_attention: bool True = may attend (about 70% True, diagonal always True so no
row is empty), float = added to the scaled scores (standard normal, about 25% -inf off the
diagonal). Masks apply to mha, encoder-layer and encoder only; --causal (upper-left, key j
visible to query i iff j <= i) to those too, and single-head and llama are always causal, as is
a model whose config has is_causal true. --weights-out saves the attention weights: (batch,
heads, seq, seq) per head for mha, (batch, seq, seq) for self-attention.

Errors (a bad config, an unsupported module, an unreadable file, a wrong flag) print a message to
stderr, without a traceback, and exit with status 1.
"""
import argparse
import importlib.util
import json
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)
from output_files import write_atomically  # noqa: E402
from safetensors_format import header_bytes  # noqa: E402

_MODULES_PATH = os.path.join(_HERE, "torch_modules.py")
_MODULES_NAME = "attnrt_torch_modules"


def _load_torch_modules():
    if _MODULES_NAME in sys.modules:
        return sys.modules[_MODULES_NAME]
    spec = importlib.util.spec_from_file_location(_MODULES_NAME, _MODULES_PATH)
    module = importlib.util.module_from_spec(spec)
    # Registered so that torch.load finds the seed classes of modules saved through this file.
    sys.modules[_MODULES_NAME] = module
    spec.loader.exec_module(module)
    return module


tm = _load_torch_modules()


# ---- writing files (each through output_files.write_atomically) ----------------------------

def write_safetensors(path, entries, metadata=None):
    """Writes a safetensors file. entries: (name, dtype, shape, raw little-endian bytes) in data
    order, dtype a safetensors name ("F32", "F16", "BF16", ...); metadata: str -> str."""
    header = header_bytes([(name, dtype, shape, len(data)) for name, dtype, shape, data in entries],
                          {str(k): str(v) for k, v in metadata.items()} if metadata else None)

    def write(f):
        f.write(header)
        for _, _, _, data in entries:
            f.write(data)

    write_atomically(path, write)


def write_json(path, value):
    write_atomically(path, lambda f: f.write((json.dumps(value, indent=2) + "\n").encode("utf-8")))


def save_npy(path, array):
    write_atomically(path, lambda f: np.save(f, array))


def _f32_entry(name, tensor):
    if not isinstance(tensor, torch.Tensor):
        raise ValueError(f"state_dict entry {name!r} is a {type(tensor).__name__}, not a tensor")
    if not tensor.is_floating_point():
        raise ValueError(f"tensor {name!r} has dtype {tensor.dtype}, not floating point")
    array = np.ascontiguousarray(tensor.detach().cpu().to(torch.float32).numpy(), dtype="<f4")
    return (name, "F32", array.shape, array.tobytes())


def state_dict_entries(module):
    """(name, "F32", shape, bytes) for every state_dict tensor, in state_dict order."""
    return [_f32_entry(name, tensor) for name, tensor in module.state_dict().items()]


def _write_model(out_dir, arch, resolved, entries, metadata):
    os.makedirs(out_dir, exist_ok=True)
    write_safetensors(os.path.join(out_dir, "model.safetensors"), entries,
                      {"format": "pt", "architecture": arch, **metadata})
    write_json(os.path.join(out_dir, "config.json"),
               {"architecture": arch, **tm.written_config(arch, resolved)})


# ---- state_dict ----------------------------------------------------------------------------

def expected_tensors(arch, resolved):
    """name -> shape of the state_dict the module for this resolved config has, in order."""
    with torch.random.fork_rng(devices=[]):  # building draws weights: keep the caller's RNG
        module = tm.build_module(arch, resolved)
    return {name: tuple(t.shape) for name, t in module.state_dict().items()}


def _same_tensor(a, b):
    """Whether a and b are one tensor (the same storage, as a tied nn.Parameter gives) or equal."""
    if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)) or a.shape != b.shape:
        return False
    if a.data_ptr() == b.data_ptr() and a.stride() == b.stride() and a.dtype == b.dtype:
        return True
    return bool(torch.equal(a.detach().cpu(), b.detach().cpu()))


def _is_causal_mask_buffer(tensor, max_seq_len):
    """llama2.c's slow-attention path (torch < 2.0) registers layers.{i}.attention.mask: a
    (1, 1, max_seq_len, max_seq_len) buffer, -inf above the diagonal and 0 elsewhere, which ends
    up in its state_dict; attnrt applies that causal rule itself."""
    if not isinstance(tensor, torch.Tensor) or tuple(tensor.shape) != (1, 1, max_seq_len, max_seq_len):
        return False
    future = torch.ones(max_seq_len, max_seq_len, dtype=torch.bool).triu(diagonal=1)
    m = tensor.detach().cpu()[0, 0]
    return bool(torch.isneginf(m[future]).all()) and bool((m[~future] == 0).all())


def _llama_state_dict(state_dict, resolved, expected):
    """For llama: drops llama2.c's causal mask buffers and a tied output.weight (absent, or the
    same tensor as tok_embeddings.weight): attnrt's llama then shares tok_embeddings.weight.
    Returns (state_dict, expected names -> shapes, tied)."""
    state_dict = {k: v for k, v in state_dict.items()
                  if not (isinstance(k, str) and k.startswith("layers.")
                          and k.endswith(".attention.mask")
                          and _is_causal_mask_buffer(v, resolved["max_seq_len"]))}
    output, embeddings = state_dict.get("output.weight"), state_dict.get("tok_embeddings.weight")
    tied = "output.weight" not in state_dict or _same_tensor(output, embeddings)
    if tied:
        state_dict.pop("output.weight", None)
        expected = {k: v for k, v in expected.items() if k != "output.weight"}
    return state_dict, expected, tied


def export_state_dict(state_dict, arch, config, out_dir, metadata=None):
    """Writes out_dir/model.safetensors and out_dir/config.json for a state_dict of `arch`.

    config holds the constructor arguments (checked and completed by torch_modules'
    resolve_config; an "architecture" key must agree with arch). The state_dict must hold exactly
    the tensors, with the shapes, of the module that config builds; otherwise ValueError naming
    them. Tensors are written in that module's order, as float32. Returns the resolved config.

    llama: an output.weight that is tok_embeddings.weight (tied, as llama2.c does: the same
    storage, or equal values) or that is absent is not written; attnrt's llama then uses
    tok_embeddings.weight for the output too. llama2.c's causal mask buffers
    (layers.{i}.attention.mask, in its state_dict under torch < 2.0) are left out.
    """
    resolved = tm.resolve_config(arch, config)
    expected = expected_tensors(arch, resolved)
    if not isinstance(state_dict, dict):
        raise ValueError(f"a state_dict is a dict of name -> tensor, not a {type(state_dict).__name__}")
    if arch == "llama":
        state_dict, expected, tied = _llama_state_dict(state_dict, resolved, expected)
        metadata = {**(metadata or {"source": "state_dict"}),
                    "tied_embeddings": "true" if tied else "false"}
    missing = [n for n in expected if n not in state_dict]
    unexpected = [n for n in state_dict if n not in expected]
    if missing or unexpected:
        parts = []
        if missing:
            parts.append("missing " + ", ".join(missing))
        if unexpected:
            parts.append("unexpected " + ", ".join(map(str, unexpected)))
        raise ValueError(f"state_dict does not match {arch} with this config: " + "; ".join(parts))
    for name, shape in expected.items():
        tensor = state_dict[name]
        got = tuple(tensor.shape) if isinstance(tensor, torch.Tensor) else None
        if got != shape:
            raise ValueError(f"state_dict tensor {name!r} has shape {got}, but the config "
                             f"implies {shape}")
    entries = [_f32_entry(name, state_dict[name]) for name in expected]
    _write_model(out_dir, arch, resolved, entries, metadata or {"source": "state_dict"})
    return resolved


# ---- existing modules ----------------------------------------------------------------------

def _unsupported(where, setting, why=""):
    return ValueError(f"{where}{setting} is not supported by attnrt{why}")


def _check_type(module, cls, where):
    if type(module) is not cls:
        raise ValueError(f"{where or 'module'} is {type(module).__module__}.{type(module).__name__}, "
                         f"expected {cls.__module__}.{cls.__name__} itself (a subclass may change "
                         f"its forward)")


def _linear(module, where, in_features, out_features=None, bias=None):
    """Checks an nn.Linear (or a subclass that only renames it, as MultiheadAttention's out_proj)
    and returns whether it has a bias."""
    if not isinstance(module, nn.Linear):
        raise ValueError(f"{where} is {type(module).__name__}, expected nn.Linear")
    if module.in_features != in_features or (out_features is not None
                                             and module.out_features != out_features):
        raise ValueError(f"{where} maps {module.in_features} -> {module.out_features} features, "
                         f"expected {in_features} -> {out_features}")
    has_bias = module.bias is not None
    if bias is not None and has_bias != bias:
        raise ValueError(f"{where}.bias is {'present' if has_bias else 'absent'}, expected "
                         f"{'present' if bias else 'absent'}")
    return has_bias


def _layer_norm(module, where, dim):
    """(eps, has_bias) of an nn.LayerNorm over the last `dim` features."""
    if type(module) is not nn.LayerNorm:
        raise ValueError(f"{where} is {type(module).__name__}: only nn.LayerNorm is supported")
    if tuple(module.normalized_shape) != (dim,):
        raise ValueError(f"{where} normalizes shape {tuple(module.normalized_shape)}, expected ({dim},)")
    if not module.elementwise_affine or module.weight is None:
        raise _unsupported(where, ".elementwise_affine=False")
    return float(module.eps), module.bias is not None


def _activation_name(activation, where):
    """relu or gelu for F.relu / F.gelu, "relu" / "gelu", nn.ReLU() / nn.GELU(); else ValueError."""
    if isinstance(activation, str):
        if activation in ("relu", "gelu"):
            return activation
    elif activation is F.relu or type(activation) is nn.ReLU:
        return "relu"
    elif activation is F.gelu or (type(activation) is nn.GELU
                                  and getattr(activation, "approximate", "none") == "none"):
        return "gelu"
    name = getattr(activation, "__name__", None) or repr(activation)
    raise _unsupported(where, f"activation {name}",
                       " (only relu and exact gelu: F.relu, F.gelu, \"relu\", \"gelu\")")


def _mha_config(m, where=""):
    """The mha config of an nn.MultiheadAttention (without is_causal)."""
    _check_type(m, nn.MultiheadAttention, where.rstrip("."))
    if m.bias_k is not None or m.bias_v is not None:
        raise _unsupported(where, "add_bias_kv=True")
    if m.add_zero_attn:
        raise _unsupported(where, "add_zero_attn=True")
    if not m._qkv_same_embed_dim or m.kdim != m.embed_dim or m.vdim != m.embed_dim \
            or m.in_proj_weight is None:
        raise _unsupported(where, f"kdim={m.kdim} / vdim={m.vdim}",
                           f" (only kdim = vdim = embed_dim = {m.embed_dim})")
    bias = m.in_proj_bias is not None
    _linear(m.out_proj, where + "out_proj", m.embed_dim, m.embed_dim, bias)
    return {"embed_dim": int(m.embed_dim), "num_heads": int(m.num_heads),
            "dropout": float(m.dropout), "bias": bias, "batch_first": bool(m.batch_first)}


def _encoder_layer_config(layer, where=""):
    """The encoder-layer config of an nn.TransformerEncoderLayer (without is_causal)."""
    _check_type(layer, nn.TransformerEncoderLayer, where.rstrip("."))
    attention = _mha_config(layer.self_attn, where + "self_attn.")
    d = attention["embed_dim"]
    ff = layer.linear1.out_features if isinstance(layer.linear1, nn.Linear) else None
    biases = {
        "self_attn.in_proj_bias": attention["bias"],
        "self_attn.out_proj.bias": attention["bias"],
        "linear1.bias": _linear(layer.linear1, where + "linear1", d, ff),
        "linear2.bias": _linear(layer.linear2, where + "linear2", ff, d),
    }
    eps1, biases["norm1.bias"] = _layer_norm(layer.norm1, where + "norm1", d)
    eps2, biases["norm2.bias"] = _layer_norm(layer.norm2, where + "norm2", d)
    if eps1 != eps2:
        raise ValueError(f"{where}norm1.eps ({eps1}) differs from {where}norm2.eps ({eps2}): "
                         f"attnrt has one layer_norm_eps")
    if len(set(biases.values())) != 1:
        present = [where + n for n, b in biases.items() if b]
        absent = [where + n for n, b in biases.items() if not b]
        raise ValueError(f"biases must be all present (bias=True) or all absent (bias=False): "
                         f"{', '.join(present)} present but {', '.join(absent)} absent")
    dropout = layer.dropout.p if isinstance(layer.dropout, nn.Dropout) else attention["dropout"]
    return {"d_model": d, "nhead": attention["num_heads"], "dim_feedforward": int(ff),
            "dropout": float(dropout),
            "activation": _activation_name(getattr(layer, "activation", F.relu), where),
            "layer_norm_eps": eps1, "batch_first": attention["batch_first"],
            "norm_first": bool(layer.norm_first), "bias": attention["bias"]}


def _encoder_config(encoder):
    _check_type(encoder, nn.TransformerEncoder, "module")
    layers = list(encoder.layers)
    if not layers:
        raise ValueError("the TransformerEncoder has no layers")
    if getattr(encoder, "num_layers", len(layers)) != len(layers):
        raise ValueError(f"num_layers is {encoder.num_layers} but layers holds {len(layers)}")
    config = _encoder_layer_config(layers[0], "layers.0.")
    for i, layer in enumerate(layers[1:], 1):
        other = _encoder_layer_config(layer, f"layers.{i}.")
        for key in config:
            if key != "dropout" and other[key] != config[key]:
                raise ValueError(f"layers.{i} has {key} {json.dumps(other[key])} but layers.0 has "
                                 f"{json.dumps(config[key])}: differently configured layers in one "
                                 f"encoder are not supported by attnrt")
    final_norm, final_norm_eps = encoder.norm is not None, 1e-5
    if final_norm:
        final_norm_eps, norm_bias = _layer_norm(encoder.norm, "norm", config["d_model"])
        if not norm_bias:
            raise _unsupported("norm", " without bias")
    return {**config, "num_layers": len(layers), "final_norm": final_norm,
            "final_norm_eps": final_norm_eps,
            "enable_nested_tensor": bool(getattr(encoder, "enable_nested_tensor", True))}


def _vit_config(vit):
    from torchvision.models import VisionTransformer
    from torchvision.models.vision_transformer import EncoderBlock
    _check_type(vit, VisionTransformer, "module")
    if vit.representation_size is not None:
        raise _unsupported("", f"representation_size={vit.representation_size}",
                           " (a pre-logits layer; only None)")
    hidden, patch, image = int(vit.hidden_dim), int(vit.patch_size), int(vit.image_size)
    conv = vit.conv_proj
    if type(conv) is not nn.Conv2d:
        raise _unsupported("", "conv_stem_configs", " (conv_proj must be the patchify nn.Conv2d)")
    if (conv.in_channels, conv.out_channels) != (tm.VIT_CHANNELS, hidden) or \
            tuple(conv.kernel_size) != (patch, patch) or tuple(conv.stride) != (patch, patch) or \
            tuple(conv.padding) != (0, 0) or tuple(conv.dilation) != (1, 1) or conv.groups != 1 \
            or conv.bias is None:
        raise ValueError(f"conv_proj is {conv}, expected Conv2d({tm.VIT_CHANNELS}, {hidden}, "
                         f"kernel_size={patch}, stride={patch}) with bias")
    layers = list(vit.encoder.layers)
    if not layers:
        raise ValueError("the VisionTransformer has no encoder layers")
    heads = None
    for name, block in vit.encoder.layers.named_children():
        where = f"encoder.layers.{name}."
        _check_type(block, EncoderBlock, where.rstrip("."))
        attention = _mha_config(block.self_attention, where + "self_attention.")
        if not attention["bias"] or not attention["batch_first"] or attention["embed_dim"] != hidden:
            raise ValueError(f"{where}self_attention is not torchvision's own")
        if heads is not None and attention["num_heads"] != heads:
            raise ValueError(f"{where}self_attention has {attention['num_heads']} heads but the "
                             f"first layer has {heads}: differently configured layers are not "
                             f"supported")
        heads = attention["num_heads"]
        for norm_name in ("ln_1", "ln_2"):
            _vit_norm(getattr(block, norm_name), where + norm_name, hidden)
        mlp = block.mlp
        if len(mlp) != 5 or not (type(mlp[1]) is nn.GELU and mlp[1].approximate == "none"):
            raise ValueError(f"{where}mlp is not Linear, GELU, Dropout, Linear, Dropout")
        _linear(mlp[0], where + "mlp.0", hidden, vit.mlp_dim, True)
        _linear(mlp[3], where + "mlp.3", vit.mlp_dim, hidden, True)
    _vit_norm(vit.encoder.ln, "encoder.ln", hidden)
    if [name for name, _ in vit.heads.named_children()] != ["head"]:
        raise ValueError("heads must hold only 'head' (representation_size None)")
    _linear(vit.heads.head, "heads.head", hidden, vit.num_classes, True)
    return {"image_size": image, "patch_size": patch, "num_layers": len(layers),
            "num_heads": heads, "hidden_dim": hidden, "mlp_dim": int(vit.mlp_dim),
            "dropout": float(vit.dropout), "attention_dropout": float(vit.attention_dropout),
            "num_classes": int(vit.num_classes), "representation_size": None}


def _vit_norm(norm, where, dim):
    eps, bias = _layer_norm(norm, where, dim)
    if eps != tm.VIT_NORM_EPS or not bias:
        raise _unsupported(where, f" with eps {eps}" if bias else " without bias",
                           f" (a vit's norm_layer must be torchvision's default LayerNorm, "
                           f"eps {tm.VIT_NORM_EPS})")


def _bias_free_linear(module, name, where=""):
    layer = getattr(module, name, None)
    if not isinstance(layer, nn.Linear) or layer.bias is not None:
        raise ValueError(f"{where}{name} must be a bias-free nn.Linear")
    return layer


def _is_seed(module, class_name, names):
    return isinstance(module, getattr(tm, class_name)) or (
        type(module).__name__ == class_name and all(hasattr(module, n) for n in names))


def _llama_attr(obj, names, where, default=None):
    """The first of `names` that obj has (llama2.c and Meta name some things differently)."""
    for name in names:
        value = getattr(obj, name, None)
        if value is not None:
            return value
    if default is not None:
        return default
    raise ValueError(f"{where} has none of the attributes {', '.join(names)}")


def _rms_norm(norm, where, dim):
    """The eps of an RMSNorm (llama2.c's / torch_modules' class: weight (dim,), eps, no bias)."""
    if type(norm).__name__ != "RMSNorm":
        raise ValueError(f"{where} is {type(norm).__name__}, expected an RMSNorm")
    weight = getattr(norm, "weight", None)
    if not isinstance(weight, torch.Tensor) or tuple(weight.shape) != (dim,):
        raise ValueError(f"{where}.weight must have shape ({dim},)")
    if getattr(norm, "bias", None) is not None:
        raise _unsupported(where, ".bias", " (RMSNorm has a weight only)")
    eps = getattr(norm, "eps", None)
    if isinstance(eps, bool) or not isinstance(eps, (int, float)):
        raise ValueError(f"{where} has no numeric eps")
    return float(eps)


def _llama_config(model):
    """The llama config of torch_modules' Llama or llama2.c's Transformer (duck-typed: its
    module tree and attributes; Meta's reference names them alike)."""
    emb = model.tok_embeddings
    if not isinstance(emb, nn.Embedding):
        raise ValueError(f"tok_embeddings is {type(emb).__name__}, expected nn.Embedding")
    if emb.max_norm is not None:
        raise _unsupported("tok_embeddings", f".max_norm={emb.max_norm}")
    vocab, dim = (int(n) for n in emb.weight.shape)
    layers = list(model.layers)
    if not layers:
        raise ValueError("the model has no layers")
    params = getattr(model, "params", None)  # llama2.c's / Meta's ModelArgs
    per_layer = None
    for i, layer in enumerate(layers):
        where = f"layers.{i}."
        att, ff = layer.attention, layer.feed_forward
        heads = int(_llama_attr(att, ("n_local_heads", "n_heads"), where + "attention"))
        kv = int(_llama_attr(att, ("n_local_kv_heads", "n_kv_heads"), where + "attention", heads))
        if heads <= 0 or kv <= 0 or dim % heads or heads % kv:
            raise ValueError(f"{where}attention has {heads} heads and {kv} kv heads for dim {dim}")
        hd = dim // heads
        if int(getattr(att, "head_dim", hd)) != hd:
            raise ValueError(f"{where}attention.head_dim is {att.head_dim}, not dim / n_heads = {hd}")
        wq, wk, wv, wo = (_bias_free_linear(att, n, where + "attention.")
                          for n in ("wq", "wk", "wv", "wo"))
        _linear(wq, where + "attention.wq", dim, heads * hd)
        _linear(wk, where + "attention.wk", dim, kv * hd)
        _linear(wv, where + "attention.wv", dim, kv * hd)
        _linear(wo, where + "attention.wo", heads * hd, dim)
        w1, w2, w3 = (_bias_free_linear(ff, n, where + "feed_forward.") for n in ("w1", "w2", "w3"))
        hidden = w1.out_features
        _linear(w1, where + "feed_forward.w1", dim, hidden)
        _linear(w2, where + "feed_forward.w2", hidden, dim)
        _linear(w3, where + "feed_forward.w3", dim, hidden)
        eps = _rms_norm(layer.attention_norm, where + "attention_norm", dim)
        if _rms_norm(layer.ffn_norm, where + "ffn_norm", dim) != eps:
            raise ValueError(f"{where}ffn_norm.eps differs from {where}attention_norm.eps: "
                             f"attnrt has one norm_eps")
        style = getattr(att, "rope_style", "interleaved")
        # Mistral's sliding window (torch_modules' attention attribute; Mistral's ModelArgs
        # and Hugging Face configs keep it model-wide, read below).
        window = getattr(att, "sliding_window", None)
        this = {"n_heads": heads, "n_kv_heads": kv, "hidden_dim": hidden, "norm_eps": eps,
                "rope_style": style, "sliding_window": window}
        if per_layer is None:
            per_layer = this
        for key in per_layer:
            if this[key] != per_layer[key]:
                raise ValueError(f"{where[:-1]} has {key} {json.dumps(this[key])} but layers.0 has "
                                 f"{json.dumps(per_layer[key])}: differently configured layers "
                                 f"are not supported by attnrt")
    if _rms_norm(model.norm, "norm", dim) != per_layer["norm_eps"]:
        raise ValueError("norm.eps differs from the layers' eps: attnrt has one norm_eps")
    _linear(_bias_free_linear(model, "output"), "output", dim, vocab)
    max_seq_len = getattr(model, "max_seq_len", None) or getattr(params, "max_seq_len", None)
    if max_seq_len is None:
        raise ValueError("the model has no max_seq_len (nor params.max_seq_len)")
    # llama2.c hard-codes theta 10000 (precompute_freqs_cis); Meta's ModelArgs has rope_theta.
    theta = getattr(model, "rope_theta", None) or getattr(params, "rope_theta", None) or 10000.0
    config = {"dim": dim, "n_layers": len(layers), "n_heads": per_layer["n_heads"],
              "n_kv_heads": per_layer["n_kv_heads"], "vocab_size": vocab,
              "hidden_dim": per_layer["hidden_dim"], "norm_eps": per_layer["norm_eps"],
              "max_seq_len": int(max_seq_len), "rope_theta": float(theta),
              "rope_style": per_layer["rope_style"]}
    window = _llama_window(per_layer["sliding_window"], params, getattr(model, "config", None))
    if window is not None:  # absent means full causal attention, for attnrt as for torch
        config["sliding_window"] = window
    return config


def _llama_window(layer_window, params, config):
    """The sliding window of a llama-family model: the attention modules' sliding_window, or
    Mistral's ModelArgs.sliding_window, or a (dict) config's "sliding_window"; None when none
    is set. Sources that disagree, or a value that is not a positive integer, are refused."""
    found = {}
    if layer_window is not None:
        found["layers.*.attention.sliding_window"] = layer_window
    if getattr(params, "sliding_window", None) is not None:
        found["params.sliding_window"] = params.sliding_window
    if isinstance(config, dict) and config.get("sliding_window") is not None:
        found["config['sliding_window']"] = config["sliding_window"]
    if not found:
        return None
    for where, value in found.items():
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise ValueError(f"{where} = {value!r}: a sliding window must be a positive integer")
    if len(set(found.values())) > 1:
        raise ValueError("the sliding window differs between "
                         + ", ".join(f"{k} = {v}" for k, v in found.items()))
    return next(iter(found.values()))


_LLAMA_NAMES = ("tok_embeddings", "layers", "norm", "output")


def module_config(module, *, causal=False):
    """(architecture, config) read from an existing module's own attributes; ValueError naming
    any setting attnrt does not implement exactly. causal sets is_causal (mha, encoder-layer,
    encoder; single-head is always causal; self-attention and vit have no causal option)."""
    if not isinstance(module, nn.Module):
        raise ValueError(f"expected a torch.nn.Module, got {type(module).__name__}")
    if type(module) is nn.MultiheadAttention:
        arch, config = "mha", _mha_config(module)
    elif type(module) is nn.TransformerEncoderLayer:
        arch, config = "encoder-layer", _encoder_layer_config(module)
    elif type(module) is nn.TransformerEncoder:
        arch, config = "encoder", _encoder_config(module)
    elif type(module).__name__ == "VisionTransformer" and \
            type(module).__module__.startswith("torchvision."):
        arch, config = "vit", _vit_config(module)
    elif _is_seed(module, "SelfAttention", ("W_q", "W_k", "W_v", "W_o")):
        w_q, w_k, w_v, w_o = (_bias_free_linear(module, n) for n in ("W_q", "W_k", "W_v", "W_o"))
        d_model, d_k, d_v = w_q.in_features, w_q.out_features, w_v.out_features
        _linear(w_k, "W_k", d_model, d_k)
        _linear(w_v, "W_v", d_model, d_v)
        _linear(w_o, "W_o", d_v, d_model)
        arch, config = "self-attention", {"d_model": d_model, "d_k": d_k, "d_v": d_v}
    elif _is_seed(module, "SingleHeadAttention", ("query_proj", "key_proj", "value_proj")):
        q, k, v = (_bias_free_linear(module, n) for n in ("query_proj", "key_proj", "value_proj"))
        dim, att = q.in_features, q.out_features
        _linear(k, "key_proj", dim, att)
        _linear(v, "value_proj", dim, att)
        arch, config = "single-head", {"embedding_dim": dim, "attention_dim": att}
    elif _is_seed(module, "Llama", _LLAMA_NAMES) or (
            type(module).__name__ == "Transformer" and all(hasattr(module, n) for n in _LLAMA_NAMES)):
        arch, config = "llama", _llama_config(module)
    else:
        raise ValueError(f"unsupported module class {type(module).__module__}.{type(module).__name__} "
                         f"(supported: nn.MultiheadAttention, nn.TransformerEncoderLayer, "
                         f"nn.TransformerEncoder, torchvision VisionTransformer, seed 001 "
                         f"SingleHeadAttention, seed 003 SelfAttention, Llama / llama2.c "
                         f"Transformer)")
    if "is_causal" in tm.config_keys(arch):
        config["is_causal"] = bool(causal)
    elif causal and arch not in ("single-head", "llama"):
        raise ValueError(f"{arch} has no causal option")
    return arch, config


def export_module(module, out_dir, *, causal=False):
    """Exports an existing module: writes out_dir/model.safetensors and out_dir/config.json.

    module is an nn.MultiheadAttention, nn.TransformerEncoderLayer, nn.TransformerEncoder,
    torchvision.models.VisionTransformer, a seed 001 / 003 module, torch_modules' Llama or a
    llama2.c model.py Transformer (recognised by its class name and module tree: tok_embeddings,
    layers.{i}.attention / feed_forward / attention_norm / ffn_norm, norm, output), trained or
    not, in any mode. A llama whose output.weight is tok_embeddings.weight is written tied.
    Its config (batch_first, norm_first, activation, eps, biases, layers, final norm, ...) is read
    from the module itself (module_config); settings attnrt does not implement raise ValueError
    naming them. causal=True records is_causal: PyTorch passes causality to forward, not to the
    constructor, so say here whether the model is to run causally. Returns (arch, config).
    """
    arch, config = module_config(module, causal=causal)
    resolved = export_state_dict(module.state_dict(), arch, config, out_dir,
                                 {"source": f"module {type(module).__name__}"})
    return arch, resolved


# ---- fresh seeded modules ------------------------------------------------------------------

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
    _write_model(out_dir, arch, resolved, state_dict_entries(module),
                 {"seed": seed, "init": init})
    return module, resolved


def export_reference(arch, module, resolved, args):
    """Writes the random input, optional mask and float64 output (and weights) for `module`."""
    rng = np.random.RandomState(args.seed)
    if arch == "llama":  # token ids, uniform over the vocabulary
        x = rng.randint(0, resolved["vocab_size"], size=(args.batch, args.seq)).astype(np.int64)
    else:
        x = rng.standard_normal(tm.input_shape(arch, resolved, args.batch, args.seq)).astype(np.float32)
    mask = random_mask(rng, args.seq, args.mask_kind) if args.mask_out else None
    module64 = module.double()
    causal = (args.causal or tm.stored_causal(arch, resolved)) and arch not in ("single-head",
                                                                                  "llama")
    inputs = torch.from_numpy(x if arch == "llama" else x.astype(np.float64))
    out, weights = tm.forward(arch, module64, inputs, mask, causal=causal)
    save_npy(args.input_out, x)
    save_npy(args.output_out, out.numpy())
    if mask is not None:
        save_npy(args.mask_out, mask)
    if args.weights_out:
        save_npy(args.weights_out, weights.numpy())


# ---- command line --------------------------------------------------------------------------

def _reject_duplicate_keys(pairs):
    keys = [k for k, _ in pairs]
    duplicates = sorted({k for k in keys if keys.count(k) > 1})
    if duplicates:
        raise ValueError(f"duplicate key(s) {', '.join(duplicates)}")
    return dict(pairs)


def read_config(path):
    """The JSON object in `path`; ValueError / OSError naming the file."""
    try:
        with open(path) as f:
            config = json.load(f, object_pairs_hook=_reject_duplicate_keys)
    except ValueError as e:
        raise ValueError(f"{path}: {e}") from None
    if not isinstance(config, dict):
        raise ValueError(f"{path}: top level must be a JSON object")
    return config


class _ArgumentParser(argparse.ArgumentParser):
    def error(self, message):
        """Usage errors exit with status 1 like every other error (argparse would use 2)."""
        self.print_usage(sys.stderr)
        self.exit(1, f"{self.prog}: error: {message}\n")


def parse_args(argv):
    p = _ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog="See the module docstring of tools/python/export_torch.py.")
    p.add_argument("--module", help="a torch.save'd nn.Module, or a state_dict (with --config)")
    p.add_argument("--is-causal", action="store_true",
                   help="with --module holding a module: record is_causal true")
    p.add_argument("--attnrt", help="the attnrt binary whose architectures to export for "
                   f"(default: ${tm.runtime.ENV}, else attnrt on PATH)")
    p.add_argument("--arch", help="one of `attnrt architectures`")
    p.add_argument("--config", help="JSON object of constructor arguments")
    p.add_argument("--out-dir", required=True)
    p.add_argument("--seed", type=int)
    p.add_argument("--init", choices=("perturbed", "torch"))
    p.add_argument("--input-out")
    p.add_argument("--output-out")
    p.add_argument("--batch", type=int)
    p.add_argument("--seq", type=int)
    p.add_argument("--mask-out")
    p.add_argument("--mask-kind", choices=("bool", "float"), default="bool")
    p.add_argument("--causal", action="store_true")
    p.add_argument("--weights-out")
    args = p.parse_args(argv)
    if args.attnrt is not None:
        tm.runtime.use(args.attnrt)
    try:
        known = tm.architectures()  # also says first, and plainly, when there is no attnrt
    except tm.runtime.AttnrtUnavailable as e:
        p.error(str(e))
    if args.arch is not None and args.arch not in known:
        p.error(f"argument --arch: invalid choice: {args.arch!r} (choose from "
                f"{', '.join(known)})")
    fresh_only = {"--seed": args.seed is not None, "--init": args.init is not None,
                  "--input-out": args.input_out, "--output-out": args.output_out,
                  "--batch": args.batch is not None, "--seq": args.seq is not None,
                  "--mask-out": args.mask_out, "--causal": args.causal,
                  "--weights-out": args.weights_out}
    if args.module is not None:
        given = [flag for flag, on in fresh_only.items() if on]
        if given:
            p.error(f"{', '.join(given)}: only for a fresh module (--arch --config without --module)")
        return args
    if args.arch is None or args.config is None:
        p.error("give --module FILE.pt, or --arch and --config for a fresh seeded module")
    if args.is_causal:
        p.error("--is-causal is for --module; a fresh module takes \"is_causal\" in its config")
    args.seed = 0 if args.seed is None else args.seed
    args.init = args.init or "perturbed"
    if args.seed < 0:
        p.error("--seed must be non-negative")
    if args.mask_out and not tm.supports_mask(args.arch):
        p.error(f"--mask-out: {args.arch} takes no mask (only mha, encoder-layer and encoder do)")
    if args.causal and args.arch == "self-attention":
        p.error("--causal: self-attention (seed 003) has no causal option")
    if args.causal and args.arch == "vit":
        p.error("--causal: vit has no causal option")
    if args.weights_out and args.arch not in ("mha", "self-attention"):
        p.error(f"--weights-out: {args.arch} does not return attention weights")
    run_flags = [args.input_out, args.output_out, args.batch, args.seq]
    if any(f is not None for f in run_flags) or args.mask_out or args.causal or args.weights_out:
        if args.arch == "vit" and args.seq is None:
            args.seq = 1  # unused: a vit's token count comes from its image size
            run_flags[3] = 1
        if any(f is None for f in run_flags):
            p.error("a reference run needs all of --input-out, --output-out, --batch"
                    + ("" if args.arch == "vit" else ", --seq"))
        if args.batch <= 0 or args.seq <= 0:
            p.error("--batch and --seq must be positive")
    return args


def load_torch_file(path):
    """What torch.save wrote to `path` (on the CPU); ValueError when torch.load fails."""
    if not os.path.isfile(path):
        raise OSError(f"{path}: no such file")
    try:
        return torch.load(path, map_location="cpu")
    except Exception as e:  # unpickling can fail in many ways; all mean "cannot read this"
        raise ValueError(f"cannot load with torch.load ({type(e).__name__}: {e}); is it a "
                         f"torch.save file, and is every class it names importable here?") from None


def _export_from_file(args):
    obj = load_torch_file(args.module)
    if isinstance(obj, nn.Module):
        if args.config is not None:
            raise ValueError("holds a module, whose own attributes give its config: --config is "
                             "for a state_dict file")
        arch, _ = module_config(obj, causal=args.is_causal)
        if args.arch is not None and args.arch != arch:
            raise ValueError(f"holds a {type(obj).__name__} ({arch}), not {args.arch}")
        export_module(obj, args.out_dir, causal=args.is_causal)
        return
    if not isinstance(obj, dict):
        raise ValueError(f"holds a {type(obj).__name__}, neither an nn.Module nor a state_dict")
    not_tensors = [str(k) for k, v in obj.items() if not isinstance(v, torch.Tensor)]
    if not_tensors:
        raise ValueError(f"holds a dict whose entries {', '.join(not_tensors[:5])} are not tensors: "
                         f"save module.state_dict() or the module itself")
    if args.config is None:
        raise ValueError("holds a state_dict: give --config (the constructor arguments) and "
                         "--arch (or an \"architecture\" key in the config)")
    if args.is_causal:
        raise ValueError("--is-causal: a state_dict's config takes \"is_causal\": true instead")
    config = read_config(args.config)
    arch = args.arch or config.get("architecture")
    if arch is None:
        raise ValueError(f"{args.config} has no \"architecture\" key: give --arch")
    export_state_dict(obj, arch, config, args.out_dir,
                      {"source": f"state_dict {os.path.basename(args.module)}"})


def main(argv=None):
    args = parse_args(argv)
    try:
        if args.module is not None:
            try:
                _export_from_file(args)
            except (ValueError, RuntimeError) as e:
                raise ValueError(f"{args.module}: {e}") from None
            return 0
        config = read_config(args.config)
        try:
            module, resolved = export_model(args.arch, config, args.out_dir, args.seed, args.init)
        except ValueError as e:
            raise ValueError(f"{args.config}: {e}") from None
        if args.input_out is not None:
            export_reference(args.arch, module, resolved, args)
    except (OSError, ValueError, RuntimeError) as e:
        print(f"export_torch.py: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
