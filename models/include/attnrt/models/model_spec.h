// The tensors an architecture expects: names (PyTorch state_dict keys) and
// shapes derived from its config. The converter checks a checkpoint against
// this list and the loader checks a weight file against it.
#pragma once

#include <cstddef>

#include "attnrt/models/model_config.h"
#include "attnrt/runtime/tensor_shape.h"

namespace attnrt {

struct TensorSpec {
  const char* name;
  TensorShape shape;
};

constexpr size_t kMaxModelTensors = 12;

// Fills `specs` (capacity kMaxModelTensors) and returns how many were written.
size_t ModelTensorSpecs(const ModelConfig& config, TensorSpec* specs);

}  // namespace attnrt
