#!/usr/bin/python3
"""GGUF tokenizers attnrt must refuse (issue 33), each by name: `attnrt convert` keeps the
tokenizer keys (and refuses text that is not UTF-8, naming the token; for the others it notes
that tokenizing will be refused), then `attnrt tokenize` on the converted model must fail
with a message naming what is wrong: an unknown
tokenizer.ggml.model, a tokenizer.ggml.pre llama.cpp does not define (or attnrt does not
implement), arrays whose lengths disagree with the token list, an element of the wrong type,
a damaged merge, a repeated token. The same files unchanged tokenize, so the check can fail
both ways. Each case prints one line; exits 77 without numpy."""
import argparse
import os
import subprocess
import sys
import tempfile

import script_setup

with script_setup.skip_without_modules():
    import numpy as np  # noqa: F401  (gguf_writer needs it)

import gguf_models
from case_tally import Tally

script_setup.import_tools_python()
import gguf_writer as W  # noqa: E402

VOCAB = 320


def tokenizer(kind, **changes):
    """The family's test tokenizer (gguf_models) with keys replaced: name=(type, value[,
    element type]) or name=None to leave the key out."""
    def write(w):
        start = len(w.kv)
        if kind == "llama":
            gguf_models.spm_tokenizer(w, VOCAB)
        else:
            gguf_models.bpe_tokenizer(w, VOCAB)
        for name, change in changes.items():
            key = "tokenizer.ggml." + name
            at = [i for i in range(start, len(w.kv)) if w.kv[i][0] == key]
            entry = None if change is None else (key, change[0], change[1],
                                                 change[2] if len(change) > 2 else None)
            if at and entry:
                w.kv[at[0]] = entry
            elif at:
                del w.kv[at[0]]
            elif entry:
                w.kv.append(entry)
        return VOCAB
    return write


def key_value(w, key):
    return next(v for k, _, v, _ in w.kv if k == "tokenizer.ggml." + key)


def cases():
    """(name, family, tokenizer writer, where it fails: "convert"/"tokenize"/None, message)."""
    probe = W.GgufWriter("llama")
    gguf_models.spm_tokenizer(probe, VOCAB)
    spm_tokens = key_value(probe, "tokens")
    spm_scores = key_value(probe, "scores")
    spm_types = key_value(probe, "token_type")
    probe = W.GgufWriter("gpt2")
    gguf_models.bpe_tokenizer(probe, VOCAB)
    bpe_tokens = key_value(probe, "tokens")
    bpe_merges = key_value(probe, "merges")
    A, S = W.ARRAY, W.STRING

    yield "sentencepiece as it is", "llama", tokenizer("llama"), None, ""
    yield "byte-level BPE as it is", "gpt2", tokenizer("gpt2"), None, ""
    yield "unknown model", "llama", tokenizer("llama", model=(S, "bert")), "tokenize", \
        "tokenizer.ggml.model 'bert' is not supported (supported: llama, gpt2)"
    yield "no model", "llama", tokenizer("llama", model=None), "tokenize", \
        "tokenizer.ggml.model is missing"
    yield "pre 'gpt2' (llama.cpp says gpt-2)", "gpt2", tokenizer("gpt2", pre=(S, "gpt2")), \
        "tokenize", "tokenizer.ggml.pre 'gpt2' is not a pre-tokenizer attnrt knows"
    yield "unknown pre", "gpt2", tokenizer("gpt2", pre=(S, "my-regex")), "tokenize", \
        "tokenizer.ggml.pre 'my-regex' is not a pre-tokenizer attnrt knows"
    yield "no merges", "gpt2", tokenizer("gpt2", merges=None), "tokenize", \
        "tokenizer.ggml.merges is missing"
    yield "scores too short", "llama", tokenizer("llama", scores=(A, spm_scores[:-1], W.F32)), \
        "tokenize", "tokenizer.ggml.scores has 319 entries for 320 tokens"
    yield "token_type too long", "llama", \
        tokenizer("llama", token_type=(A, spm_types + [1], W.I32)), "tokenize", \
        "tokenizer.ggml.token_type has 321 entries for 320 tokens"
    yield "token type 9", "llama", \
        tokenizer("llama", token_type=(A, spm_types[:5] + [9] + spm_types[6:], W.I32)), \
        "tokenize", "tokenizer.ggml.token_type[5] is 9, not a token type 0..6"
    yield "scores as strings", "llama", \
        tokenizer("llama", scores=(A, ["x"] * VOCAB, W.STRING)), "tokenize", \
        "tokenizer.ggml.scores[0] is \"x\", not a number"
    yield "NaN score", "llama", \
        tokenizer("llama", scores=(A, spm_scores[:300] + [float("nan")] + spm_scores[301:],
                                   W.F32)), "tokenize", "tokenizer.ggml.scores[300] is null"
    yield "merge without a space", "gpt2", \
        tokenizer("gpt2", merges=(A, ["ab"] + bpe_merges[1:], S)), "tokenize", \
        "tokenizer.ggml.merges[0] is \"ab\", not two tokens separated by a space"
    yield "merge of no token", "gpt2", \
        tokenizer("gpt2", merges=(A, bpe_merges[:3] + ["zz q"] + bpe_merges[4:], S)), \
        "tokenize", "tokenizer.ggml.merges[3] \"zz q\": a part is not a token"
    yield "repeated token", "llama", \
        tokenizer("llama", tokens=(A, spm_tokens[:300] + [spm_tokens[299]] + spm_tokens[301:],
                                   S)), "tokenize", "tokenizer.ggml.tokens[300] repeats token 299"
    yield "tokens not strings", "gpt2", tokenizer("gpt2", tokens=(A, list(range(VOCAB)), W.U32)), \
        "tokenize", "tokenizer.ggml.tokens[0] is not a string"
    yield "token not UTF-8", "gpt2", \
        tokenizer("gpt2", tokens=(A, bpe_tokens[:7] + [b"\xff\xfe"] + bpe_tokens[8:], S)), \
        "convert", "tokenizer.ggml.tokens[7] is not UTF-8"


def check(attnrt, work, family, write, fails_in, expect):
    """Converts the case's file and tokenizes with it: (as expected?, what attnrt said)."""
    path, out = os.path.join(work, "m.gguf"), os.path.join(work, "m.attnrt")
    if os.path.exists(out):
        os.remove(out)
    gguf_models.build(family, tokenizer=write)[0].write(path)
    conv = subprocess.run([attnrt, "convert", path, "-o", out], capture_output=True, text=True,
                          timeout=120)
    tok = None
    if conv.returncode == 0:
        tok = subprocess.run([attnrt, "tokenize", out, "--text", "Hello world"],
                             capture_output=True, text=True, timeout=120)
    if fails_in is None:
        return tok is not None and tok.returncode == 0, (tok.stdout if tok else conv.stderr)
    if fails_in == "convert":
        return conv.returncode != 0 and expect in conv.stderr, conv.stderr
    ok = (tok is not None and tok.returncode != 0 and expect in tok.stderr and
          "tokenize refuses it" in conv.stderr)  # convert's note
    return ok, (tok.stderr if tok else conv.stderr)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--attnrt", required=True)
    attnrt = parser.parse_args().attnrt
    tally = Tally()
    with tempfile.TemporaryDirectory() as work:
        for name, family, write, fails_in, expect in cases():
            ok, said = check(attnrt, work, family, write, fails_in, expect)
            first = (said.strip().splitlines() or [""])[0]
            tally.case(ok, f"{name:34s} {first[:160]}", f"expected {expect!r} from {fails_in}")
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
