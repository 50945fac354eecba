// LoadModelTokenizer (see model_tokenizer.h).
#include "tokenizer/model_tokenizer.h"

#include <string_view>

namespace attnrt {
namespace {

std::string_view StringOf(const WeightFile& file, const char* key, bool* found) {
  const char* text = nullptr;
  size_t len = 0;
  *found = file.GetString(key, &text, &len).ok();
  return *found ? std::string_view(text, len) : std::string_view();
}

}  // namespace

bool ModelHasTokenizer(const WeightFile& file) {
  bool json = false, compact = false, gguf = false;
  StringOf(file, kHfTokenizerKey, &json);
  StringOf(file, Tokenizer::kCompactMetadataKey, &compact);
  StringOf(file, Tokenizer::kGgufMetadataKey, &gguf);
  return json || compact || gguf;
}

// The compact form when it loads; a stale one (another attnrt version) falls back to what it
// was compiled from: the Hugging Face tokenizer.json, or a GGUF file's tokenizer metadata.
bool LoadModelTokenizer(const WeightFile& file, const std::string& name, Tokenizer* out,
                        std::string* error) {
  bool has_json = false, has_compact = false, has_config = false, has_gguf = false;
  const std::string_view json = StringOf(file, kHfTokenizerKey, &has_json);
  const std::string_view gguf = StringOf(file, Tokenizer::kGgufMetadataKey, &has_gguf);
  const std::string_view compact = StringOf(file, Tokenizer::kCompactMetadataKey, &has_compact);
  if (has_compact) {
    bool stale = false;
    if (Tokenizer::LoadCompact(compact, name, out, &stale, error)) return true;
    if (!stale || (!has_json && !has_gguf)) return false;
  }
  if (!has_json) {
    if (has_gguf) return Tokenizer::LoadGguf(gguf, name, out, error);
    *error = name + ": the model has no tokenizer (no \"" + kHfTokenizerKey + "\" or \"" +
             Tokenizer::kGgufMetadataKey +
             "\" metadata; `attnrt convert` keeps a Hugging Face folder's tokenizer.json and a "
             "GGUF file's tokenizer)";
    return false;
  }
  const std::string_view config = StringOf(file, kHfTokenizerConfigKey, &has_config);
  return Tokenizer::Load(json, config, name, out, error);
}

}  // namespace attnrt
