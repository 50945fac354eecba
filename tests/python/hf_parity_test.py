#!/usr/bin/env python3
"""attnrt's Hugging Face importer (issue 30) against float64 PyTorch references of seven families.

Folders come from hf_families.write_folder (random seeded weights shaped like the real models,
config.json / tokenizer files as save_pretrained writes them); references from
hf_families.logits_of, written from each family's published modelling code (hf_families.py's
docstring gives the semantics; `python3 hf_families.py` cross-checks them).

For every variant of hf_families.VARIANTS (llama x6, mistral, qwen2, qwen3, gemma3 x3, phi3 x2,
gpt2):
  BF16 / F32 / F16 folders   (BF16 in 1, 2 or 3 shards by variant; F16 in 2 shards for every
            other variant) `attnrt convert DIR -o M.attnrt`, then
    run       `attnrt run M --tokens T.npy` on (2, T) tokens (int64; int32 too for BF16), T = 16
              or 2 W + 4 for a sliding window W: max|attnrt - ref| <= 1e-4 * max(1, max|ref|),
              ref on the weights as stored (BF16 / F16 widened exactly);
    generate  `attnrt generate M --prompt-tokens 1,2,3 --max-new-tokens 16 --temperature 0 --json`
              equal to the reference's greedy tokens up to its first near tie: a top-two gap
              below max(1e-4, 2 * 1e-4 * max(1, max|logit|)) (attnrt's logits may be off by the
              tolerance, so a gap within twice that may flip; llama_parity_test.py's rule). A
              run that stops early must stop on a generation_config.json eos id the reference
              chose too.
  --dtype f16 / q8 (from the F32 folder): the same run against the reference on the F32
            weights with a derived bound: 1e-4 * scale + 2 * max|ref(Q(W)) - ref(W)|, Q being
            runtime/FORMAT.md's reference rounding of the tensors `convert --dtype` narrows
            (f16 round to nearest even; q8 blocks of 32 with s = f16(max|x| / 127)), and for
            q8, which runs on 8-bit activations, every matmul's input rounded as the integer
            kernels round it (activation_rounding.py). The first
            term is attnrt's f32 arithmetic, the second the rounding's own effect measured in
            float64, doubled because the format admits any rounding within one step (twice the
            half step of round-to-nearest). `inspect --json` must show tensors of that type.
            Also reported: the error against the reference on Q(W) (about 1e-6 when attnrt
            rounds as FORMAT.md's reference writer does). Greedy against the reference on
            Q(W): near ties by the f32 rule when the run matched Q(W) to 1e-4 * scale, else by
            1e-4 * scale + the rounding effect.
  tokenizer files   `attnrt inspect M --json` holds metadata "hf.tokenizer.json",
            "hf.tokenizer_config.json", "hf.generation_config.json" equal byte for byte to the
            folder's files (found under any key of the JSON object).
Also: a folder without tokenizer files converts, and the refusals: unknown architectures,
rope_scaling yarn, llama attention_bias true, llama hidden_act gelu, a shard of the index
missing, a tensor missing, an unexpected tensor, an unknown config key, GPT-2
scale_attn_by_inverse_layer_idx, Gemma final_logit_softcapping, --out naming a shard, config.json
or tokenizer.json of the folder (which must stay unchanged): each a non-zero exit (no
signal), nothing at -o, and stderr naming the offending key, value, file or tensor.

Usage: hf_parity_test.py --attnrt PATH [--threads N] [--only FAMILY,...] [--keep DIR]
(--only takes families: llama, mistral, qwen2, qwen3, gemma3, phi3, gpt2, architectures values
or variant names; the refusals run with any family they use). Exits 77 (CTest skip) without
torch / numpy. The last line is "N passed, N failed"."""
import argparse
import json
import os
import re
import sys
import tempfile
import time

from script_setup import skip_without_modules

with skip_without_modules():
    import numpy as np
    import torch
    import hf_families as hf

import attnrt_cli  # noqa: E402
from activation_rounding import INTEGER_ACTIVATION_TYPES, round_activations  # noqa: E402
from json_find import find_key  # noqa: E402

TOLERANCE = 1e-4
NEAR_TIE = 1e-4
NEW_TOKENS = 16
PROMPT = [1, 2, 3]
SEED = 0  # hf_families' self-test checks greedy diversity at this seed
METADATA_KEYS = {name: "hf." + name for name in hf.TOKENIZER_FILES}


