// Llama's pieces (arch_llama.cc), for the records of families that are Llama
// with a difference: they list Llama's keys, tensors, config reader and recipe
// and add or change only what differs (internal to models/).
#pragma once

#include <cstddef>

#include "architecture_record.h"

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

extern const ConfigKey kLlamaKeys[];
extern const size_t kLlamaKeyCount;
// tok_embeddings, norm, and output (optional: tied to tok_embeddings without it).
extern const TensorRecord kLlamaTensors[];
extern const size_t kLlamaTensorCount;
extern const LmRecipe kLlamaRecipe;
Status ReadLlamaConfig(const WeightFile& file, ModelConfig* c);

}  // namespace attnrt
