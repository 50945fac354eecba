#!/usr/bin/python3
"""GGUF files `attnrt convert` must refuse (issue 33), each by name, leaving no output file:
damaged files (truncated, lying counts and offsets, huge strings and arrays, unknown value and
tensor types, big-endian, version 1, bad alignment, overlapping tensors) and valid files attnrt
does not run (an unknown architecture, a key it does not know, mixture of experts, YaRN, a
Gemma softcap, per-layer head counts that differ, block types without --dtype, a type it cannot
read even with --dtype, a missing, unexpected or misshapen tensor, a split file, --config or
--arch given with a GGUF). Each case prints one line; exits 77 without numpy."""
import argparse
import os
import struct
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


def llama(mutate=None, **kw):
    w, _ = gguf_models.build("llama", **kw)
    if mutate:
        mutate(w)
    return w.bytes()


def with_key(key, vtype, value, et=None, arch="llama"):
    def mutate(w):
        w.add(key, vtype, value, et)
    w, _ = gguf_models.build(arch)
    mutate(w)
    return w.bytes()


def replace_key(w, key, vtype, value, et=None):
    w.kv = [(k, t, v, e) if k != key else (k, vtype, value, et) for k, t, v, e in w.kv]


def drop_tensor(name):
    return lambda w: setattr(w, "tensors", [t for t in w.tensors if t[0] != name])


def patch(data, fmt, offset, value):
    b = bytearray(data)
    struct.pack_into(fmt, b, offset, value)
    return bytes(b)


