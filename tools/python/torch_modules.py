"""The PyTorch modules attnrt converts, built from a config dict; shared by tools/python/export_torch.py
and the tests (import this file by path: it needs torch, numpy, the standard library and
attnrt_architectures.py beside it, torchvision for the vit architecture only, imported when a
vit is built, and an attnrt binary to read the architectures from, see below).

Architectures (the `--arch` names of export_torch.py and `attnrt convert`):
  mha             torch.nn.MultiheadAttention, eval mode
  encoder-layer   torch.nn.TransformerEncoderLayer, eval mode
  self-attention  seed 003's SelfAttention: bias-free W_q, W_k, W_v, W_o; returns (out, weights)
  single-head     seed 001's SingleHeadAttention: bias-free query/key/value projections, causal
  encoder         torch.nn.TransformerEncoder(TransformerEncoderLayer(...), num_layers,
                  norm=nn.LayerNorm(d_model, eps=final_norm_eps) if final_norm else None), eval
  vit             torchvision.models.VisionTransformer, eval mode: images (B, 3, H, W) -> logits
  llama           Llama below (llama2.c's model.py / Meta's reference names): token ids (B, T)
                  -> logits (B, T, vocab_size); RMSNorm, RoPE ("interleaved" or "half" pairs),
                  SwiGLU, grouped-query attention, always causal (optionally within
                  Mistral's sliding_window), with an optional KV cache

Config keys are the PyTorch constructor arguments; resolve_config() checks them and fills in the
defaults, build_module() constructs the module, forward() runs it with attnrt's mask semantics.
The architecture names, the keys, their types, which are required or accepted only at their
default ("fixed"), and the defaults are read from the runtime: attnrt's C++ records
(models/src/arch_*.cc) as `attnrt architectures --json` lists them (attnrt_architectures.py;
which attnrt: its use(), $ATTNRT or PATH). What is kept here is what building the PyTorch
modules needs on top (see the config section): the exporter's defaults where they differ
(EXPORT_DEFAULTS: mha and encoder-layer are built batch_first, encoder-layer without dropout,
as before the records existed), keys a module lacks (TORCH_LACKS: seed 003 has no causal
option), the values the modules accept (activations, RoPE styles, ranges) and the checks that
a module can be built (heads divide the width, ...). export_torch.py writes the resolved config
(less the keys that only restate attnrt's defaults, see written_config()), so `attnrt convert`
never relies on a default that differs. Keys attnrt implements only at their default (mha's
add_bias_kv, add_zero_attn, kdim, vdim; vit's representation_size) are accepted at that value
only. is_causal (mha, encoder-layer, encoder) is attnrt's own key: the model applies the causal
rule on every run, so forward() must be called with causal=True for such a module (see
stored_causal()).

Layouts: batch_first true means (batch, seq, features) in and out; false (the default of PyTorch
and of the encoder) means (seq, batch, features), exactly as PyTorch and `attnrt run` take it.

Mask semantics (what `attnrt run --mask` will do, following F.scaled_dot_product_attention, not
nn.MultiheadAttention): a bool mask is a keep-mask, True = this query MAY attend to this key; a
float mask is added to the scaled scores. nn.MultiheadAttention's bool attn_mask means the
opposite (True = masked out), so forward() never hands torch a bool mask: it turns every mask
into the equivalent additive float mask (keep -> 0, drop -> -inf) before calling the module.
Causal is upper-left, as PyTorch's is_causal: query i sees keys j <= i.
The key padding mask (`attnrt run --key-padding-mask`) follows PyTorch's own convention
instead: (batch, seq), bool True = padding (this key is ignored), float = added to the scores of
that key; forward() hands a bool one to the module as its key_padding_mask unchanged.
"""
import json
import math
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)
import attnrt_architectures as runtime  # noqa: E402

REQUIRED = object()  # marks a config key without a default


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


# ---- llama ---------------------------------------------------------------------------------
# The Llama family as llama2.c's model.py (and Meta's reference code) writes it: the same module
# tree, so the same state_dict names, and the same attribute names (n_local_heads,
# n_local_kv_heads, n_rep, head_dim, eps) that export_torch.py reads from a llama2.c Transformer.

ROPE_STYLES = ("interleaved", "half")


