"""A Llama model in attnrt's llama config (dim, n_layers, n_heads, n_kv_heads, vocab_size,
hidden_dim, norm_eps, max_seq_len, rope_theta) written as a GGUF file llama.cpp loads, so both
engines run the same weights: bench/gguf_writer.py's command line and
tests/python/lm_quality_llamacpp_test.py use it; tools/python/gguf_writer.py lays out the file.

Weights come from Meta-layout safetensors (tok_embeddings, layers.N.attention.wq, ..., norm,
output; tied embeddings when output is absent) or are random (seeded). The rope layout is Meta's
interleaved pairs, which is llama.cpp's "llama" rope, so q and k are written as they are. Every
matrix (the embedding too, which is also the tied output) is stored in one ggml type of
MATRIX_TYPES (rows a multiple of its block: 32, or 256 for the K-quants); norms stay F32. The
tokenizer is a stand-in for speed runs: an SPM vocabulary whose first 256 tokens are the bytes
<0x00>..<0xFF> (all of it for a byte-level model) and the rest named t256, t257, ...; llama.cpp
needs one to load a model, and the benchmarks feed token ids.
"""
import numpy as np

import gguf_writer as W
from safetensors_format import read_file

MATRIX_TYPES = ("F32", "F16", "BF16", "Q8_0", "Q4_0", "Q4_K", "Q6_K")
# The stand-in vocabulary's token types (llama.cpp's llama_token_type).
BYTE_TOKEN, NORMAL_TOKEN = 6, 1


def read_safetensors(path):
    """name -> float32 array of a safetensors file; ValueError for a tensor that is not F32."""
    out = {}
    for name, (dtype, shape, raw) in read_file(path).items():
        if dtype != "F32":
            raise ValueError(f"{name} is {dtype}; only F32 is written")
        out[name] = np.frombuffer(raw, "<f4").reshape(shape)
    return out


def random_weights(c, seed):
    """Meta-layout weights for config `c`: matrices normal / sqrt(fan-in), norms one."""
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
    """(GGUF name, float32 array) in llama.cpp's names and order; output.weight only when not
    tied. ValueError naming a missing tensor."""
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
            raise ValueError(f"no tensor {m}")
        out.append((g, np.ascontiguousarray(weights[m], np.float32)))
    return out


def write_gguf(path, c, tensors, name, matrix_type="F32"):
    """Writes `tensors` (gguf_names' list) with config `c`'s llama keys and the stand-in
    vocabulary; the matrices as `matrix_type`, the rest F32. ValueError when a matrix's rows are
    not a multiple of the type's block (nothing is written then)."""
    if matrix_type not in MATRIX_TYPES:
        raise ValueError(f"type {matrix_type} is not one of {', '.join(MATRIX_TYPES)}")
    vocab = c["vocab_size"]
    bytes_in_vocab = min(vocab, 256)
    w = W.GgufWriter("llama")
    for key, kind, value in (
            ("general.name", W.STRING, name),
            ("general.alignment", W.U32, w.alignment),
            ("llama.context_length", W.U32, c["max_seq_len"]),
            ("llama.embedding_length", W.U32, c["dim"]),
            ("llama.block_count", W.U32, c["n_layers"]),
            ("llama.feed_forward_length", W.U32, c["hidden_dim"]),
            ("llama.attention.head_count", W.U32, c["n_heads"]),
            ("llama.attention.head_count_kv", W.U32, c.get("n_kv_heads") or c["n_heads"]),
            ("llama.attention.layer_norm_rms_epsilon", W.F32, c.get("norm_eps", 1e-5)),
            ("llama.rope.freq_base", W.F32, c.get("rope_theta", 10000.0)),
            ("llama.rope.dimension_count", W.U32, c["dim"] // c["n_heads"]),
            ("llama.vocab_size", W.U32, vocab),
            ("tokenizer.ggml.model", W.STRING, "llama"),
            ("tokenizer.ggml.bos_token_id", W.U32, 1),
            ("tokenizer.ggml.eos_token_id", W.U32, 2),
            ("tokenizer.ggml.add_bos_token", W.BOOL, False)):
        w.add(key, kind, value)
    w.add("tokenizer.ggml.tokens", W.ARRAY,
          [f"<0x{i:02X}>" for i in range(bytes_in_vocab)] + [f"t{i}" for i in range(256, vocab)],
          W.STRING)
    w.add("tokenizer.ggml.scores", W.ARRAY, [0.0] * vocab, W.F32)
    w.add("tokenizer.ggml.token_type", W.ARRAY,
          [BYTE_TOKEN] * bytes_in_vocab + [NORMAL_TOKEN] * (vocab - bytes_in_vocab), W.I32)
    _, block, _ = W.GGML[matrix_type]
    for g, a in tensors:
        if a.ndim != 2:
            w.tensor(g, a)  # norms stay F32
            continue
        if a.shape[1] % block:
            raise ValueError(f"{g} has rows of {a.shape[1]} values, not a multiple of "
                             f"{matrix_type}'s block of {block}")
        w.tensor(g, a, matrix_type)
    w.write(path)
