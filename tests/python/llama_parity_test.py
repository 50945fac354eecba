#!/usr/bin/env python3
"""attnrt's llama against PyTorch: random-weight Llama models (tools/python/torch_modules.py's
Llama, PyTorch's default initialisation with the RMSNorm weights perturbed) exported with
tools/python/export_torch.py, converted with `attnrt convert`, and

  run       `attnrt run MODEL --tokens T.npy` on (2, T) tokens, once as int32 and once as int64,
            against the module's logits in float64 (the float32 weights widened exactly):
            max|attnrt - torch| <= 1e-4 * max(1, max|torch|);
  generate  `attnrt generate --prompt-tokens ... --max-new-tokens 20 --temperature 0 --json`
            against torch's greedy continuation in float64 with a KV cache: the tokens must be
            equal up to the first step where torch's two largest logits are within 1e-4 of each
            other (a near tie, where float32 rounding may pick either); comparing stops there and
            the summary counts such stops.

Models: MHA (n_kv_heads = n_heads), GQA (4 heads, 2 kv heads) and MQA (1 kv head), each with
rope_style interleaved and half, each with a tied and an untied output (12 models), and
models/lm (the
trained byte-level model) when it is there.

Sliding window (Mistral's sliding_window W: query i sees keys j with 0 <= i - j < W; torch
masks the rest in float64): an MHA model with W = 5 and a GQA model with W = 7, each
  run       on (2, T) tokens with T > 4 W, with --chunk 1, 3, W - 1, W, W + 4 and the default,
            so the KV cache (R = min(T, W - 1 + chunk) rows) moves its newest W - 1 rows to the
            front; same tolerance; torch's logits with and without the window must differ;
  generate  a prompt longer than W and decode steps past W and past R, with the same chunks;
  plan      `attnrt plan --max-seq N --chunk C --batch B --json`: kv_cache_bytes is exactly
            2 * n_layers * B * R * n_kv_heads * head_dim * 4 with R = min(N, W - 1 + C), also
            as `run` reports it; inspect shows the window.
Refusals: sliding_window 0, negative, non-integer (2.5, "5", true) in config.json (convert
names the key); null converts as no window.

Refusals: a token id outside [0, vocab) (run and generate: non-zero exit, the message names
the value and, for run, its (batch, position)); more tokens than max_seq_len (run) and a
prompt + max_new_tokens past max_seq_len (generate: refused before any work, nothing on stdout;
exactly max_seq_len is accepted); float tokens.npy; a tokens.npy that is not (batch, T).

Weight types (--dtype): f16 and bf16 against torch on the f32 weights (attnrt_cli.DTYPE_TOLERANCE).
q8, q4_0, q4_K and q6_K, which attnrt runs on 8-bit activations (issue 32), against torch in
float64 on the weights as the converted file stores them (read back by
tests/weight_file/weight_files.py) with every Linear input rounded as activation_blocks.h rounds
it: max|attnrt - ref| <= 2e-3 * max(1, max|ref|), where the activations within 1e-4 steps of a
half (near ties, which attnrt's float32 values may round either way) are rounded as attnrt's
logits show it rounded them, position by position (matched_reference; activation_rounding.py
says why).
With --activations f32 every attnrt command gets `--activations f32` (the exact path: the
stored weights widened, f32 activations) and the reference for those four types is torch in
float64 on the stored weights with the activations NOT rounded, within the f32 weights' 1e-4;
each `generate` report line must name the kernel that ran: hwy-int8 exactly when the weights
are one of them and the activations auto.
q4_K and q6_K (GGUF's k-quants) store rows of whole 256-value super-blocks only, and a matrix's
rows are its input dimension (dim: the embedding, the output layer, wq/wk/wv/wo, w1/w3;
hidden_dim: w2), so they run the models whose dim and hidden_dim are multiples of 256:
SUPER_BLOCK_SHAPES (GQA, dim 256, hidden 512, both rope styles, tied and untied) and
SUPER_BLOCK_WINDOW_SHAPES (MQA, dim 256, window 6), which only they run; every other config is
skipped, and models/lm (dim 96) must be refused by convert naming the type and the 256-value
blocks.

Usage: llama_parity_test.py --attnrt PATH [--threads N] [--dtype T] [--activations auto|f32].
Exits 77 (CTest skip) without torch.
The last line is "N passed, N failed"."""
import copy
import importlib.util
import json
import os
import re
import sys
import tempfile
import time

from script_setup import ROOT, skip_without_modules

with skip_without_modules():
    import numpy as np
    import torch

import attnrt_cli  # noqa: E402
from activation_rounding import (INTEGER_ACTIVATION_TYPES, NearTies,  # noqa: E402
                                 round_activations)

EXPORT = os.path.join(ROOT, "tools", "python", "export_torch.py")
_spec = importlib.util.spec_from_file_location("attnrt_export_torch", EXPORT)
export_torch = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(export_torch)
tm = export_torch.tm  # tools/python/torch_modules.py
import safetensors_format  # noqa: E402  (tools/python, which export_torch puts on sys.path)
from command_json import last_line_json  # noqa: E402

