// The tensors a model expects: PyTorch state_dict names and shapes derived from
// its config, enumerated from the architecture's record. The converter checks a
// checkpoint against this list and the loader checks a weight file against it.
#pragma once

#include <cstddef>

#include "attnrt/models/model_config.h"
#include "attnrt/runtime/tensor_shape.h"

namespace attnrt {

// Longest state_dict name a record can produce (pattern + layer index).
constexpr size_t kMaxTensorName = 96;

struct TensorSpec {
  char name[kMaxTensorName];
  TensorShape shape;
  // May be absent from a checkpoint and a weight file (llama's output.weight:
  // absent means the output shares tok_embeddings.weight).
  bool optional = false;
  // A weight matrix or embedding table: the models read it in any stored type (f32, f16,
  // bf16, q8). Every other tensor (norms, biases, class token, position embedding) is f32.
  bool matrix = false;
};

// Number of tensors a model with this config has.
size_t ModelTensorCount(const ModelConfig& config);
// The i-th of them (0 <= i < ModelTensorCount); false when i is out of range.
bool ModelTensorAt(const ModelConfig& config, size_t i, TensorSpec* spec);

}  // namespace attnrt
