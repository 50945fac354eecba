// LoadModelText, ReadChatConfig, SingleTokenId (see model_text.h).
#include "cli/model_text.h"

#include <nlohmann/json.hpp>

#include "attnrt/models/lm_eos.h"
#include "convert/hf_tokenizer.h"
#include "host/json_config.h"
#include "tokenizer/model_tokenizer.h"

namespace attnrt::cli {
namespace {

using Json = nlohmann::json;

std::string TokenText(const Json& config, const char* key) {
  const auto it = config.find(key);
  if (it == config.end()) return std::string();
  if (it->is_string()) return it->get<std::string>();
  if (it->is_object()) {
    const auto content = it->find("content");
    if (content != it->end() && content->is_string()) return content->get<std::string>();
  }
  return std::string();
}

// A model converted before the eos ids were recorded: the kept folder files say them.
bool KeptFolderEos(const OpenedModel& m, const std::string& path, ModelText* out,
                   std::string* error) {
  HfFolderFiles files;
  files.dir = path + " (metadata hf.*)";
  for (const char* name : {"generation_config.json", "config.json"}) {
    const char* text = nullptr;
    size_t len = 0;
    if (m.file.GetString((std::string("hf.") + name).c_str(), &text, &len).ok()) {
      files.texts[name] = std::string(text, len);
    }
  }
  std::vector<int64_t> ids;
  if (!HfEosTokens(files, m.model.config.vocab_size, &ids, error)) return false;
  out->eos.assign(ids.begin(), ids.end());
  return true;
}

}  // namespace

bool LoadModelText(const OpenedModel& m, const std::string& path, ModelText* out,
                   std::string* error) {
  int32_t ids[kMaxEosTokens];
  size_t count = 0;
  const Status st = LmEosTokens(m.file, m.model.config.vocab_size, ids, kMaxEosTokens, &count);
  if (!st.ok()) {
    *error = path + ": " + st.message();
    return false;
  }
  out->eos.assign(ids, ids + count);
  int64_t recorded = 0;
  if (!m.file.GetInt(kEosCountKey, &recorded).ok() && !KeptFolderEos(m, path, out, error)) {
    return false;
  }
  out->has_tokenizer = false;
  if (ModelHasTokenizer(m.file)) {
    out->has_tokenizer = LoadModelTokenizer(m.file, path, &out->tokenizer, &out->tokenizer_error);
  }
  return true;
}

namespace {

// The text of token `id_key`'s id in a GGUF tokenizer's token list ("" when either is absent).
std::string GgufTokenText(const Json& tokenizer, const char* id_key) {
  const auto id = tokenizer.find(id_key);
  const auto tokens = tokenizer.find("tokenizer.ggml.tokens");
  if (id == tokenizer.end() || !id->is_number_unsigned() || tokens == tokenizer.end() ||
      !tokens->is_array() || id->get<uint64_t>() >= tokens->size()) {
    return "";
  }
  const Json& token = (*tokens)[id->get<uint64_t>()];
  return token.is_string() ? token.get<std::string>() : "";
}

// A model converted from a GGUF file: tokenizer.chat_template and the bos / eos token texts of
// the tokenizer metadata `attnrt convert` keeps (gguf.tokenizer).
bool ReadGgufChatConfig(const OpenedModel& m, const std::string& path, ChatConfig* out,
                        std::string* error) {
  const char* text = nullptr;
  size_t len = 0;
  if (!m.file.GetString(Tokenizer::kGgufMetadataKey, &text, &len).ok()) return true;
  Json tokenizer;
  if (!ParseJson(text, len, path + " (" + Tokenizer::kGgufMetadataKey + ")", 64, &tokenizer,
                 error)) {
    return false;
  }
  if (!tokenizer.is_object()) return true;
  const auto chat = tokenizer.find("tokenizer.chat_template");
  if (chat != tokenizer.end() && chat->is_string()) out->chat_template = chat->get<std::string>();
  out->bos_token = GgufTokenText(tokenizer, "tokenizer.ggml.bos_token_id");
  out->eos_token = GgufTokenText(tokenizer, "tokenizer.ggml.eos_token_id");
  return true;
}

}  // namespace

bool ReadChatConfig(const OpenedModel& m, const std::string& path, ChatConfig* out,
                    std::string* error) {
  *out = ChatConfig();
  const char* text = nullptr;
  size_t len = 0;
  if (!m.file.GetString(kHfTokenizerConfigKey, &text, &len).ok()) {
    return ReadGgufChatConfig(m, path, out, error);
  }
  Json config;
  if (!ParseJson(text, len, path + " (" + kHfTokenizerConfigKey + ")", 64, &config, error)) {
    return false;
  }
  if (!config.is_object()) return true;
  const auto chat = config.find("chat_template");
  if (chat != config.end() && chat->is_string()) out->chat_template = chat->get<std::string>();
  if (chat != config.end() && chat->is_array()) {
    // Several named templates (as some models ship): the one named "default".
    for (const Json& t : *chat) {
      if (t.is_object() && t.contains("name") && t["name"] == "default" && t.contains("template") &&
          t["template"].is_string()) {
        out->chat_template = t["template"].get<std::string>();
      }
    }
  }
  out->bos_token = TokenText(config, "bos_token");
  out->eos_token = TokenText(config, "eos_token");
  return true;
}

bool SingleTokenId(const Tokenizer& tokenizer, const std::string& text, int32_t* id,
                   std::string* error) {
  std::vector<uint32_t> ids;
  if (!tokenizer.Encode(text, false, &ids, error)) return false;
  if (ids.size() != 1) {
    *error = "'" + text + "' is not one token of this tokenizer (it encodes to " +
             std::to_string(ids.size()) + " tokens)";
    return false;
  }
  *id = static_cast<int32_t>(ids[0]);
  return true;
}

}  // namespace attnrt::cli