Failure = attnrt_cli.Failure


class Stats:
    def __init__(self):
        self.passed = self.failed = 0
        self.runs = 0
        self.run_error = 0.0                     # largest relative error, stored weights
        self.typed = {}                          # weight type -> (worst err / bound, bound)
        self.typed_cases = 0
        self.documented_rounding = 0             # typed cases matching FORMAT.md's rounding
        self.compared = self.generated = 0
        self.near_ties = []
        self.eos_stops = 0
        self.refusals = 0


class Context(attnrt_cli.CaseContext):
    def __init__(self, attnrt, threads, workdir):
        super().__init__(attnrt, threads, workdir)
        self.folders = {}    # (variant, dtype) -> FolderInfo
        self.models = {}     # (variant, dtype) -> model path (converted) or Failure


def storage_plan(index):
    """[(safetensors dtype, shards)] for the variant at this index of VARIANTS."""
    return [("BF16", 1 + index % 3), ("F32", 1), ("F16", 2 if index % 2 else 1)]


def seq_len(name):
    w = hf.VARIANTS[name].window
    return max(16, 2 * w + 4) if w else 16


def folder(ctx, name, dtype, shards=1):
    key = (name, dtype)
    if key not in ctx.folders:
        d = ctx.new_dir(f"{name}_{dtype}" + (f"_x{shards}" if shards > 1 else ""))
        ctx.folders[key] = hf.write_folder(name, d, dtype=dtype, shards=shards, seed=SEED)
    return ctx.folders[key]


def convert(ctx, src, out, dtype=None, timeout=300):
    """`attnrt convert SRC -o OUT [--dtype DTYPE]` with no stale OUT; the CompletedProcess."""
    if os.path.exists(out):
        os.remove(out)
    cmd = [ctx.attnrt, "convert", src, "-o", out]
    if dtype:
        cmd += ["--dtype", dtype]
    return attnrt_cli.run_cli(cmd, timeout=timeout)


def one_line(text, limit=600):
    """The end of a command's stderr on one line (FAIL lines stay one line each)."""
    return " | ".join(line.strip() for line in text.strip().splitlines() if line.strip())[-limit:]


def expect_ok(proc, what):
    if proc.returncode != 0:
        raise Failure(f"{what} failed (exit {proc.returncode}): {one_line(proc.stderr)}")


def converted(ctx, info, dtype=None):
    """The folder converted (memoized per folder and --dtype)."""
    key = (info.path, dtype)
    if key not in ctx.models:
        out = os.path.join(info.path, f"model_{dtype or 'default'}.attnrt")
        proc = convert(ctx, info.path, out, dtype)
        if proc.returncode != 0:
            how = (f"killed by signal {-proc.returncode}" if proc.returncode and
                   proc.returncode < 0 else f"exit {proc.returncode}")
            ctx.models[key] = Failure(
                f"attnrt convert {os.path.basename(info.path)}"
                f"{' --dtype ' + dtype if dtype else ''} failed ({how}): "
                f"{one_line(proc.stderr)}")
        elif not os.path.exists(out):
            ctx.models[key] = Failure(f"attnrt convert exited 0 but wrote no {out}")
        else:
            ctx.models[key] = out
    if isinstance(ctx.models[key], Failure):
        raise ctx.models[key]
    return ctx.models[key]


def run_tokens(ctx, model, tokens, d, name):
    proc, got = attnrt_cli.run_tokens(ctx.attnrt, model, tokens, d, ctx.threads, name=name)
    expect_ok(proc, f"attnrt run --tokens ({tokens.dtype})")
    if got.dtype != np.float32:
        raise Failure(f"logits are {got.dtype}, expected float32")
    return got


def case_tokens(config, name, seed):
    rng = np.random.RandomState(seed)
    tokens = rng.randint(0, config["vocab_size"], size=(2, seq_len(name)))
    tokens[0, 0], tokens[1, -1] = 0, config["vocab_size"] - 1
    return tokens