TOLERANCE = 1e-4  # f32 weights; --dtype sets attnrt_cli.DTYPE_TOLERANCE[dtype]
DTYPE = "f32"
# Integer weight types run on 8-bit activations (kernels/hwy/linear_int8.cc): their reference
# is torch in float64 on the weights as the converted file stores them, with every Linear's
# input rounded as kernels/include/attnrt/kernels/activation_blocks.h rounds it, and the
# tolerance is that of float32 arithmetic on top (issue 32), not of the quantization.
STORED_REFERENCE_TYPES = INTEGER_ACTIVATION_TYPES
STORED_TOLERANCE = 2e-3
# --activations f32 (the exact path): the same stored-weight reference without the rounding,
# and float32 arithmetic's tolerance, as for f32 weights.
ACTIVATIONS = "auto"
EXACT_ACTIVATIONS_TOLERANCE = 1e-4
_wf_spec = importlib.util.spec_from_file_location(
    "attnrt_weight_files", os.path.join(ROOT, "tests", "weight_file", "weight_files.py"))
weight_files = importlib.util.module_from_spec(_wf_spec)
_wf_spec.loader.exec_module(weight_files)
NEAR_TIE = 1e-4
NEW_TOKENS = 20

# (label, config, rope_style, tied, seq of the run, prompt length, new tokens): the sliding
# window cases. seq and prompt + new tokens pass R = W - 1 + chunk for every explicit chunk
# of window_case (1, 3, W - 1, W, W + 4), so rows move; the default chunk keeps all rows.
WINDOW_SHAPES = [
    ("window5_mha", {"dim": 32, "n_layers": 2, "n_heads": 4, "n_kv_heads": 4, "vocab_size": 50,
                     "hidden_dim": 64, "max_seq_len": 40, "sliding_window": 5},
     "interleaved", False, 26, 9, 25),
    ("window7_gqa", {"dim": 64, "n_layers": 2, "n_heads": 4, "n_kv_heads": 2, "vocab_size": 300,
                     "hidden_dim": 96, "max_seq_len": 48, "norm_eps": 1e-6, "rope_theta": 500.0,
                     "sliding_window": 7},
     "half", True, 33, 11, 30),
]

# (label, config without rope_style, [(seq of the run, prompt length)])
SHAPES = [
    ("mha", {"dim": 32, "n_layers": 2, "n_heads": 4, "n_kv_heads": 4, "vocab_size": 50,
             "hidden_dim": 64, "max_seq_len": 40}, 9, 5),
    ("gqa", {"dim": 64, "n_layers": 2, "n_heads": 4, "n_kv_heads": 2, "vocab_size": 300,
             "hidden_dim": 96, "max_seq_len": 48, "norm_eps": 1e-6, "rope_theta": 500.0}, 17, 7),
    ("mqa", {"dim": 48, "n_layers": 2, "n_heads": 4, "n_kv_heads": 1, "vocab_size": 97,
             "hidden_dim": 80, "max_seq_len": 64}, 20, 3),
]

# q4_K and q6_K store rows of whole super-blocks (weight_files.SUPER_BLOCK values): none of the
# shapes above can be stored in them. These are the smallest llamas that can (dim and hidden_dim
# multiples of 256), run for those two types only (the others cover the same code on the
# shapes above, and decoding a file of ~1M stored weights in weight_files.py takes seconds).
SUPER_BLOCK_TYPES = tuple(weight_files.SUPER_BLOCK_BYTES)
SUPER_BLOCK_SHAPES = [
    ("gqa256", {"dim": 256, "n_layers": 2, "n_heads": 4, "n_kv_heads": 2, "vocab_size": 150,
                "hidden_dim": 512, "max_seq_len": 48, "rope_theta": 500.0}, 12, 6),
]
SUPER_BLOCK_WINDOW_SHAPES = [
    ("window6_mqa256", {"dim": 256, "n_layers": 2, "n_heads": 4, "n_kv_heads": 1,
                        "vocab_size": 70, "hidden_dim": 256, "max_seq_len": 40,
                        "sliding_window": 6},
     "interleaved", False, 26, 9, 25),
]


def storable(config):
    """Whether DTYPE can hold every matrix of a llama of this config: a matrix's rows are its
    input dimension (dim for the embedding, the output layer, wq/wk/wv/wo and w1/w3, hidden_dim
    for w2), and convert refuses q4_K / q6_K rows that are not whole super-blocks."""
    return DTYPE not in SUPER_BLOCK_TYPES or \
        all(config[key] % weight_files.SUPER_BLOCK == 0 for key in ("dim", "hidden_dim"))


def shapes_of_type(shapes, super_block_shapes):
    """(the shapes this run's DTYPE runs, how many of both lists it cannot store): the
    super-block shapes run for q4_K and q6_K only."""
    if DTYPE not in SUPER_BLOCK_TYPES:
        return shapes, 0
    kept = [s for s in shapes + super_block_shapes if storable(s[1])]
    return kept, len(shapes) + len(super_block_shapes) - len(kept)


Failure = attnrt_cli.Failure


class Stats:
    def __init__(self):
        self.passed = self.failed = 0
        self.run_error = 0.0            # largest relative logits error of `attnrt run`
        self.runs = 0
        self.compared = self.generated = 0  # greedy tokens compared / asked for
        self.near_ties = []             # (case, step) where comparing stopped
        self.refusals = 0
        self.window_runs = 0            # windowed `attnrt run`s (all in run_error)
        self.window_plans = 0           # plans whose kv_cache_bytes matched the formula
        self.most_ties = 0              # most activation near ties at one position of a run
        self.tie_runs = 0               # runs whose reference met near ties
        self.flipped = 0                # near ties rounded the other way to match attnrt


