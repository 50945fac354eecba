"""Random-weight GGUF files shaped like the real models of each architecture attnrt imports
(llama/SmolLM/TinyLlama/Mistral, qwen2, qwen3, gemma3, phi3, gpt2), written with
gguf_writer.py as llama.cpp's converter lays them out: its key names, its tensor names,
ggml dimension order, fused tensors where it fuses them (phi3 q|k|v and gate|up, gpt2 q|k|v),
Gemma's norms already 1 + w, and a tokenizer of the family's kind (SentencePiece "llama"
with byte tokens, or byte-level BPE "gpt2" with merges) so that llama.cpp loads the file.

`build(arch, types)` returns (GgufWriter, info); `types` maps a role to a ggml type:
"matrix" (every projection), "embd" (token_embd), "output", "attn_v", "ffn_down" (the last
three default to "matrix"/"embd"), so a Q4_K_M-style mix is {"matrix": "Q4_K",
"embd": "Q6_K", "attn_v": "Q6_K", "ffn_down": "Q6_K", "output": "Q6_K"}.
"""
import dataclasses

import numpy as np

from script_setup import import_tools_python

import_tools_python()
import gguf_writer as W  # noqa: E402  (tools/python)

# Small shapes with the real models' proportions; `quantized` variants widen the rows to
# the 256-value super-blocks the K-quants need.
SHAPES = {
    "llama": dict(dim=64, heads=4, kv_heads=2, ff=160, layers=2, vocab=320, ctx=128),
    "mistral": dict(dim=64, heads=4, kv_heads=1, ff=192, layers=2, vocab=320, ctx=128,
                    window=6),
    "llama3": dict(dim=64, heads=2, kv_heads=1, ff=128, layers=2, vocab=320, ctx=256),
    "qwen2": dict(dim=64, heads=4, kv_heads=2, ff=160, layers=2, vocab=320, ctx=128),
    "qwen3": dict(dim=64, heads=4, kv_heads=2, ff=160, layers=2, vocab=320, ctx=128, head_dim=32),
    "gemma3": dict(dim=64, heads=4, kv_heads=2, ff=192, layers=7, vocab=320, ctx=128,
                   head_dim=32, window=5),
    "phi3": dict(dim=64, heads=4, kv_heads=4, ff=128, layers=2, vocab=320, ctx=128, rotary=12),
    "gpt2": dict(dim=64, heads=4, kv_heads=4, ff=256, layers=2, vocab=320, ctx=64),
}
QUANTIZED_SHAPES = {name: dict(SHAPES[name], dim=256, ff=512 if name != "phi3" else 256,
                               **({"head_dim": 64} if "head_dim" in SHAPES[name] else {}),
                               **({"rotary": 48} if "rotary" in SHAPES[name] else {}))
                    for name in ("llama", "qwen2", "qwen3", "gemma3", "phi3", "gpt2")}
GGUF_ARCH = {"llama": "llama", "mistral": "llama", "llama3": "llama", "qwen2": "qwen2",
             "qwen3": "qwen3", "gemma3": "gemma3", "phi3": "phi3", "gpt2": "gpt2"}


@dataclasses.dataclass
class Info:
    arch: str
    vocab: int
    ctx: int
    shape: dict


def spm_tokenizer(w, vocab):
    """SentencePiece ("llama"): <unk>, <s>, </s>, 256 byte tokens, then word pieces."""
    tokens = ["<unk>", "<s>", "</s>"] + ["<0x%02X>" % b for b in range(256)]
    types = [2, 3, 3] + [6] * 256
    i = 0
    while len(tokens) < vocab:
        tokens.append("\u2581w%d" % i if i % 2 == 0 else "p%d" % i)
        types.append(1)
        i += 1
    scores = [0.0, 0.0, 0.0] + [0.0] * 256 + [-float(k) for k in range(vocab - 259)]
    w.add("tokenizer.ggml.model", W.STRING, "llama")
    w.add("tokenizer.ggml.tokens", W.ARRAY, tokens[:vocab], W.STRING)
    w.add("tokenizer.ggml.scores", W.ARRAY, scores[:vocab], W.F32)
    w.add("tokenizer.ggml.token_type", W.ARRAY, types[:vocab], W.I32)
    w.add("tokenizer.ggml.bos_token_id", W.U32, 1)
    w.add("tokenizer.ggml.eos_token_id", W.U32, 2)
    w.add("tokenizer.ggml.unknown_token_id", W.U32, 0)
    w.add("tokenizer.ggml.add_bos_token", W.BOOL, True)


