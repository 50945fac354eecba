"""The PyTorch modules attnrt converts, built from a config dict; shared by tools/export_torch.py
and the tests (import this file by path: it needs only torch, numpy and the standard library).

Architectures (the `--arch` names of export_torch.py and `attnrt convert`):
  mha             torch.nn.MultiheadAttention, batch_first=True
  encoder-layer   torch.nn.TransformerEncoderLayer, batch_first=True, eval mode
  self-attention  seed 003's SelfAttention: bias-free W_q, W_k, W_v, W_o; returns (out, weights)
  single-head     seed 001's SingleHeadAttention: bias-free query/key/value projections, causal

Config keys are the PyTorch constructor arguments; resolve_config() checks them and fills in the
defaults, build_module() constructs the module, forward() runs it with attnrt's mask semantics.

Mask semantics (what `attnrt run --mask` will do, following F.scaled_dot_product_attention, not
nn.MultiheadAttention): a bool mask is a keep-mask, True = this query MAY attend to this key; a
float mask is added to the scaled scores. nn.MultiheadAttention's bool attn_mask means the
opposite (True = masked out), so forward() never hands torch a bool mask: it turns every mask
into the equivalent additive float mask (keep -> 0, drop -> -inf) before calling the module.
Causal is upper-left, as PyTorch's is_causal: query i sees keys j <= i.
"""
import math

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

ARCHITECTURES = ("mha", "encoder-layer", "self-attention", "single-head")

_REQUIRED = object()  # marks a config key without a default


class SingleHeadAttention(nn.Module):
    """Seed 001, same parameters (registered in the same order) and the same forward.

    One change: the seed calls torch.manual_seed(0) inside __init__, which would make every
    instance identical whatever the caller seeded; here the caller seeds (torch.manual_seed(0)
    before construction reproduces the seed's weights exactly).
    """

    def __init__(self, embedding_dim, attention_dim):
        super().__init__()
        self.attention_dim = attention_dim
        self.key_proj = nn.Linear(embedding_dim, attention_dim, bias=False)
        self.query_proj = nn.Linear(embedding_dim, attention_dim, bias=False)
        self.value_proj = nn.Linear(embedding_dim, attention_dim, bias=False)

    def forward(self, X):
        key = self.key_proj(X)
        query = self.query_proj(X)
        value = self.value_proj(X)
        scores = query @ key.transpose(2, 1)
        scores = scores / math.sqrt(self.attention_dim)
        # True above the diagonal = future position, masked out (seed 001's convention).
        attn_mask = torch.tril(torch.ones(*scores.shape, dtype=scores.dtype)) == 0
        scores = torch.masked_fill(scores, attn_mask, float("-inf"))
        scores = F.softmax(scores, dim=-1)
        return scores @ value


class SelfAttention(nn.Module):
    """Seed 003, unchanged: returns (output, attention_weights)."""

    def __init__(self, d_model, d_k=None, d_v=None):
        super().__init__()
        self.d_model = d_model
        self.d_k = d_k if d_k is not None else d_model
        self.d_v = d_v if d_v is not None else d_model
        self.W_q = nn.Linear(d_model, self.d_k, bias=False)
        self.W_k = nn.Linear(d_model, self.d_k, bias=False)
        self.W_v = nn.Linear(d_model, self.d_v, bias=False)
        self.W_o = nn.Linear(self.d_v, d_model, bias=False)

    def forward(self, x):
        Q = self.W_q(x)
        K = self.W_k(x)
        V = self.W_v(x)
        scores = torch.matmul(Q, K.transpose(-2, -1))
        scores = scores / np.sqrt(self.d_k)
        attention_weights = F.softmax(scores, dim=-1)
        attended_values = torch.matmul(attention_weights, V)
        return self.W_o(attended_values), attention_weights


# Per architecture: key -> default (or _REQUIRED), in constructor order. batch_first is accepted
# only as true: attnrt's tensors are (batch, seq, features).
CONFIG_KEYS = {
    "mha": {
        "embed_dim": _REQUIRED, "num_heads": _REQUIRED, "dropout": 0.0, "bias": True,
        "batch_first": True,
    },
    "encoder-layer": {
        "d_model": _REQUIRED, "nhead": _REQUIRED, "dim_feedforward": 2048, "dropout": 0.0,
        "activation": "relu", "layer_norm_eps": 1e-5, "batch_first": True, "norm_first": False,
        "bias": True,
    },
    "self-attention": {"d_model": _REQUIRED, "d_k": None, "d_v": None},
    "single-head": {"embedding_dim": _REQUIRED, "attention_dim": _REQUIRED},
}