class RMSNorm(nn.Module):
    """x * rsqrt(mean(x^2) + eps) * weight, in x's dtype (llama2.c computes in float32 and
    casts back; here the module's dtype is the compute dtype)."""

    def __init__(self, dim, eps):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rope_tables(head_dim, theta, start, length, dtype):
    """(cos, sin), each (length, head_dim / 2): angle (start + t) * freq_i with
    freq_i = 1 / theta^(2i / head_dim), computed in float64 and cast to dtype."""
    freqs = 1.0 / (theta ** (torch.arange(0, head_dim, 2, dtype=torch.float64)[: head_dim // 2]
                             / head_dim))
    t = torch.arange(start, start + length, dtype=torch.float64)
    angles = torch.outer(t, freqs)
    return torch.cos(angles).to(dtype), torch.sin(angles).to(dtype)


def apply_rope(x, cos, sin, style):
    """Rotates x (B, T, heads, head_dim) by position. interleaved (Meta, llama2.c) rotates the
    pairs (x0, x1), (x2, x3), ...; half (GPT-NeoX, Hugging Face rotate_half) rotates
    (x_i, x_{i + head_dim/2}). Pair i turns by angle t * freq_i in both."""
    cos, sin = cos[None, :, None, :], sin[None, :, None, :]
    if style == "interleaved":
        a, b = x[..., 0::2], x[..., 1::2]
        return torch.stack((a * cos - b * sin, a * sin + b * cos), dim=-1).flatten(-2)
    half = x.shape[-1] // 2
    a, b = x[..., :half], x[..., half:]
    return torch.cat((a * cos - b * sin, b * cos + a * sin), dim=-1)


def repeat_kv(x, n_rep):
    """llama2.c's repeat_kv: (B, S, kv_heads, hd) -> (B, S, kv_heads * n_rep, hd); kv head g
    serves query heads g * n_rep ... (g + 1) * n_rep - 1 (torch.repeat_interleave on dim 2)."""
    if n_rep == 1:
        return x
    b, s, kv, hd = x.shape
    return x[:, :, :, None, :].expand(b, s, kv, n_rep, hd).reshape(b, s, kv * n_rep, hd)


class LlamaKVCache:
    """Keys and values of every layer for positions 0 .. max_seq_len - 1, as Meta's reference
    keeps them: per layer (batch, max_seq_len, n_kv_heads, head_dim) tensors, keys after RoPE."""

    def __init__(self, model, batch, dtype=None):
        attention = model.layers[0].attention
        dtype = dtype or model.tok_embeddings.weight.dtype
        shape = (batch, model.max_seq_len, attention.n_local_kv_heads, attention.head_dim)
        self.batch = batch
        self.k = [torch.zeros(shape, dtype=dtype) for _ in model.layers]
        self.v = [torch.zeros(shape, dtype=dtype) for _ in model.layers]


class LlamaAttention(nn.Module):
    """sliding_window W (None: none) is Mistral's: query i sees keys j with 0 <= i - j < W."""

    def __init__(self, dim, n_heads, n_kv_heads, rope_style, sliding_window=None):
        super().__init__()
        self.sliding_window = sliding_window
        self.n_local_heads = n_heads
        self.n_local_kv_heads = n_kv_heads
        self.n_rep = n_heads // n_kv_heads
        self.head_dim = dim // n_heads
        self.rope_style = rope_style
        self.wq = nn.Linear(dim, n_heads * self.head_dim, bias=False)
        self.wk = nn.Linear(dim, n_kv_heads * self.head_dim, bias=False)
        self.wv = nn.Linear(dim, n_kv_heads * self.head_dim, bias=False)
        self.wo = nn.Linear(n_heads * self.head_dim, dim, bias=False)

    def forward(self, x, cos, sin, start_pos=0, cache=None, layer=0):
        b, t, _ = x.shape
        q = self.wq(x).view(b, t, self.n_local_heads, self.head_dim)
        k = self.wk(x).view(b, t, self.n_local_kv_heads, self.head_dim)
        v = self.wv(x).view(b, t, self.n_local_kv_heads, self.head_dim)
        q, k = apply_rope(q, cos, sin, self.rope_style), apply_rope(k, cos, sin, self.rope_style)
        if cache is not None:
            cache.k[layer][:, start_pos:start_pos + t] = k
            cache.v[layer][:, start_pos:start_pos + t] = v
            k, v = cache.k[layer][:, :start_pos + t], cache.v[layer][:, :start_pos + t]
        k, v = repeat_kv(k, self.n_rep), repeat_kv(v, self.n_rep)
        q, k, v = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)  # (B, heads, len, hd)
        # q / sqrt(hd) @ k^T: the scale applied to the (len, hd) queries rather than the
        # (len, len) scores, which halves the elementwise work on scores in training.
        scores = (q * (1.0 / math.sqrt(self.head_dim))) @ k.transpose(2, 3)
        s = k.shape[2]
        # Query start_pos + i sees keys j <= start_pos + i, and with a window W only
        # those with start_pos + i - j < W (keys are at their absolute positions here).
        i = torch.arange(start_pos, start_pos + t)[:, None]
        j = torch.arange(s)[None, :]
        hidden = j > i
        if self.sliding_window is not None:
            hidden |= i - j >= self.sliding_window
        if bool(hidden.any()):
            scores = scores.masked_fill(hidden, float("-inf"))
        out = F.softmax(scores, dim=-1) @ v
        return self.wo(out.transpose(1, 2).reshape(b, t, -1))


