// LoadTokenizer (see tokenizer_source.h).
#include "cli/tokenizer_source.h"

#include <sys/stat.h>

#include <cstring>

#include "attnrt/runtime/weight_file.h"
#include "host/mapped_file.h"

namespace attnrt::cli {
namespace {

constexpr const char* kTokenizerKey = "hf.tokenizer.json";
constexpr const char* kConfigKey = "hf.tokenizer_config.json";

bool IsDirectory(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool LoadFromModel(const std::string& path, const MappedFile& mapping, Tokenizer* out,
                   std::string* error) {
  WeightFile file;
  const Status st = WeightFile::Open(mapping.data(), mapping.size(), &file);
  if (!st.ok()) {
    *error = path + ": " + st.message();
    return false;
  }
  const char* json = nullptr;
  size_t json_len = 0;
  const bool has_json = file.GetString(kTokenizerKey, &json, &json_len).ok();
  const char* gguf = nullptr;
  size_t gguf_len = 0;
  const bool has_gguf = file.GetString(Tokenizer::kGgufMetadataKey, &gguf, &gguf_len).ok();
  const char* compact = nullptr;
  size_t compact_len = 0;
  if (file.GetString(Tokenizer::kCompactMetadataKey, &compact, &compact_len).ok()) {
    bool stale = false;
    if (Tokenizer::LoadCompact(std::string_view(compact, compact_len), path, out, &stale,
                               error)) {
      return true;
    }
    if (!stale || (!has_json && !has_gguf)) return false;
  }
  if (!has_json) {
    if (has_gguf) return Tokenizer::LoadGguf(std::string_view(gguf, gguf_len), path, out, error);
    *error = path + ": the model has no tokenizer (no \"" + kTokenizerKey + "\" or \"" +
             Tokenizer::kGgufMetadataKey +
             "\" metadata; `attnrt convert` keeps a Hugging Face folder's tokenizer.json and a "
             "GGUF file's tokenizer)";
    return false;
  }
  const char* config = "";
  size_t config_len = 0;
  if (!file.GetString(kConfigKey, &config, &config_len).ok()) {
    config = "";
    config_len = 0;
  }
  return Tokenizer::Load(std::string_view(json, json_len), std::string_view(config, config_len),
                         path, out, error);
}

}  // namespace

bool LoadTokenizer(const std::string& path, Tokenizer* out, std::string* error) {
  const std::string file = IsDirectory(path) ? path + "/tokenizer.json" : path;
  MappedFile mapping;
  if (!mapping.Open(file, error)) return false;
  const char* data = reinterpret_cast<const char*>(mapping.data());
  if (mapping.size() >= sizeof(WeightFileLayout::kMagic) &&
      std::memcmp(data, WeightFileLayout::kMagic, sizeof(WeightFileLayout::kMagic)) == 0) {
    return LoadFromModel(file, mapping, out, error);
  }
  // A tokenizer.json: the tokenizer_config.json of the same folder applies too.
  const size_t slash = file.rfind('/');
  const std::string config_path =
      (slash == std::string::npos ? std::string() : file.substr(0, slash + 1)) +
      "tokenizer_config.json";
  MappedFile config;
  struct stat st;
  const bool has_config = stat(config_path.c_str(), &st) == 0;
  if (has_config && !config.Open(config_path, error)) return false;
  return Tokenizer::Load(
      std::string_view(data, mapping.size()),
      has_config ? std::string_view(reinterpret_cast<const char*>(config.data()), config.size())
                 : std::string_view(),
      file, out, error);
}

}  // namespace attnrt::cli
