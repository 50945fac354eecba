#!/usr/bin/python3
# Parity of every `attnrt sdpa` kernel with a float64 PyTorch reference, plus its error paths.
"""Usage: sdpa_parity_test.py --attnrt PATH [--seed N] [--cases N] [--threads 1,2]

First checks the float64 reference (sdpa_reference.py) against PyTorch's own SDPA
where their semantics overlap. Then runs directed cases (ranks, tile-edge sizes,
long key sequences, GQA, broadcasting, every mask kind and broadcast shape, causal
rules, dead rows, custom scale, huge logits) and --cases random ones through every
kernel `attnrt kernels` lists, with --threads 1 and 2 (or the --threads list: cross
builds under qemu pass 2 alone), with and without
--weights-out where the kernel can return weights. A run passes when
max|attnrt - ref| <= 1e-4 * max(1, max|ref|) for the output and the weights.
Last, checks that bad inputs fail with a telling message instead of a crash.

Prints one line per failing check, the largest relative error per kernel, and
`N passed, M failed`; exits 1 if any failed, 77 (CTest skip) without torch.
"""
import argparse
import dataclasses
import os
import re
import sys
import tempfile

from script_setup import skip_without_modules

with skip_without_modules():
    import numpy as np
    import torch
    import torch.nn.functional as F

from attnrt_cli import list_kernels, max_abs_error, run_sdpa, write_npy  # noqa: E402
from sdpa_reference import sdpa_reference  # noqa: E402

RELATIVE_TOLERANCE = 1e-4
# Sizes on both sides of the 32/64/128-wide tiles and vector widths, plus odd primes.
EDGE_SIZES = (1, 2, 3, 5, 7, 13, 17, 31, 32, 33, 63, 64, 65, 127, 129)
# Keeps each random case small: B * Hq * L * S * (E + Ev) stays under this.
MAX_RANDOM_WORK = 250_000
# Score standard deviation of the huge-logit cases.
HUGE_LOGIT = 1e4
# At |score| ~ 1e4 float32 resolves scores only to ~1e-3, so weights of two keys
# whose scores nearly tie are not reproducible to 1e-4 by any float32 kernel. Huge
# logit cases are therefore drawn so that each row's best key leads by this much.
HUGE_LOGIT_MIN_GAP = 30.0


@dataclasses.dataclass
class Case:
    label: str
    q: tuple
    k: tuple
    v: tuple
    mask_kind: str = None     # None, "bool" or "float"
    mask_shape: tuple = None
    causal: str = "none"
    scale: float = None
    huge_logits: bool = False
    dead_rows: bool = False   # mask some query rows out completely
    masked_key_prefix: int = 0  # mask keys [0, n) out for every row
    # Non-finite inputs: (tensor "q"/"k"/"v"/"mask", numpy index, value) written after
    # drawing; PyTorch turns a NaN or +inf score into a NaN row and propagates V's NaN.
    poison: tuple = ()
    # Per-score variants (--window, --alibi-slopes, --softcap, --sinks): slopes and
    # sinks are drawn per query head when set; alibi_scale scales the ALiBi series.
    window: int = 0
    alibi: bool = False
    alibi_scale: float = 0.1
    softcap: float = None
    sinks: bool = False
    sink_offset: float = 0.0

    def variant_tags(self):
        """Which per-score variants the case uses (for the per-variant counts)."""
        tags = [name for name, on in (("window", self.window), ("alibi", self.alibi),
                                      ("softcap", self.softcap), ("sinks", self.sinks)) if on]
        return tags

    def describe(self):
        parts = [self.label, f"q{self.q} k{self.k} v{self.v}"]
        if self.window:
            parts.append(f"window {self.window}")
        if self.alibi:
            parts.append(f"alibi x{self.alibi_scale}")
        if self.softcap:
            parts.append(f"softcap {self.softcap}")
        if self.sinks:
            parts.append(f"sinks +{self.sink_offset}")
        if self.mask_kind:
            parts.append(f"mask {self.mask_kind}{self.mask_shape}")
        if self.causal != "none":
            parts.append(f"causal {self.causal}")
        if self.scale is not None:
            parts.append(f"scale {self.scale}")
        if self.huge_logits:
            parts.append("huge logits")
        if self.dead_rows:
            parts.append("dead rows")
        if self.masked_key_prefix:
            parts.append(f"first {self.masked_key_prefix} keys masked")
        for name, index, value in self.poison:
            parts.append(f"{name}{list(index)} = {value}")
        return ", ".join(parts)


