#!/usr/bin/env python3
"""`attnrt convert --dtype-for CLASS=TYPE` and `--dtype q4_K_M` (issue 32): per-class weight
types on every input convert takes, read back with `attnrt inspect --json`, and the mixed
files run.

Expected types come from this script's own table of the llama tensor names' classes (and its
own copy of llama.cpp's use_more_bits rule for q4_K_M), not from attnrt. Cases:
  - safetensors + config (the bundled byte model models/lm): named classes get their types,
    the plain --dtype the rest, vectors f32; without --dtype the rest is f32; the mix runs
    with mean KL against the f32 run within lm_quality_test.py's q4_0 limit (3e-2, its
    coarsest type), and with --activations f32 within 1e-4 of the f32 file of the weights it
    stores (decoded by tests/weight_file/weight_files.py, FORMAT.md's independent reader).
  - GGUF (gguf_models.py's random llama with 256-wide rows, untied and tied): q4_K_M's
    choice per tensor, the tied embedding as the output; --dtype-for alone re-encodes only
    its class (the rest keeps the file's F32); the q4_K_M file within 1e-4 (--activations
    f32) and within q8's 5e-2 (8-bit activations) of the f32 file of its stored weights.
  - Hugging Face folder (models/lm-bpe, tied): output names the tied embedding, embed wins;
    the mix (q8 embedding, f16 rest) within q8's 5e-2 of the folder's f32 conversion.
  - the reports of the kernels a run used: `generate` (its report line and --json) and `bench lm`
    (summary and --json) on the models/lm mix, the deep q4_K_M file and the GGUF q4_K_M files
    name every type the model multiplies through Linear (this script's table: each layer
    matrix, and the output, which in a tied model is the embedding) and no other, each with a
    kernel, the line and the JSON alike; hwy-int8 exactly for the integer types (q8, q4_0, q4_K,
    q6_K: activation_rounding.INTEGER_ACTIVATION_TYPES) and only with
    --activations auto (docs/cli.md); the one-kernel keys (linear_kernel, linear_isa,
    weight_dtype) null for a mix and the one pair's for a single-type file.
  - refusals, each with a non-zero exit, a message naming the problem and no output file:
    unknown class, unknown type, a class given twice, no '=', an unknown --dtype, a k-quant
    for 96-wide rows (naming tensor and class), q4_K_M on the same model, and a class the
    model has no matrix of (mha's v is part of its in_proj: attn, not attn_v).

    convert_dtype_classes_test.py --attnrt BIN
"""
import argparse
import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile

from script_setup import ROOT, SKIP_RETURN_CODE, import_tools_python, skip_without_modules

with skip_without_modules():
    import numpy as np
    from activation_rounding import INTEGER_ACTIVATION_TYPES  # (imports torch)

import_tools_python()
import attnrt_cli  # noqa: E402
import gguf_models  # noqa: E402
import safetensors_format  # noqa: E402

_wf_spec = importlib.util.spec_from_file_location(
    "attnrt_weight_files", os.path.join(ROOT, "tests", "weight_file", "weight_files.py"))
weight_files = importlib.util.module_from_spec(_wf_spec)
_wf_spec.loader.exec_module(weight_files)

LM_DIR = os.path.join(ROOT, "models", "lm")
LM_BPE_DIR = os.path.join(ROOT, "models", "lm-bpe")
KL_LIMIT = 3e-2          # lm_quality_test.py's limit for q4_0 weights
EXACT_TOLERANCE = 1e-4   # --activations f32 on the stored weights (llama_parity_test.py)
INT8_TOLERANCE = attnrt_cli.DTYPE_TOLERANCE["q8"]
TEXT = (b"In the beginning God created the heaven and the earth. And the earth was without "
        b"form, and void; and darkness was upon the face of the deep. And the Spirit of God "
        b"moved upon the face of the waters. And God said, Let there be light: and there was "
        b"light. And God saw the light, that it was good: and God divided the light from the "
        b"darkness.")