# ---- models and references -----------------------------------------------------------------

def build(config, tied, seed):
    """PyTorch's default initialisation, RMSNorm weights perturbed, the attention projections
    doubled and a tied embedding scaled by 0.25: with PyTorch's defaults the N(0, 1) embedding
    dominates the residual stream (and, tied, makes every step repeat the current token), so the
    greedy choice would hardly depend on attention, RoPE or the KV cache."""
    resolved = tm.resolve_config("llama", config)
    torch.manual_seed(seed)
    model = tm.Llama(resolved, tie_embeddings=tied).eval()
    tm.perturb_constant_parameters(model, torch.Generator().manual_seed(seed + 1))
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.endswith(("wq.weight", "wk.weight", "wv.weight", "wo.weight")):
                p.mul_(2.0)
        if tied:
            model.tok_embeddings.weight.mul_(0.25)
    return model, resolved


TIES = None  # the activation_rounding.NearTies of the reference's pass (None: half to even)
MAX_TIES = 10  # near ties at one position of a sequence whose 2^n roundings are tried


def rounds_activations():
    """Whether attnrt runs this case's Linear layers on 8-bit activations (hwy-int8)."""
    return DTYPE in INTEGER_ACTIVATION_TYPES and ACTIVATIONS == "auto"


def activation_args():
    return ["--activations", ACTIVATIONS] if ACTIVATIONS != "auto" else []


def run_tokens(*args, extra_args=(), **kwargs):
    """attnrt_cli.run_tokens with this run's --activations."""
    return attnrt_cli.run_tokens(*args, extra_args=[*activation_args(), *extra_args], **kwargs)


def generate(attnrt, model, prompt_tokens, max_new_tokens, extra_args=()):
    """attnrt_cli.generate with this run's --activations."""
    return attnrt_cli.generate(attnrt, model, prompt_tokens, max_new_tokens,
                               [*activation_args(), *extra_args])


def reference_pass(model64, tokens, flips=()):
    """(logits, NearTies) of one reference pass with the near ties `flips` rounded the other way."""
    global TIES
    TIES = NearTies(flips)
    try:
        return reference_logits(model64, tokens), TIES
    finally:
        TIES = None


def matched_reference(model64, tokens, got, stats=None):
    """The reference logits for the rounding of the activations' near ties (activation_rounding.py)
    that explains `got`, attnrt's logits of `tokens` ((batch, seq)); half to even throughout for
    types without 8-bit activations or when got is not comparable. A near tie at position p of a
    sequence moves only that sequence's logits at p and after (causal attention), so positions
    are settled in order: with the choices for positions < p fixed, each subset of the near ties
    met at p is rounded the other way and the one whose logits at p are nearest got's kept (each
    sequence its own; again while a choice brings new near ties at p). The result is one
    consistent rounding per sequence, which the caller compares with got at every position."""
    want, ties = reference_pass(model64, tokens)
    if not rounds_activations() or got is None or got.shape != want.shape:
        return want
    g = got.astype(np.float64)
    flips, tried, most = set(), set(), 0
    for p in range(tokens.shape[1]):
        for _ in range(4):  # a flip at p may bring near ties at p in later layers
            at = {seq: [k for k in keys if k[0][1] == p and k not in tried]
                  for seq, keys in ties.seen.items()}
            n = max((len(keys) for keys in at.values()), default=0)
            if n == 0:
                break
            most = max(most, n)
            if n > MAX_TIES:
                raise Failure(f"{n} activation near ties at position {p} of a sequence: 2^{n} "
                              f"references are too many to try (MAX_TIES {MAX_TIES})")
            best = {seq: (np.abs(g[seq, p] - want[seq, p]).max(), set()) for seq in at}
            for subset in range(1, 2 ** n):
                chosen = {seq: {k for i, k in enumerate(keys) if subset >> i & 1}
                          for seq, keys in at.items()}
                cand, _ = reference_pass(model64, tokens, flips.union(*chosen.values()))
                for seq in at:
                    err = np.abs(g[seq, p] - cand[seq, p]).max()
                    if err < best[seq][0]:
                        best[seq] = (err, chosen[seq])
            for keys in at.values():
                tried.update(keys)
            flips.update(*(chosen for _, chosen in best.values()))
            want, ties = reference_pass(model64, tokens, flips)
    if stats is not None:
        stats.most_ties = max(stats.most_ties, most)
        stats.tie_runs += most > 0
        stats.flipped += len(flips)
    return want


def reference_model(model, model_file):
    """model in float64; for STORED_REFERENCE_TYPES with the weights the converted file stores
    (read back by tests/weight_file/weight_files.py, FORMAT.md's independent reader) and every
    Linear's input rounded as the integer kernels round it (unless --activations f32)."""
    model64 = copy.deepcopy(model).double()
    if DTYPE not in STORED_REFERENCE_TYPES:
        return model64
    with open(model_file, "rb") as f:
        _, tensors, _ = weight_files.decode(f.read())
    params = dict(model64.named_parameters())
    with torch.no_grad():
        for name, t in tensors.items():
            shape, values, dtype = weight_files.split_tensor(t)
            if dtype == "f32":
                continue
            if name not in params or tuple(params[name].shape) != tuple(shape):
                raise Failure(f"stored {dtype} tensor {name} {shape} is no parameter of the model")
            params[name].copy_(torch.tensor(values, dtype=torch.float64).reshape(shape))
    if not rounds_activations():
        return model64
    for module in model64.modules():
        if isinstance(module, torch.nn.Linear):
            module.register_forward_pre_hook(lambda _, inputs: (round_activations(inputs[0], TIES),))
    return model64


