// The folder's eos ids and compact tokenizer (see hf_tokenizer.h).
#include "convert/hf_tokenizer.h"

#include <vector>

#include "attnrt/models/lm_eos.h"
#include "convert/eos_metadata.h"
#include "host/json_config.h"
#include "tokenizer/tokenizer.h"

namespace attnrt {
namespace {

using Json = nlohmann::json;

bool Fail(std::string* error, const std::string& message) {
  *error = message;
  return false;
}

// eos_token_id of one file: absent or null leaves *found false.
bool EosOf(const HfFolderFiles& files, const char* name, size_t vocab, bool* found,
           std::vector<int64_t>* ids, std::string* error) {
  *found = false;
  const auto text = files.texts.find(name);
  if (text == files.texts.end()) return true;
  const std::string where = files.dir + "/" + name;
  Json root;
  if (!ParseJson(text->second.data(), text->second.size(), where, 32, &root, error)) return false;
  if (!root.is_object()) return true;
  const auto eos = root.find("eos_token_id");
  if (eos == root.end() || eos->is_null()) return true;
  const Json list = eos->is_array() ? *eos : Json::array({*eos});
  for (const Json& id : list) {
    if (!id.is_number_integer() || id.get<int64_t>() < 0 ||
        static_cast<uint64_t>(id.get<int64_t>()) >= vocab) {
      return Fail(error, where + ": eos_token_id " + eos->dump() +
                             " must be a token id in [0, " + std::to_string(vocab) +
                             ") or a list of them");
    }
    ids->push_back(id.get<int64_t>());
  }
  if (ids->size() > kMaxEosTokens) {
    return Fail(error, where + ": eos_token_id lists " + std::to_string(ids->size()) +
                           " ids; attnrt keeps at most " + std::to_string(kMaxEosTokens));
  }
  *found = true;
  return true;
}

}  // namespace

bool HfEosTokens(const HfFolderFiles& files, size_t vocab, std::vector<int64_t>* ids,
                 std::string* error) {
  ids->clear();
  bool found = false;
  return EosOf(files, "generation_config.json", vocab, &found, ids, error) &&
         (found || EosOf(files, "config.json", vocab, &found, ids, error));
}

bool AddHfEosTokens(const HfFolderFiles& files, size_t vocab, WeightFileWriter* writer,
                    std::string* error) {
  std::vector<int64_t> ids;
  if (!HfEosTokens(files, vocab, &ids, error)) return false;
  WriteEosTokenIds(ids, writer);
  return true;
}

bool AddCompactTokenizer(const HfFolderFiles& files, WeightFileWriter* writer,
                         std::string* error) {
  const auto json = files.texts.find("tokenizer.json");
  if (json == files.texts.end()) return true;
  const auto config = files.texts.find("tokenizer_config.json");
  std::string compact;
  if (!Tokenizer::Compile(json->second,
                          config == files.texts.end() ? std::string() : config->second,
                          files.dir + "/tokenizer.json", &compact, error)) {
    return false;
  }
  writer->SetString(Tokenizer::kCompactMetadataKey, compact);
  return true;
}

}  // namespace attnrt