# The record's llama names (attnrt's tensor names in the file) -> class; None: a vector.
LLAMA_CLASSES = [
    ("tok_embeddings.weight", "embed"), ("output.weight", "output"),
    (".attention.wq.weight", "attn"), (".attention.wk.weight", "attn"),
    (".attention.wo.weight", "attn"), (".attention.wv.weight", "attn_v"),
    (".feed_forward.w1.weight", "ffn"), (".feed_forward.w3.weight", "ffn"),
    (".feed_forward.w2.weight", "ffn_down"),
]
WIDER = {"attn_v": "attn", "ffn_down": "ffn"}


def llama_class(name):
    for suffix, cls in LLAMA_CLASSES:
        if name == suffix or (suffix.startswith(".") and name.endswith(suffix)):
            return cls
    return None


def layer_of(name):
    return int(name.split(".")[1]) if name.startswith("layers.") else 0


def use_more_bits(i, n):
    """llama.cpp's rule (llama-quant.cpp): the first and last eighth and every third between."""
    return i < n // 8 or i >= 7 * n // 8 or (i - n // 8) % 3 == 2


def expected_types(names, default, named=None, q4_k_m=False, layers=0, tied=False):
    """name -> type as the test reads the options: the narrow class named, its wide class (a
    tied embedding: embed, then output), q4_K_M's rule, the default (None: the file's own)."""
    named = named or {}
    want = {}
    for name in names:
        cls = llama_class(name)
        if cls is None:
            want[name] = "f32"
            continue
        chain = [cls] + ([WIDER[cls]] if cls in WIDER else []) + (
            ["output"] if cls == "embed" and tied else [])
        hit = next((named[c] for c in chain if c in named), None)
        if hit is None and q4_k_m:
            raised = cls in ("attn_v", "ffn_down") and use_more_bits(layer_of(name), layers)
            hit = "q6_K" if cls == "output" or (cls == "embed" and tied) or raised else "q4_K"
        want[name] = hit if hit is not None else default
    return want


def multiplied_types(want):
    """The types of the matrices a run multiplies through Linear, from name -> type: every layer
    matrix and the output, which is the embedding in a tied model (no output.weight); an
    untied embedding is only gathered, never multiplied."""
    head = "output.weight" if "output.weight" in want else "tok_embeddings.weight"
    return {t for n, t in want.items() if llama_class(n) not in (None, "embed") or n == head}


def linear_pairs(text):
    """A report line's "linear f32:hwy on AVX3, q8:hwy-int8 on AVX3_DL; ..." as
    {type: {"kernel", "isa"}} (None for a part that is not TYPE:KERNEL on ISA); None without one."""
    line = re.search(r"^(?:generate|bench lm): .*?\blinear (.+?); ", text, re.M)
    if line is None:
        return None
    pairs = {}
    for part in line.group(1).split(", "):
        m = re.fullmatch(r"(\w+):(\S+) on (\S+)", part)
        pairs[m.group(1) if m else part] = {"kernel": m.group(2), "isa": m.group(3)} if m else None
    return pairs


def inspect_types(attnrt, model):
    proc = attnrt_cli.run_cli([attnrt, "inspect", "--json", model])
    if proc.returncode != 0:
        raise AssertionError(f"inspect {model}: {proc.stderr.strip()[-300:]}")
    return {t["name"]: t["dtype"] for t in json.loads(proc.stdout)["tensors"]}


def convert(attnrt, inputs, out, options):
    return attnrt_cli.run_cli([attnrt, "convert", *inputs, "-o", out, *options])


def lm_inputs():
    return ["--config", os.path.join(LM_DIR, "config.json"),
            os.path.join(LM_DIR, "model.safetensors")]


def log_softmax(x):
    x = x.astype(np.float64)
    x = x - x.max(axis=-1, keepdims=True)
    return x - np.log(np.exp(x).sum(axis=-1, keepdims=True))


