// The GGUF families (see gguf_families.h). Key names are llama.cpp's (llama-arch.cpp
// LLM_KV_*), tensor names its LLM_TENSOR_* names.
#include "convert/gguf_families.h"

namespace attnrt {

const GgufKeyRule kGgufCommonKeys[] = {
    {"context_length", "max_seq_len"},
    {"embedding_length", "dim"},
    {"block_count", "n_layers"},
    {"feed_forward_length", "hidden_dim"},  // a per-layer array must hold one value
    {"attention.head_count", "n_heads"},
    {"attention.head_count_kv", "n_kv_heads"},
    {"vocab_size", nullptr},              // must match token_embd
    {"attention.key_length", nullptr},    // head_dim when not dim / heads
    {"attention.value_length", nullptr},  // must equal key_length
    {"expert_count", nullptr},            // 0: attnrt runs no mixture of experts
    {"expert_used_count", nullptr},
    {"attention.causal", nullptr},        // true
};
const size_t kGgufCommonKeyCount = sizeof(kGgufCommonKeys) / sizeof(kGgufCommonKeys[0]);

namespace {

// RoPE and RMSNorm keys of the llama-like families.
#define ATTNRT_GGUF_ROPE_KEYS                                                      \
  {"rope.freq_base", "rope_theta"}, {"rope.dimension_count", nullptr},             \
  {"rope.scaling.type", nullptr}, {"rope.scaling.factor", nullptr},                \
  {"rope.scale_linear", nullptr}, {"rope.scaling.attn_factor", nullptr},           \
  {"rope.scaling.original_context_length", nullptr}, /* YaRN's: unused here */    \
  {"rope.scaling.finetuned", nullptr},                /* bookkeeping */            \
  {"attention.layer_norm_rms_epsilon", "norm_eps"}

const GgufKeyRule kLlamaKeys[] = {ATTNRT_GGUF_ROPE_KEYS, {"attention.sliding_window", nullptr}};
const GgufKeyRule kQwenKeys[] = {ATTNRT_GGUF_ROPE_KEYS};
// llama.cpp runs Phi-3 without its sliding window (a warning says so; llama.cpp PR 13676),
// so the key is read and not applied, as there.
const GgufKeyRule kPhi3Keys[] = {ATTNRT_GGUF_ROPE_KEYS, {"attention.sliding_window", nullptr}};
const GgufKeyRule kGemma3Keys[] = {ATTNRT_GGUF_ROPE_KEYS,
                                   {"attention.sliding_window", nullptr},
                                   {"attention.sliding_window_pattern", nullptr},
                                   {"rope.freq_base_swa", nullptr},
                                   {"final_logit_softcapping", nullptr},  // 0 only
                                   {"attn_logit_softcapping", nullptr}};  // 0 only
const GgufKeyRule kGpt2Keys[] = {{"attention.layer_norm_epsilon", "norm_eps"}};

// Llama's layer as the llama record names it. Fused attn_qkv is split into these first.
#define ATTNRT_GGUF_LLAMA_LAYER                                                    \
  {"attn_norm.weight", "attention_norm.weight"},                                   \
  {"attn_q.weight", "attention.wq.weight"},                                        \
  {"attn_k.weight", "attention.wk.weight"},                                        \
  {"attn_v.weight", "attention.wv.weight"},                                        \
  {"attn_output.weight", "attention.wo.weight"},                                   \
  {"ffn_norm.weight", "ffn_norm.weight"},                                          \
  {"ffn_gate.weight", "feed_forward.w1.weight"},                                   \
  {"ffn_down.weight", "feed_forward.w2.weight"},                                   \
  {"ffn_up.weight", "feed_forward.w3.weight"}

const GgufTensorRule kLlamaLayer[] = {ATTNRT_GGUF_LLAMA_LAYER};
const GgufTensorRule kQwen2Layer[] = {ATTNRT_GGUF_LLAMA_LAYER,
                                      {"attn_q.bias", "attention.wq.bias"},
                                      {"attn_k.bias", "attention.wk.bias"},
                                      {"attn_v.bias", "attention.wv.bias"}};
const GgufTensorRule kQwen3Layer[] = {ATTNRT_GGUF_LLAMA_LAYER,
                                      {"attn_q_norm.weight", "attention.q_norm.weight"},
                                      {"attn_k_norm.weight", "attention.k_norm.weight"}};
const GgufTensorRule kGemma3Layer[] = {ATTNRT_GGUF_LLAMA_LAYER,
                                       {"attn_q_norm.weight", "attention.q_norm.weight"},
                                       {"attn_k_norm.weight", "attention.k_norm.weight"},
                                       {"post_attention_norm.weight", "post_attention_norm.weight"},
                                       {"post_ffw_norm.weight", "post_ffw_norm.weight"}};
const GgufTensorRule kLlamaModel[] = {{"token_embd.weight", "tok_embeddings.weight"},
                                      {"output_norm.weight", "norm.weight"},
                                      {"output.weight", "output.weight"}};

const GgufTensorRule kGpt2Layer[] = {
    {"attn_norm.weight", "ln_1.weight"},       {"attn_norm.bias", "ln_1.bias"},
    {"attn_q.weight", "attn.q_proj.weight"},   {"attn_q.bias", "attn.q_proj.bias"},
    {"attn_k.weight", "attn.k_proj.weight"},   {"attn_k.bias", "attn.k_proj.bias"},
    {"attn_v.weight", "attn.v_proj.weight"},   {"attn_v.bias", "attn.v_proj.bias"},
    {"attn_output.weight", "attn.c_proj.weight"}, {"attn_output.bias", "attn.c_proj.bias"},
    {"ffn_norm.weight", "ln_2.weight"},        {"ffn_norm.bias", "ln_2.bias"},
    {"ffn_up.weight", "mlp.c_fc.weight"},      {"ffn_up.bias", "mlp.c_fc.bias"},
    {"ffn_down.weight", "mlp.c_proj.weight"},  {"ffn_down.bias", "mlp.c_proj.bias"},
};
const GgufTensorRule kGpt2Model[] = {{"token_embd.weight", "wte.weight"},
                                     {"position_embd.weight", "wpe.weight"},
                                     {"output_norm.weight", "ln_f.weight"},
                                     {"output_norm.bias", "ln_f.bias"},
                                     {"output.weight", "lm_head.weight"}};

#define ATTNRT_COUNTED(a) a, sizeof(a) / sizeof(a[0])

const GgufFamily kFamilies[] = {
    {"llama", Architecture::kLlama, "interleaved", ATTNRT_COUNTED(kLlamaKeys),
     ATTNRT_COUNTED(kLlamaLayer), ATTNRT_COUNTED(kLlamaModel), false, true},
    {"qwen2", Architecture::kQwen2, "half", ATTNRT_COUNTED(kQwenKeys),
     ATTNRT_COUNTED(kQwen2Layer), ATTNRT_COUNTED(kLlamaModel), false, false},
    {"qwen3", Architecture::kQwen3, "half", ATTNRT_COUNTED(kQwenKeys),
     ATTNRT_COUNTED(kQwen3Layer), ATTNRT_COUNTED(kLlamaModel), false, false},
    {"gemma3", Architecture::kGemma3, "half", ATTNRT_COUNTED(kGemma3Keys),
     ATTNRT_COUNTED(kGemma3Layer), ATTNRT_COUNTED(kLlamaModel), false, false},
    {"phi3", Architecture::kLlama, "half", ATTNRT_COUNTED(kPhi3Keys),
     ATTNRT_COUNTED(kLlamaLayer), ATTNRT_COUNTED(kLlamaModel), true, false},
    {"gpt2", Architecture::kGpt2, nullptr, ATTNRT_COUNTED(kGpt2Keys), ATTNRT_COUNTED(kGpt2Layer),
     ATTNRT_COUNTED(kGpt2Model), false, false},
};

}  // namespace

const GgufFamily* FindGgufFamily(const std::string& arch) {
  for (const GgufFamily& f : kFamilies) {
    if (arch == f.arch) return &f;
  }
  return nullptr;
}

std::string GgufFamilyNames() {
  std::string names;
  for (const GgufFamily& f : kFamilies) names += (names.empty() ? "" : ", ") + std::string(f.arch);
  return names;
}

}  // namespace attnrt
