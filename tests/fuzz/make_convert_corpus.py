#!/usr/bin/python3
"""Writes the committed seed corpus for convert_input_fuzzer into corpus/convert_input/.

Each seed is the fuzzer's input layout (convert_input_fuzzer.cc): an options byte (bits 0-2 the
--dtype: 0 f32, 1 f16, 2 bf16, 3 q8, 4 q4_0; bits 3-6 the --arch, 0 = the config's "architecture" key,
k = the k-th architecture of models/src/model_config.cc), the config length as 2 little-endian
bytes, the config JSON, then the safetensors image. Tiny models (dims 2-4) of several
architectures that convert, and inputs that each break one rule of the config or the checkpoint.

Standard library only, so the bytes are the same on every machine; rerun after changing it.
Usage: make_convert_corpus.py [OUT_DIR]
"""
import json
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "tools", "python"))
from output_files import write_atomically  # noqa: E402
from safetensors_format import header_bytes  # noqa: E402

F32, F16, BF16, Q8, Q4_0 = 0, 1, 2, 3, 4
ARCH_SHIFT = 3
ARCH_SELF_ATTENTION, ARCH_LLAMA = 3, 7  # positions in kRecords, counted from 1

DTYPES = {"F32": ("<f", 4), "F16": ("<e", 2)}


def values(count, dtype):
    """`count` small exact values (k/8) packed as `dtype` (F32, F16 or BF16)."""
    vals = [((i * 5) % 17 - 8) / 8.0 for i in range(count)]
    if dtype == "BF16":  # the top half of each float32
        return b"".join(struct.pack("<f", v)[2:] for v in vals)
    fmt, _ = DTYPES[dtype]
    return b"".join(struct.pack(fmt, v) for v in vals)


def safetensors(tensors, metadata=None, header_extra=None, data_extra=b""):
    """A safetensors image of (name, shape, dtype) tensors laid out back to back."""
    blobs = []
    for name, shape, dtype in tensors:
        count = 1
        for d in shape:
            count *= d
        blobs.append((name, dtype, shape, values(count, dtype)))
    header = header_bytes([(n, d, s, len(b)) for n, d, s, b in blobs], metadata, header_extra)
    return header + b"".join(b for _, _, _, b in blobs) + data_extra


def seed(options, config, image):
    text = config if isinstance(config, bytes) else json.dumps(config).encode()
    return bytes([options]) + struct.pack("<H", len(text)) + text + image


def self_attention(d_model=2, d_k=None, d_v=None, dtype="F32"):
    qk, v = d_k or d_model, d_v or d_model
    return [("W_q.weight", (qk, d_model), dtype), ("W_k.weight", (qk, d_model), dtype),
            ("W_v.weight", (v, d_model), dtype), ("W_o.weight", (d_model, v), dtype)]


LLAMA = {"architecture": "llama", "dim": 4, "n_layers": 1, "n_heads": 2, "n_kv_heads": 1,
         "vocab_size": 3, "hidden_dim": 2, "max_seq_len": 8}


def llama(dtype="F16", tied=True):
    p = "layers.0."
    t = [(p + "attention_norm.weight", (4,), "F32"), (p + "attention.wq.weight", (4, 4), dtype),
         (p + "attention.wk.weight", (2, 4), dtype), (p + "attention.wv.weight", (2, 4), dtype),
         (p + "attention.wo.weight", (4, 4), dtype), (p + "ffn_norm.weight", (4,), "F32"),
         (p + "feed_forward.w1.weight", (2, 4), dtype), (p + "feed_forward.w2.weight", (4, 2), dtype),
         (p + "feed_forward.w3.weight", (2, 4), dtype), ("tok_embeddings.weight", (3, 4), dtype),
         ("norm.weight", (4,), "F32")]
    return t if tied else t + [("output.weight", (3, 4), dtype)]


SA = {"architecture": "self-attention", "d_model": 2}
MHA = {"architecture": "mha", "embed_dim": 2, "num_heads": 2, "bias": True, "batch_first": True}
MHA_TENSORS = [("in_proj_weight", (6, 2), "F16"), ("in_proj_bias", (6,), "F32"),
               ("out_proj.weight", (2, 2), "F16"), ("out_proj.bias", (2,), "F32")]
