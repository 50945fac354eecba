// A model config (JSON, PyTorch constructor arguments) as weight-file metadata:
// every key the architecture accepts, checked, with its default when absent.
// Shared by `attnrt convert` and `bench lm` (which builds random-weight models
// from a config), so both derive the config exactly as the runtime reads it.
#pragma once

#include <string>

#include "attnrt/models/model_config.h"
#include "convert/weight_file_writer.h"
#include "host/json_config.h"

namespace attnrt {

// Copies every accepted key (or its default) from the JSON config into metadata;
// unknown keys, missing required ones and unimplemented options are refused by name.
bool WriteConfigMetadata(Architecture arch, const JsonConfig& json, WeightFileWriter* w,
                         std::string* error);

// Derives the model config exactly as the runtime will: serialize the metadata
// alone and read it back through ReadModelConfig.
bool DeriveConfig(const WeightFileWriter& metadata_only, ModelConfig* config, std::string* error);

}  // namespace attnrt