def directed_cases():
    cases = [
        Case("rank 2", (7, 16), (7, 16), (7, 16)),
        Case("E != Ev", (5, 33), (9, 33), (9, 7)),
        Case("L > S", (65, 8), (31, 8), (31, 12)),
        Case("L < S", (3, 16), (129, 16), (129, 5)),
        Case("rank 3", (3, 33, 32), (3, 63, 32), (3, 63, 17)),
        Case("rank 4", (2, 3, 31, 64), (2, 3, 32, 64), (2, 3, 32, 65)),
        Case("all ones", (1, 1), (1, 1), (1, 1)),
        Case("single key", (1, 3), (1, 3), (1, 1)),
        # Zero sizes (DESIGN.md: edges 0/1/2). S = 0 leaves every row dead (zeros);
        # E = 0 makes every score 0 (attnrt's scale is 1 there), so weights are uniform.
        Case("no queries", (2, 0, 8), (2, 5, 8), (2, 5, 3)),
        Case("no keys", (2, 4, 8), (2, 0, 8), (2, 0, 3)),
        Case("no keys causal", (2, 4, 8), (2, 0, 8), (2, 0, 3), causal="lower-right"),
        Case("E = 0", (3, 0), (4, 0), (4, 5)),
        Case("Ev = 0", (3, 4), (4, 4), (4, 0)),
        Case("GQA 6/2", (2, 6, 17, 16), (2, 2, 23, 16), (2, 2, 23, 8)),
        Case("GQA 8/1", (1, 8, 13, 32), (1, 1, 13, 32), (1, 1, 13, 32)),
        # 3-D inputs broadcast their leading dim as a batch (torch.matmul): 6 against 1.
        Case("rank 3 kv batch 1", (6, 9, 8), (1, 11, 8), (1, 11, 4)),
        Case("GQA 6/2 causal", (1, 6, 33, 8), (1, 2, 33, 8), (1, 2, 33, 8), causal="upper-left"),
        Case("kv batch 1", (3, 2, 11, 8), (1, 2, 11, 8), (1, 2, 11, 8)),
        Case("q batch 1", (1, 2, 5, 8), (3, 2, 7, 8), (3, 2, 7, 8)),
        Case("q single head", (2, 1, 5, 8), (2, 4, 7, 8), (2, 4, 7, 8)),
        Case("rank 2 q, rank 4 kv", (5, 8), (2, 3, 7, 8), (2, 3, 7, 4)),
        Case("rank 3 q, rank 4 kv", (3, 5, 8), (2, 3, 7, 8), (2, 3, 7, 4)),
        Case("k heads 1, v heads 2", (2, 4, 5, 8), (2, 1, 9, 8), (2, 2, 9, 3)),
    ]
    # Tile edges: L and S straddle 32/64/128 while E walks its own edges.
    pairs = [(1, 129), (2, 127), (3, 65), (31, 64), (32, 63), (33, 33), (63, 32), (64, 31),
             (65, 3), (127, 2), (129, 1), (13, 17), (64, 64)]
    dims = (1, 2, 3, 31, 32, 33, 63, 64, 65, 7, 17, 5, 129)
    for i, (L, S) in enumerate(pairs):
        E, Ev = dims[i % len(dims)], dims[(i + 5) % len(dims)]
        lead = () if i % 2 == 0 else (2,)
        cases.append(Case(f"tile edge {i}", lead + (L, E), lead + (S, E), lead + (S, Ev)))
        cases.append(Case(f"tile edge causal {i}", lead + (L, E), lead + (S, E), lead + (S, Ev),
                          causal=("upper-left", "lower-right")[i % 2]))
    # Every mask kind against every broadcast shape, for scores (B=2, H=3, L=13, S=19).
    B, H, L, S = 2, 3, 13, 19
    for kind in ("bool", "float"):
        for shape in ((L, S), (1, L, S), (B, 1, L, S), (B, H, L, S), (S,), (1, S),
                      (H, L, S), (1, 1, L, S), (B, H, 1, S), (L, 1), (H, 1, S)):
            cases.append(Case("mask broadcast", (B, H, L, 16), (B, H, S, 16), (B, H, S, 10),
                              mask_kind=kind, mask_shape=shape))
    # Causal rules, alone and with masks, L < S, L == S, L > S (lower-right: dead rows).
    for causal in ("upper-left", "lower-right"):
        for L, S in ((5, 33), (32, 32), (33, 5), (65, 64), (7, 1)):
            cases.append(Case("causal", (2, L, 8), (2, S, 8), (2, S, 6), causal=causal))
            for kind in ("bool", "float"):
                cases.append(Case("causal + mask", (2, L, 8), (2, S, 8), (2, S, 6),
                                  causal=causal, mask_kind=kind, mask_shape=(L, S)))
    # Query rows that may attend to no key at all.
    cases += [
        Case("dead rows", (2, 31, 8), (2, 33, 8), (2, 33, 4), mask_kind="bool",
             mask_shape=(2, 31, 33), dead_rows=True),
        Case("dead rows", (2, 31, 8), (2, 33, 8), (2, 33, 4), mask_kind="float",
             mask_shape=(31, 33), dead_rows=True),
        Case("dead rows GQA", (1, 4, 9, 8), (1, 2, 65, 8), (1, 2, 65, 4), mask_kind="bool",
             mask_shape=(1, 4, 9, 65), dead_rows=True, causal="lower-right"),
        Case("dead rows + causal", (70, 8), (64, 8), (64, 3), mask_kind="float",
             mask_shape=(70, 64), dead_rows=True, causal="lower-right"),
        Case("all keys masked", (2, 9, 8), (2, 12, 8), (2, 12, 5), mask_kind="bool",
             mask_shape=(12,), dead_rows=True),
        Case("all keys masked", (2, 9, 8), (2, 12, 8), (2, 12, 5), mask_kind="float",
             mask_shape=(1, 12), dead_rows=True),
    ]
    # Long key sequences: split-key (KV-cache decode) kernels cut S into blocks of
    # about 1024 keys and merge them; cover the cuts, dead blocks and GQA groups.
    cases += [
        Case("long keys", (1, 1, 64), (1, 1025, 64), (1, 1025, 32)),
        Case("long keys", (2, 1, 16), (2, 1023, 16), (2, 1023, 16)),
        Case("long keys GQA 4", (2, 8, 1, 16), (2, 2, 2049, 16), (2, 2, 2049, 8),
             causal="lower-right"),
        Case("long keys GQA 3", (1, 6, 3, 8), (1, 2, 1024, 8), (1, 2, 1024, 5),
             mask_kind="float", mask_shape=(1, 6, 3, 1024)),
        Case("long keys GQA 8", (1, 8, 2, 8), (1, 1, 2048, 8), (1, 1, 2048, 8),
             mask_kind="bool", mask_shape=(2, 2048)),
        Case("long keys causal", (1, 4, 5, 8), (1, 4, 3000, 8), (1, 4, 3000, 8),
             causal="upper-left"),
        Case("long keys causal", (7, 8), (1030, 8), (1030, 3), causal="lower-right"),
        Case("long keys dead block", (2, 2, 2, 8), (2, 2, 2100, 8), (2, 2, 2100, 4),
             mask_kind="bool", mask_shape=(2100,), masked_key_prefix=1100),
        Case("long keys dead blocks", (1, 3, 1, 8), (1, 3, 2049, 8), (1, 3, 2049, 8),
             mask_kind="float", mask_shape=(1, 2049), masked_key_prefix=2048),
        Case("long keys dead rows", (1, 2, 4, 8), (1, 2, 1500, 8), (1, 2, 1500, 8),
             mask_kind="bool", mask_shape=(4, 1500), dead_rows=True, causal="lower-right"),
        Case("long keys huge logits", (1, 2, 1, 16), (1, 2, 2048, 16), (1, 2, 2048, 8),
             huge_logits=True),
    ]
    # Custom scales, including 0 (uniform weights) and negative ones.
    for scale in (0.05, 1.0, 2.5, 0.0, -0.5):
        cases.append(Case("scale", (2, 17, 16), (2, 23, 16), (2, 23, 9), scale=scale))
    cases.append(Case("scale + mask", (2, 17, 16), (2, 23, 16), (2, 23, 9), scale=3.0,
                      mask_kind="float", mask_shape=(17, 23), causal="upper-left"))
    # Non-finite inputs. A NaN or +inf score of a key the row may attend makes the row
    # NaN (max NaN, or exp(inf - inf)); a key of -inf elements scores NaN (its products
    # have both signs); -inf weighs 0; a NaN in V reaches every row that attends its key.
    # (V's NaN at a key a row may not attend reaches that row in PyTorch's math path, as
    # 0 * NaN, but not through kernels that skip masked tiles -- PyTorch's flash kernel
    # among them -- so no case puts one there.) Sizes cross flash tiles and decode splits.
    nan, inf = float("nan"), float("inf")
    cases += [
        Case("non-finite", (2, 3, 7, 8), (2, 3, 9, 8), (2, 3, 9, 5), poison=(("q", (0, 1, 2, 3), nan),)),
        Case("non-finite", (1, 2, 5, 8), (1, 2, 7, 8), (1, 2, 7, 8), causal="lower-right",
             poison=(("k", (0, 1, 2, 0), inf),)),
        Case("non-finite", (1, 2, 5, 8), (1, 2, 7, 8), (1, 2, 7, 8), causal="upper-left",
             poison=(("k", (0, 0, 3, slice(None)), -inf), ("k", (0, 1, 1, 4), nan))),
        Case("non-finite", (2, 6, 16), (2, 9, 16), (2, 9, 4), poison=(("v", (1, 0, 3), nan),)),
        Case("non-finite", (2, 6, 16), (2, 9, 16), (2, 9, 4), poison=(("v", (0, 4, 1), inf),)),
        Case("non-finite", (1, 2, 70, 16), (1, 2, 200, 16), (1, 2, 200, 16), causal="upper-left",
             poison=(("q", (0, 1, 65, 0), nan), ("k", (0, 0, 150, 2), inf))),
        Case("non-finite", (1, 4, 1, 16), (1, 4, 2100, 16), (1, 4, 2100, 8), causal="lower-right",
             poison=(("k", (0, 2, 1500, 5), nan), ("v", (0, 3, 2099, 0), nan))),
        Case("non-finite", (6, 10), (8, 10), (8, 3), mask_kind="float", mask_shape=(6, 8),
             poison=(("mask", (2, 5), nan), ("mask", (4, slice(None)), -inf),
                     ("mask", (1, slice(None)), -inf), ("mask", (1, 3), nan))),
    ]
    # Finite scores and mask values, however negative, follow PyTorch's softmax; only
    # -inf (and False, and the causal rule) masks a key (issue 17 item 6: kernels once
    # took anything <= -1e30 as masked). float32's lowest value is Hugging Face's padding.
    # Rows of it are uniform in float32 (score + lowest == lowest); the float64 reference
    # keeps the scores apart, so those rows get q = 0 (equal scores) to agree.
    low, every = float(np.finfo(np.float32).min), slice(None)
    cases += [
        Case("lowest-float mask", (6, 16), (65, 16), (65, 8), mask_kind="float",
             mask_shape=(6, 65),
             poison=(("mask", (1, every), low), ("q", (1, every), 0.0),
                     ("mask", (2, every), low), ("mask", (2, 5), 0.0),
                     ("mask", (3, every), -inf), ("mask", (3, slice(0, 40)), low),
                     ("q", (3, every), 0.0),
                     ("mask", (4, slice(10, 20)), low), ("mask", (5, every), -inf))),
        Case("lowest-float mask", (1, 2, 3, 16), (1, 2, 2100, 16), (1, 2, 2100, 8),
             mask_kind="float", mask_shape=(3, 2100), causal="lower-right",
             poison=(("mask", (0, every), low), ("q", (0, every, 0, every), 0.0),
                     ("mask", (1, every), low), ("mask", (1, 1500), 0.0),
                     ("mask", (2, slice(0, 1024)), -inf), ("mask", (2, slice(1024, None)), low),
                     ("q", (0, every, 2, every), 0.0))),
        # Every score finite and below -1e30: Q = 1e31 against negative keys picks the
        # best key (the reproduction), equal scores give a uniform row.
        Case("huge negative logits", (1, 1), (3, 1), (3, 2),
             poison=(("q", (0, 0), 1e31), ("k", (0, 0), -1.0), ("k", (1, 0), -1.5),
                     ("k", (2, 0), -2.0))),
        Case("huge negative logits", (1, 2, 70, 4), (1, 2, 2100, 4), (1, 2, 2100, 8),
             poison=(("q", (0, every, every, every), 0.0), ("q", (0, every, every, 0), 1e31),
                     ("k", (0, every, every, every), 0.0), ("k", (0, every, every, 0), -1.0),
                     ("k", (0, 0, 1700, 0), -0.5), ("k", (0, 0, 3, 0), -0.75))),
    ]
    # |score| about 1e4 on both signs.
    cases += [
        Case("huge logits", (2, 33, 16), (2, 65, 16), (2, 65, 8), huge_logits=True),
        Case("huge logits", (1, 2, 64, 32), (1, 2, 64, 32), (1, 2, 64, 7), huge_logits=True,
             causal="upper-left"),
        Case("huge logits", (3, 129, 8), (3, 31, 8), (3, 31, 8), huge_logits=True,
             mask_kind="bool", mask_shape=(129, 31), causal="lower-right"),
    ]
    return cases


