"""A torch_modules Llama (rope_style "half": Hugging Face's rotate_half layout) written as a
Hugging Face LlamaForCausalLM folder: config.json with transformers' keys and
model.safetensors with HF's tensor names, as `save_pretrained` writes a bf16 model (tied
embeddings: no lm_head.weight). The tokenizer files are written by train_bpe_tokenizer.py.

Meta / llama2.c names (torch_modules.Llama's state_dict) map to HF's:
  tok_embeddings -> model.embed_tokens, norm -> model.norm,
  layers.i.attention.{wq,wk,wv,wo} -> model.layers.i.self_attn.{q,k,v,o}_proj,
  layers.i.feed_forward.{w1,w2,w3} -> model.layers.i.mlp.{gate,down,up}_proj,
  layers.i.{attention_norm,ffn_norm} -> model.layers.i.{input,post_attention}_layernorm.
With rope_style "half" the q/k rows need no permutation (HF's convert_llama_weights_to_hf
permutes Meta's interleaved rows into exactly this layout)."""
import json
import os

import torch

import output_files
import safetensors_format

TRANSFORMERS_VERSION = "4.46.1"  # the config keys' vintage (head_dim and mlp_bias written)
_LAYER_NAMES = {"attention.wq": "self_attn.q_proj", "attention.wk": "self_attn.k_proj",
                "attention.wv": "self_attn.v_proj", "attention.wo": "self_attn.o_proj",
                "feed_forward.w1": "mlp.gate_proj", "feed_forward.w2": "mlp.down_proj",
                "feed_forward.w3": "mlp.up_proj", "attention_norm": "input_layernorm",
                "ffn_norm": "post_attention_layernorm"}


def hf_name(name):
    """The HF tensor name of a torch_modules Llama state_dict name."""
    if name.startswith("layers."):
        _, index, rest = name.split(".", 2)
        module, _, param = rest.rpartition(".")
        return f"model.layers.{index}.{_LAYER_NAMES[module]}.{param}"
    top = {"tok_embeddings.weight": "model.embed_tokens.weight", "norm.weight": "model.norm.weight",
           "output.weight": "lm_head.weight"}
    return top[name]


def hf_config(config, bos_token_id, eos_token_id):
    """config.json of a resolved torch_modules llama config (rope_style must be "half")."""
    if config["rope_style"] != "half":
        raise ValueError("a Hugging Face Llama rotates halves: rope_style must be \"half\"")
    return {
        "architectures": ["LlamaForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
        "bos_token_id": bos_token_id, "eos_token_id": eos_token_id,
        "head_dim": config["dim"] // config["n_heads"], "hidden_act": "silu",
        "hidden_size": config["dim"], "initializer_range": 0.02,
        "intermediate_size": config["hidden_dim"],
        "max_position_embeddings": config["max_seq_len"], "mlp_bias": False, "model_type": "llama",
        "num_attention_heads": config["n_heads"], "num_hidden_layers": config["n_layers"],
        "num_key_value_heads": config["n_kv_heads"], "pretraining_tp": 1,
        "rms_norm_eps": config["norm_eps"], "rope_scaling": None,
        "rope_theta": float(config["rope_theta"]), "tie_word_embeddings": True,
        "torch_dtype": "bfloat16", "transformers_version": TRANSFORMERS_VERSION,
        "use_cache": True, "vocab_size": config["vocab_size"],
    }


def bf16_state(model):
    """The tied model's tensors as bfloat16 (round to nearest even), HF names, without
    output.weight (it is tok_embeddings.weight)."""
    out = {}
    for name, tensor in model.state_dict().items():
        if name == "output.weight":
            continue
        out[hf_name(name)] = tensor.detach().to(torch.bfloat16).contiguous()
    return out


def write(folder, model, config, bos_token_id, eos_token_id):
    """Writes folder/config.json and folder/model.safetensors (bf16); returns the file's size."""
    tensors = bf16_state(model)
    names = sorted(tensors)
    raw = [tensors[n].view(torch.int16).numpy().astype("<i2").tobytes() for n in names]
    header = safetensors_format.header_bytes(
        [(n, "BF16", tensors[n].shape, len(r)) for n, r in zip(names, raw)], {"format": "pt"})
    path = os.path.join(folder, "model.safetensors")
    output_files.write_atomically(path, lambda f: f.write(header + b"".join(raw)))
    text = json.dumps(hf_config(config, bos_token_id, eos_token_id), indent=2, sort_keys=True)
    output_files.write_text_atomically(os.path.join(folder, "config.json"), text + "\n")
    return os.path.getsize(path)


def round_to_bf16_(model):
    """Rounds the model's parameters in place to bfloat16 values (kept in their dtype), so it
    computes with the weights the folder ships."""
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(p.to(torch.bfloat16).to(p.dtype))
