#!/usr/bin/python3
"""A GGUF written from a Hugging Face folder gives the folder's logits (issue 33).

For each family, random f32 weights are saved as a Hugging Face folder (config.json +
model.safetensors, the transformers names and layouts) and as the GGUF llama.cpp's converter
(convert_hf_to_gguf.py) would write from them: Llama's q and k rows permuted for adjacent-pair
RoPE, Gemma's norms stored as 1 + w, Phi-3's fused q|k|v and gate|up kept, GPT-2's Conv1D
matrices transposed, per-layer names blk.N.*. Both are converted with `attnrt convert` and run
on the same tokens with `attnrt run --tokens`: the logits must agree within 1e-5 of
max(1, max |logit|) (both are f32; only the rotation pairs and the order of the split differ).
This checks that the GGUF importer undoes the converter exactly as the Hugging Face importer
reads the original. Exits 77 without numpy."""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import script_setup

with script_setup.skip_without_modules():
    import numpy as np

import gguf_models
from case_tally import Tally

script_setup.import_tools_python()
import gguf_writer as W  # noqa: E402
from safetensors_format import header_bytes  # noqa: E402

TOKENS = [1, 5, 9, 200, 33, 7, 100, 250, 3, 4, 60, 61]
TOLERANCE = 1e-5


