// A Hugging Face folder in memory -> weight-file writer (see hf_import.h).
#include "convert/hf_import.h"

#include <cstring>
#include <utility>
#include <vector>

#include "attnrt/models/model_spec.h"
#include "convert/config_metadata.h"
#include "convert/hf_tokenizer.h"
#include "host/json_config.h"
#include "host/with_path.h"
#include "npy/npy.h"

namespace attnrt {

using Json = nlohmann::json;

const char* const kHfKeptFiles[] = {"config.json", "generation_config.json", "tokenizer.json",
                                    "tokenizer_config.json", "special_tokens_map.json"};
const size_t kHfKeptFileCount = sizeof(kHfKeptFiles) / sizeof(kHfKeptFiles[0]);

namespace {

bool Fail(std::string* error, const std::string& message) {
  *error = message;
  return false;
}

const HfKeyRule* FindRule(const HfFamily& family, const std::string& key) {
  for (size_t i = 0; i < family.rule_count; ++i) {
    if (key == family.rules[i].key) return &family.rules[i];
  }
  for (size_t i = 0; i < kHfCommonRuleCount; ++i) {
    if (key == kHfCommonRules[i].key) return &kHfCommonRules[i];
  }
  return nullptr;
}

// True when `value` is one of the rule's '|'-separated JSON values.
bool Accepted(const HfKeyRule& rule, const Json& value) {
  if (rule.accepted == nullptr) return true;
  const std::string list = rule.accepted;
  size_t begin = 0;
  while (begin <= list.size()) {
    size_t end = list.find('|', begin);
    if (end == std::string::npos) end = list.size();
    if (Json::parse(list.substr(begin, end - begin)) == value) return true;
    begin = end + 1;
  }
  return false;
}

const ConfigKey* FindHfKey(Architecture arch, const std::string& hf_name) {
  size_t count = 0;
  const ConfigKey* keys = ArchitectureConfigKeys(arch, &count);
  for (size_t i = 0; i < count; ++i) {
    if (keys[i].hf_name != nullptr && hf_name == keys[i].hf_name) return &keys[i];
  }
  return nullptr;
}

// The family config.json names: one `architectures` entry attnrt knows, and the
// model_type that goes with it.
bool FindFamily(const Json& config, const std::string& where, const HfFamily** family,
                std::string* error) {
  const auto arch = config.find("architectures");
  if (arch == config.end() || !arch->is_array() || arch->size() != 1 || !(*arch)[0].is_string()) {
    return Fail(error, where + ": \"architectures\" must be a list of one class name (one of " +
                           HfFamilyNames() + ")");
  }
  const std::string name = (*arch)[0].get<std::string>();
  *family = FindHfFamily(name);
  if (*family == nullptr) {
    return Fail(error, where + ": architecture '" + name + "' is not supported (attnrt imports " +
                           HfFamilyNames() + ")");
  }
  const auto type = config.find("model_type");
  if (type != config.end() && !(type->is_string() && *type == (*family)->model_type)) {
    return Fail(error, where + ": model_type " + type->dump() + " does not go with " + name +
                           " (expected \"" + (*family)->model_type + "\")");
  }
  return true;
}

}  // namespace

bool PrepareHfConversion(const HfFolderFiles& files, WeightFileWriter* writer,
                         ModelConfig* config, HfImport* import, std::string* error) {
  const std::string where = files.dir + "/config.json";
  const auto text = files.texts.find("config.json");
  if (text == files.texts.end()) return Fail(error, where + ": missing");
  Json hf;
  if (!ParseJson(text->second.data(), text->second.size(), where, 32, &hf, error)) return false;
  if (!hf.is_object()) return Fail(error, where + ": must be a JSON object");
  const HfFamily* family = nullptr;
  if (!FindFamily(hf, where, &family, error)) return false;

  // The class defaults under the file's values: save_pretrained leaves defaults out.
  Json effective = Json::parse(family->defaults);
  for (const auto& item : hf.items()) effective[item.key()] = item.value();
  Json ours = Json::object();
  for (const auto& item : effective.items()) {
    const std::string& key = item.key();
    if (const HfKeyRule* rule = FindRule(*family, key)) {
      if (!Accepted(*rule, item.value())) {
        return Fail(error, where + ": " + key + " = " + item.value().dump() +
                               " is not supported for " + family->architecture +
                               " (attnrt runs " + rule->accepted + ")");
      }
      continue;
    }
    if (const ConfigKey* k = FindHfKey(family->arch, key)) {
      if (!item.value().is_null()) ours[k->name] = item.value();
      continue;
    }
    return Fail(error, where + ": key '" + key + "' is not known to attnrt for " +
                           family->architecture +
                           " (refused rather than ignored: it may change what the model computes)");
  }
  std::string step_error;
  if (!family->translate_config(effective, &ours, &step_error)) {
    return Fail(error, files.dir + "/" + step_error);
  }
  JsonConfig translated;
  const std::string as_ours =
      where + " (as attnrt's " + ArchitectureName(family->arch) + " keys)";
  if (!ParseJsonConfig(ours.dump(), as_ours, &translated, error) ||
      !WriteConfigMetadata(family->arch, translated, writer, error)) {
    return false;
  }
  if (!DeriveConfig(*writer, config, error)) {  // the runtime's checks name no file
    *error = WithPath(as_ours, *error);
    return false;
  }
  if (!AddHfEosTokens(files, config->vocab_size, writer, error)) {
    return false;
  }
  for (size_t i = 0; i < kHfKeptFileCount; ++i) {
    const auto kept = files.texts.find(kHfKeptFiles[i]);
    if (kept != files.texts.end()) writer->SetString(std::string("hf.") + kHfKeptFiles[i], kept->second);
  }
  writer->SetString("source", std::string("Hugging Face ") + family->architecture + " folder");
  import->family = family;
  const Json& tie = effective["tie_word_embeddings"];
  import->tied = tie.is_boolean() && tie.get<bool>();
  return true;
}

bool AddHfTensors(const HfImport& import, const ModelConfig& config, SafetensorsFile* st,
                  const std::string& source, const MatrixTypeRequest& types,
                  WeightFileWriter* writer, std::string* error) {
  std::vector<TensorStorage> storage;
  if (!ChooseTensorStorage(types, config, import.tied, &storage, error)) {
    return Fail(error, source + ": " + *error);
  }
  std::string step_error;
  if (import.family->reshape_tensors != nullptr &&
      !import.family->reshape_tensors(config, st, &step_error)) {
    return Fail(error, source + ": " + step_error);
  }
  std::vector<bool> used(st->tensors.size(), false);
  const size_t n = ModelTensorCount(config);
  for (size_t i = 0; i < n; ++i) {
    TensorSpec spec;
    if (!ModelTensorAt(config, i, &spec) || spec.hf_name[0] == '\0') {
      return Fail(error, "internal: tensor " + std::to_string(i) + " of " +
                             ArchitectureName(config.arch) + " has no Hugging Face name");
    }
    const std::vector<size_t> want(spec.shape.dims, spec.shape.dims + spec.shape.rank);
    size_t at = 0;
    while (at < st->tensors.size() && st->tensors[at].name != spec.hf_name) ++at;
    // Tied: the output layer is the embedding, whatever lm_head.weight the file has.
    const bool head = std::strcmp(spec.hf_name, "lm_head.weight") == 0;
    if (head && import.tied) {
      if (at < st->tensors.size()) used[at] = true;
      continue;
    }
    if (at == st->tensors.size()) {
      if (head) {
        return Fail(error, source + ": missing tensor 'lm_head.weight' and tie_word_embeddings "
                                    "is false");
      }
      return Fail(error, source + ": missing tensor '" + spec.hf_name + "' (expected shape " +
                             npy::ShapeString(want) + ") for " + import.family->architecture);
    }
    SafetensorsTensor& t = st->tensors[at];
    if (t.shape != want) {
      return Fail(error, source + ": tensor '" + t.name + "' has shape " +
                             npy::ShapeString(t.shape) + " but the config implies " +
                             npy::ShapeString(want));
    }
    used[at] = true;
    // `keep`: the checkpoint's values as read, f32.
    const WeightType type = storage[i].keep ? WeightType::kF32 : storage[i].type;
    if (!writer->AddTensor(spec.name, t.shape, t.values.data(), type, error)) return false;
    std::vector<float>().swap(t.values);  // written: free it as we go
  }
  for (size_t i = 0; i < st->tensors.size(); ++i) {
    if (!used[i]) {
      return Fail(error, source + ": unexpected tensor '" + st->tensors[i].name + "' for " +
                             import.family->architecture + " with this config");
    }
  }
  return true;
}

}  // namespace attnrt
