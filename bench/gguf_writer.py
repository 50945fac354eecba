#!/usr/bin/python3
"""Writes a Llama model as a GGUF file, so llama.cpp runs the same model as attnrt.

  gguf_writer.py --config models/lm/config.json --safetensors models/lm/model.safetensors -o lm.gguf
  gguf_writer.py --config bench/configs/stories15m.json --random -o stories15m.gguf
  gguf_writer.py --config bench/configs/smollm2_135m.json --random --type Q4_0 -o smollm2_q4_0.gguf

--type stores every matrix (the embedding too, which is also the tied output) as that ggml
type: F32 (default), F16, BF16, Q8_0, Q4_0, Q4_K, Q6_K (rows a multiple of the type's block:
32, or 256 for the K-quants); norms stay F32. The block encoders are tests/python/gguf_writer.py's
(round-to-nearest, valid ggml blocks); `attnrt convert` of the file keeps F32/F16/BF16/Q4_0 as
they are and Q8_0 as q8, so both engines run the same weights.

The config is attnrt's llama config (dim, n_layers, n_heads, n_kv_heads, vocab_size, hidden_dim,
norm_eps, max_seq_len, rope_theta); weights come from Meta-layout safetensors (tok_embeddings,
layers.N.attention.wq, ..., norm, output; tied embeddings when output is absent) or are random
(--random, seeded). The rope layout is Meta's interleaved pairs, which is llama.cpp's "llama"
rope, so q and k are written as they are. The tokenizer is a stand-in for speed runs: an SPM
vocabulary whose first 256 tokens are the bytes <0x00>..<0xFF> (all of it for a byte-level
model) and the rest named t256, t257, ...; llama.cpp needs one to load a model, and the benchmark
feeds token ids. Only the GGUF v3 fields this needs are written.
"""
import argparse
import importlib.util
import json
import os
import struct
import sys

import numpy as np

ALIGN = 32
# GGUF metadata value types.
U32, I32, F32, BOOL, STRING, ARRAY = 4, 5, 6, 7, 8, 9
GGML_F32 = 0
MATRIX_TYPES = ("F32", "F16", "BF16", "Q8_0", "Q4_0", "Q4_K", "Q6_K")