SINGLE_HEAD = {"architecture": "single-head", "embedding_dim": 2, "attention_dim": 3}
SINGLE_HEAD_TENSORS = [("query_proj.weight", (3, 2), "BF16"), ("key_proj.weight", (3, 2), "BF16"),
                       ("value_proj.weight", (3, 2), "BF16")]

ENCODER_LAYER = {"architecture": "encoder-layer", "d_model": 2, "nhead": 1, "dim_feedforward": 2,
                 "bias": False, "activation": "gelu", "batch_first": True}


def encoder_layer(prefix="", dtype="F16"):
    return [(prefix + "self_attn.in_proj_weight", (6, 2), dtype),
            (prefix + "self_attn.out_proj.weight", (2, 2), dtype),
            (prefix + "linear1.weight", (2, 2), dtype), (prefix + "linear2.weight", (2, 2), dtype),
            (prefix + "norm1.weight", (2,), "F32"), (prefix + "norm2.weight", (2,), "F32")]


VIT = {"architecture": "vit", "image_size": 2, "patch_size": 1, "num_layers": 1, "num_heads": 1,
       "hidden_dim": 2, "mlp_dim": 2, "num_classes": 2}


def vit(dtype="F16"):
    """Three channels (fixed), 2x2 images of 1x1 patches: 1 class token + 4 patch tokens."""
    p = "encoder.layers.encoder_layer_0."
    layer = [(p + "ln_1.weight", (2,), "F32"), (p + "ln_1.bias", (2,), "F32"),
             (p + "self_attention.in_proj_weight", (6, 2), dtype),
             (p + "self_attention.in_proj_bias", (6,), "F32"),
             (p + "self_attention.out_proj.weight", (2, 2), dtype),
             (p + "self_attention.out_proj.bias", (2,), "F32"),
             (p + "ln_2.weight", (2,), "F32"), (p + "ln_2.bias", (2,), "F32"),
             (p + "mlp.0.weight", (2, 2), dtype), (p + "mlp.0.bias", (2,), "F32"),
             (p + "mlp.3.weight", (2, 2), dtype), (p + "mlp.3.bias", (2,), "F32")]
    return layer + [("class_token", (1, 1, 2), "F32"), ("conv_proj.weight", (2, 3, 1, 1), dtype),
                    ("conv_proj.bias", (2,), "F32"), ("encoder.pos_embedding", (1, 5, 2), "F32"),
                    ("encoder.ln.weight", (2,), "F32"), ("encoder.ln.bias", (2,), "F32"),
                    ("heads.head.weight", (2, 2), dtype), ("heads.head.bias", (2,), "F32")]


