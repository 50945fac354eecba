// Importing a Hugging Face model folder (config.json, safetensors shards, tokenizer
// files) into the one weight-file writer, in two steps like convert_core.h, so a
// folder whose config attnrt cannot run is refused before any weight is read:
//   PrepareHfConversion  config.json -> family -> the record's keys -> metadata -> ModelConfig
//   AddHfTensors         the checkpoint's tensors (Hugging Face names) -> the record's
// No file I/O and no printing (hf_folder.h reads the folder). Every error is the final
// message `attnrt convert` prints.
#pragma once

#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "attnrt/kernels/weight_type.h"
#include "attnrt/models/model_config.h"
#include "convert/hf_families.h"
#include "convert/matrix_types.h"
#include "convert/weight_file_writer.h"
#include "host/safetensors.h"

namespace attnrt {

// The folder's JSON files as read (config.json always; tokenizer.json,
// tokenizer_config.json, generation_config.json, special_tokens_map.json when present):
// file name -> text.
struct HfFolderFiles {
  std::string dir;  // for messages
  std::map<std::string, std::string> texts;
};

// The files kept byte for byte in the model file, as string metadata "hf.<file name>"
// (the tokenizer reads them; nothing of the folder is lost).
extern const char* const kHfKeptFiles[];
extern const size_t kHfKeptFileCount;

// What the config step found that the tensor step needs.
struct HfImport {
  const HfFamily* family = nullptr;
  bool tied = false;  // tie_word_embeddings: the output layer is the token embedding
};

// Reads config.json: its family, its keys over the family's defaults translated to the
// record's, as metadata in *writer (with the kept files), and *config as the runtime
// will read it. Refuses by name an unknown architecture, key or option.
bool PrepareHfConversion(const HfFolderFiles& files, WeightFileWriter* writer,
                         ModelConfig* config, HfImport* import, std::string* error);

// Adds the checkpoint's tensors: the family's reshaping (fused projections, Conv1D,
// Gemma's 1 + w), then each tensor the record expects under its Hugging Face name,
// shape-checked; tied embeddings follow tie_word_embeddings. Matrices are stored as `types`
// asks (f32 where it asks nothing), every other tensor as f32. Consumes *st.
bool AddHfTensors(const HfImport& import, const ModelConfig& config, SafetensorsFile* st,
                  const std::string& source, const MatrixTypeRequest& types,
                  WeightFileWriter* writer, std::string* error);

}  // namespace attnrt
