// The text side of a converted language model for `generate --prompt` and `chat`: its
// tokenizer (tokenizer/model_tokenizer.h, the loader `tokenize` uses too), its eos ids
// (attnrt/models/lm_eos.h) and the strings of its tokenizer_config.json a chat needs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cli/model_file.h"
#include "tokenizer/tokenizer.h"

namespace attnrt::cli {

struct ModelText {
  bool has_tokenizer = false;  // the model has one and it loaded
  std::string tokenizer_error;  // why the model's tokenizer did not load ("" when it did)
  Tokenizer tokenizer;
  std::vector<int32_t> eos;  // from the model file; empty when it records none
};

// The eos ids, and the tokenizer when the model has one. A tokenizer that does not load (a
// component the engine refuses by name) leaves has_tokenizer false and says why in
// tokenizer_error: token ids still work. On failure (bad eos metadata) *error names the file.
bool LoadModelText(const OpenedModel& m, const std::string& path, ModelText* out,
                   std::string* error);

// tokenizer_config.json's chat_template, bos_token and eos_token ("" when absent; a token
// given as {"content": ...} is read from it); for a model converted from a GGUF file,
// tokenizer.chat_template and the texts of tokenizer.ggml.bos/eos_token_id.
struct ChatConfig {
  std::string chat_template, bos_token, eos_token;
};
bool ReadChatConfig(const OpenedModel& m, const std::string& path, ChatConfig* out,
                    std::string* error);

// The id of a special token's text, which must encode to exactly one token.
bool SingleTokenId(const Tokenizer& tokenizer, const std::string& text, int32_t* id,
                   std::string* error);

}  // namespace attnrt::cli