SEEDS = {
    # Convert.
    "ok_self_attention_f32": seed(F32, SA, safetensors(self_attention())),
    "ok_self_attention_dk_q8": seed(Q8, dict(SA, d_k=3, d_v=1),
                                    safetensors(self_attention(2, 3, 1, "F16"))),
    "ok_self_attention_arch_option": seed(F16 | ARCH_SELF_ATTENTION << ARCH_SHIFT, {"d_model": 2},
                                          safetensors(self_attention(dtype="F16"))),
    "ok_single_head_bf16": seed(BF16, SINGLE_HEAD, safetensors(SINGLE_HEAD_TENSORS)),
    "ok_mha_bias_metadata": seed(F16, MHA, safetensors(MHA_TENSORS, metadata={"format": "pt"})),
    "ok_encoder_layer_no_bias": seed(BF16, ENCODER_LAYER, safetensors(encoder_layer())),
    "ok_encoder_two_layers_final_norm": seed(
        F32, dict(ENCODER_LAYER, architecture="encoder", num_layers=2, final_norm=True),
        safetensors(encoder_layer("layers.0.") + encoder_layer("layers.1.") +
                    [("norm.weight", (2,), "F32"), ("norm.bias", (2,), "F32")])),
    "ok_vit_q8": seed(Q8, VIT, safetensors(vit())),
    "ok_llama_tied_f16": seed(F16, LLAMA, safetensors(llama())),
    "ok_llama_output_q8": seed(Q8 | ARCH_LLAMA << ARCH_SHIFT, LLAMA, safetensors(llama("F16", False))),
    "ok_llama_q4_0": seed(Q4_0, LLAMA, safetensors(llama("F16", False))),
    "ok_encoder_layer_q4_0": seed(Q4_0, ENCODER_LAYER, safetensors(encoder_layer())),
    # The config is refused.
    "bad_config_not_json": seed(F32, b'{"architecture": "self-attention", "d_model": 2',
                                safetensors(self_attention())),
    "bad_config_duplicate_key": seed(F32, b'{"architecture":"self-attention","d_model":2,"d_model":2}',
                                     safetensors(self_attention())),
    "bad_config_no_architecture": seed(F32, {"d_model": 2}, safetensors(self_attention())),
    "bad_config_arch_mismatch": seed(F32 | ARCH_SELF_ATTENTION << ARCH_SHIFT, dict(SA, architecture="mha"),
                                     safetensors(self_attention())),
    "bad_config_unknown_key": seed(F32, dict(SA, d_modle=2), safetensors(self_attention())),
    "bad_config_string_dim": seed(F32, dict(SA, d_model="2"), safetensors(self_attention())),
    "bad_config_negative_dim": seed(F32, dict(SA, d_model=-2), safetensors(self_attention())),
    "bad_config_huge_dim": seed(F32, dict(SA, d_model=2**62), safetensors(self_attention())),
    "bad_config_too_many_layers": seed(F16, dict(LLAMA, n_layers=33), safetensors(llama())),
    "bad_config_heads_split": seed(F16, dict(MHA, num_heads=3), safetensors(MHA_TENSORS)),
    "bad_config_fixed_option": seed(F16, dict(MHA, add_bias_kv=True), safetensors(MHA_TENSORS)),
    # The checkpoint is refused, or does not match the config.
    "bad_st_missing_tensor": seed(F32, SA, safetensors(self_attention()[:3])),
    "bad_st_wrong_shape": seed(F32, dict(SA, d_k=3), safetensors(self_attention())),
    "bad_st_unexpected_tensor": seed(F32, SA, safetensors(self_attention() + [("extra", (1,), "F32")])),
    "bad_st_dtype_i64": seed(F32, SA, safetensors(self_attention(),
                                                   header_extra={"x": {"dtype": "I64", "shape": [1],
                                                                       "data_offsets": [64, 72]}},
                                                   data_extra=b"\0" * 8)),
    "bad_st_trailing_bytes": seed(F32, SA, safetensors(self_attention(), data_extra=b"\0" * 4)),
    "bad_st_truncated": seed(F32, SA, safetensors(self_attention())[:-4]),
    "bad_st_header_length": seed(F32, SA, struct.pack("<Q", 2**63) + b"{}"),
    "bad_st_overlap": seed(F32, SA, safetensors([], header_extra={
        "a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
        "b": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}}, data_extra=b"\0" * 12)),
    "bad_st_shape_overflow": seed(F32, SA, safetensors([], header_extra={
        "a": {"dtype": "F32", "shape": [2**32, 2**32, 2**32], "data_offsets": [0, 0]}})),
    "bad_q8_non_finite": seed(Q8, SA, safetensors([], header_extra={
        k: {"dtype": "F16", "shape": [2, 2], "data_offsets": [8 * i, 8 * i + 8]}
        for i, k in enumerate(["W_q.weight", "W_k.weight", "W_v.weight", "W_o.weight"])},
        data_extra=struct.pack("<4e", float("inf"), 0, 1, 2) + b"\0" * 24)),
    "bad_q4_0_non_finite": seed(Q4_0, SA, safetensors([], header_extra={
        k: {"dtype": "F16", "shape": [2, 2], "data_offsets": [8 * i, 8 * i + 8]}
        for i, k in enumerate(["W_q.weight", "W_k.weight", "W_v.weight", "W_o.weight"])},
        data_extra=b"\0" * 8 + struct.pack("<4e", 0, 1, float("nan"), 2) + b"\0" * 16)),
}


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "corpus", "convert_input")
    os.makedirs(out_dir, exist_ok=True)
    for name, data in SEEDS.items():
        # The tensor names of llama, encoder and vit alone take one or two kilobytes of header.
        assert len(data) < 2560, (name, len(data))
        write_atomically(os.path.join(out_dir, name), lambda f, data=data: f.write(data))


if __name__ == "__main__":
    main()
