# Float64 PyTorch reference for scaled dot-product attention, with attnrt's semantics.
"""sdpa_reference(q, k, v, ...) -> (out, weights) as float64 numpy arrays.

torch 1.13 (Debian's) has no F.scaled_dot_product_attention, so this spells out
the math path -- matmul, scale, masks, softmax, matmul -- in float64, with the
choices attnrt documents on top of PyTorch's semantics:
  * leading dims are none, (B) or (B, H), broadcast right-aligned as torch.matmul;
  * grouped-query attention: query head h uses key/value head h // (Hq / Hkv);
  * a mask and a causal rule may be combined (a key must pass both);
  * a query row that may attend to no key gives zeros (PyTorch gives NaN);
  * per-score variants, with d = diag(i) - j and diag(i) = i (none, upper-left) or
    i + S - L (lower-right): window W keeps keys with 0 <= d < W; ALiBi adds
    slope[h] * (j - diag(i)); softcap C maps s to C * tanh(s / C) after scaling and
    before masks and biases; a sink logit per head joins the softmax denominator
    (an extra column whose weight is dropped). A dead row stays zeros with a sink.
"""
import math

import numpy as np
import torch

CAUSAL_KINDS = ("none", "upper-left", "lower-right")


def _as_rank4(t):
    """Pads a (..., rows, cols) tensor on the left to (B, H, rows, cols)."""
    while t.dim() < 4:
        t = t.unsqueeze(0)
    return t


def _broadcast_heads(k, v, q_heads):
    """Brings key and value to q_heads heads: torch broadcasting, then GQA repetition."""
    kv_heads = max(k.shape[1], v.shape[1])
    for name, t in (("key", k), ("value", v)):
        if t.shape[1] not in (1, kv_heads):
            raise ValueError(f"{name} has {t.shape[1]} heads, other side has {kv_heads}")
    if kv_heads == 0 or q_heads % kv_heads != 0:
        raise ValueError(f"query heads {q_heads} not a multiple of kv heads {kv_heads}")
    group = q_heads // kv_heads
    k = k.expand(k.shape[0], kv_heads, *k.shape[2:])
    v = v.expand(v.shape[0], kv_heads, *v.shape[2:])
    if group > 1:
        k = k.repeat_interleave(group, dim=1)
        v = v.repeat_interleave(group, dim=1)
    return k, v


def allowed_by_causal(causal, q_len, kv_len):
    """(L, S) bool: True where the causal rule lets query i see key j."""
    ones = torch.ones(q_len, kv_len, dtype=torch.bool)
    if causal == "none":
        return ones
    if causal == "upper-left":
        return torch.tril(ones, diagonal=0)
    if causal == "lower-right":
        return torch.tril(ones, diagonal=kv_len - q_len)
    raise ValueError(f"unknown causal kind {causal!r}")


def diagonal_keys(causal, q_len, kv_len):
    """(L, 1) float64: diag(i), the key the causal rule aligns with query i."""
    offset = kv_len - q_len if causal == "lower-right" else 0
    return (torch.arange(q_len, dtype=torch.float64) + offset).unsqueeze(1)


def sdpa_reference(q, k, v, mask=None, causal="none", scale=None, window=0, alibi_slopes=None,
                   softcap=None, sinks=None):
    """Returns (out, weights) in float64.

    q (..., L, E), k (..., S, E), v (..., S, Ev) are numpy arrays (any float dtype);
    mask is None, a bool array (True = may attend) or a float array (added to the
    scaled scores), broadcastable to (..., L, S). scale defaults to 1/sqrt(E).
    out has shape (..., L, Ev) and weights (..., L, S), with the highest input rank.
    """
    out_rank = max(q.ndim, k.ndim, v.ndim)
    tq, tk, tv = (_as_rank4(torch.from_numpy(np.asarray(a, dtype=np.float64))) for a in (q, k, v))
    q_heads = tq.shape[1] if tq.shape[1] != 1 else max(tk.shape[1], tv.shape[1])
    tk, tv = _broadcast_heads(tk, tv, q_heads)
    q_len, qk_dim = tq.shape[-2], tq.shape[-1]
    kv_len = tk.shape[-2]
    if scale is None:
        scale = 1.0 / math.sqrt(qk_dim) if qk_dim > 0 else 1.0

    scores = torch.matmul(tq, tk.transpose(-2, -1)) * scale
    if softcap:
        scores = softcap * torch.tanh(scores / softcap)
    allowed = allowed_by_causal(causal, q_len, kv_len)
    diag = diagonal_keys(causal, q_len, kv_len)
    distance = diag - torch.arange(kv_len, dtype=torch.float64).unsqueeze(0)  # d = diag(i) - j
    if window:
        allowed = allowed & (distance < window)
    if mask is not None:
        tm = torch.from_numpy(np.asarray(mask))
        if tm.dtype == torch.bool:
            allowed = allowed & tm
        else:
            scores = scores + tm.to(torch.float64)
    if alibi_slopes is not None:
        slopes = torch.from_numpy(np.asarray(alibi_slopes, dtype=np.float64)).reshape(1, -1, 1, 1)
        scores = scores + slopes * (-distance)
    scores = scores.masked_fill(~allowed, -math.inf)
    # Rows with no finite score are "dead": softmax would give NaN there.
    dead = torch.isneginf(scores).all(dim=-1, keepdim=True)
    scores = scores.masked_fill(dead, 0.0)
    if sinks is not None:
        sink = torch.from_numpy(np.asarray(sinks, dtype=np.float64)).reshape(1, -1, 1, 1)
        sink = sink.expand(*scores.shape[:-1], 1)
        weights = torch.softmax(torch.cat([scores, sink], dim=-1), dim=-1)[..., :-1]
    else:
        weights = torch.softmax(scores, dim=-1)
    weights = weights.masked_fill(dead, 0.0)
    out = torch.matmul(weights, tv)

    def trim(t):
        # Leading dims added by padding to rank 4 are all 1 after broadcasting.
        return t.reshape(t.shape[4 - out_rank:]).numpy()

    return trim(out), trim(weights)
