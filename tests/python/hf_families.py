#!/usr/bin/env python3
"""Hugging Face model folders of seven families, written the way transformers' `save_pretrained`
writes them, and a float64 PyTorch reference of each family (issue 30). Standard library, numpy
and torch only: the `transformers` package is not installed, so the references below are written
from the families' published modelling code (modeling_llama / mistral / qwen2 / qwen3 / gemma3 /
phi3 / gpt2.py and modeling_rope_utils.py), not imported.

  write_folder(name, out_dir, dtype="BF16", shards=1, seed=0, **overrides)
      config.json (sorted keys, indent 2, as PretrainedConfig.to_json_file writes it), the
      weights in model.safetensors or model-0000N-of-0000M.safetensors + model.safetensors.index.json,
      tokenizer.json (a small valid BPE tokenizer), tokenizer_config.json (special tokens, a
      chat_template) and generation_config.json (eos ids). `name` is a variant of VARIANTS;
      overrides replace config.json keys (DELETE removes one). Random seeded weights: every
      tensor matters (norm weights perturbed around their identity, Gemma's around 0; biases
      non-zero). Returns a FolderInfo.
  reference_logits(folder, tokens)      (B, T) ints -> (B, T, vocab) float64 logits of the
      weights as stored (BF16 / F16 widened exactly).
  reference_greedy(folder, prompt, n)   greedy continuation in float64 -> (tokens, near_tie), with
      near_tie[i] true where the two largest logits of step i are within 1e-4.

Semantics per family (what differs from Llama; x * rsqrt(mean(x^2) + eps) * w is RMSNorm):
  llama    rotate_half RoPE on q and k, inv_freq = 1 / theta^(2i / d) then rope_scaling (null,
           "linear": / factor, "llama3": Llama 3.1's wavelength bands), head_dim = config's or
           hidden / heads, SwiGLU down(silu(gate x) * up x), tied lm_head when
           tie_word_embeddings (no lm_head.weight in the file); attention_bias / mlp_bias and
           hidden_act are honoured too (the converter refuses them; the reference can run them).
  mistral  sliding_window W (null: none): query i sees key j iff 0 <= i - j < W.
  qwen2    biases on q, k, v (not o); sliding_window only when use_sliding_window is true, and
           then only on layers >= max_window_layers (or as an explicit layer_types says).
  qwen3    q_norm / k_norm: RMSNorm over head_dim, applied to each head before RoPE.
  gemma3   RMSNorm x * rsqrt(..) * (1 + w); embeddings * sqrt(hidden_size) (exact, float64);
           four norms a layer (input, post_attention, pre_feedforward, post_feedforward) with
           the post norms applied to the branch before the residual add; q/k norms (1 + w);
           scores * query_pre_attn_scalar^-0.5; GeGLU with gelu_pytorch_tanh; layer_types
           (or sliding_window_pattern P: layer i slides iff (i + 1) % P != 0); sliding layers use
           rope_local_base_freq without scaling and window W, full layers rope_theta with
           rope_scaling; attn / final logit softcapping tanh(x / c) * c when not null.
  phi3     qkv_proj rows [q | k | v], gate_up_proj rows [gate | up] (up * silu(gate)),
           partial_rotary_factor f: rotate_half on the first int(head_dim * f) dims of each head,
           the rest passed through; sliding_window as mistral's.
  gpt2     wte + wpe[position], LayerNorm (layer_norm_epsilon), Conv1D y = x @ W + b with W
           stored (in, out), c_attn -> [q | k | v], scores / sqrt(head_dim) (and / (layer + 1)
           with scale_attn_by_inverse_layer_idx), gelu_new (tanh), lm_head = wte.

`python3 hf_families.py [--only NAME,...]` runs the self-test: the cross-checks against
independent implementations (tools/python/torch_modules.py's Llama, SDPA, nn.Linear/LayerNorm)
and the sensitivity checks; the last line is "N passed, N failed"."""
import copy
import dataclasses
import json
import math
import os
import sys

try:
    import numpy as np
    import torch
    import torch.nn.functional as F
except ImportError as _missing:  # run as a script (CTest): skip, as script_setup's tests do
    if __name__ != "__main__":
        raise
    print(f"SKIP: {_missing}", file=sys.stderr)
    sys.exit(77)  # script_setup.SKIP_RETURN_CODE

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TOOLS_PYTHON = os.path.join(ROOT, "tools", "python")


if TOOLS_PYTHON not in sys.path:
    sys.path.insert(0, TOOLS_PYTHON)
import safetensors_format  # noqa: E402

NEAR_TIE = 1e-4
DELETE = object()  # an override value that removes the key from config.json


# ---- families and variants ------------------------------------------------------------------

# architectures value -> family key
ARCHITECTURES = {
    "LlamaForCausalLM": "llama",
    "MistralForCausalLM": "mistral",
    "Qwen2ForCausalLM": "qwen2",
    "Qwen3ForCausalLM": "qwen3",
    "Gemma3ForCausalLM": "gemma3",
    "Phi3ForCausalLM": "phi3",
    "GPT2LMHeadModel": "gpt2",
}
FAMILIES = tuple(ARCHITECTURES.values())

# tie_word_embeddings when config.json does not say (each config class's default)
_TIE_DEFAULT = {"llama": False, "mistral": False, "qwen2": False, "qwen3": False, "gemma3": True,
                "phi3": False, "gpt2": True}


def _llama_like(arch, model_type, version, **keys):
    base = {
        "architectures": [arch], "attention_dropout": 0.0, "hidden_act": "silu",
        "initializer_range": 0.02, "model_type": model_type, "rms_norm_eps": 1e-05,
        "torch_dtype": "bfloat16", "transformers_version": version, "use_cache": True,
    }
    base.update(keys)
    return base


@dataclasses.dataclass
class Variant:
    family: str
    config: dict          # config.json without the token ids (filled from the tokenizer)
    tokenizer: dict       # see _tokenizer_files
    about: str
    window: int = 0       # the smallest sliding window that matters (0: none), for T choices


# Tokenizer specs (see _tokenizer_files) that several variants share, each a fresh dict.
def _llama3_tokenizer(merges_as):
    """Llama 3's byte-level BPE: special tokens after the vocabulary, merges as `merges_as`."""
    return {"style": "byte_level", "front": [], "back": [
        "<|begin_of_text|>", "<|end_of_text|>", "<|start_header_id|>", "<|end_header_id|>",
        "<|eot_id|>"], "bos": "<|begin_of_text|>", "eos": "<|end_of_text|>",
        "gen_eos": ["<|end_of_text|>", "<|eot_id|>"], "template": "llama3",
        "merges_as": merges_as}


def _llama2_tokenizer():
    """Llama 2's sentencepiece: <unk> <s> </s> first."""
    return {"style": "sentencepiece", "front": ["<unk>", "<s>", "</s>"], "back": [],
            "bos": "<s>", "eos": "</s>", "unk": "<unk>", "gen_eos": "</s>", "template": "llama2"}


def _gemma_tokenizer():
    """Gemma 3's sentencepiece: <pad> <eos> <bos> <unk> first, turn markers after."""
    return {"style": "sentencepiece", "front": ["<pad>", "<eos>", "<bos>", "<unk>"],
            "back": ["<start_of_turn>", "<end_of_turn>"], "bos": "<bos>", "eos": "<eos>",
            "unk": "<unk>", "pad": "<pad>", "gen_eos": ["<eos>", "<end_of_turn>"],
            "template": "gemma", "prepend": False}