def variant_cases():
    """Window, ALiBi, softcap and sinks, alone and combined with masks, GQA, E != Ev and
    every causal kind, across tile edges (64 keys), decode splits (1024 keys) and
    non-finite inputs. Modest counts: the suite also runs under qemu."""
    every = slice(None)
    cases = []
    for causal in ("upper-left", "lower-right"):
        for window in (1, 64, 65):
            cases.append(Case("window", (1, 2, 65, 16), (1, 2, 130, 16), (1, 2, 130, 24),
                              causal=causal, window=window))
    cases += [
        Case("alibi", (2, 4, 33, 16), (2, 2, 70, 16), (2, 2, 70, 8), alibi=True),
        Case("alibi negative slopes", (1, 3, 64, 8), (1, 3, 64, 8), (1, 3, 64, 8),
             alibi=True, alibi_scale=-0.05, causal="lower-right"),
        Case("softcap", (1, 2, 63, 16), (1, 2, 65, 16), (1, 2, 65, 16), softcap=2.0,
             huge_logits=False),
        Case("sinks", (2, 2, 31, 8), (2, 2, 129, 8), (2, 2, 129, 5), sinks=True),
        Case("sinks, dead rows", (1, 2, 40, 8), (1, 2, 70, 8), (1, 2, 70, 8), sinks=True,
             mask_kind="bool", mask_shape=(1, 2, 40, 70), dead_rows=True),
        Case("sink far above the scores", (1, 1, 9, 8), (1, 1, 20, 8), (1, 1, 20, 8), sinks=True,
             sink_offset=12.0),
        Case("all four, float mask, GQA", (2, 4, 70, 24), (2, 2, 37, 24), (2, 2, 37, 40),
             causal="lower-right", window=20, alibi=True, softcap=5.0, sinks=True,
             mask_kind="float", mask_shape=(2, 1, 70, 37)),
        Case("all four, bool mask", (1, 2, 65, 16), (1, 2, 130, 16), (1, 2, 130, 16),
             causal="upper-left", window=64, alibi=True, softcap=3.0, sinks=True,
             mask_kind="bool", mask_shape=(65, 130)),
        Case("decode window across splits", (1, 4, 1, 32), (1, 2, 2100, 32), (1, 2, 2100, 16),
             causal="lower-right", window=1025, alibi=True, sinks=True),
        Case("decode softcap over splits", (1, 2, 3, 16), (1, 2, 2049, 16), (1, 2, 2049, 16),
             causal="upper-left", softcap=4.0, sinks=True),
        Case("window lower-right L > S", (1, 1, 100, 8), (1, 1, 30, 8), (1, 1, 30, 8),
             causal="lower-right", window=5, sinks=True),
        Case("non-finite keys, softcap", (1, 1, 20, 8), (1, 1, 40, 8), (1, 1, 40, 8), softcap=3.0,
             causal="upper-left", poison=(("k", (0, 0, 5, 0), np.inf), ("k", (0, 0, 9, 1), -np.inf))),
        Case("NaN key outside most windows", (1, 1, 70, 8), (1, 1, 70, 8), (1, 1, 70, 8),
             causal="upper-left", window=4, alibi=True, poison=(("k", (0, 0, 10, every), np.nan),)),
    ]
    return cases


