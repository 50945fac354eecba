// One record per architecture (internal to models/): everything attnrt knows
// about it in one place. Converter, loader, `inspect` and the forward pass all
// read these records through model_config.h, model_spec.h and model.h.
//
// A tensor is bound to its state_dict name once: its name pattern (per-layer
// tensors sit under the record's layer prefix, where "{i}" is the layer index),
// its shape as expressions of the config, when it is present, and the Model
// field it fills.
#pragma once

#include <cstddef>
#include <cstdint>

#include "attnrt/models/model.h"
#include "attnrt/models/model_spec.h"
#include "forward_steps.h"
#include "lm_recipe.h"

namespace attnrt {

// A dimension of a tensor, as a function of the config.
enum class Dim : uint8_t {
  kModel,     // model_dim
  kModel3,    // 3 * model_dim (stacked in_proj)
  kQkAll,     // heads * qk_dim
  kVAll,      // heads * v_dim
  kKvAll,     // kv_heads * qk_dim (llama's wk, wv)
  kVocab,     // vocab_size
  kFf,        // ff_dim
  kOut,       // out_dim (num_classes for vit)
  kTokens,    // vit tokens (patches + class token)
  kChannels,  // vit image channels
  kPatch,     // vit patch_size
  kHeadDim,   // qk_dim (per-head q/k norm weights)
  kMaxSeq,    // max_seq_len (learned position table)
  kOne,
};

enum class When : uint8_t {
  kAlways,
  kBias,
  kFinalNorm,
  kFinalNormBias,
  kOptional,  // listed, but a checkpoint may leave it out (TensorSpec::optional)
};

// The Model field a tensor fills. Layer slots index Model::layers[i].
enum class Slot : uint8_t {
  kInProjWeight,  // q, k, v stacked (PyTorch in_proj_weight); split after loading
  kInProjBias,
  kQWeight,
  kKWeight,
  kVWeight,
  kQBias,  // separate q, k, v projections' biases (Qwen2)
  kKBias,
  kVBias,
  kOutWeight,
  kOutBias,
  kFf1Weight,
  kFf1Bias,
  kFf2Weight,
  kFf2Bias,
  kFf3Weight,
  kNorm1Weight,
  kNorm1Bias,
  kNorm2Weight,
  kNorm2Bias,
  kQNormWeight,  // per-head RMSNorm of q and k (Qwen3, Gemma 3)
  kKNormWeight,
  kPostAttnNormWeight,  // sandwich norms after attention and MLP (Gemma 3)
  kPostFfnNormWeight,
  // Whole-model tensors.
  kFinalNormWeight,
  kFinalNormBias,
  kPatchWeight,
  kPatchBias,
  kClassToken,
  kPosEmbedding,
  kHeadWeight,
  kHeadBias,
  kTokenEmbedding,
};

// What the matrix in a slot does; kNone for the slots that hold f32 vectors.
inline MatrixRole SlotRole(Slot slot) {
  switch (slot) {
    case Slot::kInProjWeight:
    case Slot::kQWeight:
    case Slot::kKWeight:
    case Slot::kOutWeight:
      return MatrixRole::kAttention;
    case Slot::kVWeight:
      return MatrixRole::kAttentionValue;
    case Slot::kFf1Weight:
    case Slot::kFf3Weight:
      return MatrixRole::kMlp;
    case Slot::kFf2Weight:
      return MatrixRole::kMlpDown;
    case Slot::kPatchWeight:
    case Slot::kTokenEmbedding:
      return MatrixRole::kEmbedding;
    case Slot::kHeadWeight:
      return MatrixRole::kOutput;
    default:
      return MatrixRole::kNone;
  }
}

// Slots the linear kernels read (any stored type); the rest are f32 vectors.
inline bool SlotIsMatrix(Slot slot) { return SlotRole(slot) != MatrixRole::kNone; }

struct TensorRecord {
  const char* name;  // relative to the layer prefix for layer tensors
  uint8_t rank;
  Dim dims[4];
  When when;
  Slot slot;
  // The same tensor's name in the family's Hugging Face checkpoints (relative to
  // hf_layer_prefix for layer tensors), for importers; nullptr where there is none.
  const char* hf_name = nullptr;
};

// The enumerator and name come from architectures.inc, the one list.
struct ArchitectureRecord {
  const char* torch_module;  // what it reproduces, for messages
  const ConfigKey* keys;
  size_t key_count;
  // Reads the keys back from a weight file and derives ModelConfig.
  Status (*read_config)(const WeightFile& file, ModelConfig* config);
  const char* layer_prefix;  // e.g. "layers.{i}."; "" for a single layer
  const TensorRecord* layer_tensors;
  size_t layer_tensor_count;
  const TensorRecord* model_tensors;
  size_t model_tensor_count;
  // The forward pass on batch-first input (the caller swaps a seq-first layout);
  // null for language models, which run through language_model.h.
  Status (*forward)(const Model& m, const ModelInput& in, float* y, Forward* f);
  bool image_input;  // (batch, channels, H, W) images instead of token sequences
  // Language models (token ids in, logits out, a KV cache): how the one forward
  // pass of language_model.cc computes this family. Null for the others.
  const LmRecipe* lm_recipe = nullptr;
  // The layer prefix of the family's Hugging Face tensor names (e.g. "model.layers.{i}.").
  const char* hf_layer_prefix = nullptr;
};

// The attention tensors of nn.MultiheadAttention, under `prefix` ("" or "self_attn.").
#define ATTNRT_MHA_TENSORS(prefix)                                                         \
  {prefix "in_proj_weight", 2, {Dim::kModel3, Dim::kModel}, When::kAlways, Slot::kInProjWeight}, \
  {prefix "in_proj_bias", 1, {Dim::kModel3}, When::kBias, Slot::kInProjBias},              \
  {prefix "out_proj.weight", 2, {Dim::kModel, Dim::kModel}, When::kAlways, Slot::kOutWeight},   \
  {prefix "out_proj.bias", 1, {Dim::kModel}, When::kBias, Slot::kOutBias}

const ArchitectureRecord& RecordFor(Architecture arch);

// The records, one per file, declared from the one list.
#define ATTNRT_ARCHITECTURE(enumerator, name, record) extern const ArchitectureRecord record;
#include "attnrt/models/architectures.inc"
#undef ATTNRT_ARCHITECTURE

template <size_t N>
constexpr size_t CountOf(const ConfigKey (&)[N]) { return N; }
template <size_t N>
constexpr size_t CountOf(const TensorRecord (&)[N]) { return N; }

}  // namespace attnrt
