// Config JSON -> weight-file metadata (see config_metadata.h).
#include "convert/config_metadata.h"

#include <vector>

#include "attnrt/runtime/weight_file.h"

namespace attnrt {
namespace {

// A `fixed` key (an option attnrt does not implement) is accepted only at its
// default: JSON null, the default number, or for kdim/vdim (default -1) the first key's value.
bool CheckFixedKey(const ConfigKey& k, const JsonConfig& json, int64_t first_value,
                   std::string* error) {
  const auto& value = json.root()[k.name];
  if (value.is_null()) return true;
  bool ok = false;
  if (k.type == ConfigType::kBool && value.is_boolean()) {
    ok = value.get<bool>() == (k.default_number != 0);
  } else if (k.type == ConfigType::kInt && value.is_number_integer()) {
    const int64_t v = value.get<int64_t>();
    ok = k.default_string == nullptr &&
         (v == static_cast<int64_t>(k.default_number) || (k.default_number == -1 && v == first_value));
  }
  if (!ok) {
    *error = json.name() + ": config key '" + k.name + "' = " + value.dump() +
             " is not implemented by attnrt (only its default is accepted)";
  }
  return ok;
}

}  // namespace

bool WriteConfigMetadata(Architecture arch, const JsonConfig& json, WeightFileWriter* w,
                         std::string* error) {
  size_t count;
  const ConfigKey* keys = ArchitectureConfigKeys(arch, &count);
  std::vector<std::string> allowed;
  for (size_t i = 0; i < count; ++i) allowed.push_back(keys[i].name);
  // export_torch.py records the architecture too; it must agree with --arch.
  allowed.push_back("architecture");
  if (!json.CheckNoUnknownKeys(allowed, error)) return false;
  std::string recorded;
  if (json.Has("architecture") && (!json.GetString("architecture", &recorded, error) ||
                                   recorded != ArchitectureName(arch))) {
    if (error->empty()) {
      *error = "config says architecture '" + recorded + "' but --arch is " + ArchitectureName(arch);
    }
    return false;
  }
  w->SetString("arch", ArchitectureName(arch));
  int64_t model_dim = 0;
  for (size_t i = 0; i < count; ++i) {
    const ConfigKey& k = keys[i];
    // JSON null means "not given", as Python's None default does.
    const bool given = json.Has(k.name) && !json.root()[k.name].is_null();
    if (k.required && !given) {
      *error = json.name() + ": missing required config key '" + k.name + "'";
      return false;
    }
    if (k.fixed) {
      if (given && !CheckFixedKey(k, json, model_dim, error)) return false;
      continue;  // nothing to record: the runtime implements only the default
    }
    switch (k.type) {
      case ConfigType::kInt: {
        // A None default (llama's sliding_window) is recorded only when given: the
        // runtime reads an absent key as None, and no number stands for it.
        if (!given && KeyDefaultIsNone(k)) break;
        int64_t v = static_cast<int64_t>(k.default_number);
        if (given && !json.GetInt(k.name, &v, error)) return false;
        // An optional key whose default 0 stands for None (llama's n_kv_heads): a given 0
        // would be recorded as that default and read back as "absent", so a later error
        // would blame something else (a tensor's shape). Refuse it here by name.
        if (given && v == 0 && !k.required && k.default_number == 0 && k.default_string == nullptr) {
          *error = json.name() + ": key '" + k.name +
                   "': 0 is not allowed (leave the key out or null for its default)";
          return false;
        }
        if (v == -1 && !given) v = model_dim;  // d_k / d_v default to d_model
        if (i == 0) model_dim = v;
        w->SetInt(k.name, v);
        break;
      }
      case ConfigType::kBool: {
        bool v = k.default_number != 0;
        if (given && !json.GetBool(k.name, &v, error)) return false;
        w->SetInt(k.name, v ? 1 : 0);
        break;
      }
      case ConfigType::kFloat: {
        if (!given && KeyDefaultIsNone(k)) break;
        double v = k.default_number;
        if (given && !json.GetFloat(k.name, &v, error)) return false;
        w->SetFloat(k.name, v);
        break;
      }
      case ConfigType::kString: {
        if (!given && KeyDefaultIsNone(k)) break;
        std::string v = k.default_string != nullptr ? k.default_string : "";
        if (given && !json.GetString(k.name, &v, error)) return false;
        w->SetString(k.name, v);
        break;
      }
    }
  }
  return true;
}

bool DeriveConfig(const WeightFileWriter& metadata_only, ModelConfig* config, std::string* error) {
  std::vector<uint8_t> bytes;
  if (!metadata_only.Serialize(&bytes, error)) return false;
  WeightFile file;
  Status st = WeightFile::Open(bytes.data(), bytes.size(), &file);
  if (st.ok()) st = ReadModelConfig(file, config);
  if (!st.ok()) {
    *error = st.message();
    return false;
  }
  return true;
}

}  // namespace attnrt
