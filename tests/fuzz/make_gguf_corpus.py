#!/usr/bin/python3
"""Writes the committed seed corpus for gguf_input_fuzzer into corpus/gguf_input/.

Each seed is the fuzzer's input layout (gguf_input_fuzzer.cc): an options byte (0: keep each
tensor's type; k: --dtype the k-th weight type), then a GGUF image written with
tools/python/gguf_writer.py: tiny models of every architecture attnrt imports, in F32, F16,
BF16, Q8_0 and block types (Q4_K, Q6_K, Q5_0 rows of 256 / 32), fused tensors, nested
metadata arrays, and inputs that each break one rule (truncated, lying counts, bad alignment,
unknown types and keys, overlapping tensors).

Deterministic (fixed seeds); rerun after changing it. Usage: make_gguf_corpus.py [OUT_DIR]
"""
import os
import struct
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "tools", "python"))
import gguf_writer as W  # noqa: E402


def tiny(arch, matrix="F32", dim=16, heads=2, kv=1, ff=16, head_dim=None, vocab=8, layers=1,
         fused=False, extra=None):
    rng = np.random.default_rng(len(arch) * 7 + dim + ff)
    w = W.GgufWriter(arch)
    p = arch + "."
    hd = head_dim or dim // heads
    for key, value in [("context_length", 16), ("embedding_length", dim), ("block_count", layers),
                       ("feed_forward_length", ff), ("attention.head_count", heads)]:
        w.add(p + key, W.U32, value)
    if arch == "gpt2":
        w.add(p + "attention.layer_norm_epsilon", W.F32, 1e-5)
        kv = heads
    else:
        w.add(p + "attention.head_count_kv", W.U32, kv)
        w.add(p + "attention.layer_norm_rms_epsilon", W.F32, 1e-6)
        w.add(p + "rope.freq_base", W.F32, 10000.0)
    if head_dim:
        w.add(p + "attention.key_length", W.U32, hd)
    if arch == "gemma3":
        w.add(p + "attention.sliding_window", W.U32, 4)
    for k, t, v, e in extra or []:
        w.add(k, t, v, e)
    r = lambda *s: (rng.standard_normal(s) * 0.5).astype(np.float32)
    mt = lambda cols: matrix if cols % W.GGML[matrix][1] == 0 else "F32"
    w.tensor("token_embd.weight", r(vocab, dim), mt(dim))
    if arch == "gpt2":
        w.tensor("position_embd.weight", r(16, dim))
    for l in range(layers):
        b = "blk.%d." % l
        w.tensor(b + "attn_norm.weight", r(dim))
        if arch == "gpt2":
            for n in ("attn_norm.bias", "ffn_norm.bias", "attn_output.bias", "ffn_down.bias"):
                w.tensor(b + n, r(dim))
            w.tensor(b + "attn_qkv.weight", r(3 * dim, dim), mt(dim))
            w.tensor(b + "attn_qkv.bias", r(3 * dim))
            w.tensor(b + "ffn_up.bias", r(ff))
        elif fused:
            w.tensor(b + "attn_qkv.weight", r(heads * hd + 2 * kv * hd, dim), mt(dim))
        else:
            w.tensor(b + "attn_q.weight", r(heads * hd, dim), mt(dim))
            w.tensor(b + "attn_k.weight", r(kv * hd, dim), mt(dim))
            w.tensor(b + "attn_v.weight", r(kv * hd, dim), mt(dim))
        if arch == "qwen2":
            for n, rows in (("attn_q.bias", heads * hd), ("attn_k.bias", kv * hd), ("attn_v.bias", kv * hd)):
                w.tensor(b + n, r(rows))
        if arch in ("qwen3", "gemma3"):
            w.tensor(b + "attn_q_norm.weight", r(hd))
            w.tensor(b + "attn_k_norm.weight", r(hd))
        w.tensor(b + "attn_output.weight", r(dim, heads * hd), mt(heads * hd))
        if arch == "gemma3":
            w.tensor(b + "post_attention_norm.weight", r(dim))
            w.tensor(b + "post_ffw_norm.weight", r(dim))
        w.tensor(b + "ffn_norm.weight", r(dim))
        if arch == "phi3":
            w.tensor(b + "ffn_up.weight", r(2 * ff, dim), mt(dim))
        else:
            if arch != "gpt2":
                w.tensor(b + "ffn_gate.weight", r(ff, dim), mt(dim))
            w.tensor(b + "ffn_up.weight", r(ff, dim), mt(dim))
        w.tensor(b + "ffn_down.weight", r(dim, ff), mt(ff))
    w.tensor("output_norm.weight", r(dim))
    if arch == "gpt2":
        w.tensor("output_norm.bias", r(dim))
    return w


