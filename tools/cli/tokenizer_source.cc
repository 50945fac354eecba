// LoadTokenizer (see tokenizer_source.h).
#include "cli/tokenizer_source.h"

#include <sys/stat.h>

#include <cstring>

#include "attnrt/runtime/weight_file.h"
#include "convert/hf_folder.h"
#include "host/mapped_file.h"
#include "tokenizer/model_tokenizer.h"

namespace attnrt::cli {
bool LoadTokenizer(const std::string& path, Tokenizer* out, std::string* error) {
  const std::string file = IsDirectory(path) ? path + "/tokenizer.json" : path;
  MappedFile mapping;
  if (!mapping.Open(file, error)) return false;
  const char* data = reinterpret_cast<const char*>(mapping.data());
  if (mapping.size() >= sizeof(WeightFileLayout::kMagic) &&
      std::memcmp(data, WeightFileLayout::kMagic, sizeof(WeightFileLayout::kMagic)) == 0) {
    WeightFile model;
    const Status st = WeightFile::Open(mapping.data(), mapping.size(), &model);
    if (!st.ok()) {
      *error = file + ": " + st.message();
      return false;
    }
    return LoadModelTokenizer(model, file, out, error);
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