def ggml_blocks():
    """tests/python/gguf_writer.py (the block encoders and ggml type ids), loaded under another
    name: it shares this file's module name."""
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests",
                        "python", "gguf_writer.py")
    spec = importlib.util.spec_from_file_location("ggml_blocks", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def gguf_string(s):
    b = s.encode("utf-8")
    return struct.pack("<Q", len(b)) + b


def gguf_value(kind, value):
    if kind == U32:
        return struct.pack("<I", value)
    if kind == I32:
        return struct.pack("<i", value)
    if kind == F32:
        return struct.pack("<f", value)
    if kind == STRING:
        return gguf_string(value)
    raise ValueError(kind)


def gguf_array(kind, values):
    out = struct.pack("<IQ", kind, len(values))
    if kind == STRING:
        return out + b"".join(gguf_string(v) for v in values)
    if kind == F32:
        return out + np.asarray(values, "<f4").tobytes()
    if kind == I32:
        return out + np.asarray(values, "<i4").tobytes()
    raise ValueError(kind)


def read_safetensors(path):
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        data = f.read()
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        if info["dtype"] != "F32":
            sys.exit(f"gguf_writer: {name} is {info['dtype']}; only F32 is written")
        begin, end = info["data_offsets"]
        out[name] = np.frombuffer(data[begin:end], "<f4").reshape(info["shape"])
    return out


def random_weights(c, seed):
    rng = np.random.default_rng(seed)
    dim, hidden, vocab = c["dim"], c["hidden_dim"], c["vocab_size"]
    kv = c.get("n_kv_heads") or c["n_heads"]
    head_dim = dim // c["n_heads"]

    def w(out, inp):
        return (rng.standard_normal((out, inp), np.float32) / np.sqrt(inp)).astype(np.float32)

    t = {"tok_embeddings.weight": w(vocab, dim), "norm.weight": np.ones(dim, np.float32)}
    for i in range(c["n_layers"]):
        p = f"layers.{i}."
        t[p + "attention.wq.weight"] = w(dim, dim)
        t[p + "attention.wk.weight"] = w(kv * head_dim, dim)
        t[p + "attention.wv.weight"] = w(kv * head_dim, dim)
        t[p + "attention.wo.weight"] = w(dim, dim)
        t[p + "feed_forward.w1.weight"] = w(hidden, dim)
        t[p + "feed_forward.w2.weight"] = w(dim, hidden)
        t[p + "feed_forward.w3.weight"] = w(hidden, dim)
        t[p + "attention_norm.weight"] = np.ones(dim, np.float32)
        t[p + "ffn_norm.weight"] = np.ones(dim, np.float32)
    return t


def gguf_names(c, weights):
    """(GGUF name, array) in llama.cpp's names; output.weight only when not tied."""
    names = [("token_embd.weight", "tok_embeddings.weight"), ("output_norm.weight", "norm.weight")]
    if "output.weight" in weights:
        names.append(("output.weight", "output.weight"))
    for i in range(c["n_layers"]):
        for g, m in (("attn_norm", "attention_norm"), ("attn_q", "attention.wq"),
                     ("attn_k", "attention.wk"), ("attn_v", "attention.wv"),
                     ("attn_output", "attention.wo"), ("ffn_norm", "ffn_norm"),
                     ("ffn_gate", "feed_forward.w1"), ("ffn_down", "feed_forward.w2"),
                     ("ffn_up", "feed_forward.w3")):
            names.append((f"blk.{i}.{g}.weight", f"layers.{i}.{m}.weight"))
    out = []
    for g, m in names:
        if m not in weights:
            sys.exit(f"gguf_writer: no tensor {m}")
        out.append((g, np.ascontiguousarray(weights[m], np.float32)))
    return out


def encoded(tensors, matrix_type):
    """(name, ggml type id, dims fastest first, bytes): matrices as matrix_type, the rest F32."""
    blocks = ggml_blocks() if matrix_type != "F32" else None
    out = []
    for g, a in tensors:
        dims = list(reversed(a.shape))  # GGUF lists the fastest-varying dimension first
        if blocks is None or a.ndim != 2:
            out.append((g, GGML_F32, dims, a.tobytes()))
            continue
        gid, block, _ = blocks.GGML[matrix_type]
        if a.shape[1] % block:
            sys.exit(f"gguf_writer: {g} has rows of {a.shape[1]} values, not a multiple of "
                     f"{matrix_type}'s block of {block}")
        out.append((g, gid, dims, blocks.encode(matrix_type, a)))
    return out


def write_gguf(path, c, tensors, name, matrix_type="F32"):
    vocab = c["vocab_size"]
    tokens = [f"<0x{i:02X}>" for i in range(min(vocab, 256))] + [f"t{i}" for i in range(256, vocab)]
    token_types = [6] * min(vocab, 256) + [1] * max(0, vocab - 256)  # 6 byte, 1 normal
    kv = [
        ("general.architecture", STRING, "llama"),
        ("general.name", STRING, name),
        ("general.alignment", U32, ALIGN),
        ("llama.context_length", U32, c["max_seq_len"]),
        ("llama.embedding_length", U32, c["dim"]),
        ("llama.block_count", U32, c["n_layers"]),
        ("llama.feed_forward_length", U32, c["hidden_dim"]),
        ("llama.attention.head_count", U32, c["n_heads"]),
        ("llama.attention.head_count_kv", U32, c.get("n_kv_heads") or c["n_heads"]),
        ("llama.attention.layer_norm_rms_epsilon", F32, c.get("norm_eps", 1e-5)),
        ("llama.rope.freq_base", F32, c.get("rope_theta", 10000.0)),
        ("llama.rope.dimension_count", U32, c["dim"] // c["n_heads"]),
        ("llama.vocab_size", U32, vocab),
        ("tokenizer.ggml.model", STRING, "llama"),
        ("tokenizer.ggml.bos_token_id", U32, 1),
        ("tokenizer.ggml.eos_token_id", U32, 2),
        ("tokenizer.ggml.add_bos_token", BOOL, False),
    ]
    head = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(kv) + 3)
    for key, kind, value in kv:
        head += gguf_string(key) + struct.pack("<I", kind)
        head += struct.pack("<?", value) if kind == BOOL else gguf_value(kind, value)
    head += gguf_string("tokenizer.ggml.tokens") + struct.pack("<I", ARRAY) + gguf_array(STRING, tokens)
    head += gguf_string("tokenizer.ggml.scores") + struct.pack("<I", ARRAY) + gguf_array(
        F32, [0.0] * vocab)
    head += gguf_string("tokenizer.ggml.token_type") + struct.pack("<I", ARRAY) + gguf_array(
        I32, token_types)
    offset = 0
    tensors = encoded(tensors, matrix_type)
    for g, gid, dims, data in tensors:
        head += gguf_string(g) + struct.pack("<I", len(dims)) + struct.pack(f"<{len(dims)}Q", *dims)
        head += struct.pack("<IQ", gid, offset)
        offset += (len(data) + ALIGN - 1) // ALIGN * ALIGN
    with open(path, "wb") as f:
        f.write(head)
        f.write(b"\0" * (-len(head) % ALIGN))
        for _, _, _, data in tensors:
            f.write(data)
            f.write(b"\0" * (-len(data) % ALIGN))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", required=True)
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--safetensors")
    src.add_argument("--random", action="store_true")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--type", choices=MATRIX_TYPES, default="F32",
                    help="ggml type of every matrix (norms stay F32)")
    ap.add_argument("-o", "--out", required=True)
    args = ap.parse_args()
    c = json.load(open(args.config))
    if c.get("architecture", "llama") != "llama":
        sys.exit("gguf_writer: only llama configs")
    weights = random_weights(c, args.seed) if args.random else read_safetensors(args.safetensors)
    write_gguf(args.out, c, gguf_names(c, weights), "attnrt " + args.config, args.type)
    return 0


if __name__ == "__main__":
    sys.exit(main())