# Token ids in config.json are those of the tokenizer's special tokens: "bos_token_id" etc.
# name the special token; the tokenizer spec lists them. Shapes are scaled down from the model
# each variant is named after (hidden 64-128, 2-4 layers, vocab 256-512).
VARIANTS = {
    # TinyLlama / transformers 4.3x style: no head_dim key, tied (SmolLM, Llama 3.2 tie too).
    "llama": Variant("llama", _llama_like(
        "LlamaForCausalLM", "llama", "4.40.0",
        attention_bias=False, hidden_size=64, intermediate_size=160,
        max_position_embeddings=2048, num_attention_heads=4, num_hidden_layers=2,
        num_key_value_heads=2, pretraining_tp=1, rope_scaling=None, rope_theta=10000.0,
        tie_word_embeddings=True, vocab_size=320),
        _llama3_tokenizer("strings"),
        "GQA 4/2, tied, no head_dim key"),
    # Llama 2 / TinyLlama-chat style: separate lm_head, head_dim written (4.45+), MHA, 3 layers.
    "llama_untied": Variant("llama", _llama_like(
        "LlamaForCausalLM", "llama", "4.46.1",
        attention_bias=False, head_dim=16, hidden_size=64, intermediate_size=172,
        max_position_embeddings=4096, mlp_bias=False, num_attention_heads=4,
        num_hidden_layers=3, num_key_value_heads=4, pretraining_tp=1, rope_scaling=None,
        rope_theta=10000.0, tie_word_embeddings=False, vocab_size=320),
        _llama2_tokenizer(),
        "MHA 4/4, separate lm_head, 3 layers"),
    # head_dim independent of hidden / heads (Llama allows it; 96 / 4 = 24 != 32).
    "llama_head_dim": Variant("llama", _llama_like(
        "LlamaForCausalLM", "llama", "4.46.1",
        attention_bias=False, head_dim=32, hidden_size=96, intermediate_size=192,
        max_position_embeddings=1024, mlp_bias=False, num_attention_heads=4,
        num_hidden_layers=2, num_key_value_heads=2, pretraining_tp=1, rope_scaling=None,
        rope_theta=500000.0, tie_word_embeddings=False, vocab_size=352),
        _llama3_tokenizer("pairs"),
        "head_dim 32 with hidden 96 and 4 heads"),
    # Llama 3.1 / 3.2 rope_scaling, scaled down so that all three bands occur at head_dim 32
    # with theta 10000 (wavelengths 6.3 .. 6e4 against 64 / 4 = 16 and 64 / 1 = 64).
    "llama3_rope": Variant("llama", _llama_like(
        "LlamaForCausalLM", "llama", "4.45.0.dev0",
        attention_bias=False, head_dim=32, hidden_size=128, intermediate_size=256,
        max_position_embeddings=512, mlp_bias=False, num_attention_heads=4,
        num_hidden_layers=2, num_key_value_heads=2, pretraining_tp=1,
        rope_scaling={"factor": 8.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
                      "original_max_position_embeddings": 64, "rope_type": "llama3"},
        rope_theta=10000.0, tie_word_embeddings=True, vocab_size=384),
        {"style": "byte_level", "front": [], "back": ["<|begin_of_text|>", "<|end_of_text|>",
         "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>", "<|eom_id|>"],
         "bos": "<|begin_of_text|>", "eos": ["<|end_of_text|>", "<|eom_id|>", "<|eot_id|>"],
         "gen_eos": ["<|end_of_text|>", "<|eom_id|>", "<|eot_id|>"], "template": "llama3",
         "merges_as": "pairs"},
        "rope_scaling llama3 (factor 8, low 1, high 4, original 64), eos list"),
    "llama_linear_rope": Variant("llama", _llama_like(
        "LlamaForCausalLM", "llama", "4.46.1",
        attention_bias=False, head_dim=16, hidden_size=64, intermediate_size=160,
        max_position_embeddings=8192, mlp_bias=False, num_attention_heads=4,
        num_hidden_layers=2, num_key_value_heads=1, pretraining_tp=1,
        rope_scaling={"factor": 4.0, "rope_type": "linear"}, rope_theta=10000.0,
        tie_word_embeddings=False, vocab_size=300),
        _llama2_tokenizer(),
        "rope_scaling linear factor 4, MQA"),
    # SmolLM2-135M's config.json as published: 9 heads / 3 kv heads, rope_theta written as an
    # integer, and two keys modeling_llama ignores (is_llama_config, rope_interleaved false).
    "smollm2": Variant("llama", _llama_like(
        "LlamaForCausalLM", "llama", "4.42.3",
        attention_bias=False, hidden_size=72, initializer_range=0.041666666666666664,
        intermediate_size=192, is_llama_config=True, max_position_embeddings=8192,
        mlp_bias=False, num_attention_heads=9, num_hidden_layers=2, num_key_value_heads=3,
        pretraining_tp=1, rope_interleaved=False, rope_scaling=None, rope_theta=100000,
        tie_word_embeddings=True, vocab_size=320),
        {"style": "byte_level", "front": ["<|endoftext|>", "<|im_start|>", "<|im_end|>"],
         "back": [], "bos": "<|im_start|>", "eos": "<|im_end|>", "pad": "<|im_end|>",
         "gen_eos": "<|im_end|>", "template": "chatml", "merges_as": "strings"},
        "SmolLM2 config keys (is_llama_config, rope_interleaved, integer rope_theta), 9/3 heads"),
    "mistral": Variant("mistral", _llama_like(
        "MistralForCausalLM", "mistral", "4.46.0",
        head_dim=16, hidden_size=64, intermediate_size=176, max_position_embeddings=32768,
        num_attention_heads=4, num_hidden_layers=2, num_key_value_heads=2, rope_theta=1000000.0,
        sliding_window=5, tie_word_embeddings=False, vocab_size=300),
        {"style": "sentencepiece", "front": ["<unk>", "<s>", "</s>"],
         "back": ["[INST]", "[/INST]"], "bos": "<s>", "eos": "</s>", "unk": "<unk>",
         "gen_eos": "</s>", "template": "mistral"},
        "sliding_window 5, GQA 4/2, untied", window=5),
    # Qwen2.5-0.5B style: tied, biases on q/k/v. sliding_window is written but unused
    # (use_sliding_window false); it is small here so that applying it would show.
    "qwen2": Variant("qwen2", _llama_like(
        "Qwen2ForCausalLM", "qwen2", "4.43.1",
        hidden_size=64, intermediate_size=176, max_position_embeddings=32768,
        max_window_layers=1, num_attention_heads=4, num_hidden_layers=2, num_key_value_heads=2,
        rms_norm_eps=1e-06, rope_theta=1000000.0, sliding_window=6, tie_word_embeddings=True,
        use_sliding_window=False, vocab_size=320),
        {"style": "byte_level", "front": [], "back": ["<|endoftext|>", "<|im_start|>",
         "<|im_end|>"], "bos": None, "eos": "<|im_end|>", "config_bos": "<|endoftext|>",
         "pad": "<|endoftext|>", "gen_eos": ["<|im_end|>", "<|endoftext|>"],
         "template": "chatml", "merges_as": "strings"},
        "q/k/v biases, tied, use_sliding_window false with sliding_window 6 written"),
    # Qwen3-0.6B style: head_dim 32 with hidden 64 and 4 heads (q is 128 wide), q/k norms.
    "qwen3": Variant("qwen3", _llama_like(
        "Qwen3ForCausalLM", "qwen3", "4.51.0",
        attention_bias=False, head_dim=32, hidden_size=64, intermediate_size=192,
        max_position_embeddings=40960, max_window_layers=2, num_attention_heads=4,
        num_hidden_layers=2, num_key_value_heads=2, rms_norm_eps=1e-06, rope_scaling=None,
        rope_theta=1000000, sliding_window=None, tie_word_embeddings=True,
        use_sliding_window=False, vocab_size=320),
        {"style": "byte_level", "front": [], "back": ["<|endoftext|>", "<|im_start|>",
         "<|im_end|>", "<think>", "</think>"], "bos": None, "eos": "<|im_end|>",
         "config_bos": "<|endoftext|>", "pad": "<|endoftext|>",
         "gen_eos": ["<|im_end|>", "<|endoftext|>"], "template": "chatml",
         "merges_as": "pairs"},
        "q_norm/k_norm, head_dim 32 != 64 / 4, tied"),
    # gemma-3-270m style (transformers 4.55): layer_types, no tie_word_embeddings key (the
    # class default ties), head_dim 32 with hidden 96 (sqrt(96) is irrational),
    # query_pre_attn_scalar 24 != head_dim.
    "gemma3": Variant("gemma3", {
        "_sliding_window_pattern": 3, "architectures": ["Gemma3ForCausalLM"],
        "attention_bias": False, "attention_dropout": 0.0, "attn_logit_softcapping": None,
        "final_logit_softcapping": None, "head_dim": 32, "hidden_activation": "gelu_pytorch_tanh",
        "hidden_size": 96, "initializer_range": 0.02, "intermediate_size": 192,
        "layer_types": ["sliding_attention", "sliding_attention", "full_attention",
                        "sliding_attention"],
        "max_position_embeddings": 32768, "model_type": "gemma3_text", "num_attention_heads": 4,
        "num_hidden_layers": 4, "num_key_value_heads": 1, "query_pre_attn_scalar": 24,
        "rms_norm_eps": 1e-06, "rope_local_base_freq": 10000.0, "rope_scaling": None,
        "rope_theta": 1000000.0, "sliding_window": 4, "torch_dtype": "bfloat16",
        "transformers_version": "4.55.0.dev0", "use_bidirectional_attention": False,
        "use_cache": True, "vocab_size": 320},
        _gemma_tokenizer(),
        "layer_types [S, S, F, S], window 4, MQA 4/1, head_dim 32, hidden 96", window=4),
    # gemma-3-1b-it style (transformers 4.50): sliding_window_pattern instead of layer_types.
    "gemma3_pattern": Variant("gemma3", {
        "architectures": ["Gemma3ForCausalLM"], "attention_bias": False,
        "attention_dropout": 0.0, "attn_logit_softcapping": None,
        "cache_implementation": "hybrid", "final_logit_softcapping": None, "head_dim": 32,
        "hidden_activation": "gelu_pytorch_tanh", "hidden_size": 64, "initializer_range": 0.02,
        "intermediate_size": 160, "max_position_embeddings": 32768,
        "model_type": "gemma3_text", "num_attention_heads": 4, "num_hidden_layers": 4,
        "num_key_value_heads": 2, "query_pre_attn_scalar": 32, "rms_norm_eps": 1e-06,
        "rope_local_base_freq": 10000, "rope_scaling": None, "rope_theta": 1000000,
        "sliding_window": 5, "sliding_window_pattern": 2, "tie_word_embeddings": True,
        "torch_dtype": "bfloat16", "transformers_version": "4.50.0.dev0", "use_cache": True,
        "vocab_size": 300},
        _gemma_tokenizer(),
        "sliding_window_pattern 2 (layers 0, 2 slide), window 5, GQA 4/2", window=5),
    # gemma-3-4b text style: rope_scaling linear 8 on the full-attention layers only.
    "gemma3_linear": Variant("gemma3", {
        "architectures": ["Gemma3ForCausalLM"], "attention_bias": False,
        "attention_dropout": 0.0, "attn_logit_softcapping": None,
        "final_logit_softcapping": None, "head_dim": 32, "hidden_activation": "gelu_pytorch_tanh",
        "hidden_size": 128, "initializer_range": 0.02, "intermediate_size": 256,
        "layer_types": ["sliding_attention", "full_attention", "sliding_attention",
                        "full_attention"],
        "max_position_embeddings": 131072, "model_type": "gemma3_text",
        "num_attention_heads": 4, "num_hidden_layers": 4, "num_key_value_heads": 2,
        "query_pre_attn_scalar": 32, "rms_norm_eps": 1e-06, "rope_local_base_freq": 10000.0,
        "rope_scaling": {"factor": 8.0, "rope_type": "linear"}, "rope_theta": 1000000.0,
        "sliding_window": 4, "torch_dtype": "bfloat16", "transformers_version": "4.55.0",
        "use_bidirectional_attention": False, "use_cache": True, "vocab_size": 384},
        _gemma_tokenizer(),
        "rope_scaling linear 8 on full layers, hidden 128", window=4),
    # Phi-3-mini-4k style: MHA, untied, sliding_window 2047 (larger than any test sequence).
    "phi3": Variant("phi3", _llama_like(
        "Phi3ForCausalLM", "phi3", "4.40.2",
        attention_bias=False, embd_pdrop=0.0, hidden_size=96, intermediate_size=192,
        max_position_embeddings=4096, num_attention_heads=4, num_hidden_layers=2,
        num_key_value_heads=4, original_max_position_embeddings=4096, resid_pdrop=0.0,
        rope_scaling=None, rope_theta=10000.0, sliding_window=2047, tie_word_embeddings=False,
        vocab_size=320),
        {"style": "sentencepiece", "front": ["<unk>", "<s>", "</s>"],
         "back": ["<|endoftext|>", "<|assistant|>", "<|end|>", "<|user|>", "<|system|>"],
         "bos": "<s>", "eos": "<|endoftext|>", "unk": "<unk>", "pad": "<|endoftext|>",
         "gen_eos": ["<|endoftext|>", "<|end|>"], "template": "phi3"},
        "fused qkv_proj / gate_up_proj, MHA, sliding_window 2047"),
    # Phi-4-mini style: partial_rotary_factor, GQA, tied; a small window so that it matters.
    "phi3_partial": Variant("phi3", _llama_like(
        "Phi3ForCausalLM", "phi3", "4.45.0",
        attention_bias=False, embd_pdrop=0.0, hidden_size=128, intermediate_size=224,
        max_position_embeddings=4096, num_attention_heads=4, num_hidden_layers=2,
        num_key_value_heads=2, original_max_position_embeddings=4096, partial_rotary_factor=0.5,
        resid_pdrop=0.0, rope_scaling=None, rope_theta=10000.0, sliding_window=6,
        tie_word_embeddings=True, vocab_size=352),
        {"style": "byte_level", "front": [], "back": ["<|endoftext|>", "<|system|>",
         "<|user|>", "<|assistant|>", "<|end|>"], "bos": "<|endoftext|>",
         "eos": "<|endoftext|>", "pad": "<|endoftext|>",
         "gen_eos": ["<|endoftext|>", "<|end|>"], "template": "phi3", "merges_as": "pairs"},
        "partial_rotary_factor 0.5, GQA 4/2, tied, sliding_window 6", window=6),
    "gpt2": Variant("gpt2", {
        "activation_function": "gelu_new", "architectures": ["GPT2LMHeadModel"],
        "attn_pdrop": 0.1, "embd_pdrop": 0.1, "initializer_range": 0.02,
        "layer_norm_epsilon": 1e-05, "model_type": "gpt2", "n_ctx": 64, "n_embd": 64,
        "n_head": 4, "n_inner": None, "n_layer": 2, "n_positions": 64,
        "reorder_and_upcast_attn": False, "resid_pdrop": 0.1,
        "scale_attn_by_inverse_layer_idx": False, "scale_attn_weights": True,
        "summary_activation": None, "summary_first_dropout": 0.1,
        "summary_proj_to_labels": True, "summary_type": "cls_index", "summary_use_proj": True,
        "task_specific_params": {"text-generation": {"do_sample": True, "max_length": 50}},
        "torch_dtype": "float32", "transformers_version": "4.46.0", "use_cache": True,
        "vocab_size": 300},
        {"style": "byte_level", "front": [], "back": ["<|endoftext|>"],
         "bos": "<|endoftext|>", "eos": "<|endoftext|>", "gen_eos": "<|endoftext|>",
         "template": None, "merges_as": "strings"},
        "learned positions, LayerNorm, Conv1D c_attn, tied to wte"),
}