def permute(w, heads):
    """convert_hf_to_gguf.py's LlamaModel.permute: rotate_half pairs -> adjacent pairs."""
    rows = w.shape[0]
    return w.reshape(heads, 2, rows // heads // 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


def model(name, seed=1):
    """(config.json dict, HF tensors, GgufWriter) for one family."""
    s = dict(gguf_models.SHAPES[name])
    rng = np.random.default_rng(seed)
    d, h, kv, ff, layers, vocab, ctx = (s[k] for k in ("dim", "heads", "kv_heads", "ff", "layers",
                                                        "vocab", "ctx"))
    hd = s.get("head_dim", d // h)
    rand = lambda *shape: (rng.standard_normal(shape) / np.sqrt(shape[-1])).astype(np.float32)
    norm = lambda n: (1 + 0.1 * rng.standard_normal(n)).astype(np.float32)
    hf, g = {}, {}  # HF name -> array; GGUF name -> array
    arch = gguf_models.GGUF_ARCH[name]
    w = W.GgufWriter(arch)
    p = arch + "."
    for key, value in [("context_length", ctx), ("embedding_length", d), ("block_count", layers),
                       ("feed_forward_length", ff), ("attention.head_count", h)]:
        w.add(p + key, W.U32, value)
    if name == "gpt2":
        cfg = {"architectures": ["GPT2LMHeadModel"], "model_type": "gpt2", "vocab_size": vocab,
               "n_positions": ctx, "n_embd": d, "n_layer": layers, "n_head": h, "n_inner": ff,
               "layer_norm_epsilon": 1e-5}
        w.add(p + "attention.layer_norm_epsilon", W.F32, 1e-5)
        hf["transformer.wte.weight"] = g["token_embd.weight"] = rand(vocab, d)
        hf["transformer.wpe.weight"] = g["position_embd.weight"] = rand(ctx, d)
        for l in range(layers):
            t, b = f"transformer.h.{l}.", f"blk.{l}."
            for hn, gn, shape in [("ln_1", "attn_norm", d), ("ln_2", "ffn_norm", d)]:
                hf[t + hn + ".weight"] = g[b + gn + ".weight"] = norm(shape)
                hf[t + hn + ".bias"] = g[b + gn + ".bias"] = rand(shape)
            for hn, gn, fin, fout in [("attn.c_attn", "attn_qkv", d, 3 * d),
                                      ("attn.c_proj", "attn_output", d, d),
                                      ("mlp.c_fc", "ffn_up", d, ff), ("mlp.c_proj", "ffn_down", ff, d)]:
                conv = rand(fin, fout)  # Conv1D: (in, out)
                hf[t + hn + ".weight"] = conv
                g[b + gn + ".weight"] = np.ascontiguousarray(conv.T)
                hf[t + hn + ".bias"] = g[b + gn + ".bias"] = rand(fout)
        hf["transformer.ln_f.weight"] = g["output_norm.weight"] = norm(d)
        hf["transformer.ln_f.bias"] = g["output_norm.bias"] = rand(d)
        return cfg, hf, w, g
    classes = {"llama": ("LlamaForCausalLM", "llama"), "qwen2": ("Qwen2ForCausalLM", "qwen2"),
               "qwen3": ("Qwen3ForCausalLM", "qwen3"), "phi3": ("Phi3ForCausalLM", "phi3"),
               "gemma3": ("Gemma3ForCausalLM", "gemma3_text")}
    theta = 1e6 if name == "gemma3" else 10000.0
    cfg = {"architectures": [classes[name][0]], "model_type": classes[name][1],
           "vocab_size": vocab, "hidden_size": d, "intermediate_size": ff,
           "num_hidden_layers": layers, "num_attention_heads": h, "num_key_value_heads": kv,
           "max_position_embeddings": ctx, "rms_norm_eps": 1e-6, "rope_theta": theta,
           "tie_word_embeddings": name == "gemma3"}
    w.add(p + "attention.head_count_kv", W.U32, kv)
    w.add(p + "attention.layer_norm_rms_epsilon", W.F32, 1e-6)
    w.add(p + "rope.freq_base", W.F32, theta)
    rotary = s.get("rotary", hd)
    w.add(p + "rope.dimension_count", W.U32, rotary)
    if "head_dim" in s:
        cfg["head_dim"] = hd
        w.add(p + "attention.key_length", W.U32, hd)
        w.add(p + "attention.value_length", W.U32, hd)
    if name == "phi3":
        cfg["partial_rotary_factor"] = rotary / hd
    if name == "gemma3":
        cfg.update({"sliding_window": s["window"], "sliding_window_pattern": 6,
                    "rope_local_base_freq": 10000.0, "query_pre_attn_scalar": hd})
        w.add(p + "attention.sliding_window", W.U32, s["window"])
    gemma = name == "gemma3"
    gnorm = lambda x: x + 1 if gemma else x  # llama.cpp's converter stores Gemma's 1 + w
    hf["model.embed_tokens.weight"] = g["token_embd.weight"] = rand(vocab, d)
    for l in range(layers):
        t, b = f"model.layers.{l}.", f"blk.{l}."
        norms = [("input_layernorm", "attn_norm", d)]
        if gemma:
            norms += [("post_attention_layernorm", "post_attention_norm", d),
                      ("pre_feedforward_layernorm", "ffn_norm", d),
                      ("post_feedforward_layernorm", "post_ffw_norm", d)]
        else:
            norms += [("post_attention_layernorm", "ffn_norm", d)]
        if name in ("qwen3", "gemma3"):
            norms += [("self_attn.q_norm", "attn_q_norm", hd), ("self_attn.k_norm", "attn_k_norm", hd)]
        for hn, gn, n in norms:
            hf[t + hn + ".weight"] = v = 0.1 * rand(n) if gemma else norm(n)
            g[b + gn + ".weight"] = gnorm(v)
        q, k, v = rand(h * hd, d), rand(kv * hd, d), rand(kv * hd, d)
        if name == "phi3":
            hf[t + "self_attn.qkv_proj.weight"] = g[b + "attn_qkv.weight"] = np.concatenate([q, k, v])
        else:
            hf[t + "self_attn.q_proj.weight"], hf[t + "self_attn.k_proj.weight"] = q, k
            hf[t + "self_attn.v_proj.weight"] = g[b + "attn_v.weight"] = v
            llama = name == "llama"
            g[b + "attn_q.weight"] = permute(q, h) if llama else q
            g[b + "attn_k.weight"] = permute(k, kv) if llama else k
        if name == "qwen2":
            for hn, gn, n in [("q_proj", "attn_q", h * hd), ("k_proj", "attn_k", kv * hd),
                              ("v_proj", "attn_v", kv * hd)]:
                hf[t + "self_attn." + hn + ".bias"] = g[b + gn + ".bias"] = rand(n)
        hf[t + "self_attn.o_proj.weight"] = g[b + "attn_output.weight"] = rand(d, h * hd)
        gate, up = rand(ff, d), rand(ff, d)
        if name == "phi3":
            hf[t + "mlp.gate_up_proj.weight"] = g[b + "ffn_up.weight"] = np.concatenate([gate, up])
        else:
            hf[t + "mlp.gate_proj.weight"] = g[b + "ffn_gate.weight"] = gate
            hf[t + "mlp.up_proj.weight"] = g[b + "ffn_up.weight"] = up
        hf[t + "mlp.down_proj.weight"] = g[b + "ffn_down.weight"] = rand(d, ff)
    hf["model.norm.weight"] = fn = 0.1 * rand(d) if gemma else norm(d)
    g["output_norm.weight"] = gnorm(fn)
    if not gemma:
        hf["lm_head.weight"] = g["output.weight"] = rand(vocab, d)
    return cfg, hf, w, g


def write_folder(folder, cfg, hf):
    os.makedirs(folder)
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(cfg, f)
    entries = [(n, "F32", a.shape, np.ascontiguousarray(a, dtype="<f4").tobytes()) for n, a in hf.items()]
    with open(os.path.join(folder, "model.safetensors"), "wb") as f:
        f.write(header_bytes([(n, dt, s, len(b)) for n, dt, s, b in entries]))
        for *_, b in entries:
            f.write(b)


def logits(attnrt, source, work, tag):
    model = os.path.join(work, tag + ".attnrt")
    subprocess.run([attnrt, "convert", source, "-o", model], check=True, capture_output=True)
    tokens = os.path.join(work, "tokens.npy")
    np.save(tokens, np.array([TOKENS], dtype=np.int32))
    out = os.path.join(work, tag + ".npy")
    subprocess.run([attnrt, "run", model, "--tokens", tokens, "--out", out], check=True,
                   capture_output=True)
    return np.load(out)[0]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--attnrt", required=True)
    args = parser.parse_args()
    tally = Tally()
    for name in ("llama", "qwen2", "qwen3", "gemma3", "phi3", "gpt2"):
        with tempfile.TemporaryDirectory() as work:
            try:
                cfg, hf, w, g = model(name)
                folder = os.path.join(work, "hf")
                write_folder(folder, cfg, hf)
                for n, a in g.items():
                    w.tensor(n, a)
                gguf = os.path.join(work, "m.gguf")
                w.write(gguf)
                a = logits(args.attnrt, folder, work, "hf")
                b = logits(args.attnrt, gguf, work, "gguf")
                err = np.abs(a - b).max() / max(1.0, np.abs(a).max())
                ok, note = err <= TOLERANCE, f"max rel diff {err:.2e} (tol {TOLERANCE:g})"
            except subprocess.CalledProcessError as e:
                ok, note = False, f"{' '.join(e.cmd[:2])} failed: {e.stderr.decode()[:300]}"
            tally.case(ok, f"{name:8s} Hugging Face folder vs GGUF: {note}")
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
