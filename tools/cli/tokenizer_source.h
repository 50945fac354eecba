// Where `attnrt tokenize` / `detokenize` get their tokenizer: a converted model file, a
// tokenizer.json (with the tokenizer_config.json beside it, as transformers' AutoTokenizer
// reads the folder), or a Hugging Face folder holding them. A model file's tokenizer is read by
// LoadModelTokenizer (tokenizer/model_tokenizer.h), as everywhere else: the compact form, else
// the Hugging Face folder's tokenizer.json or a GGUF file's tokenizer metadata.
#pragma once

#include <string>

#include "tokenizer/tokenizer.h"

namespace attnrt::cli {

// On failure *error names the path and what is wrong.
bool LoadTokenizer(const std::string& path, Tokenizer* out, std::string* error);

}  // namespace attnrt::cli