def check_greedy(ctx, stats, label, model, config, tensors, bound_abs_of=None):
    """attnrt's greedy tokens against the float64 reference's (on `tensors`), up to its first
    near tie. bound_abs_of(scale): how far attnrt's logits may be from these (default
    TOLERANCE * scale)."""
    want, gaps, rows = hf.greedy_of(config, tensors, PROMPT, NEW_TOKENS)
    scale = max(1.0, float(np.abs(rows).max()))
    bound = bound_abs_of(scale) if bound_abs_of else TOLERANCE * scale
    near_tie = max(NEAR_TIE, 2 * bound)
    proc, result = attnrt_cli.generate(ctx.attnrt, model, PROMPT, NEW_TOKENS,
                                       ["--temperature", "0", "--threads", str(ctx.threads)])
    expect_ok(proc, "attnrt generate")
    if result is None or "tokens" not in result:
        raise Failure(f"attnrt generate --json printed no JSON with tokens: {proc.stdout[-300:]!r}")
    got = [int(t) for t in result["tokens"]]
    stats.generated += NEW_TOKENS
    with open(os.path.join(os.path.dirname(model), "generation_config.json")) as f:
        eos = json.load(f)["eos_token_id"]
    eos = set(eos if isinstance(eos, list) else [eos])
    for step, (w, gap) in enumerate(zip(want, gaps)):
        if gap < near_tie:
            stats.near_ties.append((label, step))
            return f"near tie at step {step} (gap {gap:.2g})"
        if step >= len(got):
            if got and got[-1] in eos and step > 0:
                stats.eos_stops += 1
                return f"stopped on eos {got[-1]} after {step} tokens, as the reference chose it"
            raise Failure(f"generate returned {len(got)} tokens, asked for {NEW_TOKENS}: {got}")
        if got[step] != w:
            raise Failure(f"greedy token {step} is {got[step]}, the reference's {w} (gap "
                          f"{gap:.3g}); attnrt {got}, reference {want}")
        stats.compared += 1
    if len(got) > NEW_TOKENS:
        raise Failure(f"generate returned {len(got)} tokens, asked for {NEW_TOKENS}")
    return f"{NEW_TOKENS} greedy tokens equal"


# ---- cases ---------------------------------------------------------------------------------

def stored_case(ctx, stats, name, dtype, shards):
    """Convert a folder as stored; run and generate against the reference on its weights."""
    info = folder(ctx, name, dtype, shards)
    model = converted(ctx, info)
    config, tensors = hf.load_folder(info.path)
    tokens = case_tokens(config, name, seed=100 + len(name))
    want = hf.logits_of(config, tensors, tokens).numpy()
    if np.abs(want).max() < 0.1:
        raise Failure("the reference's logits are all near zero: the case tests nothing")
    worst = 0.0
    for tdtype in ((np.int64, np.int32) if dtype == "BF16" else (np.int64,)):
        got = run_tokens(ctx, model, tokens.astype(tdtype), info.path,
                         f"tokens_{np.dtype(tdtype).name}")
        err, scale = attnrt_cli.max_abs_error(got, want)
        rel = err / scale
        stats.runs += 1
        stats.run_error = max(stats.run_error, rel)
        worst = max(worst, rel)
        if not rel <= TOLERANCE:
            raise Failure(f"run ({np.dtype(tdtype).name}, (2, {tokens.shape[1]})): relative "
                          f"error {rel:.3g} > {TOLERANCE} (max|ref| {scale:.3g})")
    note = check_greedy(ctx, stats, f"{name} {dtype}", model, config, tensors)
    return f"run (2, {tokens.shape[1]}) relative error {worst:.2g}; {note}"


class integer_activations:
    """Within it, the reference rounds every weight matmul's input as attnrt's integer kernels
    do when `weight_type` runs on 8-bit activations (q8, q4_0), else nothing changes."""

    def __init__(self, weight_type):
        self.rounding = round_activations if weight_type in INTEGER_ACTIVATION_TYPES else None

    def __enter__(self):
        hf.INPUT_ROUNDING = self.rounding

    def __exit__(self, *exc):
        hf.INPUT_ROUNDING = None