def variants_of(family):
    return [name for name, v in VARIANTS.items() if v.family == family]


def select_variants(only):
    """Variant names for --only: a comma list of family keys (llama, gemma3, ...), architectures
    values or variant names; None or "" selects all."""
    if not only:
        return list(VARIANTS)
    chosen = []
    for word in only.split(","):
        word = word.strip()
        family = ARCHITECTURES.get(word, word)
        names = variants_of(family) if family in FAMILIES else [word]
        for name in names:
            if name not in VARIANTS:
                raise ValueError(f"unknown family or variant {word!r} (families: "
                                 f"{', '.join(FAMILIES)}; variants: {', '.join(VARIANTS)})")
            if name not in chosen:
                chosen.append(name)
    return chosen


# ---- tokenizer files ------------------------------------------------------------------------

_CORPUS = ("the quick brown fox jumps over the lazy dog and then the dog sleeps in the sun "
           "while the fox runs into the forest there the other animals watch the fox and the "
           "dog as they play in the green grass of the summer morning")


def _bytes_to_unicode():
    """GPT-2's reversible byte -> printable character map (ByteLevel pre-tokenizer)."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("\xa1"), ord("\xac") + 1)) + \
        list(range(ord("\xae"), ord("\xff") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return {b: chr(c) for b, c in zip(bs, cs)}


def _learn_merges(words, count):
    """A tiny deterministic BPE training run: merges the most frequent adjacent pair (ties by
    the pair's text) `count` times. words: list of symbol lists. Returns [(a, b)]."""
    words = [list(w) for w in words]
    merges = []
    for _ in range(count):
        pairs = {}
        for w in words:
            for a, b in zip(w, w[1:]):
                pairs[(a, b)] = pairs.get((a, b), 0) + 1
        if not pairs:
            break
        best = min(pairs, key=lambda p: (-pairs[p], p))
        merges.append(best)
        for w in words:
            i = 0
            while i < len(w) - 1:
                if (w[i], w[i + 1]) == best:
                    w[i:i + 2] = [w[i] + w[i + 1]]
                else:
                    i += 1
    return merges


_TEMPLATES = {
    "llama3": ("{{- bos_token }}\n{%- for message in messages %}\n    {{- '<|start_header_id|>' + "
               "message['role'] + '<|end_header_id|>\\n\\n' + message['content'] | trim + "
               "'<|eot_id|>' }}\n{%- endfor %}\n{%- if add_generation_prompt %}\n    {{- "
               "'<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}\n{%- endif %}\n"),
    "llama2": ("{% for message in messages %}{% if message['role'] == 'user' %}{{ bos_token + "
               "'[INST] ' + message['content'] + ' [/INST]' }}{% elif message['role'] == "
               "'assistant' %}{{ ' ' + message['content'] + ' ' + eos_token }}{% endif %}"
               "{% endfor %}"),
    "chatml": ("{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + "
               "message['content'] + '<|im_end|>' + '\\n'}}{% endfor %}{% if "
               "add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"),
    "mistral": ("{{ bos_token }}{% for message in messages %}{% if message['role'] == 'user' %}"
                "{{ '[INST] ' + message['content'] + ' [/INST]' }}{% else %}{{ message['content']"
                " + eos_token}}{% endif %}{% endfor %}"),
    "gemma": ("{{ bos_token }}{% for message in messages %}{% set role = 'model' if "
              "message['role'] == 'assistant' else message['role'] %}{{ '<start_of_turn>' + role "
              "+ '\\n' + message['content'] | trim + '<end_of_turn>\\n' }}{% endfor %}{% if "
              "add_generation_prompt %}{{'<start_of_turn>model\\n'}}{% endif %}"),
    "phi3": ("{% for message in messages %}{{'<|' + message['role'] + '|>' + '\\n' + "
             "message['content'] + '<|end|>\\n'}}{% endfor %}{% if add_generation_prompt %}"
             "{{ '<|assistant|>\\n' }}{% endif %}"),
}


def _added_token(token_id, content):
    return {"id": token_id, "content": content, "single_word": False, "lstrip": False,
            "rstrip": False, "normalized": False, "special": True}


def _tokenizer_files(spec, vocab_size, version):
    """(tokenizer.json object, tokenizer_config.json object, generation_config object, ids):
    a BPE tokenizer of at most vocab_size tokens, specials at the front and/or back of the
    vocabulary as the family's real tokenizer has them; ids: special token -> id."""
    front, back = spec["front"], spec["back"]
    vocab = {}
    for tok in front:
        vocab[tok] = len(vocab)
    if spec["style"] == "byte_level":
        byte_map = _bytes_to_unicode()
        for b in range(256):
            vocab[byte_map[b]] = len(vocab)
        words = [[byte_map[c] for c in (w if i == 0 else " " + w).encode()]
                 for i, w in enumerate(_CORPUS.split())]
    else:  # sentencepiece-style BPE with byte fallback and "▁" for spaces (Llama 2, Gemma)
        for b in range(256):
            vocab[f"<0x{b:02X}>"] = len(vocab)
        for ch in "▁" + "abcdefghijklmnopqrstuvwxyz":
            vocab[ch] = len(vocab)
        words = [list("▁" + w) for w in _CORPUS.split()]
    room = vocab_size - len(vocab) - len(back)
    if room < 4:
        raise ValueError(f"vocab_size {vocab_size} leaves no room for merges")
    merges = _learn_merges(words, min(room, 40))
    for a, b in merges:
        if a + b not in vocab:
            vocab[a + b] = len(vocab)
    for tok in back:
        vocab[tok] = len(vocab)
    ids = {tok: vocab[tok] for tok in front + back}
    added = [_added_token(ids[t], t) for t in front + back]

    if spec["style"] == "byte_level":
        merges_json = ([[a, b] for a, b in merges] if spec.get("merges_as") == "pairs"
                       else [f"{a} {b}" for a, b in merges])
        tokenizer = {
            "version": "1.0", "truncation": None, "padding": None, "added_tokens": added,
            "normalizer": None,
            "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False,
                              "trim_offsets": True, "use_regex": True},
            "post_processor": {"type": "ByteLevel", "add_prefix_space": True,
                               "trim_offsets": False, "use_regex": True},
            "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True,
                        "use_regex": True},
            "model": {"type": "BPE", "dropout": None, "unk_token": None,
                      "continuing_subword_prefix": "", "end_of_word_suffix": "",
                      "fuse_unk": False, "byte_fallback": False, "ignore_merges": False,
                      "vocab": vocab, "merges": merges_json},
        }
    else:
        normalizers = [{"type": "Replace", "pattern": {"String": " "}, "content": "▁"}]
        if spec.get("prepend", True):
            normalizers.insert(0, {"type": "Prepend", "prepend": "▁"})
        tokenizer = {
            "version": "1.0", "truncation": None, "padding": None, "added_tokens": added,
            "normalizer": {"type": "Sequence", "normalizers": normalizers},
            "pre_tokenizer": None,
            "post_processor": None,
            "decoder": {"type": "Sequence", "decoders": [
                {"type": "Replace", "pattern": {"String": "▁"}, "content": " "},
                {"type": "ByteFallback"}, {"type": "Fuse"},
                {"type": "Strip", "content": " ", "start": 1, "stop": 0}]},
            "model": {"type": "BPE", "dropout": None, "unk_token": spec.get("unk"),
                      "continuing_subword_prefix": None, "end_of_word_suffix": None,
                      "fuse_unk": True, "byte_fallback": True, "ignore_merges": False,
                      "vocab": vocab, "merges": [f"{a} {b}" for a, b in merges]},
        }

    tok_config = {
        "added_tokens_decoder": {str(ids[t]): {k: v for k, v in _added_token(ids[t], t).items()
                                               if k != "id"} for t in front + back},
        "bos_token": spec["bos"], "clean_up_tokenization_spaces": False,
        "eos_token": spec["eos"] if isinstance(spec["eos"], str) else spec["eos"][0],
        "model_max_length": 131072, "tokenizer_class": "PreTrainedTokenizerFast",
    }
    if spec["style"] == "sentencepiece":
        tok_config.update({"add_bos_token": True, "add_eos_token": False,
                           "legacy": False, "unk_token": spec.get("unk")})
    if spec.get("pad"):
        tok_config["pad_token"] = spec["pad"]
    if spec["template"]:
        tok_config["chat_template"] = _TEMPLATES[spec["template"]]

    def id_of(x):
        return [ids[t] for t in x] if isinstance(x, list) else ids[x]

    gen = {"_from_model_config": True, "eos_token_id": id_of(spec["gen_eos"]),
           "transformers_version": version}
    bos = spec.get("config_bos", spec["bos"])
    if bos:
        gen["bos_token_id"] = id_of(bos)
    if spec.get("pad"):
        gen["pad_token_id"] = id_of(spec["pad"])
    token_ids = {"bos_token_id": id_of(bos) if bos else None,
                 "eos_token_id": id_of(spec["eos"]),
                 "pad_token_id": id_of(spec["pad"]) if spec.get("pad") else None}
    return tokenizer, tok_config, gen, token_ids


# ---- tensors --------------------------------------------------------------------------------

def family_of(config):
    archs = config.get("architectures") or []
    if len(archs) != 1 or archs[0] not in ARCHITECTURES:
        raise ValueError(f"no reference for architectures {archs!r}")
    return ARCHITECTURES[archs[0]]


def head_dim_of(config):
    return config.get("head_dim") or config["hidden_size"] // config["num_attention_heads"]


def tied(config, family=None):
    return config.get("tie_word_embeddings", _TIE_DEFAULT[family or family_of(config)])