# Keys whose value is a positive integer (None allowed where the default is None).
_POSITIVE_INTS = {"embed_dim", "num_heads", "d_model", "nhead", "dim_feedforward", "d_k", "d_v",
                  "embedding_dim", "attention_dim"}
_BOOLS = {"bias", "batch_first", "norm_first"}
_FLOATS = {"dropout", "layer_norm_eps"}
_ACTIVATIONS = ("relu", "gelu")  # gelu is the exact (erf) GELU, F.gelu's default


def resolve_config(arch, config):
    """Checks a config dict for `arch` and returns it with every default filled in.

    Raises ValueError naming the offending key. An "architecture" key, if present, must equal arch
    (export_torch.py writes it into config.json) and is not part of the result.
    """
    if arch not in CONFIG_KEYS:
        raise ValueError(f"unknown architecture {arch!r} (expected one of {', '.join(ARCHITECTURES)})")
    config = dict(config)
    named = config.pop("architecture", arch)
    if named != arch:
        raise ValueError(f"config says architecture {named!r} but --arch is {arch!r}")
    keys = CONFIG_KEYS[arch]
    unknown = sorted(set(config) - set(keys))
    if unknown:
        raise ValueError(f"unknown config key(s) {', '.join(unknown)} for {arch} "
                         f"(allowed: {', '.join(keys)})")
    resolved = {}
    for key, default in keys.items():
        if key not in config and default is _REQUIRED:
            raise ValueError(f"missing required config key {key!r} for {arch}")
        resolved[key] = _check_value(key, config.get(key, default), default)
    _check_combination(arch, resolved)
    return resolved


def _check_value(key, value, default):
    if value is None and default is None:
        return None
    if key in _POSITIVE_INTS:
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise ValueError(f"config key {key!r} must be a positive integer, got {value!r}")
    elif key in _BOOLS:
        if not isinstance(value, bool):
            raise ValueError(f"config key {key!r} must be true or false, got {value!r}")
    elif key in _FLOATS:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise ValueError(f"config key {key!r} must be a finite number, got {value!r}")
        value = float(value)
    elif key == "activation":
        if value not in _ACTIVATIONS:
            raise ValueError(f"config key 'activation' must be one of {_ACTIVATIONS}, got {value!r}")
    return value


def _check_combination(arch, c):
    if "batch_first" in c and c["batch_first"] is not True:
        raise ValueError("config key 'batch_first' must be true: attnrt tensors are (batch, seq, features)")
    if "dropout" in c and not 0.0 <= c["dropout"] < 1.0:
        raise ValueError(f"config key 'dropout' must be in [0, 1), got {c['dropout']!r}")
    if "layer_norm_eps" in c and c["layer_norm_eps"] <= 0.0:
        raise ValueError(f"config key 'layer_norm_eps' must be positive, got {c['layer_norm_eps']!r}")
    heads = {"mha": ("embed_dim", "num_heads"), "encoder-layer": ("d_model", "nhead")}.get(arch)
    if heads and c[heads[0]] % c[heads[1]] != 0:
        raise ValueError(f"{heads[0]} {c[heads[0]]} is not divisible by {heads[1]} {c[heads[1]]}")


def _drop_parameter(module, name):
    """Removes a parameter the way a bias=False constructor leaves it: registered as None."""
    delattr(module, name)
    module.register_parameter(name, None)


def _remove_encoder_biases(layer):
    """torch 1.13's TransformerEncoderLayer has no `bias` argument. Newer torch (2.1+) passes
    bias=False to MultiheadAttention, both Linear layers and both LayerNorms, which leaves
    in_proj_bias, out_proj.bias, linear1.bias, linear2.bias, norm1.bias and norm2.bias as None.
    Here the layer is built with biases and then those six are dropped to None the same way, so
    the state dict has the same keys as newer torch's (the weights keep 1.13's initialisation)."""
    _drop_parameter(layer.self_attn, "in_proj_bias")
    for sub in (layer.self_attn.out_proj, layer.linear1, layer.linear2, layer.norm1, layer.norm2):
        _drop_parameter(sub, "bias")


