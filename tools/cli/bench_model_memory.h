// CheckRandomModelFits: `bench lm CONFIG` builds a random model of the config's full size in
// memory; refuse up front, naming the total, when it cannot fit (issue 34: each tensor was
// checked against memory but not their sum, and a ~50 GB config ran the machine out of
// memory: the writer holds the encoded tensors and serializing copies them into the file).
#pragma once

#include <string>

#include "attnrt/kernels/weight_type.h"
#include "attnrt/models/model_config.h"

namespace attnrt::cli {

// Sums the weight file's tensors (matrices in matrix_type, the rest f32) and refuses when
// twice that (tensors plus the serialized file) plus the largest f32 tensor being generated
// is more than this machine's memory (MachineMemoryBytes).
bool CheckRandomModelFits(const ModelConfig& config, WeightType matrix_type, std::string* error);

}  // namespace attnrt::cli