def tensor_specs(family, config):
    """[(name, shape, kind)] in the state_dict order save_pretrained writes; kind: "matrix"
    (fan-in init), "embed", "norm" (around 1), "gemma_norm" (around 0), "bias", "pos"."""
    specs = []
    if family == "gpt2":
        d, n_inner = config["n_embd"], config.get("n_inner") or 4 * config["n_embd"]
        specs += [("transformer.wte.weight", (config["vocab_size"], d), "embed"),
                  ("transformer.wpe.weight", (config["n_positions"], d), "pos")]
        for i in range(config["n_layer"]):
            p = f"transformer.h.{i}."
            specs += [(p + "ln_1.weight", (d,), "norm"), (p + "ln_1.bias", (d,), "bias"),
                      (p + "attn.c_attn.weight", (d, 3 * d), "conv1d"),
                      (p + "attn.c_attn.bias", (3 * d,), "bias"),
                      (p + "attn.c_proj.weight", (d, d), "conv1d"),
                      (p + "attn.c_proj.bias", (d,), "bias"),
                      (p + "ln_2.weight", (d,), "norm"), (p + "ln_2.bias", (d,), "bias"),
                      (p + "mlp.c_fc.weight", (d, n_inner), "conv1d"),
                      (p + "mlp.c_fc.bias", (n_inner,), "bias"),
                      (p + "mlp.c_proj.weight", (n_inner, d), "conv1d"),
                      (p + "mlp.c_proj.bias", (d,), "bias")]
        specs += [("transformer.ln_f.weight", (d,), "norm"),
                  ("transformer.ln_f.bias", (d,), "bias")]
        return specs
    d, ff = config["hidden_size"], config["intermediate_size"]
    hd, nh, nkv = head_dim_of(config), config["num_attention_heads"], \
        config.get("num_key_value_heads") or config["num_attention_heads"]
    norm = "gemma_norm" if family == "gemma3" else "norm"
    qkv_bias = family == "qwen2" or bool(config.get("attention_bias"))
    o_bias = family != "qwen2" and bool(config.get("attention_bias"))
    mlp_bias = bool(config.get("mlp_bias"))
    specs.append(("model.embed_tokens.weight", (config["vocab_size"], d), "embed"))
    for i in range(config["num_hidden_layers"]):
        p = f"model.layers.{i}."
        if family == "phi3":
            specs += [(p + "self_attn.o_proj.weight", (d, nh * hd), "matrix"),
                      (p + "self_attn.qkv_proj.weight", ((nh + 2 * nkv) * hd, d), "matrix"),
                      (p + "mlp.gate_up_proj.weight", (2 * ff, d), "matrix"),
                      (p + "mlp.down_proj.weight", (d, ff), "matrix")]
        else:
            for proj, rows in (("q", nh * hd), ("k", nkv * hd), ("v", nkv * hd)):
                specs.append((p + f"self_attn.{proj}_proj.weight", (rows, d), "matrix"))
                if qkv_bias:
                    specs.append((p + f"self_attn.{proj}_proj.bias", (rows,), "bias"))
            specs.append((p + "self_attn.o_proj.weight", (d, nh * hd), "matrix"))
            if o_bias:
                specs.append((p + "self_attn.o_proj.bias", (d,), "bias"))
            if family in ("qwen3", "gemma3"):
                specs += [(p + "self_attn.q_norm.weight", (hd,), norm),
                          (p + "self_attn.k_norm.weight", (hd,), norm)]
            for proj, shape in (("gate", (ff, d)), ("up", (ff, d)), ("down", (d, ff))):
                specs.append((p + f"mlp.{proj}_proj.weight", shape, "matrix"))
                if mlp_bias:
                    specs.append((p + f"mlp.{proj}_proj.bias", (shape[0],), "bias"))
        specs += [(p + "input_layernorm.weight", (d,), norm),
                  (p + "post_attention_layernorm.weight", (d,), norm)]
        if family == "gemma3":
            specs += [(p + "pre_feedforward_layernorm.weight", (d,), norm),
                      (p + "post_feedforward_layernorm.weight", (d,), norm)]
    specs.append(("model.norm.weight", (d,), norm))
    if not tied(config, family):
        specs.append(("lm_head.weight", (config["vocab_size"], d), "matrix"))
    return specs


def random_tensors(family, config, seed):
    """name -> float32 array. Linear weights N(0, (2 / sqrt(fan_in))^2); embeddings N(0, 1)
    untied, N(0, 0.25^2) when they are also the output and N(0, 0.03^2) for Gemma (whose
    embeddings are multiplied by sqrt(hidden) and whose branches are normalized to ~unit size),
    so that the residual stream is not dominated by the current token's embedding (greedy would
    repeat it, or one token, whatever the attention computes); norm weights 1 + N(0, 0.2^2)
    (Gemma 0 + N(0, 0.2^2)); biases N(0, 0.2^2); GPT-2 positions N(0, 0.3^2). The self-test
    checks that greedy decoding from 1, 2, 3 gives at least 4 distinct tokens in 16."""
    rng = np.random.RandomState(seed)
    is_tied = tied(config, family)
    out = {}
    for name, shape, kind in tensor_specs(family, config):
        if kind == "matrix":
            a = rng.standard_normal(shape) * (2.0 / math.sqrt(shape[1]))
        elif kind == "conv1d":
            a = rng.standard_normal(shape) * (2.0 / math.sqrt(shape[0]))
        elif kind == "embed":
            a = rng.standard_normal(shape) * (0.03 if family == "gemma3" else
                                              0.25 if is_tied else 1.0)
        elif kind == "norm":
            a = 1.0 + 0.2 * rng.standard_normal(shape)
        elif kind == "gemma_norm":
            a = 0.2 * rng.standard_normal(shape)
        elif kind == "bias":
            a = 0.2 * rng.standard_normal(shape)
        elif kind == "pos":
            a = 0.3 * rng.standard_normal(shape)
        else:
            raise AssertionError(kind)
        out[name] = a.astype(np.float32)
    return out


# ---- safetensors ----------------------------------------------------------------------------

_ST_ITEMSIZE = {"F32": 4, "F16": 2, "BF16": 2, "F64": 8}


def f32_to_bf16_bits(a):
    """float32 array -> uint16 bfloat16 bits, rounded to nearest, ties to even (finite input)."""
    u = np.ascontiguousarray(a, dtype="<f4").view("<u4").astype(np.uint64)
    if not np.all(np.isfinite(a)):
        raise ValueError("non-finite value")
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype("<u2")


def encode(a, dtype):
    """(raw little-endian bytes) of a float array stored as safetensors dtype."""
    if dtype == "F32":
        return np.ascontiguousarray(a, dtype="<f4").tobytes()
    if dtype == "F16":
        h = np.asarray(a, dtype=np.float32).astype("<f2")
        if not np.all(np.isfinite(h)):
            raise ValueError("value overflows F16")
        return h.tobytes()
    if dtype == "BF16":
        return f32_to_bf16_bits(np.asarray(a, dtype=np.float32)).tobytes()
    if dtype == "F64":
        return np.ascontiguousarray(a, dtype="<f8").tobytes()
    raise ValueError(f"unsupported safetensors dtype {dtype!r}")


def decode(raw, dtype, shape):
    """float64 array of raw safetensors bytes (BF16 / F16 widened exactly)."""
    if dtype == "F32":
        a = np.frombuffer(raw, "<f4").astype(np.float64)
    elif dtype == "F16":
        a = np.frombuffer(raw, "<f2").astype(np.float64)
    elif dtype == "BF16":
        a = (np.frombuffer(raw, "<u2").astype(np.uint32) << 16).view("<f4").astype(np.float64)
    elif dtype == "F64":
        a = np.frombuffer(raw, "<f8").copy()
    else:
        raise ValueError(f"unsupported safetensors dtype {dtype!r}")
    return a.reshape(shape)


def write_safetensors(path, entries, metadata=None):
    """entries: [(name, dtype, shape, raw bytes)] in data order."""
    header = safetensors_format.header_bytes(
        [(n, dt, shape, len(raw)) for n, dt, shape, raw in entries],
        {"format": "pt"} if metadata is None else metadata)
    with open(path, "wb") as f:
        f.write(header)
        for _, _, _, raw in entries:
            f.write(raw)


def read_safetensors(path):
    """name -> (dtype, shape, raw bytes)."""
    return safetensors_format.read_file(path)


def shard_name(k, m):
    return f"model-{k:05d}-of-{m:05d}.safetensors"


def write_weights(folder, tensors, dtype, shards=1):
    """Writes tensors (name -> array, in state_dict order) as model.safetensors, or as `shards`
    consecutive shards of about equal size plus model.safetensors.index.json; removes the
    weight files of a previous call. Returns the weight file names."""
    for old in os.listdir(folder):
        if old.endswith(".safetensors") or old == "model.safetensors.index.json":
            os.remove(os.path.join(folder, old))
    items = [(name, np.asarray(a)) for name, a in tensors.items()]
    if shards < 1 or shards > len(items):
        raise ValueError(f"{shards} shards for {len(items)} tensors")
    encoded = [(name, dtype, a.shape, encode(a, dtype)) for name, a in items]
    if shards == 1:
        write_safetensors(os.path.join(folder, "model.safetensors"),
                          sorted(encoded, key=lambda e: e[0]))
        return ["model.safetensors"]
    total = sum(len(e[3]) for e in encoded)
    groups, current, done = [], [], 0
    for i, e in enumerate(encoded):
        current.append(e)
        done += len(e[3])
        left_items, left_groups = len(encoded) - i - 1, shards - len(groups) - 1
        if left_groups > 0 and (done >= total * (len(groups) + 1) / shards
                                or left_items == left_groups):
            groups.append(current)
            current = []
    groups.append(current)
    assert len(groups) == shards and all(groups), [len(g) for g in groups]
    names, weight_map = [], {}
    for k, group in enumerate(groups, 1):
        fname = shard_name(k, shards)
        write_safetensors(os.path.join(folder, fname), sorted(group, key=lambda e: e[0]))
        names.append(fname)
        for e in group:
            weight_map[e[0]] = fname
    index = {"metadata": {"total_size": total}, "weight_map": weight_map}
    _write_json(os.path.join(folder, "model.safetensors.index.json"), index)
    return names


def read_weights(folder):
    """name -> (dtype, shape, raw bytes) over model.safetensors or the index's shards."""
    index_path = os.path.join(folder, "model.safetensors.index.json")
    if os.path.exists(index_path):
        with open(index_path) as f:
            weight_map = json.load(f)["weight_map"]
        out = {}
        for fname in sorted(set(weight_map.values())):
            for name, entry in read_safetensors(os.path.join(folder, fname)).items():
                if weight_map.get(name) != fname:
                    raise ValueError(f"{fname} holds {name}, which the index does not map there")
                out[name] = entry
        missing = set(weight_map) - set(out)
        if missing:
            raise ValueError(f"the index names tensors no shard holds: {sorted(missing)}")
        return out
    return read_safetensors(os.path.join(folder, "model.safetensors"))


def load_folder(folder):
    """(config dict, name -> float64 torch tensor of the weights as stored)."""
    with open(os.path.join(folder, "config.json")) as f:
        config = json.load(f)
    tensors = {name: torch.from_numpy(decode(raw, dt, shape))
               for name, (dt, shape, raw) in read_weights(folder).items()}
    return config, tensors


def rewrite_weights(folder, drop=(), extra=None, rename=None):
    """Test surgery on a written folder, keeping its dtype and sharding: drops tensors, adds
    extra ones (name -> array), renames (old -> new). Returns the written file names."""
    entries = read_weights(folder)
    index_path = os.path.join(folder, "model.safetensors.index.json")
    shards = 1
    if os.path.exists(index_path):
        with open(index_path) as f:
            shards = len(set(json.load(f)["weight_map"].values()))
    dtype = next(iter(entries.values()))[0]
    tensors = {}
    for name, (dt, shape, raw) in entries.items():
        if name in drop:
            continue
        name = (rename or {}).get(name, name)
        tensors[name] = decode(raw, dt, shape).astype(np.float32)
    for name, a in (extra or {}).items():
        tensors[name] = np.asarray(a, dtype=np.float32)
    return write_weights(folder, tensors, dtype, shards)


# ---- folders --------------------------------------------------------------------------------

def _write_json(path, value, ensure_ascii=True, sort_keys=True):
    with open(path, "w", encoding="utf-8") as f:
        f.write(json.dumps(value, indent=2, sort_keys=sort_keys, ensure_ascii=ensure_ascii) + "\n")


@dataclasses.dataclass
class FolderInfo:
    path: str
    name: str
    family: str
    config: dict
    tensors: dict          # name -> float32 array before storage rounding
    weight_files: list
    dtype: str
    token_ids: dict        # bos_token_id / eos_token_id / pad_token_id as in config.json
    gen_eos: list          # generation_config.json's eos ids


