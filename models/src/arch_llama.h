// Llama's pieces (arch_llama.cc), for the records of families that are Llama
// with a difference: they list Llama's keys, tensors and recipe (and read their config
// with decoder_config.h)
// and add or change only what differs (internal to models/).
#pragma once

#include <cstddef>

#include "architecture_record.h"
#include "decoder_config.h"

namespace attnrt {

// The per-layer tensors under "layers.{i}.", in Meta's / llama2.c's names, and
// their Hugging Face names under "model.layers.{i}." (HF checkpoints rotate with
// rotate_half: rope_style "half" on those weights as they are).
#define ATTNRT_LLAMA_LAYER_TENSORS                                                      \
  {"attention_norm.weight", 1, {Dim::kModel}, When::kAlways, Slot::kNorm1Weight,       \
   "input_layernorm.weight"},                                                          \
  {"attention.wq.weight", 2, {Dim::kQkAll, Dim::kModel}, When::kAlways, Slot::kQWeight, \
   "self_attn.q_proj.weight"},                                                         \
  {"attention.wk.weight", 2, {Dim::kKvAll, Dim::kModel}, When::kAlways, Slot::kKWeight, \
   "self_attn.k_proj.weight"},                                                         \
  {"attention.wv.weight", 2, {Dim::kKvAll, Dim::kModel}, When::kAlways, Slot::kVWeight, \
   "self_attn.v_proj.weight"},                                                         \
  {"attention.wo.weight", 2, {Dim::kModel, Dim::kQkAll}, When::kAlways, Slot::kOutWeight, \
   "self_attn.o_proj.weight"},                                                         \
  {"ffn_norm.weight", 1, {Dim::kModel}, When::kAlways, Slot::kNorm2Weight,             \
   "post_attention_layernorm.weight"},                                                 \
  {"feed_forward.w1.weight", 2, {Dim::kFf, Dim::kModel}, When::kAlways, Slot::kFf1Weight, \
   "mlp.gate_proj.weight"},                                                            \
  {"feed_forward.w2.weight", 2, {Dim::kModel, Dim::kFf}, When::kAlways, Slot::kFf2Weight, \
   "mlp.down_proj.weight"},                                                            \
  {"feed_forward.w3.weight", 2, {Dim::kFf, Dim::kModel}, When::kAlways, Slot::kFf3Weight, \
   "mlp.up_proj.weight"}

// llama2.c's ModelArgs, then what the Hugging Face families add. n_kv_heads null
// (absent) means n_heads; multiple_of only derives hidden_dim when hidden_dim is
// None, so with hidden_dim required it is accepted and unused; dropout is ignored in
// inference. sliding_window is Mistral's (a query sees itself and the W - 1
// positions before it); null or absent is full causal attention. head_dim (Qwen3,
// Gemma 3) may differ from dim / n_heads; rotary_dim is Phi-3's partial rotary
// (head_dim * partial_rotary_factor); the rope_scaling keys are Hugging Face's
// rope_scaling object flattened (decoder_config.cc). Keys with a None default leave
// no record in the file when absent, so files written before they existed read as
// they always did. The last field is the key's Hugging Face name where it is one.
#define ATTNRT_LLAMA_KEYS                                                                 \
  {"dim", ConfigType::kInt, true, 0, nullptr, false, "hidden_size"},                      \
  {"n_layers", ConfigType::kInt, true, 0, nullptr, false, "num_hidden_layers"},           \
  {"n_heads", ConfigType::kInt, true, 0, nullptr, false, "num_attention_heads"},          \
  {"n_kv_heads", ConfigType::kInt, false, 0, nullptr, false, "num_key_value_heads"},      \
  {"vocab_size", ConfigType::kInt, true, 0, nullptr, false, "vocab_size"},                \
  {"hidden_dim", ConfigType::kInt, true, 0, nullptr, false, "intermediate_size"},         \
  {"norm_eps", ConfigType::kFloat, false, 1e-5, nullptr, false, "rms_norm_eps"},          \
  {"max_seq_len", ConfigType::kInt, true, 0, nullptr, false, "max_position_embeddings"},  \
  {"rope_theta", ConfigType::kFloat, false, 10000, nullptr, false, "rope_theta"},         \
  {"rope_style", ConfigType::kString, false, 0, "interleaved"},                           \
  {"multiple_of", ConfigType::kInt, false, 256, nullptr},                                 \
  {"dropout", ConfigType::kFloat, false, 0, nullptr, false, "attention_dropout"},         \
  {"sliding_window", ConfigType::kInt, false, 0, "null", false, "sliding_window"},        \
  {"head_dim", ConfigType::kInt, false, 0, "null", false, "head_dim"},                    \
  {"rotary_dim", ConfigType::kInt, false, 0, "null"},                                     \
  {"rope_scaling_type", ConfigType::kString, false, 0, nullptr},                          \
  {"rope_scaling_factor", ConfigType::kFloat, false, 0, "null"},                          \
  {"rope_low_freq_factor", ConfigType::kFloat, false, 0, "null"},                         \
  {"rope_high_freq_factor", ConfigType::kFloat, false, 0, "null"},                        \
  {"rope_original_max_positions", ConfigType::kInt, false, 0, "null"}

// The tables the Llama-like records share are constexpr here, not extern arrays with an
// extern count: a record in another file that read a count defined elsewhere would be
// initialized at start-up, i.e. by a static constructor, which firmware built without a C++
// runtime never runs (tests/firmware_consumer checks the libraries have none).
inline constexpr ConfigKey kLlamaKeys[] = {ATTNRT_LLAMA_KEYS};
// tok_embeddings, norm, and output (optional: tied to tok_embeddings without it).
inline constexpr TensorRecord kLlamaTensors[] = {
    {"tok_embeddings.weight", 2, {Dim::kVocab, Dim::kModel}, When::kAlways, Slot::kTokenEmbedding,
     "model.embed_tokens.weight"},
    {"norm.weight", 1, {Dim::kModel}, When::kAlways, Slot::kFinalNormWeight, "model.norm.weight"},
    {"output.weight", 2, {Dim::kVocab, Dim::kModel}, When::kOptional, Slot::kHeadWeight,
     "lm_head.weight"},
};
extern const LmRecipe kLlamaRecipe;

// The record of a decoder family in Llama's mould: its config `keys` read back by
// ReadDecoderConfig, its `layer_tensors` under "layers.{i}." ("model.layers.{i}." in
// Hugging Face names), Llama's model tensors, no forward of its own (language_model.h runs
// `recipe`). constexpr, so a record defined with it is initialized at compile time (see above).
template <size_t K, size_t N>
constexpr ArchitectureRecord DecoderRecord(const char* torch_module, const ConfigKey (&keys)[K],
                                           const TensorRecord (&layer_tensors)[N],
                                           const LmRecipe* recipe) {
  return {torch_module, keys, K, ReadDecoderConfig, "layers.{i}.", layer_tensors, N,
          kLlamaTensors, CountOf(kLlamaTensors), nullptr, false, recipe, "model.layers.{i}."};
}


}  // namespace attnrt
