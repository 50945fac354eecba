// Where `attnrt tokenize` / `detokenize` get their tokenizer: a converted model file (its
// "hf.tokenizer.json" and "hf.tokenizer_config.json" metadata, kept byte for byte by
// `attnrt convert HF_DIR`), a tokenizer.json (with the tokenizer_config.json beside it, as
// transformers' AutoTokenizer reads the folder), or a Hugging Face folder holding them.
#pragma once

#include <string>

#include "tokenizer/tokenizer.h"

namespace attnrt::cli {

// On failure *error names the path and what is wrong.
bool LoadTokenizer(const std::string& path, Tokenizer* out, std::string* error);

}  // namespace attnrt::cli
