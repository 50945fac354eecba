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
  bool has_tokenizer = false;
  Tokenizer tokenizer;
  std::vector<int32_t> eos;  // from the model file; empty when it records none
};

// The tokenizer is loaded when the model has one (has_tokenizer false otherwise); the eos ids
// always. On failure *error names the file and what is wrong.
bool LoadModelText(const OpenedModel& m, const std::string& path, ModelText* out,
                   std::string* error);

// tokenizer_config.json's chat_template, bos_token and eos_token ("" when absent; a token
// given as {"content": ...} is read from it).
struct ChatConfig {
  std::string chat_template, bos_token, eos_token;
};
bool ReadChatConfig(const OpenedModel& m, const std::string& path, ChatConfig* out,
                    std::string* error);

// The id of a special token's text, which must encode to exactly one token.
bool SingleTokenId(const Tokenizer& tokenizer, const std::string& text, int32_t* id,
                   std::string* error);

}  // namespace attnrt::cli