def _config_for(name, token_ids, overrides):
    v = VARIANTS[name]
    config = copy.deepcopy(v.config)
    if v.family == "gpt2":
        config["bos_token_id"] = token_ids["bos_token_id"]
        config["eos_token_id"] = token_ids["eos_token_id"]
    else:
        for key, value in token_ids.items():
            if value is not None:
                config[key] = value
    config["torch_dtype"] = config.get("torch_dtype", "bfloat16")
    for key, value in overrides.items():
        if value is DELETE:
            config.pop(key, None)
        else:
            config[key] = value
    return config


def write_folder(name, out_dir, dtype="BF16", shards=1, seed=0, tokenizer=True, overrides=None,
                 **more_overrides):
    """Writes variant `name` as a Hugging Face folder in out_dir (created). dtype: the
    safetensors type of every tensor ("BF16", "F16", "F32"; config.json's torch_dtype says it).
    overrides: config.json keys to set (DELETE removes one); the weights follow the resulting
    config (attention_bias: true adds the biases, tie_word_embeddings adds / drops lm_head).
    tokenizer=False leaves out the three tokenizer / generation files. Keys that clash with
    this function's parameters (transformers 5 writes "dtype") go in the overrides dict."""
    overrides = {**(overrides or {}), **more_overrides}
    if name not in VARIANTS:
        raise ValueError(f"unknown variant {name!r}; one of {', '.join(VARIANTS)}")
    v = VARIANTS[name]
    os.makedirs(out_dir, exist_ok=True)
    version = v.config["transformers_version"]
    tok, tok_config, gen, token_ids = _tokenizer_files(v.tokenizer, v.config["vocab_size"],
                                                       version)
    config = _config_for(name, token_ids, {"torch_dtype": {"BF16": "bfloat16", "F16": "float16",
                                                           "F32": "float32"}[dtype], **overrides})
    tensors = random_tensors(v.family, config, seed)
    weight_files = write_weights(out_dir, tensors, dtype, shards)
    _write_json(os.path.join(out_dir, "config.json"), config)
    if tokenizer:
        # tokenizers writes pretty JSON in its own key order, non-ASCII as is
        _write_json(os.path.join(out_dir, "tokenizer.json"), tok, ensure_ascii=False,
                    sort_keys=False)
        _write_json(os.path.join(out_dir, "tokenizer_config.json"), tok_config,
                    ensure_ascii=False)
        _write_json(os.path.join(out_dir, "generation_config.json"), gen)
    gen_eos = gen["eos_token_id"] if isinstance(gen["eos_token_id"], list) \
        else [gen["eos_token_id"]]
    return FolderInfo(out_dir, name, v.family, config, tensors, weight_files, dtype,
                      token_ids, gen_eos)


TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "generation_config.json")


# ---- reference ------------------------------------------------------------------------------

def rope_inv_freq(theta, dim, scaling=None):
    """modeling_rope_utils' inverse frequencies in float64: 1 / theta^(2i / dim) for
    i < dim / 2, then the scaling: "default" none, "linear" / factor, "llama3" Llama 3.1's:
    wavelength 2 pi / f above original / low_freq_factor -> f / factor, below
    original / high_freq_factor -> f, between: (1 - s) f / factor + s f with
    s = (original / wavelength - low) / (high - low)."""
    inv = 1.0 / (float(theta) ** (torch.arange(0, dim, 2, dtype=torch.int64)
                                  .to(torch.float64) / dim))
    if not scaling:
        return inv
    kind = scaling.get("rope_type", scaling.get("type"))
    if kind == "default":
        return inv
    if kind == "linear":
        return inv / float(scaling["factor"])
    if kind == "llama3":
        factor = float(scaling["factor"])
        low, high = float(scaling["low_freq_factor"]), float(scaling["high_freq_factor"])
        old = float(scaling["original_max_position_embeddings"])
        low_wavelen, high_wavelen = old / low, old / high
        wavelen = 2 * math.pi / inv
        scaled = torch.where(wavelen > low_wavelen, inv / factor, inv)
        smooth = (old / wavelen - low) / (high - low)
        smoothed = (1 - smooth) * scaled / factor + smooth * scaled
        medium = ~(wavelen < high_wavelen) & ~(wavelen > low_wavelen)
        return torch.where(medium, smoothed, scaled)
    raise NotImplementedError(f"rope_scaling type {kind!r} has no reference here")


def rotate_half(x):
    h = x.shape[-1] // 2
    return torch.cat((-x[..., h:], x[..., :h]), dim=-1)


def apply_rope(x, inv_freq, positions):
    """x (B, H, T, hd): rotate_half RoPE on the first 2 * len(inv_freq) dims, the rest passed
    through (Phi-3's partial rotary; all dims otherwise)."""
    freqs = torch.outer(positions.to(torch.float64), inv_freq)
    emb = torch.cat((freqs, freqs), dim=-1)
    cos, sin = emb.cos().to(x.dtype), emb.sin().to(x.dtype)
    rd = emb.shape[-1]
    rot, rest = x[..., :rd], x[..., rd:]
    return torch.cat((rot * cos + rotate_half(rot) * sin, rest), dim=-1)


def attend(q, k, v, scale, window=None, softcap=None):
    """Causal attention in float64: q (B, H, T, d), k / v (B, KV, T, d); kv head g serves query
    heads g * H / KV ... (repeat_kv). Query i sees key j iff j <= i and, with a window W,
    i - j < W. Returns (B, H, T, d)."""
    rep = q.shape[1] // k.shape[1]
    if rep > 1:
        k, v = k.repeat_interleave(rep, dim=1), v.repeat_interleave(rep, dim=1)
    scores = (q @ k.transpose(-1, -2)) * scale
    if softcap:
        scores = torch.tanh(scores / softcap) * softcap
    t = q.shape[2]
    i = torch.arange(t)[:, None]
    j = torch.arange(t)[None, :]
    hidden = j > i
    if window:
        hidden = hidden | (i - j >= window)
    scores = scores.masked_fill(hidden, float("-inf"))
    return torch.softmax(scores, dim=-1) @ v


def activation(name):
    if name in ("silu", "swish"):
        return F.silu
    if name in ("gelu_pytorch_tanh", "gelu_new", "gelu_fast"):
        return lambda x: 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi)
                                                      * (x + 0.044715 * x.pow(3))))
    if name == "gelu":
        return lambda x: F.gelu(x)  # exact (erf)
    if name == "relu":
        return F.relu
    raise NotImplementedError(f"activation {name!r} has no reference here")


def rms_norm(x, w, eps, gemma=False):
    y = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)
    return y * (1.0 + w) if gemma else y * w


def layer_norm(x, w, b, eps):
    mean = x.mean(-1, keepdim=True)
    var = (x - mean).pow(2).mean(-1, keepdim=True)
    return (x - mean) * torch.rsqrt(var + eps) * w + b


def layer_plan(family, config):
    """[(window or None, rope theta, rope scaling)] per layer."""
    n = config["num_hidden_layers"]
    theta, scaling = config.get("rope_theta", 10000.0), config.get("rope_scaling")
    if family == "gemma3":
        types = config.get("layer_types")
        if types is None:
            pattern = config.get("sliding_window_pattern", config.get("_sliding_window_pattern", 6))
            types = ["sliding_attention" if (i + 1) % pattern else "full_attention"
                     for i in range(n)]
        plan = []
        for t in types:
            if t == "sliding_attention":
                plan.append((config["sliding_window"], config.get("rope_local_base_freq", 10000.0),
                             None))
            elif t == "full_attention":
                plan.append((None, theta, scaling))
            else:
                raise NotImplementedError(f"layer type {t!r}")
        return plan
    if family in ("mistral", "phi3"):
        return [(config.get("sliding_window"), theta, scaling)] * n
    if family in ("qwen2", "qwen3"):
        types = config.get("layer_types")
        if types is None:
            on = config.get("use_sliding_window", False) and config.get("sliding_window")
            first = config.get("max_window_layers", n)
            types = ["sliding_attention" if on and i >= first else "full_attention"
                     for i in range(n)]
        return [(config["sliding_window"] if t == "sliding_attention" else None, theta, scaling)
                for t in types]
    return [(None, theta, scaling)] * n


# What every weight matmul's input goes through first (None: nothing). hf_parity_test sets it
# to activation_rounding.round_activations for the types attnrt runs on 8-bit activations.
INPUT_ROUNDING = None


def _linear(x, w, b=None):
    """x @ w.T (+ b), w (out, in) as nn.Linear stores it; GPT-2's Conv1D passes w.T."""
    if INPUT_ROUNDING is not None:
        x = INPUT_ROUNDING(x)
    y = x @ w.T
    return y if b is None else y + b


def _decoder_logits(family, config, W, tokens):
    b, t = tokens.shape
    d = config["hidden_size"]
    nh = config["num_attention_heads"]
    nkv = config.get("num_key_value_heads") or nh
    hd = head_dim_of(config)
    eps = config["rms_norm_eps"]
    gemma = family == "gemma3"
    act = activation(config["hidden_activation"] if gemma else config.get("hidden_act", "silu"))
    if gemma:
        scale = float(config["query_pre_attn_scalar"]) ** -0.5
    else:
        scale = hd ** -0.5
    rotary = int(hd * config.get("partial_rotary_factor", 1.0))
    positions = torch.arange(t)
    x = W["model.embed_tokens.weight"][tokens]
    if gemma:
        x = x * math.sqrt(d)  # exact sqrt in float64 (HF rounds it to the weights' dtype)
    for i, (window, theta, scaling) in enumerate(layer_plan(family, config)):
        p = f"model.layers.{i}."
        g = W.get
        h = rms_norm(x, W[p + "input_layernorm.weight"], eps, gemma)
        if family == "phi3":
            qkv = _linear(h, W[p + "self_attn.qkv_proj.weight"])
            q, k, v = qkv.split([nh * hd, nkv * hd, nkv * hd], dim=-1)
        else:
            q = _linear(h, W[p + "self_attn.q_proj.weight"], g(p + "self_attn.q_proj.bias"))
            k = _linear(h, W[p + "self_attn.k_proj.weight"], g(p + "self_attn.k_proj.bias"))
            v = _linear(h, W[p + "self_attn.v_proj.weight"], g(p + "self_attn.v_proj.bias"))
        q = q.view(b, t, nh, hd).transpose(1, 2)
        k = k.view(b, t, nkv, hd).transpose(1, 2)
        v = v.view(b, t, nkv, hd).transpose(1, 2)
        if family in ("qwen3", "gemma3"):
            q = rms_norm(q, W[p + "self_attn.q_norm.weight"], eps, gemma)
            k = rms_norm(k, W[p + "self_attn.k_norm.weight"], eps, gemma)
        inv = rope_inv_freq(theta, rotary, scaling)
        q, k = apply_rope(q, inv, positions), apply_rope(k, inv, positions)
        o = attend(q, k, v, scale, window, config.get("attn_logit_softcapping") if gemma else None)
        o = _linear(o.transpose(1, 2).reshape(b, t, nh * hd), W[p + "self_attn.o_proj.weight"],
                    g(p + "self_attn.o_proj.bias"))
        if gemma:
            o = rms_norm(o, W[p + "post_attention_layernorm.weight"], eps, True)
            x = x + o
            h = rms_norm(x, W[p + "pre_feedforward_layernorm.weight"], eps, True)
        else:
            x = x + o
            h = rms_norm(x, W[p + "post_attention_layernorm.weight"], eps)
        if family == "phi3":
            gate, up = _linear(h, W[p + "mlp.gate_up_proj.weight"]).chunk(2, dim=-1)
            m = _linear(up * act(gate), W[p + "mlp.down_proj.weight"])
        else:
            m = _linear(act(_linear(h, W[p + "mlp.gate_proj.weight"], g(p + "mlp.gate_proj.bias")))
                        * _linear(h, W[p + "mlp.up_proj.weight"], g(p + "mlp.up_proj.bias")),
                        W[p + "mlp.down_proj.weight"], g(p + "mlp.down_proj.bias"))
        if gemma:
            m = rms_norm(m, W[p + "post_feedforward_layernorm.weight"], eps, True)
        x = x + m
    x = rms_norm(x, W["model.norm.weight"], eps, gemma)
    head = W["model.embed_tokens.weight"] if tied(config, family) else W["lm_head.weight"]
    logits = _linear(x, head)
    cap = config.get("final_logit_softcapping") if gemma else None
    if cap:
        logits = torch.tanh(logits / cap) * cap
    return logits


