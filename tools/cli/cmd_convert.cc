// attnrt convert: a PyTorch checkpoint (safetensors, state_dict names) plus its
// constructor config (JSON) -> one flat weight file the runtime reads in place.
//
// The config keys and expected tensors come from models/ (model_config.h,
// model_spec.h), the same tables the runtime loader checks against, so a file
// that converts is a file that loads.
#include <cstdio>

#include "attnrt/models/model_spec.h"
#include "attnrt/runtime/weight_file.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "convert/weight_file_writer.h"
#include "host/json_config.h"
#include "host/safetensors.h"

namespace attnrt::cli {
namespace {

struct ConvertOptions {
  std::string arch, config, weights, out;
};

// Copies every accepted key (or its default) from the JSON config into metadata.
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
    switch (k.type) {
      case ConfigType::kInt: {
        int64_t v = static_cast<int64_t>(k.default_number);
        if (given && !json.GetInt(k.name, &v, error)) return false;
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
        double v = k.default_number;
        if (given && !json.GetFloat(k.name, &v, error)) return false;
        w->SetFloat(k.name, v);
        break;
      }
      case ConfigType::kString: {
        std::string v = k.default_string;
        if (given && !json.GetString(k.name, &v, error)) return false;
        w->SetString(k.name, v);
        break;
      }
    }
  }
  return true;
}

// Derives the model config exactly as the runtime will: serialize the metadata
// alone and read it back through ReadModelConfig.
bool DeriveConfig(const WeightFileWriter& metadata_only, ModelConfig* config, std::string* error) {
  std::vector<uint8_t> bytes;
  if (!metadata_only.Serialize(&bytes, error)) return false;
  WeightFile file;
  Status st = WeightFile::Open(bytes.data(), bytes.size(), &file);
  if (st.ok()) st = ReadModelConfig(file, config);
  if (!st.ok()) {
    *error = std::string("config: ") + st.message();
    return false;
  }
  return true;
}

bool CheckAndAddTensors(const ModelConfig& config, const SafetensorsFile& st,
                        const std::string& source, WeightFileWriter* w, std::string* error) {
  TensorSpec specs[kMaxModelTensors];
  const size_t n = ModelTensorSpecs(config, specs);
  for (size_t i = 0; i < n; ++i) {
    const std::vector<size_t> want = ToVector(specs[i].shape);
    const SafetensorsTensor* t = st.Find(specs[i].name);
    if (t == nullptr) {
      *error = source + ": missing tensor '" + specs[i].name + "' (expected shape " +
               npy::ShapeString(want) + ")";
      return false;
    }
    if (t->shape != want) {
      *error = source + ": tensor '" + specs[i].name + "' has shape " + npy::ShapeString(t->shape) +
               " but the config implies " + npy::ShapeString(want);
      return false;
    }
    if (!w->AddTensorF32(t->name, t->shape, t->values.data(), error)) return false;
  }
  for (const SafetensorsTensor& t : st.tensors) {
    bool expected = false;
    for (size_t i = 0; i < n; ++i) expected = expected || t.name == specs[i].name;
    if (!expected) {
      *error = source + ": unexpected tensor '" + t.name + "' for architecture " +
               ArchitectureName(config.arch);
      return false;
    }
  }
  return true;
}

int ConvertCommand(const ConvertOptions& o) {
  const char* cmd = "convert";
  Architecture arch;
  Status status = ParseArchitecture(o.arch.c_str(), &arch);
  if (!status.ok()) return ReportStatus(cmd, status);
  std::string error;
  JsonConfig json;
  SafetensorsFile st;
  if (!LoadJsonConfig(o.config, &json, &error)) return ReportError(cmd, error);
  WeightFileWriter writer;
  ModelConfig config;
  if (!WriteConfigMetadata(arch, json, &writer, &error) ||
      !DeriveConfig(writer, &config, &error)) {
    return ReportError(cmd, o.config + ": " + error);
  }
  std::fprintf(stderr, "convert: reading %s\n", o.weights.c_str());
  if (!ReadSafetensorsFile(o.weights, &st, &error) ||
      !CheckAndAddTensors(config, st, o.weights, &writer, &error) ||
      !writer.WriteFile(o.out, &error)) {
    return ReportError(cmd, error);
  }
  std::printf("convert: %s %s -> %s (%zu tensors)\n", ArchitectureName(arch), o.weights.c_str(),
              o.out.c_str(), st.tensors.size());
  return 0;
}

}  // namespace

void AddConvertCommand(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<ConvertOptions>();
  CLI::App* cmd = app.add_subcommand(
      "convert", "Convert a PyTorch safetensors checkpoint + JSON config into a flat weight file");
  cmd->add_option("--arch", o->arch, "mha, encoder-layer, self-attention or single-head")
      ->required()
      ->check(CLI::IsMember({"mha", "encoder-layer", "self-attention", "single-head"}));
  cmd->add_option("--config", o->config, "JSON config: the PyTorch constructor arguments")->required();
  cmd->add_option("weights", o->weights, "Checkpoint .safetensors (state_dict names)")->required();
  cmd->add_option("-o,--out", o->out, "Model file to write")->required();
  cmd->callback([o, exit_code] { *exit_code = ConvertCommand(*o); });
}

}  // namespace attnrt::cli