class Checks:
    def __init__(self, attnrt, work):
        self.attnrt, self.work, self.failed, self.passed = attnrt, work, 0, 0

    def check(self, ok, what):
        if ok:
            self.passed += 1
        else:
            self.failed += 1
            print(f"FAIL {what}")

    def path(self, name):
        return os.path.join(self.work, name)

    def converted(self, label, inputs, options):
        out = self.path(label + ".attnrt")
        proc = convert(self.attnrt, inputs, out, options)
        if proc.returncode != 0:
            self.check(False, f"{label}: convert {' '.join(options)}: {proc.stderr.strip()[-400:]}")
            return None
        return out

    def types_match(self, label, model, want_for):
        got = inspect_types(self.attnrt, model)
        want = want_for(sorted(got))
        wrong = [f"{n}: {got[n]} (want {want[n]})" for n in sorted(got) if got[n] != want[n]]
        self.check(not wrong, f"{label}: per-tensor types: " + "; ".join(wrong[:6]))
        return got, want

    def logits(self, model, tokens, label, extra=()):
        proc, out = attnrt_cli.run_tokens(self.attnrt, model, tokens, self.work, 2, name=label,
                                          extra_args=extra)
        if proc.returncode != 0:
            raise AssertionError(f"run {label}: {proc.stderr.strip()[-400:]}")
        return out

    def stored_as_f32(self, model, label):
        """The f32 weight file of the weights `model` stores (FORMAT.md's reader and writer)."""
        with open(model, "rb") as f:
            _, tensors, metadata = weight_files.decode(f.read())
        f32 = {n: weight_files.split_tensor(t)[:2] for n, t in tensors.items()}
        out = self.path(label + "_stored_f32.attnrt")
        with open(out, "wb") as f:
            f.write(weight_files.encode(f32, metadata))
        return out

    def runs_as_stored(self, label, model, tokens):
        """--activations f32 within EXACT_TOLERANCE of the f32 file of the stored weights, the
        default (8-bit activations for the block types) within INT8_TOLERANCE."""
        ref = self.logits(self.stored_as_f32(model, label), tokens, label + "_ref")
        scale = max(1.0, float(np.abs(ref).max()))
        for extra, tol in ((["--activations", "f32"], EXACT_TOLERANCE), ([], INT8_TOLERANCE)):
            got = self.logits(model, tokens, label + "_" + ("f32act" if extra else "auto"), extra)
            err = float(np.abs(got.astype(np.float64) - ref).max()) / scale
            self.check(np.isfinite(got).all() and err <= tol,
                       f"{label} {' '.join(extra) or 'default activations'}: relative error "
                       f"{err:.3g} > {tol} against its stored weights in f32")

    def names_linear_kernels(self, label, model, want):
        """generate and bench lm name the kernel of each type the model multiplies, and only
        those types, on the report line and in --json alike (the module docstring)."""
        types = multiplied_types(want)
        for activations in ("auto", "f32"):
            for cmd in (["generate", model, "--prompt-tokens", "1,2,3", "--max-new-tokens", "2"],
                        ["bench", "lm", model, "--prompt-len", "4", "--gen", "1",
                         "--seconds", "0.01"]):
                what = f"{label}: {cmd[0]} --activations {activations}"
                # The byte-level models stream bytes that need not be UTF-8: decoded here.
                proc = subprocess.run([self.attnrt, *cmd, "--threads", "1", "--json",
                                       "--activations", activations],
                                      capture_output=True, timeout=300)
                out = proc.stdout.decode(errors="replace")
                err = proc.stderr.decode(errors="replace")
                if proc.returncode != 0:
                    self.check(False, f"{what}: exit {proc.returncode}: {err.strip()[-300:]}")
                    continue
                result = json.loads(out.strip().splitlines()[-1])
                shown = linear_pairs(err)
                self.check(shown is not None and set(shown) == types,
                           f"{what}: the report line names types "
                           f"{sorted(shown) if shown else None}, the model multiplies "
                           f"{sorted(types)}: {err.strip()[-300:]!r}")
                self.check(shown is not None and shown == result.get("linear_kernels"),
                           f"{what}: report line {shown} and JSON linear_kernels "
                           f"{result.get('linear_kernels')} differ")
                if not shown or None in shown.values():
                    continue
                int8 = {t for t, k in shown.items() if k["kernel"] == "hwy-int8"}
                want_int8 = (types & set(INTEGER_ACTIVATION_TYPES) if activations == "auto"
                             else set())
                self.check(int8 == want_int8, f"{what}: hwy-int8 runs {sorted(int8)}, "
                                              f"expected {sorted(want_int8)}: {shown}")
                if len(types) == 1:
                    (t, k), = shown.items()
                    legacy = (t, k["kernel"], k["isa"])
                else:
                    legacy = (None, None, None)
                got = (result.get("weight_dtype", "absent"), result.get("linear_kernel", "absent"),
                       result.get("linear_isa", "absent"))
                self.check(got == legacy, f"{what}: weight_dtype, linear_kernel, linear_isa "
                                          f"are {got}, expected {legacy}")

    def refused(self, label, inputs, options, *needles):
        out = self.path(label + ".attnrt")
        proc = convert(self.attnrt, inputs, out, options)
        text = proc.stderr + proc.stdout
        missing = [n for n in needles if n not in text]
        self.check(proc.returncode not in (0, None) and not missing and not os.path.exists(out),
                   f"refusal {label}: exit {proc.returncode}, missing {missing} in: "
                   f"{text.strip()[-400:]}")


