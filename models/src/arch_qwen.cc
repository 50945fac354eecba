// qwen2 and qwen3: Llama with a difference each (Hugging Face's Qwen2ForCausalLM and
// Qwen3ForCausalLM). Qwen2 adds biases to the q, k and v projections; Qwen3 drops
// them and instead RMS-normalizes each q and k head (q_norm, k_norm, one weight per
// head dimension) before RoPE, with a head_dim of its own. Llama's keys, tensors,
// config reader; the Hugging Face importer sets rope_style "half" (rotate_half).
#include "arch_llama.h"

namespace attnrt {
namespace {

constexpr TensorRecord kQwen2LayerTensors[] = {
    ATTNRT_LLAMA_LAYER_TENSORS,
    {"attention.wq.bias", 1, {Dim::kQkAll}, When::kAlways, Slot::kQBias, "self_attn.q_proj.bias"},
    {"attention.wk.bias", 1, {Dim::kKvAll}, When::kAlways, Slot::kKBias, "self_attn.k_proj.bias"},
    {"attention.wv.bias", 1, {Dim::kKvAll}, When::kAlways, Slot::kVBias, "self_attn.v_proj.bias"},
};

constexpr TensorRecord kQwen3LayerTensors[] = {
    ATTNRT_LLAMA_LAYER_TENSORS,
    {"attention.q_norm.weight", 1, {Dim::kHeadDim}, When::kAlways, Slot::kQNormWeight,
     "self_attn.q_norm.weight"},
    {"attention.k_norm.weight", 1, {Dim::kHeadDim}, When::kAlways, Slot::kKNormWeight,
     "self_attn.k_norm.weight"},
};

const LmRecipe kQwen3Recipe = {NormKind::kRms, MlpKind::kSwiGlu, PositionKind::kRope,
                               ResidualKind::kPreNorm, EmbeddingScale::kNone, true};

}  // namespace

const ArchitectureRecord kQwen2Record =
    DecoderRecord("Qwen2 (Hugging Face Qwen2ForCausalLM: Llama with q, k, v biases)", kLlamaKeys,
                  kQwen2LayerTensors, &kLlamaRecipe);

const ArchitectureRecord kQwen3Record =
    DecoderRecord("Qwen3 (Hugging Face Qwen3ForCausalLM: Llama with per-head q/k RMSNorm)",
                  kLlamaKeys, kQwen3LayerTensors, &kQwen3Recipe);

}  // namespace attnrt