def torch_sdpa_causal(q, k, v):
    """PyTorch's scaled_dot_product_attention with is_causal (torch >= 2.0), or the private
    F._scaled_dot_product_attention of torch 1.13 (Debian's), default scale."""
    if hasattr(F, "scaled_dot_product_attention"):
        return F.scaled_dot_product_attention(q, k, v, is_causal=True)
    return F._scaled_dot_product_attention(q, k, v, None, 0.0, False, True)[0]


def _gpt2_logits(config, W, tokens, sdpa=False):
    b, t = tokens.shape
    d, nh = config["n_embd"], config["n_head"]
    hd = d // nh
    eps = config["layer_norm_epsilon"]
    act = activation(config.get("activation_function", "gelu_new"))
    if t > config["n_positions"]:
        raise ValueError(f"{t} tokens > n_positions {config['n_positions']}")
    x = W["transformer.wte.weight"][tokens] + W["transformer.wpe.weight"][torch.arange(t)]
    for i in range(config["n_layer"]):
        p = f"transformer.h.{i}."
        h = layer_norm(x, W[p + "ln_1.weight"], W[p + "ln_1.bias"], eps)
        qkv = _linear(h, W[p + "attn.c_attn.weight"].T, W[p + "attn.c_attn.bias"])  # Conv1D: (in, out)
        q, k, v = (z.view(b, t, nh, hd).transpose(1, 2) for z in qkv.split(d, dim=-1))
        scale = (1.0 / math.sqrt(hd)) if config.get("scale_attn_weights", True) else 1.0
        if config.get("scale_attn_by_inverse_layer_idx"):
            scale /= float(i + 1)
        if sdpa:  # PyTorch's fused attention, default scale 1 / sqrt(hd): q carries the rest
            o = torch_sdpa_causal(q * (scale * math.sqrt(hd)), k, v)
        else:
            o = attend(q, k, v, scale)
        o = o.transpose(1, 2).reshape(b, t, d)
        x = x + _linear(o, W[p + "attn.c_proj.weight"].T, W[p + "attn.c_proj.bias"])
        h = layer_norm(x, W[p + "ln_2.weight"], W[p + "ln_2.bias"], eps)
        m = act(_linear(h, W[p + "mlp.c_fc.weight"].T, W[p + "mlp.c_fc.bias"]))
        x = x + _linear(m, W[p + "mlp.c_proj.weight"].T, W[p + "mlp.c_proj.bias"])
    x = layer_norm(x, W["transformer.ln_f.weight"], W["transformer.ln_f.bias"], eps)
    return _linear(x, W["transformer.wte.weight"])


def logits_of(config, tensors, tokens, dtype=torch.float64):
    """Float64 logits (B, T, vocab) of a config dict and name -> tensor weights (dtype
    torch.float32 computes in float32 instead, for a stand-in of attnrt's arithmetic)."""
    tokens = torch.as_tensor(np.asarray(tokens), dtype=torch.int64)
    if tokens.dim() != 2:
        raise ValueError(f"tokens must be (B, T), got {tuple(tokens.shape)}")
    if int(tokens.min()) < 0 or int(tokens.max()) >= config["vocab_size"]:
        raise ValueError("token id outside the vocabulary")
    W = {k: v.to(dtype) for k, v in tensors.items()}
    family = family_of(config)
    with torch.no_grad():
        if family == "gpt2":
            return _gpt2_logits(config, W, tokens)
        return _decoder_logits(family, config, W, tokens)


def reference_logits(folder, tokens):
    """The float64 logits (B, T, vocab) of the folder's weights as stored, as a numpy array."""
    config, tensors = load_folder(folder)
    return logits_of(config, tensors, tokens).numpy()


def greedy_of(config, tensors, prompt, n, dtype=torch.float64):
    """Greedy continuation in float64, each step a full forward of the sequence so far.
    Returns (tokens, gaps, logits): gaps[i] = largest - second largest logit of step i; the
    lowest id wins an exact tie."""
    seq = [int(x) for x in prompt]
    out, gaps, rows = [], [], []
    for _ in range(n):
        last = logits_of(config, tensors, [seq], dtype)[0, -1].numpy()
        top = int(np.argmax(last))
        second = np.partition(last, -2)[-2]
        out.append(top)
        gaps.append(float(last[top] - second))
        rows.append(last)
        seq.append(top)
    return out, gaps, np.stack(rows)


def reference_greedy(folder, prompt_tokens, n, near_tie=NEAR_TIE):
    """(n greedy tokens after prompt_tokens in float64, [top-two gap < near_tie per step])."""
    config, tensors = load_folder(folder)
    tokens, gaps, _ = greedy_of(config, tensors, prompt_tokens, n)
    return tokens, [g < near_tie for g in gaps]


# ---- what `attnrt convert --dtype` does to the weights --------------------------------------

def typed_tensor_names(config, tensors):
    """The tensors `convert --dtype` narrows (runtime/FORMAT.md: weight matrices and embedding
    tables; norms, biases and position embeddings stay f32): every 2-D tensor but GPT-2's wpe."""
    return [n for n, t in tensors.items() if t.dim() == 2 and n != "transformer.wpe.weight"]


def _q8_rows(m):
    """FORMAT.md's reference q8 writer on a float32 (rows, cols) matrix: per block of 32 values
    of a row s = f16(max|x| / 127) (computed in f32), q = round(x * (1 / s)) halves away from
    zero, clamped to [-127, 127]; returns s * q in float64."""
    m = np.asarray(m, dtype=np.float32)
    rows, cols = m.shape
    out = np.empty((rows, cols), dtype=np.float64)
    for c0 in range(0, cols, 32):
        block = m[:, c0:c0 + 32]
        s = (np.max(np.abs(block), axis=1) / np.float32(127)).astype(np.float32)
        s = s.astype(np.float16).astype(np.float32)
        with np.errstate(divide="ignore"):
            inv = np.where(s > 0, np.float32(1) / np.where(s > 0, s, 1), 0).astype(np.float32)
        y = block * inv[:, None]
        q = np.clip(np.sign(y) * np.floor(np.abs(y) + np.float32(0.5)), -127, 127)
        out[:, c0:c0 + 32] = q.astype(np.float64) * s[:, None].astype(np.float64)
    return out


def narrow_weights(config, tensors, weight_type):
    """The weights as `attnrt convert --dtype weight_type` would store them with the reference
    rounding of runtime/FORMAT.md (f16 / bf16 round to nearest even; q8 above). GPT-2's Conv1D
    weights are quantized along their input dimension (rows of the (out, in) matrix)."""
    out = dict(tensors)
    for name in typed_tensor_names(config, tensors):
        a = tensors[name].numpy().astype(np.float32)
        conv1d = name.startswith("transformer.h.")
        if conv1d:
            a = a.T
        if weight_type == "f16":
            b = a.astype(np.float16).astype(np.float64)
        elif weight_type == "bf16":
            b = decode(f32_to_bf16_bits(a).tobytes(), "BF16", a.shape)
        elif weight_type == "q8":
            b = _q8_rows(a)
        elif weight_type == "f32":
            b = a.astype(np.float64)
        else:
            raise ValueError(weight_type)
        out[name] = torch.from_numpy(np.ascontiguousarray(b.T if conv1d else b))
    return out


# ---- self-test ------------------------------------------------------------------------------

def _rel(a, b):
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return float(np.max(np.abs(a - b))) / max(1.0, float(np.max(np.abs(b))))


def _tokens(vocab, t, seed, batch=2):
    rng = np.random.RandomState(seed)
    tok = rng.randint(0, vocab, size=(batch, t))
    tok[0, 0], tok[-1, -1] = 0, vocab - 1
    return tok


def _torch_modules():
    import export_torch  # loads tools/python/torch_modules.py once, as attnrt_torch_modules
    return export_torch.tm


def _tm_llama(config, tensors, window=None):
    """tools/python/torch_modules.py's Llama (rope_style "half") in float64 on HF llama
    weights, renamed to Meta's names."""
    tm = _torch_modules()
    c = {"dim": config["hidden_size"], "n_layers": config["num_hidden_layers"],
         "n_heads": config["num_attention_heads"], "n_kv_heads": config["num_key_value_heads"],
         "vocab_size": config["vocab_size"], "hidden_dim": config["intermediate_size"],
         "norm_eps": config["rms_norm_eps"], "max_seq_len": 256,
         "rope_theta": float(config["rope_theta"]), "rope_style": "half",
         "sliding_window": window}
    is_tied = tied(config)
    model = tm.Llama(tm.resolve_config("llama", c), tie_embeddings=is_tied).double().eval()
    sd = {"tok_embeddings.weight": tensors["model.embed_tokens.weight"],
          "norm.weight": tensors["model.norm.weight"],
          "output.weight": tensors["model.embed_tokens.weight" if is_tied else "lm_head.weight"]}
    for i in range(config["num_hidden_layers"]):
        p, m = f"model.layers.{i}.", f"layers.{i}."
        for hf, meta in (("self_attn.q_proj", "attention.wq"), ("self_attn.k_proj", "attention.wk"),
                         ("self_attn.v_proj", "attention.wv"), ("self_attn.o_proj", "attention.wo"),
                         ("mlp.gate_proj", "feed_forward.w1"), ("mlp.down_proj", "feed_forward.w2"),
                         ("mlp.up_proj", "feed_forward.w3")):
            sd[m + meta + ".weight"] = tensors[p + hf + ".weight"]
        sd[m + "attention_norm.weight"] = tensors[p + "input_layernorm.weight"]
        sd[m + "ffn_norm.weight"] = tensors[p + "post_attention_layernorm.weight"]
    model.load_state_dict({k: v.to(torch.float64) for k, v in sd.items()})
    return model, tm


class SelfTest:
    def __init__(self, workdir):
        self.workdir = workdir
        self.passed = self.failed = 0
        self.count = 0

    def folder(self, name, dtype="BF16", shards=1, seed=0, **overrides):
        self.count += 1
        d = os.path.join(self.workdir, f"{self.count:03d}_{name}")
        info = write_folder(name, d, dtype=dtype, shards=shards, seed=seed, **overrides)
        config, tensors = load_folder(d)
        return info, config, tensors

    def check(self, what, fn):
        try:
            note = fn()
        except Exception as e:  # noqa: BLE001 - report and go on
            self.failed += 1
            print(f"FAIL {what}: {type(e).__name__}: {e}", flush=True)
            return
        self.passed += 1
        print(f"ok   {what}: {note}", flush=True)


