// gpt2: GPT-2 (Hugging Face GPT2LMHeadModel). LayerNorm with biases, learned
// positions (wpe) added to the token embeddings, biases on every projection,
// ff2(gelu_tanh(ff1 x)) (gelu_new), pre-norm residuals, output tied to wte.
// Hugging Face stores its projections as Conv1D, weights (in, out), with q, k, v
// fused in c_attn; the file holds them as (out, in) matrices with q, k, v apart (the
// importer transposes and splits), under the names below, which are the Hugging
// Face names where one tensor is one tensor.
#include "arch_llama.h"

namespace attnrt {
namespace {

const ConfigKey kGpt2Keys[] = {
    {"dim", ConfigType::kInt, true, 0, nullptr, false, "n_embd"},
    {"n_layers", ConfigType::kInt, true, 0, nullptr, false, "n_layer"},
    {"n_heads", ConfigType::kInt, true, 0, nullptr, false, "n_head"},
    {"vocab_size", ConfigType::kInt, true, 0, nullptr, false, "vocab_size"},
    {"hidden_dim", ConfigType::kInt, true, 0, nullptr, false, "n_inner"},
    {"norm_eps", ConfigType::kFloat, false, 1e-5, nullptr, false, "layer_norm_epsilon"},
    {"max_seq_len", ConfigType::kInt, true, 0, nullptr, false, "n_positions"},
};

constexpr TensorRecord kGpt2LayerTensors[] = {
    {"ln_1.weight", 1, {Dim::kModel}, When::kAlways, Slot::kNorm1Weight, "ln_1.weight"},
    {"ln_1.bias", 1, {Dim::kModel}, When::kAlways, Slot::kNorm1Bias, "ln_1.bias"},
    {"attn.q_proj.weight", 2, {Dim::kQkAll, Dim::kModel}, When::kAlways, Slot::kQWeight,
     "attn.q_proj.weight"},
    {"attn.q_proj.bias", 1, {Dim::kQkAll}, When::kAlways, Slot::kQBias, "attn.q_proj.bias"},
    {"attn.k_proj.weight", 2, {Dim::kKvAll, Dim::kModel}, When::kAlways, Slot::kKWeight,
     "attn.k_proj.weight"},
    {"attn.k_proj.bias", 1, {Dim::kKvAll}, When::kAlways, Slot::kKBias, "attn.k_proj.bias"},
    {"attn.v_proj.weight", 2, {Dim::kKvAll, Dim::kModel}, When::kAlways, Slot::kVWeight,
     "attn.v_proj.weight"},
    {"attn.v_proj.bias", 1, {Dim::kKvAll}, When::kAlways, Slot::kVBias, "attn.v_proj.bias"},
    {"attn.c_proj.weight", 2, {Dim::kModel, Dim::kQkAll}, When::kAlways, Slot::kOutWeight,
     "attn.c_proj.weight"},
    {"attn.c_proj.bias", 1, {Dim::kModel}, When::kAlways, Slot::kOutBias, "attn.c_proj.bias"},
    {"ln_2.weight", 1, {Dim::kModel}, When::kAlways, Slot::kNorm2Weight, "ln_2.weight"},
    {"ln_2.bias", 1, {Dim::kModel}, When::kAlways, Slot::kNorm2Bias, "ln_2.bias"},
    {"mlp.c_fc.weight", 2, {Dim::kFf, Dim::kModel}, When::kAlways, Slot::kFf1Weight,
     "mlp.c_fc.weight"},
    {"mlp.c_fc.bias", 1, {Dim::kFf}, When::kAlways, Slot::kFf1Bias, "mlp.c_fc.bias"},
    {"mlp.c_proj.weight", 2, {Dim::kModel, Dim::kFf}, When::kAlways, Slot::kFf2Weight,
     "mlp.c_proj.weight"},
    {"mlp.c_proj.bias", 1, {Dim::kModel}, When::kAlways, Slot::kFf2Bias, "mlp.c_proj.bias"},
};

constexpr TensorRecord kGpt2Tensors[] = {
    {"wte.weight", 2, {Dim::kVocab, Dim::kModel}, When::kAlways, Slot::kTokenEmbedding,
     "transformer.wte.weight"},
    {"wpe.weight", 2, {Dim::kMaxSeq, Dim::kModel}, When::kAlways, Slot::kPosEmbedding,
     "transformer.wpe.weight"},
    {"ln_f.weight", 1, {Dim::kModel}, When::kAlways, Slot::kFinalNormWeight,
     "transformer.ln_f.weight"},
    {"ln_f.bias", 1, {Dim::kModel}, When::kAlways, Slot::kFinalNormBias, "transformer.ln_f.bias"},
    {"lm_head.weight", 2, {Dim::kVocab, Dim::kModel}, When::kOptional, Slot::kHeadWeight,
     "lm_head.weight"},
};

const LmRecipe kGpt2Recipe = {NormKind::kLayerNorm, MlpKind::kGeluTanh, PositionKind::kLearned,
                              ResidualKind::kPreNorm, EmbeddingScale::kNone, false};

}  // namespace

const ArchitectureRecord kGpt2Record = {
    "GPT-2 (Hugging Face GPT2LMHeadModel)", kGpt2Keys, CountOf(kGpt2Keys), ReadDecoderConfig,
    "h.{i}.", kGpt2LayerTensors, CountOf(kGpt2LayerTensors), kGpt2Tensors, CountOf(kGpt2Tensors),
    nullptr, false, &kGpt2Recipe, "transformer.h.{i}."};

}  // namespace attnrt