def build_module(arch, config):
    """A float32 module in eval mode for a resolved config; seed torch before calling."""
    c = config
    if arch == "mha":
        module = nn.MultiheadAttention(c["embed_dim"], c["num_heads"], dropout=c["dropout"],
                                       bias=c["bias"], batch_first=True)
    elif arch == "encoder-layer":
        module = nn.TransformerEncoderLayer(
            c["d_model"], c["nhead"], dim_feedforward=c["dim_feedforward"], dropout=c["dropout"],
            activation=c["activation"], layer_norm_eps=c["layer_norm_eps"], batch_first=True,
            norm_first=c["norm_first"])
        if not c["bias"]:
            _remove_encoder_biases(module)
    elif arch == "self-attention":
        module = SelfAttention(c["d_model"], c["d_k"], c["d_v"])
    elif arch == "single-head":
        module = SingleHeadAttention(c["embedding_dim"], c["attention_dim"])
    else:
        raise ValueError(f"unknown architecture {arch!r}")
    return module.eval()


def perturb_constant_parameters(module, generator, amplitude=0.2):
    """Adds U(-amplitude, amplitude) noise to every 1-D parameter (biases, LayerNorm affine).

    PyTorch initialises MultiheadAttention's biases to 0 and LayerNorm to weight 1, bias 0; a
    converter or runtime that dropped or swapped them would still match on such values."""
    with torch.no_grad():
        for _, p in module.named_parameters():
            if p.dim() == 1:
                noise = torch.rand(p.shape, generator=generator, dtype=p.dtype) * 2 - 1
                p.add_(noise * amplitude)


def model_dim(arch, config):
    """The feature size of the module's input (batch, seq, model_dim)."""
    return config[{"mha": "embed_dim", "encoder-layer": "d_model", "self-attention": "d_model",
                   "single-head": "embedding_dim"}[arch]]


def supports_mask(arch):
    return arch in ("mha", "encoder-layer")


def additive_mask(seq, mask=None, causal=False, dtype=torch.float64):
    """attnrt's mask (None, bool keep-mask or float additive mask, shape (seq, seq)) plus the
    causal rule, as one additive (seq, seq) tensor for torch: 0 where allowed, -inf where not.
    Returns None when there is nothing to mask."""
    if mask is None and not causal:
        return None
    total = torch.zeros(seq, seq, dtype=dtype)
    if mask is not None:
        m = torch.as_tensor(np.asarray(mask))
        if m.dtype == torch.bool:
            total = total.masked_fill(~m, float("-inf"))
        else:
            total = total + m.to(dtype)
    if causal:
        future = torch.ones(seq, seq, dtype=torch.bool).triu(diagonal=1)
        total = total.masked_fill(future, float("-inf"))
    return total


def forward(arch, module, x, mask=None, causal=False):
    """Runs `module` on x (batch, seq, dim) with attnrt's mask semantics; returns (out, weights).

    weights is (batch, heads, seq, seq) for mha (per head, not averaged), (batch, seq, seq) for
    self-attention, and None otherwise. x's dtype sets the compute dtype: call module.double()
    and pass float64 for a float64 reference.

    Autograd stays on because torch 1.13's eval-mode fast paths (taken under no_grad) support
    neither bias-free layers nor some dtypes; the slow path is the documented math.
    """
    if not supports_mask(arch) and mask is not None:
        raise ValueError(f"{arch} takes no mask")
    if arch == "self-attention" and causal:
        raise ValueError("self-attention (seed 003) has no causal option")
    with torch.enable_grad():
        if arch == "mha":
            attn_mask = additive_mask(x.shape[1], mask, causal, x.dtype)
            out, weights = module(x, x, x, attn_mask=attn_mask, need_weights=True,
                                  average_attn_weights=False)
        elif arch == "encoder-layer":
            out, weights = module(x, src_mask=additive_mask(x.shape[1], mask, causal, x.dtype)), None
        elif arch == "self-attention":
            out, weights = module(x)
        else:  # single-head: causal always
            out, weights = module(x), None
    return out.detach(), (weights.detach() if weights is not None else None)