def random_case(rng, index):
    """A random case of rank 2-4 with GQA, broadcasting, masks and causal rules mixed in."""
    while True:
        rank = int(rng.integers(2, 5))
        L, S = (int(rng.choice(EDGE_SIZES)) for _ in range(2))
        E, Ev = (int(rng.choice(EDGE_SIZES[:-2])) for _ in range(2))
        B = int(rng.integers(1, 4)) if rank == 4 else 1
        kv_heads = int(rng.integers(1, 4)) if rank >= 3 else 1
        q_heads = kv_heads * int(rng.choice((1, 1, 2, 3))) if rank == 4 else kv_heads
        if B * q_heads * L * S * (E + Ev) <= MAX_RANDOM_WORK:
            break
    lead_q = (B, q_heads)[4 - rank:] if rank > 2 else ()
    lead_kv = (B, kv_heads)[4 - rank:] if rank > 2 else ()
    if rank == 4 and B > 1 and rng.random() < 0.3:
        lead_kv = (1, kv_heads)  # key/value shared across the batch
    case = Case(f"random {index}", lead_q + (L, E), lead_kv + (S, E), lead_kv + (S, Ev))
    case.causal = str(rng.choice(("none", "none", "upper-left", "lower-right")))
    if rng.random() < 0.6:
        case.mask_kind = str(rng.choice(("bool", "float")))
        full = lead_q + (L, S)
        # Each dim either kept or broadcast (1), and sometimes fewer leading dims.
        shape = tuple(d if rng.random() < 0.6 else 1 for d in full)
        case.mask_shape = shape[int(rng.integers(0, len(shape))):] if rng.random() < 0.3 else shape
        case.dead_rows = rng.random() < 0.2
    if rng.random() < 0.2:
        case.scale = float(np.round(rng.uniform(-1.0, 3.0), 3))
    return case


