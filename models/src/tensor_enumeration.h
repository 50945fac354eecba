// Which record entry (and layer) the i-th tensor of a model is (internal to
// models/): shared by ModelTensorAt and the loader, which binds each to its slot.
#pragma once

#include <cstddef>

#include "architecture_record.h"

namespace attnrt {

struct TensorEntry {
  const TensorRecord* record = nullptr;
  size_t layer = 0;
  bool per_layer = false;
};

bool ModelTensorEntryAt(const ModelConfig& config, size_t i, TensorEntry* entry);

}  // namespace attnrt