def cases():
    good = llama()
    n_kv_at, tensors_at = 16, 8
    yield "truncated header", good[:100], [], "truncated"
    yield "truncated data", good[:-300], [], "past the end of the"
    yield "lying tensor count", patch(good, "<Q", tensors_at, 1 << 40), [], "tensor count"
    yield "lying key count", patch(good, "<Q", n_kv_at, 500000), [], \
        "metadata count 500000 cannot fit"
    # A count the file could hold: the reader runs into the tensor infos and names the entry.
    yield "key count two too many", patch(good, "<Q", n_kv_at, 21), [], "metadata entry 20"
    yield "version 1", patch(good, "<I", 4, 1), [], "GGUF version 1"
    yield "big-endian", patch(good, ">I", 4, 3), [], "big-endian"

    huge = W.GgufWriter("llama")
    huge.add("general.name", W.STRING, "x")
    raw = huge.bytes()
    at = raw.index(b"general.name") + len("general.name") + 4
    yield "huge string", patch(raw, "<Q", at, 1 << 60), [], "'general.name': string length"
    arr = W.GgufWriter("llama")
    arr.add("big", W.ARRAY, [1, 2], W.U32)
    raw = arr.bytes()
    at = raw.index(b"big") + 3 + 4 + 4
    yield "huge array", patch(raw, "<Q", at, 1 << 61), [], "'big': array length"
    at = raw.index(b"big") + 3
    yield "unknown value type", patch(raw, "<I", at, 13), [], "value type 13"

    def bad_alignment(w):
        w.add("general.alignment", W.U32, 48)
    yield "alignment 48", llama(bad_alignment), [], "general.alignment 48 is not a power of two"

    # The second tensor info's data offset, to point it at the first's data or off alignment.
    w2, _ = gguf_models.build("llama")
    hdr = w2.header()
    second = w2.tensors[1][0].encode()
    at = hdr.index(struct.pack("<Q", len(second)) + second) + 8 + len(second)
    n_dims = struct.unpack_from("<I", hdr, at)[0]
    off_at = at + 4 + 8 * n_dims + 4
    yield "overlapping tensors", patch(good, "<Q", off_at, 0), [], "overlaps tensor"
    yield "unaligned tensor offset", patch(good, "<Q", off_at, 4), [], "not a multiple of the alignment"

    unknown_type = W.GgufWriter("llama")
    unknown_type.raw_tensor("token_embd.weight", [4, 4], 77, b"\0" * 64)
    yield "unknown tensor type", unknown_type.bytes(), [], "ggml type 77"

    yield "unknown architecture", good.replace(b"llama", b"mamba", 1), [], \
        "general.architecture 'mamba' is not supported"
    yield "unknown key", with_key("llama.attention.sinks", W.U32, 4), [], \
        "key 'llama.attention.sinks' is not known to attnrt for llama"
    yield "mixture of experts", with_key("llama.expert_count", W.U32, 8), [], "mixture-of-experts"
    yield "yarn", with_key("llama.rope.scaling.type", W.STRING, "yarn"), [], "'yarn' is not supported"
    yield "gemma softcap", with_key("gemma3.final_logit_softcapping", W.F32, 30.0, arch="gemma3"), \
        [], "without softcapping"
    yield "split file", with_key("split.count", W.U16, 3), [], "split GGUF"

    def per_layer_heads(w):
        replace_key(w, "llama.attention.head_count", W.ARRAY, [4, 2], W.U32)
    yield "per-layer head counts", llama(per_layer_heads), [], "differs between layers"

    # Q4_K and Q6_K are kept (attnrt's q4_K, q6_K); Q5_K is not.
    q5k, _ = gguf_models.build("llama", {"matrix": "Q5_K"}, quantized=True)
    yield "Q5_K without --dtype", q5k.bytes(), [], "(Q5_K) is a type attnrt does not run: give --dtype"
    q51, _ = gguf_models.build("llama", {"matrix": "Q5_1"})
    yield "Q5_1 without --dtype", q51.bytes(), [], "(Q5_1) is a type attnrt does not run"

    def iq2(w):
        name, ne, gid, data = w.tensors[0]  # token_embd, 320 x 256
        w.tensors[0] = (name, ne, W.GGML["IQ2_XXS"][0], b"\0" * (ne[1] * ne[0] // 256 * 66))
    q8w, _ = gguf_models.build("llama", {"matrix": "Q8_0"}, quantized=True)
    iq2(q8w)
    yield "IQ2_XXS even with --dtype", q8w.bytes(), ["--dtype", "q8"], \
        "'token_embd.weight' (IQ2_XXS): attnrt cannot read this type"

    yield "missing tensor", llama(drop_tensor("blk.1.ffn_gate.weight")), [], \
        "missing tensor 'blk.1.ffn_gate.weight'"

    def extra(w):
        w.tensor("blk.0.attn_sinks", np.ones(4, dtype=np.float32))
    yield "unexpected tensor", llama(extra), [], "unexpected tensor 'blk.0.attn_sinks'"

    def misshapen(w):
        w.tensors = [t for t in w.tensors if t[0] != "blk.0.ffn_up.weight"]
        w.tensor("blk.0.ffn_up.weight", np.zeros((100, 64), dtype=np.float32))
    yield "misshapen tensor", llama(misshapen), [], "'blk.0.ffn_up.weight' has shape (100, 64)"

    def mismatched_vocab(w):
        w.add("llama.vocab_size", W.U32, 999)
    yield "vocab_size", llama(mismatched_vocab), [], "llama.vocab_size (999) differs"
    yield "--config with GGUF", good, ["--config", "x.json"], "leave out --config and --arch"
    # No GGUF magic and no safetensors header: say what it is not, not "--config is required".
    yield "all zeros", bytes(4096), [], "neither a Hugging Face folder, a GGUF file"
    yield "empty file", b"", [], "neither a Hugging Face folder, a GGUF file"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--attnrt", required=True)
    args = parser.parse_args()
    tally = Tally()
    with tempfile.TemporaryDirectory() as work:
        for name, data, extra, expect in cases():
            path = os.path.join(work, "m.gguf")
            out = os.path.join(work, "m.attnrt")
            with open(path, "wb") as f:
                f.write(data)
            proc = subprocess.run([args.attnrt, "convert", path, "-o", out] + extra,
                                  capture_output=True, text=True, timeout=120)
            ok = proc.returncode != 0 and expect in proc.stderr and not os.path.exists(out)
            first = (proc.stderr.strip().splitlines() or [""])[0]
            tally.case(ok, f"{name:28s} exit {proc.returncode}: {first[:150]}",
                       f"expected {expect!r} in stderr; stdout: {proc.stdout[:200]}")
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
