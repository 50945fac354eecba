// gemma3: Gemma 3's text decoder (Hugging Face Gemma3ForCausalLM, model_type
// gemma3_text). What differs from Llama, all in the recipe and keys:
// - embeddings times sqrt(dim) (tied to the output);
// - four RMSNorms per layer, "sandwich": x += post_attn(attn(norm1 x)),
//   x += post_ffw(mlp(norm2 x)); plus q and k head norms before RoPE;
// - GeGLU: down(gelu_tanh(gate x) * up x);
// - scores scaled by query_pre_attn_scalar^-1/2, not head_dim^-1/2;
// - layer_types: sliding-window layers (RoPE theta rope_local_theta, unscaled) and
//   global ones (rope_theta, scaled).
// Gemma's RMSNorm multiplies by (1 + w); the file stores 1 + w (the importers add
// the 1, as llama.cpp's converter does), so the norm here is the plain x / rms * w.
#include "arch_llama.h"

namespace attnrt {
namespace {

const ConfigKey kGemma3Keys[] = {
    ATTNRT_LLAMA_KEYS,
    {"rope_local_theta", ConfigType::kFloat, false, 0, "null", false, "rope_local_base_freq"},
    // Hugging Face's layer_types list (or sliding_window_pattern), comma separated.
    {"layer_types", ConfigType::kString, false, 0, nullptr},
    {"query_pre_attn_scalar", ConfigType::kFloat, false, 0, "null", false,
     "query_pre_attn_scalar"},
};

constexpr TensorRecord kGemma3LayerTensors[] = {
    {"attention_norm.weight", 1, {Dim::kModel}, When::kAlways, Slot::kNorm1Weight,
     "input_layernorm.weight"},
    {"attention.wq.weight", 2, {Dim::kQkAll, Dim::kModel}, When::kAlways, Slot::kQWeight,
     "self_attn.q_proj.weight"},
    {"attention.wk.weight", 2, {Dim::kKvAll, Dim::kModel}, When::kAlways, Slot::kKWeight,
     "self_attn.k_proj.weight"},
    {"attention.wv.weight", 2, {Dim::kKvAll, Dim::kModel}, When::kAlways, Slot::kVWeight,
     "self_attn.v_proj.weight"},
    {"attention.wo.weight", 2, {Dim::kModel, Dim::kQkAll}, When::kAlways, Slot::kOutWeight,
     "self_attn.o_proj.weight"},
    {"attention.q_norm.weight", 1, {Dim::kHeadDim}, When::kAlways, Slot::kQNormWeight,
     "self_attn.q_norm.weight"},
    {"attention.k_norm.weight", 1, {Dim::kHeadDim}, When::kAlways, Slot::kKNormWeight,
     "self_attn.k_norm.weight"},
    {"post_attention_norm.weight", 1, {Dim::kModel}, When::kAlways, Slot::kPostAttnNormWeight,
     "post_attention_layernorm.weight"},
    {"ffn_norm.weight", 1, {Dim::kModel}, When::kAlways, Slot::kNorm2Weight,
     "pre_feedforward_layernorm.weight"},
    {"feed_forward.w1.weight", 2, {Dim::kFf, Dim::kModel}, When::kAlways, Slot::kFf1Weight,
     "mlp.gate_proj.weight"},
    {"feed_forward.w2.weight", 2, {Dim::kModel, Dim::kFf}, When::kAlways, Slot::kFf2Weight,
     "mlp.down_proj.weight"},
    {"feed_forward.w3.weight", 2, {Dim::kFf, Dim::kModel}, When::kAlways, Slot::kFf3Weight,
     "mlp.up_proj.weight"},
    {"post_ffw_norm.weight", 1, {Dim::kModel}, When::kAlways, Slot::kPostFfnNormWeight,
     "post_feedforward_layernorm.weight"},
};

const LmRecipe kGemma3Recipe = {NormKind::kRms, MlpKind::kGeGluTanh, PositionKind::kRope,
                                ResidualKind::kSandwich, EmbeddingScale::kSqrtDim, true};

}  // namespace

const ArchitectureRecord kGemma3Record =
    DecoderRecord("Gemma 3 text decoder (Hugging Face Gemma3ForCausalLM)", kGemma3Keys,
                  kGemma3LayerTensors, &kGemma3Recipe);

}  // namespace attnrt