def seeds():
    out = {}
    for arch in ("llama", "qwen2", "qwen3", "gemma3", "phi3", "gpt2"):
        out["ok_%s_f32" % arch] = (0, tiny(arch, fused=arch == "phi3").bytes())
    out["ok_llama_f16"] = (0, tiny("llama", "F16").bytes())
    out["ok_llama_bf16_to_q8"] = (4, tiny("llama", "BF16").bytes())
    out["ok_llama_q8_0"] = (0, tiny("llama", "Q8_0", dim=32, ff=32).bytes())
    out["ok_qwen2_q8_0_to_f16"] = (2, tiny("qwen2", "Q8_0", dim=32, ff=32).bytes())
    out["ok_llama_q5_0_to_q8"] = (4, tiny("llama", "Q5_0", dim=32, ff=32).bytes())
    out["ok_llama_q4_1_to_f32"] = (1, tiny("llama", "Q4_1", dim=32, ff=32).bytes())
    out["ok_qwen3_q4_k_to_q8"] = (4, tiny("qwen3", "Q4_K", dim=256, heads=1, kv=1, head_dim=8,
                                          ff=8).bytes())
    out["ok_gemma3_q6_k_to_bf16"] = (3, tiny("gemma3", "Q6_K", dim=256, heads=1, kv=1,
                                             head_dim=8, ff=8).bytes())
    out["ok_llama_tokenizer_nested"] = (0, tiny("llama", extra=[
        ("tokenizer.ggml.model", W.STRING, "llama", None),
        ("tokenizer.ggml.tokens", W.ARRAY, ["<unk>", "a", "b", "c", "d", "e", "f", "g"], W.STRING),
        ("tokenizer.ggml.scores", W.ARRAY, [0.0] * 8, W.F32),
        ("tokenizer.nested", W.ARRAY, [(W.U8, [1, 2]), (W.STRING, ["x"])], W.ARRAY),
        ("general.alignment", W.U32, 64, None)]).bytes())
    good = tiny("llama").bytes()
    out["bad_truncated_header"] = (0, good[:40])
    out["bad_truncated_data"] = (0, good[:-20])
    lying = bytearray(good)
    struct.pack_into("<Q", lying, 8, 1 << 40)  # tensor count
    out["bad_lying_tensor_count"] = (0, bytes(lying))
    lying = bytearray(good)
    struct.pack_into("<Q", lying, 16, 1 << 50)  # metadata count
    out["bad_lying_key_count"] = (0, bytes(lying))
    huge = W.GgufWriter("llama")
    huge.kv.append(("x", W.STRING, "", None))
    raw = bytearray(huge.bytes())
    at = raw.index(b"x") + 1 + 4
    struct.pack_into("<Q", raw, at, 1 << 60)  # the string's length
    out["bad_huge_string"] = (0, bytes(raw))
    arr = W.GgufWriter("llama")
    arr.add("big", W.ARRAY, [1, 2, 3], W.U32)
    raw = bytearray(arr.bytes())
    at = raw.index(b"big") + 3 + 4 + 4
    struct.pack_into("<Q", raw, at, 1 << 61)  # the array's length
    out["bad_huge_array"] = (0, bytes(raw))
    v1 = bytearray(good)
    struct.pack_into("<I", v1, 4, 1)
    out["bad_version_1"] = (0, bytes(v1))
    be = bytearray(good)
    struct.pack_into(">I", be, 4, 3)
    out["bad_big_endian"] = (0, bytes(be))
    out["bad_unknown_arch"] = (0, tiny("llama").bytes().replace(b"llama", b"mamba", 1))
    out["bad_unknown_key"] = (0, tiny("llama", extra=[("llama.rope.scaling.yarn_x", W.F32, 1.0,
                                                       None)]).bytes())
    out["bad_alignment"] = (0, tiny("llama", extra=[("general.alignment", W.U32, 48, None)]).bytes())
    unk = tiny("llama")
    unk.tensors[0] = (unk.tensors[0][0], unk.tensors[0][1], 99, unk.tensors[0][3])
    out["bad_unknown_tensor_type"] = (0, unk.bytes())
    out["bad_q4_k_without_dtype"] = (0, tiny("qwen3", "Q4_K", dim=256, heads=1, kv=1, head_dim=8,
                                             ff=8).bytes())
    return out


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "corpus", "gguf_input")
    os.makedirs(out_dir, exist_ok=True)
    for name, (option, image) in sorted(seeds().items()):
        with open(os.path.join(out_dir, name), "wb") as f:
            f.write(bytes([option]) + image)
    print("wrote %d seeds to %s" % (len(seeds()), out_dir))


if __name__ == "__main__":
    main()