class LlamaFeedForward(nn.Module):
    """SwiGLU: w2(silu(w1 x) * w3 x)."""

    def __init__(self, dim, hidden_dim):
        super().__init__()
        self.w1 = nn.Linear(dim, hidden_dim, bias=False)
        self.w2 = nn.Linear(hidden_dim, dim, bias=False)
        self.w3 = nn.Linear(dim, hidden_dim, bias=False)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class LlamaBlock(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.attention = LlamaAttention(c["dim"], c["n_heads"], c["n_kv_heads"], c["rope_style"],
                                        c.get("sliding_window"))
        self.feed_forward = LlamaFeedForward(c["dim"], c["hidden_dim"])
        self.attention_norm = RMSNorm(c["dim"], c["norm_eps"])
        self.ffn_norm = RMSNorm(c["dim"], c["norm_eps"])

    def forward(self, x, cos, sin, start_pos, cache, layer):
        h = x + self.attention(self.attention_norm(x), cos, sin, start_pos, cache, layer)
        return h + self.feed_forward(self.ffn_norm(h))


class Llama(nn.Module):
    """A decoder-only Llama for a resolved "llama" config (see resolve_config). tie_embeddings
    makes output.weight the same Parameter as tok_embeddings.weight (llama2.c always ties;
    export_torch.py then writes tok_embeddings.weight only).

    forward(tokens, start_pos=0, cache=None, last_only=False): tokens (B, T) int64 -> logits
    (B, T, vocab_size) in the weights' dtype ((B, 1, vocab_size) with last_only: only the last
    position's, as llama2.c and attnrt compute them when generating). With a cache
    (new_cache()), the tokens sit at positions start_pos .. start_pos + T - 1 and attend to the
    cached keys before them; start_pos + T may not exceed max_seq_len."""

    def __init__(self, config, tie_embeddings=False):
        super().__init__()
        c = dict(config)
        self.config = c
        self.max_seq_len = c["max_seq_len"]
        self.rope_theta = c["rope_theta"]
        self.tok_embeddings = nn.Embedding(c["vocab_size"], c["dim"])
        self.layers = nn.ModuleList(LlamaBlock(c) for _ in range(c["n_layers"]))
        self.norm = RMSNorm(c["dim"], c["norm_eps"])
        self.output = nn.Linear(c["dim"], c["vocab_size"], bias=False)
        if tie_embeddings:
            self.output.weight = self.tok_embeddings.weight

    def new_cache(self, batch, dtype=None):
        return LlamaKVCache(self, batch, dtype)

    def forward(self, tokens, start_pos=0, cache=None, last_only=False):
        b, t = tokens.shape
        if start_pos < 0 or start_pos + t > self.max_seq_len:
            raise ValueError(f"positions {start_pos} .. {start_pos + t - 1} exceed max_seq_len "
                             f"{self.max_seq_len}")
        if cache is not None and cache.batch != b:
            raise ValueError(f"the cache holds batch {cache.batch}, the tokens {b}")
        h = self.tok_embeddings(tokens)
        cos, sin = rope_tables(self.layers[0].attention.head_dim, self.rope_theta, start_pos, t,
                               h.dtype)
        for i, layer in enumerate(self.layers):
            h = layer(h, cos, sin, start_pos, cache, i)
        return self.output(self.norm(h[:, -1:] if last_only else h))


def llama_generate(model, prompt, max_new_tokens, temperature=0.0, top_k=None, generator=None):
    """Continues each row of prompt (B, P) int64 with a KV cache: one prefill of the prompt, then
    one token per step. temperature 0 is greedy (argmax; the lowest id on an exact tie).
    Returns (tokens (B, max_new_tokens), logits (B, max_new_tokens, vocab)): the logits each new
    token was chosen from."""
    prompt = torch.as_tensor(prompt, dtype=torch.int64)
    if prompt.dim() == 1:
        prompt = prompt[None]
    cache = model.new_cache(prompt.shape[0])
    chosen, logits_seen = [], []
    with torch.no_grad():
        logits = model(prompt, 0, cache, last_only=True)[:, -1]
        pos = prompt.shape[1]
        for step in range(max_new_tokens):
            logits_seen.append(logits)
            if temperature == 0:
                nxt = torch.argmax(logits, dim=-1)
            else:
                scaled = logits.to(torch.float64) / temperature
                if top_k:
                    kth = torch.topk(scaled, min(top_k, scaled.shape[-1]), dim=-1).values[:, -1:]
                    scaled = scaled.masked_fill(scaled < kth, float("-inf"))
                nxt = torch.multinomial(F.softmax(scaled, dim=-1), 1, generator=generator)[:, 0]
            chosen.append(nxt)
            if step + 1 < max_new_tokens:
                logits = model(nxt[:, None], pos, cache, last_only=True)[:, -1]
                pos += 1
    return torch.stack(chosen, dim=1), torch.stack(logits_seen, dim=1)


# ---- config keys: the runtime's, read from `attnrt architectures --json` ------------------
# The names, keys, types, required and fixed keys and defaults are attnrt's records
# (attnrt_architectures.py asks the binary). What is kept here is what building a PyTorch
# module needs on top of them, each with its reason.

# The defaults of a fresh export where they differ from the runtime's, kept from before the
# records existed: mha and encoder-layer modules are built batch_first (PyTorch and attnrt:
# false) and without dropout (encoder-layer's PyTorch default 0.1; ignored in eval anyway).
# export_torch.py writes the resolved value, so `attnrt convert` never relies on either.
EXPORT_DEFAULTS = {"mha": {"batch_first": True},
                   "encoder-layer": {"batch_first": True, "dropout": 0.0}}
# Keys of a record that the PyTorch module has no argument for: seed 003's SelfAttention has
# no causal option, so its config is refused with is_causal (attnrt's record accepts it).
TORCH_LACKS = {"self-attention": {"is_causal"}}
# Keys attnrt's llama accepts and ignores (it derives nothing from them); not written.
_IGNORED = {"llama": {"multiple_of", "dropout"}}
# What the PyTorch modules built here accept beyond the key's type.
_ACTIVATIONS = ("relu", "gelu")  # gelu is the exact (erf) GELU, F.gelu's default
_CHOICES = {"activation": _ACTIVATIONS, "rope_style": ROPE_STYLES}
_PROBABILITIES = {"dropout", "attention_dropout"}
_EPSILONS = {"layer_norm_eps", "final_norm_eps", "norm_eps"}
_HEADS = {"mha": ("embed_dim", "num_heads"), "encoder-layer": ("d_model", "nhead"),
          "encoder": ("d_model", "nhead"), "vit": ("hidden_dim", "num_heads")}
VIT_NORM_EPS = 1e-6  # torchvision's norm_layer default, the only one attnrt's vit implements
VIT_CHANNELS = 3


def architectures():
    """The `--arch` names, in the order of attnrt's records (`attnrt architectures`)."""
    return runtime.names()


def runtime_keys(arch):
    """name -> attnrt_architectures.Key of the keys a config for arch takes: the record's, less
    TORCH_LACKS. ValueError for an unknown architecture."""
    lacks = TORCH_LACKS.get(arch, ())
    return {name: key for name, key in runtime.record(arch).keys.items() if name not in lacks}


def config_keys(arch):
    """name -> default (REQUIRED for a required key) in the record's order: the runtime's
    defaults with EXPORT_DEFAULTS applied."""
    export = EXPORT_DEFAULTS.get(arch, {})
    return {name: REQUIRED if key.required else export.get(name, key.default)
            for name, key in runtime_keys(arch).items()}


def resolve_config(arch, config):
    """Checks a config dict for `arch` and returns it with every default filled in.

    Raises ValueError naming the offending key. An "architecture" key, if present, must equal arch
    (export_torch.py writes it into config.json) and is not part of the result.
    """
    keys = runtime_keys(arch)
    defaults = config_keys(arch)
    config = dict(config)
    named = config.pop("architecture", arch)
    if named != arch:
        raise ValueError(f"config says architecture {named!r} but --arch is {arch!r}")
    unknown = sorted(set(config) - set(keys))
    if unknown:
        raise ValueError(f"unknown config key(s) {', '.join(unknown)} for {arch} "
                         f"(allowed: {', '.join(keys)})")
    resolved = {}
    for name, key in keys.items():
        if config.get(name) is not None:
            resolved[name] = _check_value(key, config[name])
        elif defaults[name] is REQUIRED:
            raise ValueError(f"missing required config key {name!r} for {arch}")
        else:  # absent or null, as `attnrt convert` reads it: the default
            resolved[name] = defaults[name]
    _check_combination(arch, keys, resolved)
    return resolved


def _check_value(key, value):
    """A given (non-null) value against the runtime's type and what the modules accept."""
    name = key.name
    if key.type == "int":
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise ValueError(f"config key {name!r} must be a positive integer, got {value!r}")
    elif key.type == "bool":
        if not isinstance(value, bool):
            raise ValueError(f"config key {name!r} must be true or false, got {value!r}")
    elif key.type == "float":
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise ValueError(f"config key {name!r} must be a finite number, got {value!r}")
        value = float(value)
    elif name in _CHOICES:
        if value not in _CHOICES[name]:
            raise ValueError(f"config key {name!r} must be one of {_CHOICES[name]}, got {value!r}")
    elif not isinstance(value, str):
        raise ValueError(f"config key {name!r} must be a string, got {value!r}")
    return value


def _check_combination(arch, keys, c):
    for name, key in keys.items():
        if not key.fixed or c[name] == key.default:
            continue
        if key.same_as is not None and c[name] == c[key.same_as]:
            continue
        allowed = f"null or {key.same_as}" if key.same_as else json_name(key.default)
        raise ValueError(f"config key {name!r} = {json_name(c[name])} is not supported by attnrt "
                         f"(only {allowed})")
    for name in _PROBABILITIES & set(c):
        if not 0.0 <= c[name] < 1.0:
            raise ValueError(f"config key {name!r} must be in [0, 1), got {c[name]!r}")
    for name in _EPSILONS & set(c):
        if not 0.0 < c[name] < 1.0:
            raise ValueError(f"config key {name!r} must be in (0, 1), got {c[name]!r}")
    heads = _HEADS.get(arch)
    if heads and c[heads[0]] % c[heads[1]] != 0:
        raise ValueError(f"{heads[0]} {c[heads[0]]} is not divisible by {heads[1]} {c[heads[1]]}")
    if arch == "llama":
        _check_llama(c)
    if arch == "vit" and c["image_size"] % c["patch_size"] != 0:
        raise ValueError(f"image_size {c['image_size']} is not divisible by patch_size "
                         f"{c['patch_size']}")


def _check_llama(c):
    if not c["n_kv_heads"]:  # null or the record's 0: as many as the query heads
        c["n_kv_heads"] = c["n_heads"]
    if c["dim"] % c["n_heads"] != 0:
        raise ValueError(f"dim {c['dim']} is not divisible by n_heads {c['n_heads']}")
    if c["n_heads"] % c["n_kv_heads"] != 0:
        raise ValueError(f"n_heads {c['n_heads']} is not divisible by n_kv_heads "
                         f"{c['n_kv_heads']}")
    if (c["dim"] // c["n_heads"]) % 2 != 0:
        raise ValueError(f"the head size dim / n_heads = {c['dim'] // c['n_heads']} must be even "
                         f"(RoPE rotates pairs)")
    if not c["rope_theta"] > 0.0:
        raise ValueError(f"config key 'rope_theta' must be positive, got {c['rope_theta']!r}")


def json_name(value):
    """How a config value is spelled in JSON (for messages)."""
    return json.dumps(value)


def written_config(arch, resolved):
    """The config as export_torch.py writes it into config.json (after "architecture"): the
    resolved config without the keys that only restate attnrt's defaults and that older readers
    do not know: the record's fixed keys (add_bias_kv, add_zero_attn, kdim, vdim,
    representation_size; attnrt records nothing for them either), _IGNORED's, is_causal when
    false and a key left null whose record has no default (sliding_window)."""
    keys = runtime_keys(arch)
    ignored = _IGNORED.get(arch, ())
    return {k: v for k, v in resolved.items()
            if not keys[k].fixed and k not in ignored and not (k == "is_causal" and not v)
            and not (v is None and keys[k].default is None and keys[k].same_as is None)}


def stored_causal(arch, config):
    """True when the converted model applies the causal rule on every run by itself."""
    return arch in ("single-head", "llama") or bool(config.get("is_causal", False))


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


def _encoder_layer(c):
    layer = nn.TransformerEncoderLayer(
        c["d_model"], c["nhead"], dim_feedforward=c["dim_feedforward"], dropout=c["dropout"],
        activation=c["activation"], layer_norm_eps=c["layer_norm_eps"],
        batch_first=c["batch_first"], norm_first=c["norm_first"])
    if not c["bias"]:
        _remove_encoder_biases(layer)
    return layer


def _reinitialise_encoder_layer(layer):
    """PyTorch's TransformerEncoder deep-copies one layer num_layers times, so every layer starts
    with the same weights, and a runtime that ran layer 0's weights num_layers times would match.
    This draws fresh weights (PyTorch's initialisers) for a copy."""
    layer.self_attn._reset_parameters()
    for sub in (layer.linear1, layer.linear2):
        sub.reset_parameters()


def build_module(arch, config):
    """A float32 module in eval mode for a resolved config; seed torch before calling.

    The encoder's layers get distinct weights (see _reinitialise_encoder_layer)."""
    c = config
    if arch == "mha":
        module = nn.MultiheadAttention(c["embed_dim"], c["num_heads"], dropout=c["dropout"],
                                       bias=c["bias"], batch_first=c["batch_first"])
    elif arch == "encoder-layer":
        module = _encoder_layer(c)
    elif arch == "encoder":
        norm = nn.LayerNorm(c["d_model"], eps=c["final_norm_eps"]) if c["final_norm"] else None
        module = nn.TransformerEncoder(_encoder_layer(c), c["num_layers"], norm=norm,
                                       enable_nested_tensor=c["enable_nested_tensor"])
        for layer in module.layers[1:]:
            _reinitialise_encoder_layer(layer)
    elif arch == "vit":
        from torchvision.models import VisionTransformer  # only the vit needs torchvision
        module = VisionTransformer(
            c["image_size"], c["patch_size"], c["num_layers"], c["num_heads"], c["hidden_dim"],
            c["mlp_dim"], dropout=c["dropout"], attention_dropout=c["attention_dropout"],
            num_classes=c["num_classes"], representation_size=None)
    elif arch == "self-attention":
        module = SelfAttention(c["d_model"], c["d_k"], c["d_v"])
    elif arch == "single-head":
        module = SingleHeadAttention(c["embedding_dim"], c["attention_dim"])
    elif arch == "llama":
        module = Llama(c)
    else:
        raise ValueError(f"unknown architecture {arch!r}")
    return module.eval()


def perturb_constant_parameters(module, generator, amplitude=0.2):
    """Adds U(-amplitude, amplitude) noise to every 1-D parameter (biases, LayerNorm affine) and
    to every parameter whose entries are all equal.

    PyTorch initialises MultiheadAttention's biases to 0 and LayerNorm to weight 1, bias 0, and
    torchvision's ViT starts its class token and head weight at 0; a converter or runtime that
    dropped or swapped them would still match on such values."""
    with torch.no_grad():
        for _, p in module.named_parameters():
            flat = p.detach().reshape(-1)
            if p.dim() == 1 or (flat.numel() > 1 and bool((flat == flat[0]).all())):
                noise = torch.rand(p.shape, generator=generator, dtype=p.dtype) * 2 - 1
                p.add_(noise * amplitude)


def model_dim(arch, config):
    """The feature size of a token: the last input dimension (for vit, the hidden size)."""
    return config[{"mha": "embed_dim", "encoder-layer": "d_model", "self-attention": "d_model",
                   "single-head": "embedding_dim", "encoder": "d_model",
                   "vit": "hidden_dim", "llama": "dim"}[arch]]


def input_shape(arch, config, batch, seq):
    """The shape `attnrt run --input` takes (seq is ignored for vit: its images are square)."""
    if arch == "vit":
        return (batch, VIT_CHANNELS, config["image_size"], config["image_size"])
    if arch == "llama":  # token ids (`attnrt run --tokens`)
        return (batch, seq)
    if config.get("batch_first", True):
        return (batch, seq, model_dim(arch, config))
    return (seq, batch, model_dim(arch, config))


def supports_mask(arch):
    """Takes an attention mask and a key padding mask (and the causal rule at run time)."""
    return arch in ("mha", "encoder-layer", "encoder")


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


def _attention_of(arch, module):
    """The (first) nn.MultiheadAttention inside a mha / encoder-layer / encoder module."""
    if arch == "mha":
        return module
    if arch == "encoder-layer":
        return module.self_attn
    return module.layers[0].self_attn


def _torch_masks(arch, module, x, mask, causal, key_padding_mask):
    """(attn_mask, key_padding_mask) for the module's forward from attnrt's conventions.

    A bool key padding mask (True = padding) goes to torch unchanged. A float one is added to
    the scores: torch 1.13 cannot merge a float key padding mask into a float attn_mask, so then
    both are folded into one (batch * heads, seq, seq) additive attn_mask."""
    attention = _attention_of(arch, module)
    seq_axis = 1 if attention.batch_first else 0
    seq, batch = x.shape[seq_axis], x.shape[1 - seq_axis]
    attn_mask = additive_mask(seq, mask, causal, x.dtype)
    if key_padding_mask is None:
        return attn_mask, None
    kpm = torch.as_tensor(np.asarray(key_padding_mask))
    if tuple(kpm.shape) != (batch, seq):
        raise ValueError(f"key padding mask has shape {tuple(kpm.shape)}, expected {(batch, seq)}")
    if kpm.dtype == torch.bool:
        return attn_mask, kpm
    kpm = kpm.to(x.dtype)
    if attn_mask is None:
        return None, kpm
    heads = attention.num_heads
    folded = attn_mask[None, None, :, :] + kpm[:, None, None, :]  # (batch, 1, seq, seq)
    return folded.expand(batch, heads, seq, seq).reshape(batch * heads, seq, seq), None


def forward(arch, module, x, mask=None, causal=False, key_padding_mask=None):
    """Runs `module` on x with attnrt's mask semantics; returns (out, weights).

    x is (batch, seq, dim), or (seq, batch, dim) for a module with batch_first False, or images
    (batch, 3, H, W) for vit. mask is attnrt's (seq, seq) attention mask, causal the upper-left
    rule (pass True for a model converted with is_causal, see stored_causal()), key_padding_mask
    PyTorch's (batch, seq) one (bool True = padding, or float added); masks apply to mha,
    encoder-layer and encoder only.

    weights is (batch, heads, seq, seq) for mha (per head, not averaged), (batch, seq, seq) for
    self-attention, and None otherwise. x's dtype sets the compute dtype: call module.double()
    and pass float64 for a float64 reference. For llama, x is token ids (batch, seq) and out the
    logits (batch, seq, vocab_size) in the module's dtype (always causal, no mask).

    Autograd stays on because torch 1.13's eval-mode fast paths (taken under no_grad) support
    neither bias-free layers nor some dtypes, and TransformerEncoder's nested-tensor path would
    return zeros at padded positions; the slow path is the documented math.
    """
    if not supports_mask(arch) and (mask is not None or key_padding_mask is not None):
        raise ValueError(f"{arch} takes no mask")
    if arch in ("self-attention", "vit") and causal:
        raise ValueError(f"{arch} has no causal option")
    if arch == "llama":  # token ids in, logits out; always causal
        with torch.no_grad():
            return module(torch.as_tensor(x, dtype=torch.int64)).detach(), None
    with torch.enable_grad():
        if supports_mask(arch):
            attn_mask, kpm = _torch_masks(arch, module, x, mask, causal, key_padding_mask)
        if arch == "mha":
            out, weights = module(x, x, x, attn_mask=attn_mask, key_padding_mask=kpm,
                                  need_weights=True, average_attn_weights=False)
        elif arch == "encoder-layer":
            out, weights = module(x, src_mask=attn_mask, src_key_padding_mask=kpm), None
        elif arch == "encoder":
            out, weights = module(x, mask=attn_mask, src_key_padding_mask=kpm), None
        elif arch == "self-attention":
            out, weights = module(x)
        else:  # single-head (causal always) and vit
            out, weights = module(x), None
    return out.detach(), (weights.detach() if weights is not None else None)