def other_rope(model64):
    """A copy of the model with the other rope style (for the sensitivity check)."""
    other = copy.deepcopy(model64)
    for layer in other.layers:
        layer.attention.rope_style = "half" if layer.attention.rope_style == "interleaved" \
            else "interleaved"
    return other


def reference_logits(model64, tokens):
    with torch.no_grad():
        return model64(torch.from_numpy(tokens.astype(np.int64))).numpy()


def relative_error(got, want):
    """max |got - want| / max(1, max |want|)."""
    err, scale = attnrt_cli.max_abs_error(got, want)
    return err / scale


def expect_ok(proc, what):
    if proc.returncode != 0:
        raise Failure(f"{what} failed (exit {proc.returncode}): {proc.stderr.strip()[-600:]}")


def convert(ctx, d):
    proc, model = attnrt_cli.convert_model(ctx.attnrt, d, dtype=DTYPE)
    expect_ok(proc, "attnrt convert")
    return model


def check_run(ctx, stats, model_file, model64, resolved, seq, seed, d):
    """attnrt run on (2, seq) tokens as int32 and int64 against torch."""
    rng = np.random.RandomState(seed)
    tokens = rng.randint(0, resolved["vocab_size"], size=(2, seq))
    tokens[0, 0], tokens[1, -1] = 0, resolved["vocab_size"] - 1  # both ends of the vocabulary
    want = reference_logits(model64, tokens)
    if np.abs(want).max() < 0.1:
        raise Failure("torch's logits are all near zero: the case tests nothing")
    for dtype in (np.int32, np.int64):
        proc, got = run_tokens(ctx.attnrt, model_file, tokens.astype(dtype), d,
                               ctx.threads, name=f"tokens_{np.dtype(dtype).name}")
        expect_ok(proc, f"attnrt run --tokens ({np.dtype(dtype).name})")
        if got.dtype != np.float32:
            raise Failure(f"logits are {got.dtype}, expected float32")
        err = relative_error(got, matched_reference(model64, tokens, got, stats))
        stats.runs += 1
        stats.run_error = max(stats.run_error, err)
        if not err <= TOLERANCE:
            raise Failure(f"run ({np.dtype(dtype).name}, batch 2, seq {seq}): relative error "
                          f"{err:.3g} > {TOLERANCE}")


def check_greedy(ctx, stats, label, model_file, model64, prompt, new_tokens=NEW_TOKENS,
                 extra_args=()):
    """attnrt's greedy tokens against torch's, up to torch's first near tie."""
    want, logits = tm.llama_generate(model64, torch.tensor([prompt]), new_tokens)
    want, logits = want[0].tolist(), logits[0]
    top2 = torch.topk(logits, 2, dim=-1).values
    gaps = (top2[:, 0] - top2[:, 1]).tolist()
    # With rounded weights a gap within twice the logits tolerance may flip legitimately.
    near_tie = max(NEAR_TIE, 2 * TOLERANCE * max(1.0, float(logits.abs().max())))
    proc, result = generate(ctx.attnrt, model_file, prompt, new_tokens,
                            ["--temperature", "0", "--threads", str(ctx.threads), *extra_args])
    expect_ok(proc, "attnrt generate")
    if result is None:
        raise Failure("attnrt generate --json printed no JSON line")
    # The report line names the Linear kernel that ran on the one weight type the file holds
    # ("linear q8:hwy-int8 on AVX3_DL; "): the integer one exactly when the activations are
    # rounded.
    shown = re.search(r"generate: .*\blinear (\w+):(\S+) on \S+; ", proc.stderr)
    if shown is None or shown.group(2) != result.get("linear_kernel") or \
            shown.group(1) != result.get("weight_dtype") or \
            (shown.group(2) == "hwy-int8") != rounds_activations():
        raise Failure(f"generate's report line names linear kernel "
                      f"{shown and shown.group(0)!r} (JSON {result.get('linear_kernel')!r}); "
                      f"weights {DTYPE}, activations {ACTIVATIONS}: {proc.stderr.strip()[-300:]}")
    missing = [k for k in ("tokens", "prefill_ms", "decode_ms_per_token", "tokens_per_s")
               if k not in result]
    if missing:
        raise Failure(f"generate's JSON lacks {', '.join(missing)}: {json.dumps(result)[:300]}")
    got = result["tokens"]
    if len(got) != new_tokens:
        raise Failure(f"generate returned {len(got)} tokens, asked for {new_tokens}: {got}")
    stats.generated += new_tokens
    for step, (g, w, gap) in enumerate(zip(got, want, gaps)):
        if gap < near_tie:
            stats.near_ties.append((label, step))
            return
        if g != w:
            raise Failure(f"greedy token {step} is {g}, torch's is {w} (torch's top-two gap "
                          f"{gap:.3g}); attnrt {got}, torch {want}")
        stats.compared += 1


# ---- cases ---------------------------------------------------------------------------------