def _byte_chars():
    """GPT-2's bytes_to_unicode: printable bytes as themselves, the rest from U+0100 on."""
    keep = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAD)) + list(range(0xAE, 0x100))
    chars, n = {}, 0
    for b in range(256):
        if b in keep:
            chars[b] = chr(b)
        else:
            chars[b] = chr(256 + n)
            n += 1
    return [chars[b] for b in range(256)]


def bpe_tokenizer(w, vocab):
    """Byte-level BPE ("gpt2", pre "gpt-2"): 256 byte tokens, merges of letter pairs, and
    <|endoftext|> last."""
    tokens = _byte_chars()
    merges = []
    letters = "abcdefghijklmnopqrstuvwxyz"
    for a in letters:
        for b in letters:
            if len(tokens) >= vocab - 1:
                break
            merges.append(a + " " + b)
            tokens.append(a + b)
    tokens.append("<|endoftext|>")
    types = [1] * (len(tokens) - 1) + [3]
    w.add("tokenizer.ggml.model", W.STRING, "gpt2")
    w.add("tokenizer.ggml.pre", W.STRING, "gpt-2")
    w.add("tokenizer.ggml.tokens", W.ARRAY, tokens, W.STRING)
    w.add("tokenizer.ggml.token_type", W.ARRAY, types, W.I32)
    w.add("tokenizer.ggml.merges", W.ARRAY, merges, W.STRING)
    w.add("tokenizer.ggml.bos_token_id", W.U32, vocab - 1)
    w.add("tokenizer.ggml.eos_token_id", W.U32, vocab - 1)
    return len(tokens)


def llama3_factors(rotary, theta, factor=8.0, low=1.0, high=4.0, original=64):
    """llama.cpp's converter's rope_freqs for Llama 3 scaling (float32 as it computes)."""
    freqs = 1.0 / (theta ** (np.arange(0, rotary, 2, dtype=np.float32) / rotary))
    out = []
    for f in freqs.astype(np.float32):
        wavelen = 2 * np.pi / f
        if wavelen < original / high:
            out.append(1.0)
        elif wavelen > original / low:
            out.append(factor)
        else:
            smooth = (original / wavelen - low) / (high - low)
            out.append(1 / ((1 - smooth) / factor + smooth))
    return np.array(out, dtype=np.float32)