def typed_case(ctx, stats, name, weight_type):
    """`convert --dtype f16|q8` of the F32 folder against the reference with the derived bound
    (for q8 the rounding's effect includes its 8-bit activations')."""
    info = folder(ctx, name, "F32")
    model = converted(ctx, info, weight_type)
    proc = attnrt_cli.run_cli([ctx.attnrt, "inspect", model, "--json"])
    expect_ok(proc, "attnrt inspect --json")
    shown = json.loads(proc.stdout)
    types = [t.get("dtype") for t in shown.get("tensors", [])]
    if weight_type not in types:
        raise Failure(f"inspect shows no {weight_type} tensor after convert --dtype "
                      f"{weight_type}: {sorted(set(types))}")
    config, tensors = hf.load_folder(info.path)
    narrowed = hf.narrow_weights(config, tensors, weight_type)
    tokens = case_tokens(config, name, seed=200 + len(name))
    want = hf.logits_of(config, tensors, tokens).numpy()
    with integer_activations(weight_type):
        want_q = hf.logits_of(config, narrowed, tokens).numpy()
    scale = max(1.0, float(np.abs(want).max()))
    effect = float(np.abs(want_q - want).max())
    bound = TOLERANCE * scale + 2 * effect
    got = run_tokens(ctx, model, tokens, info.path, f"tokens_{weight_type}")
    err, _ = attnrt_cli.max_abs_error(got, want)
    err_q, _ = attnrt_cli.max_abs_error(got, want_q)
    stats.runs += 1
    stats.typed_cases += 1
    ratio, old = err / bound, stats.typed.get(weight_type, (0.0, 0.0))
    if ratio > old[0]:
        stats.typed[weight_type] = (ratio, bound / scale)
    if not err <= bound:
        raise Failure(f"--dtype {weight_type} run: max error {err:.3g} > bound {bound:.3g} "
                      f"(1e-4 * {scale:.3g} + 2 * rounding effect {effect:.3g}); against the "
                      f"reference on the rounded weights {err_q:.3g}")
    # Greedy against the reference on the documented rounding. When attnrt's logits match that
    # reference to the f32 tolerance (it rounds as FORMAT.md's reference writer does), the f32
    # near-tie rule applies; otherwise its logits may be a whole rounding effect away.
    documented = err_q <= TOLERANCE * scale
    if documented:
        stats.documented_rounding += 1
    with integer_activations(weight_type):
        note = check_greedy(ctx, stats, f"{name} {weight_type}", model, config, narrowed,
                            bound_abs_of=(None if documented else
                                          (lambda s: TOLERANCE * s + effect)))
    limit = attnrt_cli.DTYPE_TOLERANCE[weight_type]
    return (f"error {err / scale:.2g} relative, bound {bound / scale:.2g} (rounding effect "
            f"{effect / scale:.2g}; project limit {limit}); against the reference on "
            f"FORMAT.md's rounding {err_q / scale:.2g}"
            f"{' (the same rounding)' if documented else ''}; {note}")


def tokenizer_case(ctx, stats, name, index):
    dtype, shards = storage_plan(index)[0]
    info = folder(ctx, name, dtype, shards)
    model = converted(ctx, info)
    proc = attnrt_cli.run_cli([ctx.attnrt, "inspect", model, "--json"])
    expect_ok(proc, "attnrt inspect --json")
    shown = json.loads(proc.stdout)
    sizes = []
    for fname, key in METADATA_KEYS.items():
        with open(os.path.join(info.path, fname), "rb") as f:
            want = f.read()
        value = find_key(shown, key)
        if isinstance(value, dict):  # {"type": "string", "value": ...}
            value = value.get("value")
        if value is None:
            raise Failure(f"inspect --json has no {key!r} (keys: {sorted(shown)})")
        if not isinstance(value, str) or value.encode("utf-8") != want:
            got = value.encode("utf-8") if isinstance(value, str) else repr(value).encode()
            at = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b),
                      min(len(got), len(want)))
            raise Failure(f"{key} differs from {fname} ({len(got)} vs {len(want)} bytes, first "
                          f"difference at byte {at}: {got[at:at + 40]!r} vs {want[at:at + 40]!r})")
        sizes.append(f"{fname} {len(want)} B")
    return "byte for byte: " + ", ".join(sizes)