def _expect(cond, message):
    if not cond:
        raise AssertionError(message)


def _check_roundtrip(st, name):
    """Folder files: stored BF16 / F16 / F32 equal the float32 weights rounded; shards and the
    index agree; config.json is sorted JSON; the tokenizer JSON is valid and the special token
    ids of config.json are the tokenizer's."""
    notes = []
    for dtype, shards in (("BF16", 3), ("F16", 2), ("F32", 1)):
        info, config, tensors = st.folder(name, dtype=dtype, shards=shards, seed=5)
        _expect(set(tensors) == set(info.tensors), "stored tensor names differ")
        for n, a in info.tensors.items():
            if dtype == "BF16":
                want = torch.from_numpy(a.astype(np.float64))
                bits = a.view(np.uint32)
                _expect(np.array_equal(f32_to_bf16_bits(a), ((bits.astype(np.uint64) + 0x7FFF
                                                              + ((bits >> 16) & 1)) >> 16)
                                       .astype(np.uint16)), "bf16 bits")
                _expect(float((tensors[n] - want).abs().max()) <=
                        float(want.abs().max()) * 2 ** -8, f"{n}: BF16 off by more than half ulp")
                # exact against torch's own rounding to bfloat16
                _expect(torch.equal(tensors[n], torch.from_numpy(a).to(torch.bfloat16)
                                    .to(torch.float64)), f"{n}: BF16 differs from torch's")
            elif dtype == "F16":
                _expect(torch.equal(tensors[n], torch.from_numpy(a).to(torch.float16)
                                    .to(torch.float64)), f"{n}: F16 differs from torch's")
            else:
                _expect(torch.equal(tensors[n], torch.from_numpy(a).to(torch.float64)), n)
        if shards > 1:
            with open(os.path.join(info.path, "model.safetensors.index.json")) as f:
                index = json.load(f)
            _expect(len(set(index["weight_map"].values())) == shards, "shard count")
            _expect(index["metadata"]["total_size"] == sum(
                len(raw) for _, _, raw in read_weights(info.path).values()), "total_size")
        with open(os.path.join(info.path, "config.json")) as f:
            text = f.read()
        _expect(text == json.dumps(json.loads(text), indent=2, sort_keys=True) + "\n",
                "config.json is not sorted indent-2 JSON")
    with open(os.path.join(info.path, "tokenizer.json"), encoding="utf-8") as f:
        tok = json.load(f)
    vocab = tok["model"]["vocab"]
    _expect(len(vocab) <= config["vocab_size"], "tokenizer larger than the model's vocab")
    _expect(sorted(vocab.values()) == list(range(len(vocab))), "tokenizer ids not dense")
    for a in tok["added_tokens"]:
        _expect(vocab[a["content"]] == a["id"], f"added token {a['content']} id")
    for m in tok["model"]["merges"]:
        a, b = m if isinstance(m, list) else m.split(" ")
        _expect(a in vocab and b in vocab and a + b in vocab, f"merge {m!r}")
    eos = config["eos_token_id"]
    for e in (eos if isinstance(eos, list) else [eos]):
        _expect(0 <= e < len(vocab), f"eos id {e}")
    with open(os.path.join(info.path, "generation_config.json")) as f:
        gen = json.load(f)
    gen_eos = gen["eos_token_id"] if isinstance(gen["eos_token_id"], list) else [gen["eos_token_id"]]
    id_to_tok = {i: t for t, i in vocab.items()}
    notes.append(f"eos {[id_to_tok[e] for e in gen_eos]}, {len(vocab)} tokens, "
                 f"{len(tok['model']['merges'])} merges")
    return "BF16 x3 shards, F16 x2, F32 exact; " + "; ".join(notes)


def _check_every_tensor_matters(st, name):
    """Each stored tensor, perturbed by 10% of its spread (at least 0.01), changes the logits by
    more than 10x the parity tolerance (1e-4 relative): the reference reads every tensor. And
    greedy decoding from 1, 2, 3 (seed 0, as the parity test writes its folders) is not stuck
    on a few tokens."""
    info, config, tensors = st.folder(name, seed=0)
    tokens = _tokens(config["vocab_size"], 12, 3)
    base = logits_of(config, tensors, tokens).numpy()
    gen = torch.Generator().manual_seed(7)
    weakest = (float("inf"), None)
    for n, t in tensors.items():
        spread = float(t.std()) if t.numel() > 1 else 1.0
        bumped = dict(tensors)
        bumped[n] = t + 0.1 * max(spread, 0.1) * torch.randn(t.shape, generator=gen,
                                                                dtype=torch.float64)
        change = _rel(logits_of(config, bumped, tokens).numpy(), base)
        if change < weakest[0]:
            weakest = (change, n)
    _expect(weakest[0] > 1e-3, f"{weakest[1]} hardly matters: {weakest[0]:.2g}")
    top = np.abs(base).max()
    distinct = len(set(greedy_of(config, tensors, [1, 2, 3], 16)[0]))
    _expect(distinct >= 4, f"greedy from 1,2,3 has only {distinct} distinct tokens")
    return (f"{len(tensors)} tensors, weakest {weakest[1]} changes logits {weakest[0]:.2g}; "
            f"max|logit| {top:.3g}; greedy from 1,2,3 has {distinct} distinct tokens")