def random_case(ctx, stats, index, label, config, rope_style, tied, seq, prompt_len):
    d = ctx.new_dir(f"{label}_{rope_style}_{'tied' if tied else 'untied'}")
    model, resolved = build({**config, "rope_style": rope_style}, tied, seed=10 + index)
    export_torch.export_module(model, d)
    with open(os.path.join(d, "config.json")) as f:
        written = json.load(f)
    if written.get("rope_style") != rope_style or written.get("n_kv_heads") != config["n_kv_heads"]:
        raise Failure(f"config.json is {written}")
    if ("output.weight" in read_safetensors(os.path.join(d, "model.safetensors"))) == tied:
        raise Failure(f"output.weight {'written' if tied else 'missing'} for a "
                      f"{'tied' if tied else 'untied'} model")
    model_file = convert(ctx, d)
    model64 = reference_model(model, model_file)
    check_run(ctx, stats, model_file, model64, resolved, seq, seed=100 + index, d=d)
    rng = np.random.RandomState(200 + index)
    prompt = rng.randint(0, resolved["vocab_size"], size=prompt_len).tolist()
    # The greedy tokens must depend on the positions: the other rope style changes them.
    same = torch.equal(tm.llama_generate(model64, torch.tensor([prompt]), NEW_TOKENS)[0],
                       tm.llama_generate(other_rope(model64), torch.tensor([prompt]), NEW_TOKENS)[0])
    if same:
        raise Failure("torch's greedy tokens do not depend on the rope style: the case tests "
                      "little")
    check_greedy(ctx, stats, d, model_file, model64, prompt)
    return model_file, resolved


def without_window(model64):
    """A copy of the model that attends to every earlier position (for the sensitivity check)."""
    other = copy.deepcopy(model64)
    for layer in other.layers:
        layer.attention.sliding_window = None
    return other


def kv_bytes(resolved, batch, rows):
    """The documented KV cache: keys and values of every layer, float32."""
    head_dim = resolved["dim"] // resolved["n_heads"]
    return 2 * resolved["n_layers"] * batch * rows * resolved["n_kv_heads"] * head_dim * 4


def planned_kv(ctx, model_file, max_seq, chunk, batch):
    """(kv_cache_bytes, the JSON) of `attnrt plan MODEL --max-seq N --chunk C --batch B`."""
    proc = attnrt_cli.run_cli([ctx.attnrt, "plan", model_file, "--max-seq", str(max_seq),
                               "--chunk", str(chunk), "--batch", str(batch), "--json",
                               *activation_args()])
    expect_ok(proc, f"attnrt plan --max-seq {max_seq} --chunk {chunk} --batch {batch}")
    result = last_line_json(proc.stdout)
    return result["kv_cache_bytes"], result, proc.stderr


def window_case(ctx, stats, index, label, config, rope_style, tied, seq, prompt_len, new_tokens):
    window = config["sliding_window"]
    d = ctx.new_dir(label)
    model, resolved = build({**config, "rope_style": rope_style}, tied, seed=30 + index)
    export_torch.export_module(model, d)
    with open(os.path.join(d, "config.json")) as f:
        written = json.load(f)
    if written.get("sliding_window") != window:
        raise Failure(f"config.json has sliding_window {written.get('sliding_window')!r}, "
                      f"expected {window}")
    model_file = convert(ctx, d)
    proc = attnrt_cli.run_cli([ctx.attnrt, "inspect", model_file, "--json"])
    expect_ok(proc, "attnrt inspect --json")
    shown = json.loads(proc.stdout)
    if shown.get("sliding_window") != window or shown["config"].get("sliding_window") != window:
        raise Failure(f"inspect --json shows sliding_window {shown.get('sliding_window')!r} "
                      f"(config {shown['config'].get('sliding_window')!r}), expected {window}")
    proc = attnrt_cli.run_cli([ctx.attnrt, "inspect", model_file])
    expect_ok(proc, "attnrt inspect")
    if f"sliding window {window}" not in proc.stdout:
        raise Failure(f"inspect does not show the window: {proc.stdout[:400]}")

    model64 = reference_model(model, model_file)
    rng = np.random.RandomState(300 + index)
    tokens = rng.randint(0, resolved["vocab_size"], size=(2, seq))
    want = reference_logits(model64, tokens)
    # The window must matter: without it, torch's logits from position W on differ (and
    # those before it, which see no more than W keys anyway, do not).
    unwindowed = reference_logits(without_window(model64), tokens)
    if relative_error(unwindowed[:, :window], want[:, :window]) > 1e-12:
        raise Failure("torch's logits before position W depend on the window")
    if relative_error(unwindowed, want) < 1e-2:
        raise Failure("torch's logits hardly depend on the window: the case tests little")
    chunks = [1, 3, window - 1, window, window + 4, None]  # None: the default chunk
    worst = 0.0
    for chunk in chunks:
        extra = [] if chunk is None else ["--chunk", str(chunk)]
        what = f"run --chunk {chunk or 'default'}"
        proc, got = run_tokens(ctx.attnrt, model_file, tokens.astype(np.int64), d,
                               ctx.threads, name=f"tokens_chunk{chunk}", extra_args=extra)
        expect_ok(proc, what)
        err = relative_error(got, matched_reference(model64, tokens, got, stats))
        worst = max(worst, err)
        stats.runs += 1
        stats.window_runs += 1
        stats.run_error = max(stats.run_error, err)
        if not err <= TOLERANCE:
            raise Failure(f"{what} (batch 2, seq {seq}, window {window}): relative error "
                          f"{err:.3g} > {TOLERANCE}")
        rows = seq if chunk is None else min(seq, window - 1 + chunk)
        match = re.search(r"kv cache (\d+)", proc.stdout)
        if match is None or int(match.group(1)) != kv_bytes(resolved, 2, rows):
            raise Failure(f"{what}: reported kv cache {match and match.group(1)}, expected "
                          f"{kv_bytes(resolved, 2, rows)} ({rows} rows): {proc.stdout.strip()}")
    prompt = rng.randint(0, resolved["vocab_size"], size=prompt_len).tolist()
    for chunk in chunks:
        extra = [] if chunk is None else ["--chunk", str(chunk)]
        check_greedy(ctx, stats, f"{d} chunk {chunk}", model_file, model64, prompt, new_tokens,
                     extra)
    # Plans: R = min(max_seq, W - 1 + chunk), also when that is all of max_seq.
    total = resolved["max_seq_len"]
    for max_seq, chunk, batch in [(total, 1, 1), (total, 3, 2), (total, window, 1),
                                  (total, 2 * window, 3), (window + 2, window, 1),
                                  (window, 1, 2)]:
        rows = min(max_seq, window - 1 + chunk)
        got, result, prose = planned_kv(ctx, model_file, max_seq, chunk, batch)
        if got != kv_bytes(resolved, batch, rows) or result.get("kv_cache_rows") != rows or \
                result.get("sliding_window") != window:
            raise Failure(f"plan --max-seq {max_seq} --chunk {chunk} --batch {batch}: "
                          f"kv_cache_bytes {got}, rows {result.get('kv_cache_rows')}, window "
                          f"{result.get('sliding_window')}; expected {kv_bytes(resolved, batch, rows)}"
                          f" ({rows} rows, window {window})")
        if f"sliding window {window}" not in prose:
            raise Failure(f"plan's table does not show the window: {prose.strip()}")
        stats.window_plans += 1
    return (f"{len(chunks)} chunkings, largest relative error {worst:.3g}; greedy with "
            f"{len(chunks)} chunkings; {stats.window_plans} plans so far"), (d, resolved)