def no_tokenizer_case(ctx, stats):
    d = ctx.new_dir("llama_no_tokenizer")
    hf.write_folder("llama", d, dtype="BF16", seed=SEED, tokenizer=False)
    out = os.path.join(d, "model.attnrt")
    expect_ok(convert(ctx, d, out), "attnrt convert of a folder without tokenizer files")
    proc = attnrt_cli.run_cli([ctx.attnrt, "inspect", out, "--json"])
    expect_ok(proc, "attnrt inspect --json")
    shown = json.loads(proc.stdout)
    present = [k for k in METADATA_KEYS.values() if find_key(shown, k) is not None]
    if present:
        raise Failure(f"a folder without tokenizer files gave metadata {present}")
    config, tensors = hf.load_folder(d)
    tokens = case_tokens(config, "llama", seed=7)
    got = run_tokens(ctx, out, tokens, d, "tokens")
    err, scale = attnrt_cli.max_abs_error(got, hf.logits_of(config, tensors, tokens).numpy())
    if err / scale > TOLERANCE:
        raise Failure(f"run: relative error {err / scale:.3g}")
    return f"converts and runs (relative error {err / scale:.2g}); no hf.* metadata"


# ---- refusals ------------------------------------------------------------------------------

def expect_refusal(ctx, d, what, needles):
    """convert D -o OUT: non-zero exit (no signal), no OUT, stderr containing every needle."""
    out = os.path.join(d, "refused.attnrt")
    proc = convert(ctx, d, out)
    if proc.returncode is None:
        raise Failure(f"{what}: {proc.stderr}")
    if proc.returncode == 0:
        raise Failure(f"{what}: accepted (exit 0)")
    if proc.returncode < 0:
        raise Failure(f"{what}: killed by signal {-proc.returncode}: {one_line(proc.stderr)}")
    if os.path.exists(out):
        raise Failure(f"{what}: refused (exit {proc.returncode}) but {os.path.basename(out)} "
                      f"was written")
    leftovers = [f for f in os.listdir(d) if f.startswith("refused.attnrt")]
    if leftovers:
        raise Failure(f"{what}: refused but left {leftovers}")
    for needle in needles:
        if needle not in proc.stderr:
            raise Failure(f"{what}: stderr does not name {needle!r}: {one_line(proc.stderr, 400)}")
    errors = [line for line in proc.stderr.splitlines() if "error" in line] or \
        proc.stderr.strip().splitlines() or [""]
    return f"exit {proc.returncode}: {errors[-1].strip()[:200]}"


def refusal(variant, label, needles, overrides=None, shards=1, surgery=None):
    def check(ctx, stats):
        d = ctx.new_dir(f"refuse_{label}")
        hf.write_folder(variant, d, dtype="BF16", shards=shards, seed=SEED, **(overrides or {}))
        wanted = list(needles)
        if surgery:
            wanted += surgery(d)
        note = expect_refusal(ctx, d, label, wanted)
        stats.refusals += 1
        return note
    return check


def _drop_shard(d):
    name = hf.shard_name(2, 3)
    os.remove(os.path.join(d, name))
    return [name]


def _drop_tensor(d):
    name = "model.layers.1.mlp.up_proj.weight"
    hf.rewrite_weights(d, drop=[name])
    return [name]


def _extra_tensor(d):
    name = "model.layers.0.mlp.extra_proj.weight"
    hf.rewrite_weights(d, extra={name: np.ones((8, 64), np.float32)})
    return [name]


def out_names_an_input(ctx, stats):
    """convert D -o D/<a file it reads>: refused by name, the file unchanged byte for byte."""
    d = ctx.new_dir("refuse_out_names_input")
    hf.write_folder("llama", d, dtype="BF16", shards=3, seed=SEED)
    for name in (hf.shard_name(2, 3), "config.json", "tokenizer.json"):
        path = os.path.join(d, name)
        with open(path, "rb") as f:
            before = f.read()
        proc = attnrt_cli.run_cli([ctx.attnrt, "convert", d, "-o", path], timeout=300)
        with open(path, "rb") as f:
            after = f.read()
        if proc.returncode is None or proc.returncode <= 0:
            raise Failure(f"-o {name}: exit {proc.returncode}: {one_line(proc.stderr)}")
        if after != before:
            raise Failure(f"-o {name}: the folder's {name} was overwritten")
        if "refusing to overwrite an input" not in proc.stderr or name not in proc.stderr:
            raise Failure(f"-o {name}: stderr does not name it: {one_line(proc.stderr)}")
    stats.refusals += 1
    return "a shard, config.json and tokenizer.json as -o: refused, each unchanged"