def build(name, types=None, quantized=False, seed=0, untied=True, tokenizer=None):
    """`tokenizer(w)`, when given, writes the tokenizer keys instead of the family's own and
    returns the vocabulary size, which token_embd (and output) then have."""
    types = dict(types or {})
    matrix = types.get("matrix", "F32")
    embd = types.get("embd", matrix)
    role = lambda r: types.get(r, matrix)
    s = dict((QUANTIZED_SHAPES if quantized else SHAPES)[name])
    arch = GGUF_ARCH[name]
    rng = np.random.default_rng(seed)
    w = W.GgufWriter(arch)
    w.add("general.name", W.STRING, "attnrt random weights")  # no "phi3": llama.cpp keys vocab rules on it
    dim, heads, kv, ff, layers = s["dim"], s["heads"], s["kv_heads"], s["ff"], s["layers"]
    hd = s.get("head_dim", dim // heads)
    p = arch + "."
    w.add(p + "context_length", W.U32, s["ctx"])
    w.add(p + "embedding_length", W.U32, dim)
    w.add(p + "block_count", W.U32, layers)
    w.add(p + "feed_forward_length", W.U32, ff)
    w.add(p + "attention.head_count", W.U32, heads)
    if arch != "gpt2":
        w.add(p + "attention.head_count_kv", W.U32, kv)
        w.add(p + "attention.layer_norm_rms_epsilon", W.F32, 1e-5 if arch != "gemma3" else 1e-6)
        w.add(p + "rope.freq_base", W.F32, 10000.0 if arch != "gemma3" else 1000000.0)
        w.add(p + "rope.dimension_count", W.U32, s.get("rotary", hd))
        if "head_dim" in s:
            w.add(p + "attention.key_length", W.U32, hd)
            w.add(p + "attention.value_length", W.U32, hd)
    else:
        w.add(p + "attention.layer_norm_epsilon", W.F32, 1e-5)
    if arch == "gemma3":
        w.add(p + "attention.sliding_window", W.U32, s["window"])
    if name == "mistral":
        w.add(p + "attention.sliding_window", W.U32, s["window"])
    vocab = s["vocab"]
    if tokenizer is not None:
        vocab = s["vocab"] = tokenizer(w)
    elif arch == "gpt2" or arch == "qwen2":
        bpe_tokenizer(w, vocab)
    else:
        spm_tokenizer(w, vocab)

    def rand(*shape, scale=None):
        scale = scale if scale is not None else 1.0 / np.sqrt(shape[-1])
        return (rng.standard_normal(shape) * scale).astype(np.float32)

    def norm(n):
        base = 1.0 if arch != "gemma3" else 1.0  # gemma3: the file holds 1 + w already
        return (base + 0.1 * rng.standard_normal(n)).astype(np.float32)

    w.tensor("token_embd.weight", rand(vocab, dim, scale=1.0 if arch != "gemma3" else 0.3), embd)
    if arch == "gpt2":
        w.tensor("position_embd.weight", rand(s["ctx"], dim, scale=0.3), "F32")
    for l in range(layers):
        b = "blk.%d." % l
        w.tensor(b + "attn_norm.weight", norm(dim))
        if arch == "gpt2":
            w.tensor(b + "attn_norm.bias", rand(dim, scale=0.1))
            w.tensor(b + "attn_qkv.weight", rand(3 * dim, dim), matrix)
            w.tensor(b + "attn_qkv.bias", rand(3 * dim, scale=0.1))
            w.tensor(b + "attn_output.weight", rand(dim, dim), matrix)
            w.tensor(b + "attn_output.bias", rand(dim, scale=0.1))
            w.tensor(b + "ffn_norm.weight", norm(dim))
            w.tensor(b + "ffn_norm.bias", rand(dim, scale=0.1))
            w.tensor(b + "ffn_up.weight", rand(ff, dim), matrix)
            w.tensor(b + "ffn_up.bias", rand(ff, scale=0.1))
            w.tensor(b + "ffn_down.weight", rand(dim, ff), role("ffn_down"))
            w.tensor(b + "ffn_down.bias", rand(dim, scale=0.1))
            continue
        if arch == "phi3":
            w.tensor(b + "attn_qkv.weight", rand(heads * hd + 2 * kv * hd, dim), matrix)
        else:
            w.tensor(b + "attn_q.weight", rand(heads * hd, dim), matrix)
            w.tensor(b + "attn_k.weight", rand(kv * hd, dim), matrix)
            w.tensor(b + "attn_v.weight", rand(kv * hd, dim), role("attn_v"))
        if arch == "qwen2":
            w.tensor(b + "attn_q.bias", rand(heads * hd, scale=0.3))
            w.tensor(b + "attn_k.bias", rand(kv * hd, scale=0.3))
            w.tensor(b + "attn_v.bias", rand(kv * hd, scale=0.3))
        if arch in ("qwen3", "gemma3"):
            w.tensor(b + "attn_q_norm.weight", norm(hd))
            w.tensor(b + "attn_k_norm.weight", norm(hd))
        w.tensor(b + "attn_output.weight", rand(dim, heads * hd), matrix)
        if arch == "gemma3":
            w.tensor(b + "post_attention_norm.weight", norm(dim))
        w.tensor(b + "ffn_norm.weight", norm(dim))
        if arch == "phi3":
            w.tensor(b + "ffn_up.weight", rand(2 * ff, dim), matrix)
        else:
            w.tensor(b + "ffn_gate.weight", rand(ff, dim), matrix)
            w.tensor(b + "ffn_up.weight", rand(ff, dim), matrix)
        w.tensor(b + "ffn_down.weight", rand(dim, ff), role("ffn_down"))
        if arch == "gemma3":
            w.tensor(b + "post_ffw_norm.weight", norm(dim))
    w.tensor("output_norm.weight", norm(dim))
    if arch == "gpt2":
        w.tensor("output_norm.bias", rand(dim, scale=0.1))
    if name == "llama3":
        w.tensor("rope_freqs.weight", llama3_factors(s.get("rotary", hd), 10000.0))
    if untied and arch != "gemma3":
        w.tensor("output.weight", rand(vocab, dim), types.get("output", embd))
    return w, Info(arch=arch, vocab=vocab, ctx=s["ctx"], shape=s)