def window_refusals(ctx, stats, exported):
    """Bad sliding_window values in config.json are refused by `attnrt convert` naming the key;
    null converts as no window. export_torch.py's own check refuses them too."""
    src, resolved = exported
    with open(os.path.join(src, "config.json")) as f:
        config = json.load(f)
    checks = 0
    for value in (0, -2, 2.5, "5", True):
        d = ctx.new_dir("window_refused")
        with open(os.path.join(d, "config.json"), "w") as f:
            json.dump({**config, "sliding_window": value}, f)
        os.symlink(os.path.join(src, "model.safetensors"), os.path.join(d, "model.safetensors"))
        proc, _ = attnrt_cli.convert_model(ctx.attnrt, d)
        expect_refusal(proc, f"convert with sliding_window {json.dumps(value)}",
                       ["sliding_window"])
        checks += 1
        try:
            tm.resolve_config("llama", {**resolved, "sliding_window": value})
        except ValueError as e:
            if "sliding_window" not in str(e):
                raise Failure(f"resolve_config's message does not name sliding_window: {e}")
        else:
            raise Failure(f"resolve_config accepted sliding_window {value!r}")
        checks += 1
    d = ctx.new_dir("window_null")
    with open(os.path.join(d, "config.json"), "w") as f:
        json.dump({**config, "sliding_window": None}, f)
    os.symlink(os.path.join(src, "model.safetensors"), os.path.join(d, "model.safetensors"))
    model_file = convert(ctx, d)
    proc = attnrt_cli.run_cli([ctx.attnrt, "inspect", model_file, "--json"])
    expect_ok(proc, "attnrt inspect --json (sliding_window null)")
    shown = json.loads(proc.stdout)
    if shown.get("sliding_window") is not None or "sliding_window" in shown["config"]:
        raise Failure(f"sliding_window null converted as {shown.get('sliding_window')!r}")
    got, result, _ = planned_kv(ctx, model_file, 20, 3, 1)
    if got != kv_bytes(resolved, 1, 20) or result.get("sliding_window") is not None:
        raise Failure(f"without a window plan's kv_cache_bytes is {got}, expected "
                      f"{kv_bytes(resolved, 1, 20)} (20 rows)")
    checks += 1
    stats.refusals += checks
    return f"{checks} checks"