def safetensors_cases(c):
    named = {"embed": "f16", "attn": "q4_0", "attn_v": "bf16", "ffn_down": "f32"}
    options = ["--dtype", "q8"] + [a for k, t in named.items() for a in ("--dtype-for", f"{k}={t}")]
    mix = c.converted("lm_mix", lm_inputs(), options)
    if mix:
        _, want = c.types_match("lm --dtype q8 + classes", mix,
                                lambda n: expected_types(n, "q8", named))
        c.names_linear_kernels("lm mix", mix, want)
        # inspect's table (not only --json) shows each tensor's type.
        proc = attnrt_cli.run_cli([c.attnrt, "inspect", mix])
        rows = {line.split()[0]: line.split()[1] for line in proc.stdout.splitlines()
                if line.startswith("  layers.") or line.startswith("  tok_embeddings")}
        c.check(rows.get("layers.1.attention.wv.weight") == "bf16" and
                rows.get("layers.1.attention.wq.weight") == "q4_0" and
                rows.get("tok_embeddings.weight") == "f16",
                f"inspect's table: {sorted(rows.items())[:4]}")
    alone = c.converted("lm_attn_only", lm_inputs(), ["--dtype-for", "attn=q8"])
    if alone:
        c.types_match("lm --dtype-for attn=q8 alone", alone,
                      lambda n: expected_types(n, "f32", {"attn": "q8"}))
    f32 = c.converted("lm_f32", lm_inputs(), [])
    if f32:
        c.names_linear_kernels("lm f32", f32, expected_types(inspect_types(c.attnrt, f32), "f32"))
    if not (mix and f32):
        return
    tokens = np.frombuffer(TEXT[:128], dtype=np.uint8).astype(np.int32)[None, :]
    ref = log_softmax(c.logits(f32, tokens, "lm_f32"))
    got = log_softmax(c.logits(mix, tokens, "lm_mix"))
    kl = float((np.exp(ref) * (ref - got)).sum(axis=-1).mean())
    c.check(kl <= KL_LIMIT, f"lm mix: mean KL {kl:.3g} against f32 > {KL_LIMIT}")
    print(f"models/lm mix ({', '.join(f'{k} {t}' for k, t in named.items())}, rest q8): "
          f"mean KL {kl:.3g} against f32")
    c.runs_as_stored("lm_mix", mix, tokens)


