// The conversion `attnrt convert` performs once its inputs are in memory: a parsed
// config (JSON) plus a parsed safetensors checkpoint -> a WeightFileWriter holding the
// metadata and tensors of the flat weight file. No file I/O, no printing, so the
// convert-input fuzzer drives exactly this code with hostile inputs.
//
// Two steps, because the command reports a bad config before it reads the checkpoint:
//   PrepareConversion  config -> architecture -> metadata -> ModelConfig (as the runtime reads it)
//   AddCheckpointTensors  every tensor the architecture expects, shape-checked, encoded.
// Every error is the final message the command prints (it names the file it is about).
#pragma once

#include <string>

#include "attnrt/kernels/weight_type.h"
#include "attnrt/models/model_config.h"
#include "convert/matrix_types.h"
#include "convert/weight_file_writer.h"
#include "host/json_config.h"
#include "host/safetensors.h"

namespace attnrt {

// Picks the architecture (`arch_option`, or the config's "architecture" key when it is
// empty), records the config as metadata in *writer and derives *config from it.
// `config_source` (the config's path) prefixes config errors.
bool PrepareConversion(const JsonConfig& json, const std::string& config_source,
                       const std::string& arch_option, WeightFileWriter* writer,
                       ModelConfig* config, std::string* error);

// Adds the checkpoint's tensors to *writer: each tensor the architecture expects must be
// there (unless optional) with the shape the config implies, and nothing else may be.
// Weight matrices and embeddings are stored as `types` asks (f32 where it asks nothing);
// every other tensor stays f32. `source` (the checkpoint's path) prefixes errors.
bool AddCheckpointTensors(const ModelConfig& config, const SafetensorsFile& st,
                          const std::string& source, const MatrixTypeRequest& types,
                          WeightFileWriter* writer, std::string* error);

}  // namespace attnrt