def make_mask(rng, case, q_len):
    """The mask array for `case`; with dead_rows, some query rows allow no key."""
    shape = case.mask_shape
    blocked = False if case.mask_kind == "bool" else -np.inf
    if case.mask_kind == "bool":
        mask = rng.random(shape) < 0.7
    else:
        mask = rng.standard_normal(shape).astype(np.float32) * 2.0
        mask[rng.random(shape) < 0.1] = blocked
    if case.dead_rows:
        if len(shape) >= 2 and shape[-2] == q_len and q_len > 1:
            rows = rng.choice(q_len, size=max(1, q_len // 4), replace=False)
            mask[..., rows, :] = blocked
        else:
            mask[...] = blocked  # (S,)-like masks: every row is dead
    if case.masked_key_prefix:
        mask[..., :case.masked_key_prefix] = blocked
    return mask


def q_heads_of(case):
    """Query heads as attnrt binds them: dim -3 of the padded rank-4 query (1 for rank 2)."""
    return case.q[-3] if len(case.q) >= 3 else 1


def make_variant_inputs(rng, case):
    """(slopes, sinks) float32 arrays of shape (Hq,), or None where the case has none."""
    heads = q_heads_of(case)
    slopes = sinks = None
    if case.alibi:
        slopes = (case.alibi_scale * 2.0 ** (-8.0 * np.arange(1, heads + 1) / heads)).astype(np.float32)
    if case.sinks:
        sinks = (rng.standard_normal(heads) * 2.0 + case.sink_offset).astype(np.float32)
    return slopes, sinks


def make_inputs(rng, case):
    """(q, k, v, mask) float32 arrays for the case (mask None or bool/float32)."""
    factor = np.float32(np.sqrt(HUGE_LOGIT)) if case.huge_logits else np.float32(1.0)
    for _ in range(100):
        q = rng.standard_normal(case.q).astype(np.float32) * factor
        k = rng.standard_normal(case.k).astype(np.float32) * factor
        v = rng.standard_normal(case.v).astype(np.float32)
        mask = make_mask(rng, case, case.q[-2]) if case.mask_kind else None
        if not case.huge_logits or _best_key_leads(q, k, v, mask, case):
            arrays = {"q": q, "k": k, "v": v, "mask": mask}
            for name, index, value in case.poison:
                arrays[name][index] = value
            return q, k, v, mask
    raise RuntimeError(f"could not draw a huge-logit case without near ties: {case.describe()}")


def _best_key_leads(q, k, v, mask, case):
    """True when, in every row that may attend at all, the best key's weight is at
    least exp(HUGE_LOGIT_MIN_GAP) times the runner-up's (their scores differ by the gap)."""
    _, weights = sdpa_reference(q, k, v, mask=mask, causal=case.causal, scale=case.scale)
    if weights.shape[-1] < 2:
        return True
    top2 = np.sort(weights, axis=-1)[..., -2:]
    best, second = top2[..., 1], top2[..., 0]
    live = best > 0
    return bool(np.all(second[live] <= best[live] * np.exp(-HUGE_LOGIT_MIN_GAP)))


def torch_builtin_output(q, k, v, mask, is_causal):
    """PyTorch's own SDPA output in float64, or None when this torch has none.

    torch >= 2.0 has F.scaled_dot_product_attention; Debian's 1.13 only the private
    F._scaled_dot_product_attention (bool masks, default scale, no GQA)."""
    tq, tk, tv = (torch.from_numpy(np.asarray(a, dtype=np.float64)) for a in (q, k, v))
    tm = None if mask is None else torch.from_numpy(mask)
    if hasattr(F, "scaled_dot_product_attention"):
        return F.scaled_dot_product_attention(tq, tk, tv, attn_mask=tm, is_causal=is_causal).numpy()
    if hasattr(F, "_scaled_dot_product_attention"):
        return F._scaled_dot_product_attention(tq, tk, tv, tm, 0.0, False, is_causal)[0].numpy()
    return None


def check_reference_against_torch(rng, tally):
    """The float64 reference must agree with PyTorch's own SDPA where their semantics
    overlap (no GQA, no dead rows, mask and causal not combined)."""
    shapes = (((7, 8), (9, 8), (9, 5)), ((2, 3, 7, 8), (2, 3, 9, 8), (2, 3, 9, 5)),
              ((2, 11, 4), (2, 6, 4), (2, 6, 3)))
    for q_shape, k_shape, v_shape in shapes:
        L, S = q_shape[-2], k_shape[-2]
        for variant in ("plain", "bool mask", "float mask", "causal"):
            q, k, v = (rng.standard_normal(s) for s in (q_shape, k_shape, v_shape))
            mask = None
            if variant == "bool mask":
                mask = rng.random((L, S)) < 0.7
                mask[:, 0] = True  # no dead rows: PyTorch gives NaN there
            elif variant == "float mask":
                mask = rng.standard_normal(q_shape[:-2] + (L, S))
            causal = "upper-left" if variant == "causal" else "none"
            want = torch_builtin_output(q, k, v, mask, causal != "none")
            if want is None:
                return
            got, _ = sdpa_reference(q, k, v, mask=mask, causal=causal)
            err, scale = max_abs_error(got, want)
            tally.record(err <= 1e-12 * scale,
                         f"reference vs torch builtin, q{q_shape} k{k_shape} v{v_shape} {variant}: "
                         f"max|err| {err:.3g}")


class Tally:
    """Counts checks, prints failures, keeps the largest relative error per kernel."""

    def __init__(self):
        self.passed = 0
        self.failed = 0
        self.worst = {}
        self.variants = {}  # per-score variant -> (passed, failed) kernel runs

    def record(self, ok, line):
        if ok:
            self.passed += 1
        else:
            self.failed += 1
            print("FAIL " + line, flush=True)

    def note_error(self, kernel, relative):
        self.worst[kernel] = max(self.worst.get(kernel, 0.0), relative)

    def note_variant(self, tag, ok):
        passed, failed = self.variants.get(tag, (0, 0))
        self.variants[tag] = (passed + ok, failed + (not ok))


def check_case(attnrt, kernels, thread_counts, rng, case_index, case, workdir, tally):
    q, k, v, mask = make_inputs(rng, case)
    slopes, sinks = make_variant_inputs(rng, case)
    want_out, want_weights = sdpa_reference(q, k, v, mask=mask, causal=case.causal, scale=case.scale,
                                            window=case.window, alibi_slopes=slopes,
                                            softcap=case.softcap, sinks=sinks)
    paths = {name: write_npy(workdir, name, a) for name, a in (("q", q), ("k", k), ("v", v))}
    mask_path = write_npy(workdir, "mask", mask) if mask is not None else None
    extra = []
    if case.window:
        extra += ["--window", str(case.window)]
    if slopes is not None:
        extra += ["--alibi-slopes", write_npy(workdir, "slopes", slopes)]
    if case.softcap:
        extra += ["--softcap", repr(float(case.softcap))]
    if sinks is not None:
        extra += ["--sinks", write_npy(workdir, "sinks", sinks)]
    for kernel in kernels:
        for threads in thread_counts:
            # Kernels that can return weights run once with and once without them;
            # which thread count gets the weights alternates from case to case, so
            # every pairing is covered without running all four (keeps us < 60 s).
            with_weights = kernel.returns_weights and (case_index + threads) % 2 == 0
            run = run_sdpa(attnrt, workdir, paths["q"], paths["k"], paths["v"], mask=mask_path,
                           causal=case.causal, scale=case.scale, kernel=kernel.name,
                           threads=threads, want_weights=with_weights, extra_args=extra)
            where = (f"{case.describe()} | kernel {kernel.name}, threads {threads}, "
                     f"weights {'yes' if with_weights else 'no'}")
            if run.returncode != 0:
                tally.record(False, f"{where}: exit {run.returncode}: {run.stderr.strip()}")
                continue
            problems = []
            compared = [("out", run.out, want_out)]
            if with_weights:
                compared.append(("weights", run.weights, want_weights))
            for what, got, want in compared:
                err, scale = max_abs_error(got, want)
                tally.note_error(kernel.name, err / scale)
                if not err <= RELATIVE_TOLERANCE * scale:
                    shape = None if got is None else got.shape
                    problems.append(f"{what} max|err| {err:.3g} > {RELATIVE_TOLERANCE:g} * "
                                    f"{scale:.3g} (shape {shape}, want {want.shape})")
            tally.record(not problems, f"{where}: {'; '.join(problems)}")
            for tag in case.variant_tags():
                tally.note_variant(tag, not problems)


@dataclasses.dataclass
class ErrorCase:
    label: str
    expect: str           # regex (case-insensitive) the stderr message must match
    q: object
    k: object
    v: object
    mask: object = None
    kernel: str = "auto"
    want_weights: bool = False
    extra: tuple = ()
    causal: str = "none"


def error_cases(workdir, kernels):
    f32 = lambda *shape: np.ones(shape, dtype=np.float32)  # noqa: E731
    good_q, good_k, good_v = f32(4, 8), f32(5, 8), f32(5, 3)
    f64_path = write_npy(workdir, "float64", np.ones((4, 8), dtype=np.float64))
    full = open(write_npy(workdir, "whole", good_q), "rb").read()
    truncated_path = os.path.join(workdir, "truncated.npy")
    with open(truncated_path, "wb") as f:
        f.write(full[:-10])
    cases = [
        ErrorCase("mismatched E", r"\bE\b|E=|last dimension", good_q, f32(5, 7), good_v),
        ErrorCase("mismatched S between K and V", r"\bS\b|S=|rows", good_q, good_k, f32(6, 3)),
        ErrorCase("mask does not broadcast", r"broadcast", good_q, good_k, good_v,
                  mask=np.ones((3, 5), dtype=bool)),
        ErrorCase("float64 .npy", r"float64|<f8|dtype|float32", f64_path, good_k, good_v),
        ErrorCase("truncated .npy", r"truncat|short|end of file", truncated_path, good_k, good_v),
        ErrorCase("unknown --kernel", r"unknown.*no-such-kernel|no-such-kernel.*unknown",
                  good_q, good_k, good_v, kernel="no-such-kernel"),
    ]
    heads_q, heads_k, heads_v = f32(1, 2, 4, 8), f32(1, 2, 5, 8), f32(1, 2, 5, 3)
    per_head = lambda name, *values: write_npy(workdir, name, np.array(values, dtype=np.float32))  # noqa: E731
    cases += [
        ErrorCase("window without a causal rule", r"window.*causal", good_q, good_k, good_v,
                  extra=("--window", "4")),
        ErrorCase("negative softcap", r"softcap", good_q, good_k, good_v, extra=("--softcap", "-1")),
        ErrorCase("alibi slopes of the wrong shape", r"alibi-slopes.*\(2,\)", heads_q, heads_k,
                  heads_v, extra=("--alibi-slopes", per_head("slopes3", 1.0, 2.0, 3.0))),
        ErrorCase("sinks of the wrong rank", r"sinks.*\(2,\)", heads_q, heads_k, heads_v,
                  extra=("--sinks", write_npy(workdir, "sinks2d", np.zeros((2, 1), np.float32)))),
        ErrorCase("NaN sink", r"sink of query head 1 is not a finite", heads_q, heads_k, heads_v,
                  extra=("--sinks", per_head("nan_sink", 0.0, np.nan))),
        ErrorCase("infinite alibi slope", r"alibi slope of query head 0 is not a finite", heads_q,
                  heads_k, heads_v, extra=("--alibi-slopes", per_head("inf_slope", np.inf, 1.0))),
    ]
    for kernel in kernels:
        if not kernel.returns_weights:
            cases.append(ErrorCase(f"weights from {kernel.name}", r"weights", good_q, good_k, good_v,
                                   kernel=kernel.name, want_weights=True))
    return cases


def check_error_case(attnrt, case, workdir, tally):
    run = run_sdpa(attnrt, workdir, case.q, case.k, case.v, mask=case.mask, kernel=case.kernel,
                   want_weights=case.want_weights, causal=case.causal, extra_args=case.extra)
    message = run.stderr.strip()
    where = f"error path '{case.label}' (kernel {case.kernel})"
    if run.returncode is None:
        tally.record(False, f"{where}: {message}")
    elif run.returncode == 0:
        tally.record(False, f"{where}: exited 0, expected a failure")
    elif run.returncode < 0:
        tally.record(False, f"{where}: killed by signal {-run.returncode}: {message}")
    elif not re.search(case.expect, message, re.IGNORECASE):
        tally.record(False, f"{where}: exit {run.returncode}, stderr does not match /{case.expect}/: "
                            f"{message!r}")
    else:
        tally.record(True, where)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--attnrt", required=True, help="path to the attnrt binary")
    parser.add_argument("--seed", type=int, default=20240611)
    parser.add_argument("--cases", type=int, default=40, help="random cases on top of the directed ones")
    parser.add_argument("--threads", default="1,2",
                        help="comma-separated --threads values every case runs with")
    parser.add_argument("--kernels", default="",
                        help="comma-separated kernel names to run (default: every kernel "
                             "`attnrt kernels` lists); a name it does not list is an error")
    args = parser.parse_args()
    thread_counts = [int(t) for t in args.threads.split(",")]

    kernels = list_kernels(args.attnrt)
    if args.kernels:
        wanted = args.kernels.split(",")
        unknown = [name for name in wanted if name not in {k.name for k in kernels}]
        if unknown:
            print(f"--kernels: not available here: {', '.join(unknown)}", file=sys.stderr)
            return 2
        kernels = [k for k in kernels if k.name in wanted]
    rng = np.random.default_rng(args.seed)
    cases = directed_cases() + [random_case(rng, i) for i in range(args.cases)] + variant_cases()
    tally = Tally()
    check_reference_against_torch(np.random.default_rng(args.seed + 1), tally)
    with tempfile.TemporaryDirectory(prefix="attnrt_parity_") as workdir:
        for index, case in enumerate(cases):
            check_case(args.attnrt, kernels, thread_counts, rng, index, case, workdir, tally)
        for case in error_cases(workdir, kernels):
            check_error_case(args.attnrt, case, workdir, tally)

    print(f"{len(cases)} cases x {len(kernels)} kernels x threads {args.threads} (seed {args.seed})")
    for kernel in kernels:
        print(f"largest relative error, {kernel.name}: {tally.worst.get(kernel.name, 0.0):.3g}")
    for tag in ("window", "alibi", "softcap", "sinks"):
        passed, failed = tally.variants.get(tag, (0, 0))
        print(f"variant {tag}: {passed} kernel runs passed, {failed} failed")
    print(f"{tally.passed} passed, {tally.failed} failed")
    return 1 if tally.failed else 0


if __name__ == "__main__":
    sys.exit(main())
