// Where `attnrt tokenize` / `detokenize` get their tokenizer: a converted model file, a
// tokenizer.json (with the tokenizer_config.json beside it, as transformers' AutoTokenizer
// reads the folder), or a Hugging Face folder holding them. In a model file the compact form
// (metadata "tokenizer.compact", Tokenizer::Compile) is read when present, else the
// "hf.tokenizer.json" and "hf.tokenizer_config.json" metadata that `attnrt convert HF_DIR`
// keeps byte for byte; a compact form from another attnrt version falls back to those. A model
// converted from a GGUF file has llama.cpp's tokenizer as metadata "gguf.tokenizer"
// (Tokenizer::LoadGguf), which `convert` also keeps as the compact form.
#pragma once

#include <string>

#include "tokenizer/tokenizer.h"

namespace attnrt::cli {

// On failure *error names the path and what is wrong.
bool LoadTokenizer(const std::string& path, Tokenizer* out, std::string* error);

}  // namespace attnrt::cli