def trained_case(ctx, stats):
    """models/lm (tools/python/train_byte_llama.py), when present: run and greedy from "And God said"."""
    src = os.path.join(ROOT, "models", "lm")
    if not os.path.exists(os.path.join(src, "model.safetensors")):
        return "skipped (no models/lm)"
    with open(os.path.join(src, "config.json")) as f:
        config = json.load(f)
    resolved = tm.resolve_config("llama", config)
    d = ctx.new_dir("models_lm")
    proc, model_file = attnrt_cli.convert_model(ctx.attnrt, src, os.path.join(d, "lm.attnrt"),
                                                dtype=DTYPE)
    if not storable(resolved):
        expect_refusal(proc, f"convert models/lm (dim {resolved['dim']}, hidden_dim "
                       f"{resolved['hidden_dim']}) --dtype {DTYPE}",
                       [DTYPE, str(weight_files.SUPER_BLOCK),
                        f"rows of {resolved['dim']} values"])
        stats.refusals += 1
        return (f"refused by convert: rows of {resolved['dim']} values are not whole {DTYPE} "
                f"super-blocks")
    expect_ok(proc, "attnrt convert models/lm")
    tensors = read_safetensors(os.path.join(src, "model.safetensors"))
    tied = "output.weight" not in tensors
    model32 = tm.Llama(resolved, tie_embeddings=tied)
    model32.load_state_dict({k: torch.from_numpy(v) for k, v in tensors.items()}, strict=not tied)
    model64 = reference_model(model32.eval(), model_file)
    text = np.frombuffer(b"In the beginning God created the heaven and the earth.", np.uint8)
    check_run(ctx, stats, model_file, model64, resolved, 2, seed=400, d=d)
    tokens = np.stack([text[:24], text[-24:]]).astype(np.int64)
    proc, got = run_tokens(ctx.attnrt, model_file, tokens, d, ctx.threads, "text")
    expect_ok(proc, "attnrt run models/lm")
    err = relative_error(got, matched_reference(model64, tokens, got, stats))
    stats.run_error, stats.runs = max(stats.run_error, err), stats.runs + 1
    if not err <= TOLERANCE:
        raise Failure(f"models/lm run: relative error {err:.3g} > {TOLERANCE}")
    check_greedy(ctx, stats, "models/lm", model_file, model64, list(b"And God said"), 40)
    # --prompt TEXT is the same prompt as its bytes.
    by_ids = generate(ctx.attnrt, model_file, list(b"And God said"), 40,
                      ["--temperature", "0"])[1]
    proc = attnrt_cli.run_cli([ctx.attnrt, "generate", model_file, "--prompt", "And God said",
                               "--max-new-tokens", "40", "--temperature", "0", "--json",
                               *activation_args()])
    expect_ok(proc, "attnrt generate --prompt")
    by_text = last_line_json(proc.stdout)
    if by_text["tokens"] != by_ids["tokens"]:
        raise Failure(f"--prompt TEXT gave {by_text['tokens']}, --prompt-tokens {by_ids['tokens']}")
    return "greedy: " + repr(bytes(by_text["tokens"]).decode("ascii", "replace"))


def read_safetensors(path):
    """name -> float32 array of a safetensors file export_torch.py wrote (F32 only)."""
    return {name: np.frombuffer(raw, "<f4").reshape(shape).copy()
            for name, (_, shape, raw) in safetensors_format.read_file(path).items()}


# ---- refusals ------------------------------------------------------------------------------

def expect_refusal(proc, what, needles=(), patterns=()):
    """Non-zero exit (not a crash), no traceback-like noise, stderr naming the needles."""
    if proc.returncode is None:
        raise Failure(f"{what}: {proc.stderr}")
    if proc.returncode == 0:
        raise Failure(f"{what}: accepted (exit 0)")
    if proc.returncode < 0:
        raise Failure(f"{what}: killed by signal {-proc.returncode}: {proc.stderr.strip()[-300:]}")
    for needle in needles:
        if needle not in proc.stderr:
            raise Failure(f"{what}: stderr does not name {needle!r}: {proc.stderr.strip()}")
    for pattern in patterns:
        if not re.search(pattern, proc.stderr):
            raise Failure(f"{what}: stderr does not match {pattern!r}: {proc.stderr.strip()}")


def refusal_cases(ctx, stats, model_file, resolved):
    d = ctx.new_dir("refusals")
    vocab, max_len = resolved["vocab_size"], resolved["max_seq_len"]
    checks = 0
    for value, (b, t), dtype in [(vocab, (1, 4), np.int64), (-3, (0, 2), np.int32),
                                 (2 ** 40, (1, 0), np.int64)]:
        tokens = np.zeros((2, 6), dtype=dtype)
        tokens[b, t] = value
        proc, _ = run_tokens(ctx.attnrt, model_file, tokens, d, name="bad_id")
        expect_refusal(proc, f"run with token id {value} at ({b}, {t})", [str(value)],
                       [rf"\b{b}\b\D{{0,24}}\b{t}\b"])  # "(1, 4)", "(sequence 1, token 4)"
        checks += 1
    proc, _ = generate(ctx.attnrt, model_file, [1, vocab + 5, 2], 3)
    expect_refusal(proc, f"generate with prompt token {vocab + 5}", [str(vocab + 5)])
    checks += 1
    proc, _ = generate(ctx.attnrt, model_file, [1, -1, 2], 3)
    if proc.returncode == 0:
        raise Failure("generate accepted prompt token -1")
    checks += 1
    # Past max_seq_len: refused before any work (nothing on stdout); exactly max_seq_len works.
    started = time.monotonic()
    proc, _ = generate(ctx.attnrt, model_file, [1, 2, 3], max_len - 2)
    expect_refusal(proc, f"generate 3 + {max_len - 2} tokens past max_seq_len {max_len}",
                   ["max_seq_len"])
    if proc.stdout.strip():
        raise Failure(f"generate past max_seq_len printed on stdout: {proc.stdout[:200]!r}")
    refused_in = time.monotonic() - started
    proc, result = generate(ctx.attnrt, model_file, [1, 2, 3], max_len - 3,
                            ["--temperature", "0"])
    expect_ok(proc, f"generate 3 + {max_len - 3} = max_seq_len tokens")
    if result is None or len(result.get("tokens", [])) != max_len - 3:
        raise Failure(f"generate up to max_seq_len returned {result}")
    proc, _ = generate(ctx.attnrt, model_file, list(range(max_len + 1)), 1)
    expect_refusal(proc, "generate with a prompt longer than max_seq_len", ["max_seq_len"])
    checks += 3
    proc, _ = run_tokens(ctx.attnrt, model_file, np.zeros((1, max_len + 1), np.int64), d,
                         name="too_long")
    expect_refusal(proc, f"run with {max_len + 1} tokens > max_seq_len {max_len}",
                   ["max_seq_len"])
    checks += 1
    for dtype in (np.float32, np.float64):
        proc, _ = run_tokens(ctx.attnrt, model_file, np.ones((2, 5), dtype), d,
                             name="float_tokens")
        expect_refusal(proc, f"run with {np.dtype(dtype).name} tokens.npy")
        checks += 1
    proc, _ = run_tokens(ctx.attnrt, model_file, np.ones((2, 3, 4), np.int64), d,
                         name="rank3_tokens")
    expect_refusal(proc, "run with (2, 3, 4) tokens.npy (not (batch, T))")
    checks += 1
    stats.refusals += checks
    return f"{checks} refusals ({refused_in * 1e3:.0f} ms to refuse generating past max_seq_len)"