def write_deep_llama(directory, layers=16, dim=256):
    """A random llama checkpoint with 256-wide rows and enough layers for q4_K_M's layer rule
    to pick every kind of layer (n/8 = 2: layers 0, 1, 4, 7, 10, 13, 14, 15)."""
    rng = np.random.default_rng(11)
    shapes = {"tok_embeddings.weight": (256, dim), "norm.weight": (dim,),
              "output.weight": (256, dim)}
    for i in range(layers):
        p = f"layers.{i}."
        for name, shape in (("attention.wq", (dim, dim)), ("attention.wk", (dim // 2, dim)),
                            ("attention.wv", (dim // 2, dim)), ("attention.wo", (dim, dim)),
                            ("feed_forward.w1", (dim, dim)), ("feed_forward.w2", (dim, dim)),
                            ("feed_forward.w3", (dim, dim)), ("attention_norm", (dim,)),
                            ("ffn_norm", (dim,))):
            shapes[p + name + ".weight"] = shape
    tensors = {n: (rng.standard_normal(s) * 0.05).astype("<f4") for n, s in shapes.items()}
    with open(os.path.join(directory, "deep.safetensors"), "wb") as f:
        f.write(safetensors_format.header_bytes(
            [(n, "F32", t.shape, t.nbytes) for n, t in tensors.items()]))
        for t in tensors.values():
            f.write(t.tobytes())
    config = {"architecture": "llama", "dim": dim, "n_layers": layers, "n_heads": 4,
              "n_kv_heads": 2, "vocab_size": 256, "hidden_dim": dim, "norm_eps": 1e-5,
              "max_seq_len": 64, "rope_theta": 10000.0, "rope_style": "interleaved"}
    with open(os.path.join(directory, "deep.json"), "w") as f:
        json.dump(config, f)
    return ["--config", os.path.join(directory, "deep.json"),
            os.path.join(directory, "deep.safetensors")], layers


def deep_cases(c):
    inputs, layers = write_deep_llama(c.work)
    mix = c.converted("deep_q4_K_M", inputs, ["--dtype", "q4_K_M"])
    if mix:
        got, want = c.types_match("deep llama --dtype q4_K_M", mix,
                                  lambda n: expected_types(n, None, q4_k_m=True, layers=layers))
        c.names_linear_kernels("deep llama q4_K_M", mix, want)
        raised = sorted(layer_of(n) for n, t in got.items()
                        if n.endswith("wv.weight") and t == "q6_K")
        c.check(raised == [0, 1, 4, 7, 10, 13, 14, 15], f"deep llama: attn_v raised in {raised}")
    over = c.converted("deep_q4_K_M_attn", inputs, ["--dtype", "q4_K_M", "--dtype-for", "attn=q8",
                                                    "--dtype-for", "ffn_down=q4_K"])
    if over:
        c.types_match("deep llama q4_K_M + attn=q8 ffn_down=q4_K", over,
                      lambda n: expected_types(n, None, {"attn": "q8", "ffn_down": "q4_K"},
                                               q4_k_m=True, layers=layers))


def gguf_cases(c):
    for tied in (False, True):
        label = "gguf_tied" if tied else "gguf_untied"
        # No tokenizer keys: the compiled tokenizer is binary metadata weight_files.py does
        # not read, and these runs take token ids.
        w, info = gguf_models.build("llama", quantized=True, untied=not tied, seed=3,
                                    tokenizer=lambda _: 320)
        path = c.path(label + ".gguf")
        w.write(path)
        layers = info.shape["layers"]
        mix = c.converted(label + "_q4_K_M", [path], ["--dtype", "q4_K_M"])
        if mix:
            _, want = c.types_match(
                f"{label} --dtype q4_K_M", mix,
                lambda n: expected_types(n, None, q4_k_m=True, layers=layers, tied=tied))
            c.names_linear_kernels(f"{label} q4_K_M", mix, want)
            tokens = np.arange(1, 17, dtype=np.int32)[None, :] * 7 % info.vocab
            c.runs_as_stored(label + "_q4_K_M", mix, tokens)
        if not tied:
            only = c.converted(label + "_attn_q8", [path], ["--dtype-for", "attn=q8"])
            if only:  # the file's matrices are F32: the unnamed classes keep f32
                c.types_match(f"{label} --dtype-for attn=q8", only,
                              lambda n: expected_types(n, "f32", {"attn": "q8"}))


def hf_cases(c):
    out = c.converted("bpe_output", [LM_BPE_DIR], ["--dtype-for", "output=bf16",
                                                   "--dtype-for", "attn_v=f16"])
    if out:
        c.types_match("lm-bpe (tied) output=bf16 attn_v=f16", out,
                      lambda n: expected_types(n, "f32", {"output": "bf16", "attn_v": "f16"},
                                               tied=True))
    both = c.converted("bpe_both", [LM_BPE_DIR], ["--dtype", "f16", "--dtype-for", "embed=q8",
                                                  "--dtype-for", "output=bf16"])
    if both:
        c.types_match("lm-bpe (tied) embed=q8 output=bf16", both,
                      lambda n: expected_types(n, "f16", {"embed": "q8", "output": "bf16"},
                                               tied=True))
        # Its compiled tokenizer is binary metadata weight_files.py does not read: against the
        # folder's f32 conversion instead, within q8's tolerance (its coarsest type).
        f32 = c.converted("bpe_f32", [LM_BPE_DIR], [])
        if f32:
            tokens = np.arange(3, 35, dtype=np.int32)[None, :]
            ref = c.logits(f32, tokens, "bpe_f32").astype(np.float64)
            got = c.logits(both, tokens, "bpe_both")
            err = float(np.abs(got - ref).max()) / max(1.0, float(np.abs(ref).max()))
            c.check(err <= INT8_TOLERANCE, f"lm-bpe mix: relative error {err:.3g} against its "
                                           f"f32 conversion > {INT8_TOLERANCE}")


def write_mha(directory):
    rng = np.random.default_rng(5)
    tensors = {"in_proj_weight": rng.standard_normal((24, 8)).astype("<f4"),
               "out_proj.weight": rng.standard_normal((8, 8)).astype("<f4")}
    with open(os.path.join(directory, "mha.safetensors"), "wb") as f:
        f.write(safetensors_format.header_bytes(
            [(n, "F32", t.shape, t.nbytes) for n, t in tensors.items()]))
        for t in tensors.values():
            f.write(t.tobytes())
    with open(os.path.join(directory, "mha.json"), "w") as f:
        json.dump({"architecture": "mha", "embed_dim": 8, "num_heads": 2, "bias": False}, f)
    return ["--config", os.path.join(directory, "mha.json"),
            os.path.join(directory, "mha.safetensors")]


def refusal_cases(c):
    lm = lm_inputs()
    c.refused("unknown_class", lm, ["--dtype-for", "mlp=q8"], "'mlp' is not a tensor class",
              "ffn_down")
    c.refused("unknown_type", lm, ["--dtype-for", "attn=q5_K"], "'q5_K' is not a weight type")
    c.refused("class_twice", lm, ["--dtype-for", "attn=q8", "--dtype-for", "attn=f16"],
              "names class attn twice")
    c.refused("no_equals", lm, ["--dtype-for", "attn"], "is not CLASS=TYPE")
    c.refused("unknown_dtype", lm, ["--dtype", "q5_K_M"], "q5_K_M")
    c.refused("kquant_rows", lm, ["--dtype-for", "attn_v=q4_K"],
              "tensor 'layers.0.attention.wv.weight' (class attn_v)", "rows of 96 values",
              "q4_K", "--dtype-for attn_v=q4_K")
    c.refused("q4_K_M_rows", lm, ["--dtype", "q4_K_M"],
              "tensor 'layers.0.attention.wq.weight' (class attn)", "rows of 96 values",
              "--dtype q4_K_M")
    c.refused("absent_class", write_mha(c.work), ["--dtype-for", "attn_v=q8"],
              "has no matrix of class attn_v", "attn")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--attnrt", required=True)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="attnrt_dtype_classes_") as work:
        c = Checks(args.attnrt, work)
        for cases in (safetensors_cases, deep_cases, gguf_cases, hf_cases, refusal_cases):
            try:
                cases(c)
            except AssertionError as e:
                c.check(False, f"{cases.__name__}: {e}")
    print(f"{c.passed} passed, {c.failed} failed")
    return 1 if c.failed else 0


if __name__ == "__main__":
    sys.exit(main())
