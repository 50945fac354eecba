// The tokenizer of a converted model file, the one loader every tool uses (`tokenize`,
// `generate --prompt`, `chat`, the C API's attnrt_tokenizer_open). `attnrt convert HF_DIR`
// keeps the folder's tokenizer files byte for byte as string metadata (kHfTokenizerKey,
// kHfTokenizerConfigKey) and, when the engine can load them, their compact form
// (Tokenizer::kCompactMetadataKey), which is read first: it skips parsing a large
// tokenizer.json (Gemma 3's is 33 MB). A compact form written by another attnrt version
// falls back to the JSON files.
#pragma once

#include <string>

#include "attnrt/runtime/weight_file.h"
#include "tokenizer/tokenizer.h"

namespace attnrt {

constexpr const char* kHfTokenizerKey = "hf.tokenizer.json";
constexpr const char* kHfTokenizerConfigKey = "hf.tokenizer_config.json";

// True when the file holds a tokenizer (compact or tokenizer.json).
bool ModelHasTokenizer(const WeightFile& file);

// `name` (the file's path) prefixes errors; a model without a tokenizer is an error that
// says how to get one.
bool LoadModelTokenizer(const WeightFile& file, const std::string& name, Tokenizer* out,
                        std::string* error);

}  // namespace attnrt