# ---- driver --------------------------------------------------------------------------------

def tie_summary(stats):
    if not rounds_activations():
        return ""
    return (f", against the rounding of the activations' near ties that matches attnrt "
            f"({stats.tie_runs} runs met near ties, at most {stats.most_ties} at one position; "
            f"{stats.flipped} rounded the other way)")


def skipped_summary(skipped, skipped_windows):
    if not skipped + skipped_windows:
        return ""
    return (f"; {skipped} model and {skipped_windows} window configs skipped ({DTYPE} rows "
            f"must be whole {weight_files.SUPER_BLOCK}-value super-blocks)")


def main():
    args = attnrt_cli.parse_parity_arguments(lambda ap: ap.add_argument(
        "--activations", choices=("auto", "f32"), default="auto",
        help="pass --activations to attnrt; f32: the reference does not round activations"))
    tm.runtime.use(args.attnrt)  # the architectures, for export_torch here and in its runs
    global DTYPE, TOLERANCE, ACTIVATIONS
    DTYPE, TOLERANCE = args.dtype, attnrt_cli.DTYPE_TOLERANCE[args.dtype]
    ACTIVATIONS = args.activations
    if DTYPE in STORED_REFERENCE_TYPES:
        TOLERANCE = STORED_TOLERANCE if rounds_activations() else EXACT_ACTIVATIONS_TOLERANCE
    torch.set_num_threads(1)
    started = time.monotonic()
    stats = Stats()
    with tempfile.TemporaryDirectory(prefix="attnrt_llama_") as workdir:
        ctx = attnrt_cli.CaseContext(args.attnrt, args.threads, workdir)
        checks, index, first = [], 0, {}
        shapes, skipped = shapes_of_type(SHAPES, SUPER_BLOCK_SHAPES)
        window_shapes, skipped_windows = shapes_of_type(WINDOW_SHAPES, SUPER_BLOCK_WINDOW_SHAPES)
        for label, config, seq, prompt_len in shapes:
            for rope_style in tm.ROPE_STYLES:
                for tied in (False, True):
                    index += 1
                    desc = (f"{label} rope {rope_style} {'tied' if tied else 'untied'} "
                            f"{json.dumps(config)}")
                    checks.append((desc, lambda a=(index, label, config, rope_style, tied, seq,
                                                   prompt_len):
                                   first.setdefault("model", random_case(ctx, stats, *a))))
        windowed = {}
        for label, config, rope_style, tied, seq, prompt_len, new_tokens in window_shapes:
            index += 1
            desc = (f"{label} rope {rope_style} {'tied' if tied else 'untied'} "
                    f"{json.dumps(config)}")

            def window_check(a=(index, label, config, rope_style, tied, seq, prompt_len,
                                new_tokens)):
                note, exported = window_case(ctx, stats, *a)
                windowed.setdefault("exported", exported)
                return note

            checks.append((desc, window_check))

        def window_refusal_check():
            if "exported" not in windowed:
                raise Failure("no windowed model was exported to test the refusals on")
            return window_refusals(ctx, stats, windowed["exported"])

        checks.append(("sliding_window refusals", window_refusal_check))
        checks.append(("models/lm (trained byte-level model)", lambda: trained_case(ctx, stats)))
        def refusals():
            if "model" not in first:
                raise Failure("no model was converted to test the refusals on")
            return refusal_cases(ctx, stats, *first["model"])

        checks.append(("refusals", refusals))
        attnrt_cli.run_checks(checks, stats)
    reference = ("the f32 weights" if DTYPE not in STORED_REFERENCE_TYPES else
                 "the stored weights and 8-bit-rounded activations" if rounds_activations() else
                 "the stored weights, activations not rounded")
    print(f"llama parity, weights {DTYPE}, activations {ACTIVATIONS} (reference: float64 torch "
          f"on {reference}): "
          f"{stats.runs} runs, largest relative logits error {stats.run_error:.3g} (tolerance "
          f"{TOLERANCE}){tie_summary(stats)}; "
          f"{attnrt_cli.greedy_summary(stats, os.path.basename)}; "
          f"sliding window: {stats.window_runs} runs, {stats.window_plans} exact plans; "
          f"{stats.refusals} refusals checked"
          f"{skipped_summary(skipped, skipped_windows)} ({time.monotonic() - started:.1f} s)")
    return attnrt_cli.passed_failed(stats)


if __name__ == "__main__":
    sys.exit(main())
