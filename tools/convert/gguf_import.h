// Importing a GGUF file (llama.cpp's format, gguf_file.h) into the one weight-file writer,
// in two steps like hf_import.h, so a file attnrt cannot run is refused before any
// tensor is decoded:
//   PrepareGgufConversion  general.architecture -> family (gguf_families.h) -> the
//                          record's keys from "<arch>.*" -> metadata -> ModelConfig
//   AddGgufTensors         llama.cpp's tensor names -> the record's, fused tensors split,
//                          each tensor kept or re-encoded
// Unknown architectures, "<arch>." keys attnrt does not know and settings it does not run
// are refused by name. The tokenizer metadata (tokenizer.*) is kept as one JSON object in
// the string metadata "gguf.tokenizer" (GGUF key -> value, arrays as JSON arrays) for the
// tokenizer engine. No file I/O and no printing: the gguf-input fuzzer drives this code.
#pragma once

#include <string>
#include <vector>

#include "attnrt/kernels/weight_type.h"
#include "attnrt/models/model_config.h"
#include "convert/gguf_families.h"
#include "convert/gguf_file.h"
#include "convert/matrix_types.h"
#include "convert/weight_file_writer.h"

namespace attnrt {

struct GgufImport {
  const GgufFamily* family = nullptr;
};

// Reads the metadata: the family, the hyper-parameters as the record's keys (with the
// derived ones: rope_style, head_dim, rotary_dim, Llama 3 scaling from rope_freqs,
// Gemma 3's layer pattern and scales), "source" and "gguf.tokenizer", and *config as the
// runtime will read it. `source` (the path) starts every message.
bool PrepareGgufConversion(const GgufFile& gguf, const std::string& source,
                           WeightFileWriter* writer, ModelConfig* config, GgufImport* import,
                           std::string* error);

// The tokenizer.* keys as one JSON object (GGUF key -> value, arrays as JSON arrays), the text
// kept as "gguf.tokenizer"; empty when the file has none. Fails naming the first text that is
// not UTF-8 ("tokenizer.ggml.tokens[7]").
bool GgufTokenizerJson(const GgufFile& gguf, const std::string& source, std::string* json,
                       std::string* error);

// What happened to one weight matrix.
struct GgufTensorNote {
  std::string name;       // the record's name
  std::string gguf_name;  // the file's (a fused tensor's part: "blk.0.attn_qkv.weight[q]")
  const char* from = "";  // the file's type, "Q4_K"
  WeightType to = WeightType::kF32;
  bool reencoded = false;    // false: kept value for value (F32/F16/BF16 as they are, Q8_0 as q8)
  double relative_rms = 0;   // re-encoded: ||decoded - source|| / ||source|| (source dequantized)
};

// Adds every tensor the record expects, shape-checked. Norms, biases and position
// embeddings become f32 (exactly: any source type's values fit). A weight matrix for which
// `types` asks nothing (no --dtype, its class not named) keeps its type when attnrt runs it
// (F32, F16, BF16; Q8_0 as q8, the same int8 values and f16 scales; Q4_0, Q4_K, Q6_K) and is
// refused by name otherwise; one for which it asks a type is kept when already of that type,
// else decoded exactly and re-encoded, the loss in *notes.
bool AddGgufTensors(const GgufImport& import, const ModelConfig& config, const GgufFile& gguf,
                    const std::string& source, const MatrixTypeRequest& types,
                    WeightFileWriter* writer, std::vector<GgufTensorNote>* notes,
                    std::string* error);

}  // namespace attnrt
