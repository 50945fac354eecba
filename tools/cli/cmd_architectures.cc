// attnrt architectures: every architecture the runtime knows, read from its
// records (models/src/arch_*.cc): name, the PyTorch module it reproduces, its
// config keys (type, required, default) and its tensor name patterns. With --json
// the same as one JSON list, which tools/python reads instead of keeping a second
// list of names and keys (the Python tests fail when the two disagree).
#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "attnrt/models/model_config.h"
#include "attnrt/models/model_spec.h"
#include "cli/commands.h"

namespace attnrt::cli {
namespace {

using Json = nlohmann::ordered_json;

const char* TypeName(ConfigType type) {
  switch (type) {
    case ConfigType::kInt: return "int";
    case ConfigType::kFloat: return "float";
    case ConfigType::kBool: return "bool";
    case ConfigType::kString: return "string";
  }
  return "int";
}

// The default as JSON: null for a required key, an int key whose default is None,
// and kdim/d_k-style keys whose default (-1 in the record) is the first key's value.
Json DefaultValue(const ConfigKey& key) {
  if (key.required || KeyDefaultIsNone(key)) return nullptr;
  switch (key.type) {
    case ConfigType::kString: return key.default_string;
    case ConfigType::kBool: return key.default_number != 0;
    case ConfigType::kFloat: return key.default_number;
    case ConfigType::kInt:
      if (key.default_number == -1) return nullptr;
      return static_cast<int64_t>(key.default_number);
  }
  return nullptr;
}

Json ConfigKeysJson(Architecture arch) {
  size_t count = 0;
  const ConfigKey* keys = ArchitectureConfigKeys(arch, &count);
  Json list = Json::array();
  for (size_t i = 0; i < count; ++i) {
    Json key = {{"name", keys[i].name},
                {"type", TypeName(keys[i].type)},
                {"required", keys[i].required},
                {"default", DefaultValue(keys[i])},
                {"fixed", keys[i].fixed}};
    if (keys[i].hf_name != nullptr) key["hf_name"] = keys[i].hf_name;
    if (keys[i].type == ConfigType::kInt && keys[i].default_number == -1) {
      key["default_same_as"] = keys[0].name;
    }
    list.push_back(key);
  }
  return list;
}

Json ArchitectureJson(Architecture arch) {
  Json layer = Json::array(), model = Json::array();
  TensorPattern t;
  for (size_t i = 0; ArchitectureTensorPatternAt(arch, i, &t); ++i) {
    Json tensor = {{"name", t.name}, {"present_when", t.present_when}};
    if (t.hf_name != nullptr) tensor["hf_name"] = t.hf_name;
    (t.per_layer ? layer : model).push_back(tensor);
  }
  Json json = {{"name", ArchitectureName(arch)},
          {"torch_module", ArchitectureModule(arch)},
          {"language_model", ArchitectureIsLanguageModel(arch)},
          {"image_input", ArchitectureTakesImages(arch)},
          {"config_keys", ConfigKeysJson(arch)},
          {"layer_prefix", ArchitectureLayerPrefix(arch)},
          {"layer_tensors", layer},
          {"model_tensors", model}};
  if (const char* hf_prefix = ArchitectureHfLayerPrefix(arch)) json["hf_layer_prefix"] = hf_prefix;
  return json;
}

// "name (int, required)", "bias (bool, default true)", "kdim (int, default embed_dim, fixed)".
std::string KeySummary(const Json& key) {
  std::string s = key["name"].get<std::string>() + " (" + key["type"].get<std::string>();
  if (key["required"].get<bool>()) {
    s += ", required";
  } else if (key.contains("default_same_as")) {
    s += ", default " + key["default_same_as"].get<std::string>();
  } else {
    s += ", default " + key["default"].dump();
  }
  return s + (key["fixed"].get<bool>() ? ", only the default)" : ")");
}

void PrintTensors(const char* label, const std::string& prefix, const Json& tensors) {
  for (const Json& t : tensors) {
    const std::string when = t["present_when"].get<std::string>();
    const std::string note = when == "always" ? "" : "  [when " + when + "]";
    std::printf("  %-7s %s%s%s\n", label, prefix.c_str(), t["name"].get<std::string>().c_str(),
                note.c_str());
  }
}

void PrintArchitecture(const Json& a) {
  std::printf("%s: %s\n", a["name"].get<std::string>().c_str(),
              a["torch_module"].get<std::string>().c_str());
  for (const Json& key : a["config_keys"]) std::printf("  config  %s\n", KeySummary(key).c_str());
  PrintTensors("layer", a["layer_prefix"].get<std::string>(), a["layer_tensors"]);
  PrintTensors("model", "", a["model_tensors"]);
}

}  // namespace

void AddArchitecturesCommand(CLI::App& app, int* exit_code) {
  auto json = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand(
      "architectures", "List the model architectures with their config keys and tensor names");
  cmd->add_flag("--json", *json,
                "Print only a JSON list of {name, torch_module, language_model, image_input, "
                "config_keys, layer_prefix, layer_tensors, model_tensors}");
  cmd->callback([exit_code, json] {
    Json list = Json::array();
    for (size_t i = 0; i < ArchitectureCount(); ++i) {
      list.push_back(ArchitectureJson(ArchitectureAt(i)));
    }
    if (*json) {
      std::printf("%s\n", list.dump(2).c_str());
    } else {
      for (const Json& a : list) PrintArchitecture(a);
    }
    *exit_code = 0;
  });
}

}  // namespace attnrt::cli
