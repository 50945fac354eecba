// The tensors a model expects: PyTorch state_dict names and shapes derived from
// its config, enumerated from the architecture's record. The converter checks a
// checkpoint against this list and the loader checks a weight file against it.
#pragma once

#include <cstddef>
#include <cstdint>

#include "attnrt/models/model_config.h"
#include "attnrt/runtime/tensor_shape.h"

namespace attnrt {

// Longest state_dict name a record can produce (pattern + layer index).
constexpr size_t kMaxTensorName = 96;

// What a weight matrix does, so a converter can store each kind in its own type
// (`attnrt convert --dtype-for`). Value projections and the MLP's down projection are apart
// from the rest of attention and MLP because llama.cpp's mixes (Q4_K_M) give them more bits.
enum class MatrixRole : uint8_t {
  kNone,            // not a matrix: an f32 vector (norm, bias, class token, position table)
  kEmbedding,       // token embedding table, ViT patch projection
  kOutput,          // language-model output layer, classifier head
  kAttention,       // q, k, o projections and the stacked in_proj (q, k, v in one matrix)
  kAttentionValue,  // a separate v projection
  kMlp,             // MLP input projections (gate, up; linear1)
  kMlpDown,         // MLP output projection (down; linear2)
};

struct TensorSpec {
  char name[kMaxTensorName];
  TensorShape shape;
  // May be absent from a checkpoint and a weight file (llama's output.weight:
  // absent means the output shares tok_embeddings.weight).
  bool optional = false;
  // A weight matrix or embedding table: the models read it in any stored type (f32, f16,
  // bf16, q8). Every other tensor (norms, biases, class token, position embedding) is f32.
  bool matrix = false;
  MatrixRole role = MatrixRole::kNone;  // kNone exactly when !matrix
  size_t layer = 0;                     // per-layer tensors' layer index; 0 for the others
  // Its name in the family's Hugging Face checkpoints (importers read it there);
  // empty where the family has none.
  char hf_name[kMaxTensorName];
};

// A tensor as an architecture's record names it, before a config is known: for
// listings (`attnrt architectures`) that tools in other languages read instead of
// keeping their own copy of the names.
struct TensorPattern {
  const char* name;          // per-layer names are relative to the layer prefix
  bool per_layer;            // repeated for every layer under ArchitectureLayerPrefix
  const char* present_when;  // "always", "bias", "final_norm", "final_norm and bias", "optional"
  // Its name in the family's Hugging Face checkpoints (per-layer names relative to
  // ArchitectureHfLayerPrefix); nullptr where there is none.
  const char* hf_name;
};

// Prefix of the per-layer tensors, "{i}" standing for the layer index ("" for one layer).
const char* ArchitectureLayerPrefix(Architecture arch);
// The same prefix in the family's Hugging Face checkpoints; nullptr where there is none.
const char* ArchitectureHfLayerPrefix(Architecture arch);
// The per-layer patterns first, then the whole-model ones.
size_t ArchitectureTensorPatternCount(Architecture arch);
// The i-th of them (0 <= i < ArchitectureTensorPatternCount); false when out of range.
bool ArchitectureTensorPatternAt(Architecture arch, size_t i, TensorPattern* pattern);

// Number of tensors a model with this config has.
size_t ModelTensorCount(const ModelConfig& config);
// The i-th of them (0 <= i < ModelTensorCount); false when i is out of range.
bool ModelTensorAt(const ModelConfig& config, size_t i, TensorSpec* spec);

}  // namespace attnrt