def _check_llama_vs_torch_modules(st, name, window_variant=None):
    info, config, tensors = st.folder(name, seed=2)
    if config.get("rope_scaling") or config.get("head_dim", 0) not in (
            0, config["hidden_size"] // config["num_attention_heads"]):
        raise AssertionError("torch_modules' Llama has no rope_scaling / head_dim")
    model, tm = _tm_llama(config, tensors)
    tokens = _tokens(config["vocab_size"], 20, 4)
    with torch.no_grad():
        theirs = model(torch.from_numpy(tokens)).numpy()
    ours = logits_of(config, tensors, tokens).numpy()
    err = _rel(ours, theirs)
    _expect(err < 1e-12, f"logits differ from torch_modules.Llama(rope half) by {err:.3g}")
    prompt = [5, 17, 3, 99]
    want = tm.llama_generate(model, torch.tensor([prompt]), 16)[0][0].tolist()
    got = greedy_of(config, tensors, prompt, 16)[0]
    _expect(got == want, f"greedy {got} != torch_modules' (KV cache) {want}")
    return f"max rel diff {err:.2g} (B 2, T 20); greedy 16 tokens equal to llama_generate's"


def _check_family_reduces_to_llama(st, name):
    """A family with its options off equals llama on the same weights."""
    info, config, tensors = st.folder(name, seed=3)
    tokens = _tokens(config["vocab_size"], 18, 5)
    family = info.family
    llama_cfg = {k: v for k, v in config.items()
                 if k not in ("sliding_window", "use_sliding_window", "max_window_layers",
                              "partial_rotary_factor")}
    llama_cfg["architectures"] = ["LlamaForCausalLM"]
    llama_cfg["tie_word_embeddings"] = tied(config, family)
    W = dict(tensors)
    off = dict(config)
    if family == "mistral":
        off["sliding_window"] = None
        what = "sliding_window null"
    elif family == "qwen2":
        for n in list(W):
            if n.endswith("_proj.bias"):
                W[n] = torch.zeros_like(W[n])
        what = "q/k/v biases zero"
        llama_W = {n: t for n, t in W.items() if not n.endswith(".bias")}
    elif family == "phi3":
        off["sliding_window"] = None
        off.pop("partial_rotary_factor", None)
        nh, nkv, hd = config["num_attention_heads"], config["num_key_value_heads"], \
            head_dim_of(config)
        llama_W = {}
        for n, t in W.items():
            if n.endswith("qkv_proj.weight"):
                q, k, v = t.split([nh * hd, nkv * hd, nkv * hd], dim=0)
                base = n[:-len("qkv_proj.weight")]
                llama_W.update({base + "q_proj.weight": q, base + "k_proj.weight": k,
                                base + "v_proj.weight": v})
            elif n.endswith("gate_up_proj.weight"):
                gate, up = t.chunk(2, dim=0)
                base = n[:-len("gate_up_proj.weight")]
                llama_W.update({base + "gate_proj.weight": gate, base + "up_proj.weight": up})
            else:
                llama_W[n] = t
        what = "partial_rotary_factor 1, no window, fused weights split"
    else:
        raise AssertionError(family)
    if family == "mistral":
        llama_W = W
    ours = logits_of(off, W, tokens).numpy()
    theirs = logits_of(llama_cfg, llama_W, tokens).numpy()
    err = _rel(ours, theirs)
    _expect(err < 1e-12, f"{family} with {what} differs from llama by {err:.3g}")
    # and the same against torch_modules' Llama (independent code) where it applies
    model, _ = _tm_llama(llama_cfg, llama_W)
    with torch.no_grad():
        tm_logits = model(torch.from_numpy(tokens)).numpy()
    err2 = _rel(ours, tm_logits)
    _expect(err2 < 1e-12, f"{family} with {what} differs from torch_modules' Llama by {err2:.3g}")
    return f"{what}: equal to llama ({err:.2g}) and to torch_modules.Llama ({err2:.2g})"


def _check_window(st, name):
    """The window matters past W and not before; for mistral it equals torch_modules' Llama
    with the same sliding_window."""
    info, config, tensors = st.folder(name, seed=4)
    tokens = _tokens(config["vocab_size"], 3 * VARIANTS[name].window + 2, 6)
    ours = logits_of(config, tensors, tokens).numpy()
    no_window = dict(config)
    if info.family == "gemma3":
        no_window["sliding_window"] = 10 ** 6
    else:
        no_window["sliding_window"] = None
    full = logits_of(no_window, tensors, tokens).numpy()
    w = VARIANTS[name].window
    before, after = _rel(ours[:, :w], full[:, :w]), _rel(ours, full)
    _expect(before < 1e-12, f"logits before position W depend on the window ({before:.3g})")
    _expect(after > 1e-2, f"the window hardly matters ({after:.3g})")
    note = f"W {w}: positions < W unchanged ({before:.1g}), with vs without differs {after:.3g}"
    if info.family == "mistral":
        model, _ = _tm_llama({**config, "architectures": ["LlamaForCausalLM"]}, tensors, window=w)
        with torch.no_grad():
            theirs = model(torch.from_numpy(tokens)).numpy()
        err = _rel(ours, theirs)
        _expect(err < 1e-12, f"differs from torch_modules' windowed Llama by {err:.3g}")
        note += f"; equal to torch_modules.Llama(sliding_window={w}) ({err:.2g})"
    return note


def _check_option_matters(st, name, change, what):
    info, config, tensors = st.folder(name, seed=8)
    tokens = _tokens(config["vocab_size"], 24, 9)
    ours = logits_of(config, tensors, tokens).numpy()
    other = copy.deepcopy(config)
    change(other)
    diff = _rel(logits_of(other, tensors, tokens).numpy(), ours)
    _expect(diff > 1e-3, f"{what} hardly matters ({diff:.3g})")
    return f"{what}: logits change by {diff:.3g} (relative)"


def _check_llama3_formula():
    """llama3 inverse frequencies against a scalar re-derivation of each band."""
    scaling = VARIANTS["llama3_rope"].config["rope_scaling"]
    inv = rope_inv_freq(10000.0, 32, scaling).tolist()
    factor, low, high, old = 8.0, 1.0, 4.0, 64.0
    bands = {"high": 0, "medium": 0, "low": 0}
    for i, got in enumerate(inv):
        f = 1.0 / 10000.0 ** (2 * i / 32)
        wl = 2 * math.pi / f
        if wl < old / high:
            want, band = f, "high"
        elif wl > old / low:
            want, band = f / factor, "low"
        else:
            s = (old / wl - low) / (high - low)
            want, band = (1 - s) * f / factor + s * f, "medium"
        bands[band] += 1
        _expect(abs(got - want) <= 1e-15 * f, f"inv_freq[{i}] {got} != {want}")
    _expect(all(bands.values()), f"not every band occurs: {bands}")
    return f"16 frequencies equal a scalar derivation; bands {bands}"


def _check_gpt2_independent(st):
    """GPT-2 against SDPA for the attention and torch.nn's Linear / LayerNorm for the rest."""
    info, config, tensors = st.folder("gpt2", seed=6)
    tokens = _tokens(config["vocab_size"], 30, 7)
    W = {k: v.to(torch.float64) for k, v in tensors.items()}
    tok = torch.from_numpy(tokens)
    with torch.no_grad():
        ours = _gpt2_logits(config, W, tok).numpy()
        with_sdpa = _gpt2_logits(config, W, tok, sdpa=True).numpy()
        d, nh = config["n_embd"], config["n_head"]
        ln = lambda p: torch.nn.LayerNorm(d, eps=config["layer_norm_epsilon"]).double()  # noqa: E731
        x = W["transformer.wte.weight"][tok] + W["transformer.wpe.weight"][:tokens.shape[1]]
        for i in range(config["n_layer"]):
            p = f"transformer.h.{i}."
            norm1, norm2 = ln(p), ln(p)
            norm1.weight.copy_(W[p + "ln_1.weight"]); norm1.bias.copy_(W[p + "ln_1.bias"])
            norm2.weight.copy_(W[p + "ln_2.weight"]); norm2.bias.copy_(W[p + "ln_2.bias"])

            def lin(name):
                w = W[p + name + ".weight"]
                m = torch.nn.Linear(w.shape[0], w.shape[1]).double()
                m.weight.copy_(w.T)  # Conv1D stores (in, out)
                m.bias.copy_(W[p + name + ".bias"])
                return m
            qkv = lin("attn.c_attn")(norm1(x))
            q, k, v = (z.unflatten(-1, (nh, d // nh)).transpose(1, 2) for z in qkv.split(d, -1))
            o = torch_sdpa_causal(q, k, v)
            x = x + lin("attn.c_proj")(o.transpose(1, 2).flatten(2))
            x = x + lin("mlp.c_proj")(F.gelu(lin("mlp.c_fc")(norm2(x)), approximate="tanh"))
        fin = ln("f")
        fin.weight.copy_(W["transformer.ln_f.weight"]); fin.bias.copy_(W["transformer.ln_f.bias"])
        theirs = (fin(x) @ W["transformer.wte.weight"].T).numpy()
    e1, e2 = _rel(ours, with_sdpa), _rel(ours, theirs)
    _expect(e1 < 1e-12 and e2 < 1e-12, f"GPT-2 differs: sdpa {e1:.3g}, torch.nn {e2:.3g}")
    return f"vs SDPA attention {e1:.2g}; vs nn.Linear/LayerNorm/gelu(tanh)/SDPA model {e2:.2g}"


def _check_gemma_formats(st):
    """Gemma3: sliding_window_pattern P gives the same model as the layer_types it implies;
    x * (1 + w) norms equal llama norms with weight 1 + w; the embedding scale is sqrt(96)
    exactly (the bf16-rounded scale HF's bf16 model would use moves logits by more than the
    parity tolerance)."""
    info, config, tensors = st.folder("gemma3_pattern", seed=10)
    tokens = _tokens(config["vocab_size"], 16, 11)
    ours = logits_of(config, tensors, tokens).numpy()
    explicit = {k: v for k, v in config.items() if k != "sliding_window_pattern"}
    explicit["layer_types"] = ["sliding_attention" if (i + 1) % 2 else "full_attention"
                               for i in range(config["num_hidden_layers"])]
    err = _rel(logits_of(explicit, tensors, tokens).numpy(), ours)
    _expect(err == 0.0, f"pattern vs layer_types differ by {err:.3g}")
    info, config, tensors = st.folder("gemma3", seed=12)
    tokens = _tokens(config["vocab_size"], 16, 13)
    ours = logits_of(config, tensors, tokens).numpy()
    W = {k: v.to(torch.float64) for k, v in tensors.items()}
    # rms_norm(gemma) == rms_norm(llama) with 1 + w
    x = torch.randn(3, 96, dtype=torch.float64)
    w = W["model.norm.weight"]
    _expect(torch.allclose(rms_norm(x, w, 1e-6, True), rms_norm(x, 1 + w, 1e-6), rtol=0,
                           atol=1e-14), "gemma norm")
    scaled = dict(W)
    bf16_scale = float(torch.tensor(math.sqrt(96)).to(torch.bfloat16))
    # embeddings * bf16(sqrt 96) = (embeddings * bf16(sqrt 96) / sqrt 96) * sqrt 96; only the
    # input side may change (the tied head reads the same table), so compare via an untied copy
    untied = dict(config, tie_word_embeddings=False)
    scaled["lm_head.weight"] = W["model.embed_tokens.weight"]
    scaled["model.embed_tokens.weight"] = W["model.embed_tokens.weight"] * (bf16_scale /
                                                                            math.sqrt(96))
    moved = _rel(logits_of(untied, scaled, tokens).numpy(), ours)
    same = _rel(logits_of(untied, dict(W, **{"lm_head.weight": W["model.embed_tokens.weight"]}),
                          tokens).numpy(), ours)
    _expect(same < 1e-13, f"untied copy differs {same:.3g}")
    return (f"pattern == layer_types ({err:.1g}); (1 + w) norm; sqrt(96) = {math.sqrt(96):.6f} vs "
            f"bf16 {bf16_scale}: logits move {moved:.2g} relative (tolerance 1e-4)")


def _check_qwen3_norm_before_rope(st):
    """Qwen3's q/k norms act per head before RoPE: scaling a head's q_proj rows by c > 0 leaves
    the logits (almost: eps) unchanged, which it would not if the norm came after RoPE on the
    flattened q or were missing."""
    info, config, tensors = st.folder("qwen3", seed=14)
    tokens = _tokens(config["vocab_size"], 12, 15)
    ours = logits_of(config, tensors, tokens).numpy()
    W = dict(tensors)
    hd = head_dim_of(config)
    q = W["model.layers.0.self_attn.q_proj.weight"].clone()
    q[:hd] *= 3.0  # head 0 only
    W["model.layers.0.self_attn.q_proj.weight"] = q
    diff = _rel(logits_of(config, W, tokens).numpy(), ours)
    _expect(diff < 1e-5, f"scaling head 0's q rows changes logits by {diff:.3g}")
    without = copy.deepcopy(config)
    without["architectures"] = ["LlamaForCausalLM"]  # same weights without the norms
    no_norm = {k: v for k, v in W.items()
               if not k.endswith(("self_attn.q_norm.weight", "self_attn.k_norm.weight"))}
    moved = _rel(logits_of(without, no_norm, tokens).numpy(), ours)
    _expect(moved > 1e-2, f"the q/k norms hardly matter ({moved:.3g})")
    return f"per-head scale invariance {diff:.2g}; without q/k norms logits move {moved:.3g}"


def self_test(only=None, workdir=None):
    import tempfile
    names = select_variants(only)
    torch.set_num_threads(1)
    with tempfile.TemporaryDirectory(prefix="hf_families_") as tmp:
        st = SelfTest(workdir or tmp)
        st.check("llama3 inv_freq formula", _check_llama3_formula)
        for name in names:
            st.check(f"{name}: files round-trip", lambda n=name: _check_roundtrip(st, n))
            st.check(f"{name}: every tensor matters", lambda n=name:
                     _check_every_tensor_matters(st, n))
            if VARIANTS[name].window:
                st.check(f"{name}: sliding window", lambda n=name: _check_window(st, n))
        if "llama" in names:
            st.check("llama vs torch_modules.Llama (rope half, tied)",
                     lambda: _check_llama_vs_torch_modules(st, "llama"))
        if "llama_untied" in names:
            st.check("llama_untied vs torch_modules.Llama (MHA, untied)",
                     lambda: _check_llama_vs_torch_modules(st, "llama_untied"))
        if "smollm2" in names:
            st.check("smollm2 vs torch_modules.Llama (9 / 3 heads)",
                     lambda: _check_llama_vs_torch_modules(st, "smollm2"))
        for name in ("mistral", "qwen2", "phi3", "phi3_partial"):
            if name in names:
                st.check(f"{name} with its options off == llama",
                         lambda n=name: _check_family_reduces_to_llama(st, n))
        options = [
            ("llama3_rope", lambda c: c.update(rope_scaling=None), "rope_scaling llama3"),
            ("llama_linear_rope", lambda c: c.update(rope_scaling=None), "rope_scaling linear"),
            ("phi3_partial", lambda c: c.update(partial_rotary_factor=1.0),
             "partial_rotary_factor 0.5 vs 1"),
            ("gemma3", lambda c: c.update(rope_local_base_freq=c["rope_theta"]),
             "rope_local_base_freq"),
            ("gemma3", lambda c: c.update(query_pre_attn_scalar=c["head_dim"]),
             "query_pre_attn_scalar 24 vs head_dim 32"),
            ("gemma3_linear", lambda c: c.update(rope_scaling=None),
             "rope_scaling linear on full layers"),
            ("qwen2", lambda c: c.update(use_sliding_window=True, max_window_layers=0),
             "use_sliding_window (false in the folder)"),
        ]
        for name, change, what in options:
            if name in names:
                st.check(f"{name}: {what} matters", lambda n=name, c=change, w=what:
                         _check_option_matters(st, n, c, w))
        if "gpt2" in names:
            st.check("gpt2 vs SDPA and torch.nn modules", lambda: _check_gpt2_independent(st))
        if "gemma3" in names or "gemma3_pattern" in names:
            st.check("gemma3 formats, norm and embedding scale", lambda: _check_gemma_formats(st))
        if "qwen3" in names:
            st.check("qwen3 q/k norms per head before RoPE",
                     lambda: _check_qwen3_norm_before_rope(st))
    print(f"{st.passed} passed, {st.failed} failed")
    return 1 if st.failed else 0


if __name__ == "__main__":
    import argparse
    ap = argparse.ArgumentParser(description="Self-test of the Hugging Face family references")
    ap.add_argument("--only", help="comma list of families or variants")
    ap.add_argument("--keep", help="write the test folders here (kept)")
    ap.add_argument("--attnrt", help="the attnrt whose architecture list torch_modules reads "
                    "(default: $ATTNRT, else attnrt on PATH)")
    args = ap.parse_args()
    if args.attnrt:
        os.environ["ATTNRT"] = args.attnrt  # tools/python/attnrt_architectures.py reads it
    if args.keep:
        os.makedirs(args.keep, exist_ok=True)
    try:
        hf_names = select_variants(args.only)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        sys.exit(2)
    sys.exit(self_test(args.only, args.keep))