REFUSALS = [
    ("unknown architectures FalconForCausalLM", "llama",
     refusal("llama", "architecture", ["FalconForCausalLM"],
             {"architectures": ["FalconForCausalLM"]})),
    ("rope_scaling type yarn", "llama",
     refusal("llama", "yarn", ["yarn"], {"rope_scaling": {
         "rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 512}})),
    ("llama attention_bias true (biases in the file)", "llama",
     refusal("llama", "attention_bias", ["attention_bias"], {"attention_bias": True})),
    ("llama hidden_act gelu", "llama",
     refusal("llama", "hidden_act", ["hidden_act"], {"hidden_act": "gelu"})),
    ("a shard named in the index is missing", "llama",
     refusal("llama", "missing_shard", [], shards=3, surgery=_drop_shard)),
    ("a tensor is missing", "llama",
     refusal("llama", "missing_tensor", [], surgery=_drop_tensor)),
    ("an unexpected extra tensor", "llama",
     refusal("llama", "extra_tensor", [], surgery=_extra_tensor)),
    ("an unknown config key foo_bar", "llama",
     refusal("llama", "unknown_key", ["foo_bar"], {"foo_bar": 1})),
    ("gpt2 scale_attn_by_inverse_layer_idx true", "gpt2",
     refusal("gpt2", "inverse_layer_idx", ["scale_attn_by_inverse_layer_idx"],
             {"scale_attn_by_inverse_layer_idx": True})),
    ("--out naming a file of the folder", "llama", out_names_an_input),
    ("gemma3 final_logit_softcapping 30.0", "gemma3",
     refusal("gemma3", "softcapping", ["final_logit_softcapping"],
             {"final_logit_softcapping": 30.0})),
]


# ---- driver --------------------------------------------------------------------------------

def parse_arguments():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--attnrt", required=True)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--only", help="comma list of families (llama, mistral, qwen2, qwen3, "
                                   "gemma3, phi3, gpt2), architectures or variant names")
    ap.add_argument("--keep", help="write the case folders here and keep them")
    return ap.parse_args()


def main():
    args = parse_arguments()
    try:
        names = hf.select_variants(args.only)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    families = {hf.VARIANTS[n].family for n in names}
    torch.set_num_threads(1)
    started = time.monotonic()
    stats = Stats()
    with tempfile.TemporaryDirectory(prefix="attnrt_hf_") as tmp:
        workdir = args.keep or tmp
        os.makedirs(workdir, exist_ok=True)
        ctx = Context(args.attnrt, args.threads, workdir)
        checks = []
        for index, name in enumerate(hf.VARIANTS):
            if name not in names:
                continue
            about = hf.VARIANTS[name].about
            for dtype, shards in storage_plan(index):
                label = f"{name} {dtype}" + (f" ({shards} shards)" if shards > 1 else "")
                checks.append((f"{label} [{about}]", lambda n=name, dt=dtype, s=shards:
                               stored_case(ctx, stats, n, dt, s)))
            for weight_type in ("f16", "q8"):
                checks.append((f"{name} convert --dtype {weight_type}",
                               lambda n=name, w=weight_type: typed_case(ctx, stats, n, w)))
            checks.append((f"{name} tokenizer files stored",
                           lambda n=name, i=index: tokenizer_case(ctx, stats, n, i)))
        if "llama" in families:
            checks.append(("a folder without tokenizer files",
                           lambda: no_tokenizer_case(ctx, stats)))
        for what, family, check in REFUSALS:
            if family in families:
                checks.append((f"refuses {what}", lambda c=check: c(ctx, stats)))
        attnrt_cli.run_checks(checks, stats)
    typed = "; ".join(f"{t} worst error / bound {r:.2g} (bound {b:.2g} relative)"
                      for t, (r, b) in sorted(stats.typed.items())) or "no --dtype run"
    typed += (f" ({stats.documented_rounding} of {stats.typed_cases} equal to FORMAT.md's "
              f"rounding)" if stats.typed_cases else "")
    print(f"hf parity ({len(names)} variants): {stats.runs} runs, largest relative logits error "
          f"{stats.run_error:.3g} on stored weights (tolerance {TOLERANCE}); {typed}; "
          f"{attnrt_cli.greedy_summary(stats)}; eos stops {stats.eos_stops}; "
          f"{stats.refusals} refusals ({time.monotonic() - started:.1f} s)")
    return attnrt_cli.passed_failed(stats)


if __name__ == "__main__":
    sys.exit(main())
