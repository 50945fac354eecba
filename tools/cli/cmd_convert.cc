// attnrt convert: a PyTorch checkpoint (safetensors, state_dict names) plus its
// constructor config (JSON) -> one flat weight file the runtime reads in place.
//
// The config keys and expected tensors come from models/ (model_config.h,
// model_spec.h), the same tables the runtime loader checks against, so a file
// that converts is a file that loads.
#include <algorithm>
#include <cstdio>

#include "attnrt/models/model_spec.h"
#include "attnrt/runtime/weight_file.h"
#include "cli/cli_common.h"
#include "cli/config_metadata.h"
#include "cli/commands.h"
#include "convert/tensor_encoding.h"
#include "convert/weight_file_writer.h"
#include "host/json_config.h"
#include "host/safetensors.h"

namespace attnrt::cli {
namespace {

struct ConvertOptions {
  std::string arch, config, weights, out;
  std::string dtype = "f32";
};

// Weight matrices and embeddings are stored as `matrix_type`; every other tensor stays f32.
bool CheckAndAddTensors(const ModelConfig& config, const SafetensorsFile& st,
                        const std::string& source, ElementType matrix_type, WeightFileWriter* w,
                        std::string* error) {
  const size_t n = ModelTensorCount(config);
  std::vector<std::string> names;
  for (size_t i = 0; i < n; ++i) {
    TensorSpec spec;
    if (!ModelTensorAt(config, i, &spec)) {
      *error = "internal: tensor " + std::to_string(i) + " of the architecture has no name";
      return false;
    }
    names.push_back(spec.name);
    const std::vector<size_t> want = ToVector(spec.shape);
    const SafetensorsTensor* t = st.Find(spec.name);
    if (t == nullptr && spec.optional) continue;  // e.g. llama's tied output.weight
    if (t == nullptr) {
      *error = source + ": missing tensor '" + spec.name + "' (expected shape " +
               npy::ShapeString(want) + ") for " + ArchitectureName(config.arch);
      return false;
    }
    if (t->shape != want) {
      *error = source + ": tensor '" + spec.name + "' has shape " + npy::ShapeString(t->shape) +
               " but the config implies " + npy::ShapeString(want);
      return false;
    }
    const ElementType type = spec.matrix ? matrix_type : ElementType::kF32;
    if (!w->AddTensor(t->name, t->shape, t->values.data(), type, error)) return false;
  }
  for (const SafetensorsTensor& t : st.tensors) {
    if (std::find(names.begin(), names.end(), t.name) == names.end()) {
      *error = source + ": unexpected tensor '" + t.name + "' for architecture " +
               ArchitectureName(config.arch) + " with this config";
      return false;
    }
  }
  return true;
}

// torch.save writes a zip archive (or, before PyTorch 1.6, a pickle): say what to do instead
// of reporting a safetensors header error.
bool RefuseTorchArchive(const std::string& path, std::string* error) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return false;
  unsigned char magic[4] = {0, 0, 0, 0};
  const size_t n = std::fread(magic, 1, sizeof(magic), f);
  std::fclose(f);
  const bool zip = n == 4 && magic[0] == 'P' && magic[1] == 'K' && magic[2] == 3 && magic[3] == 4;
  const bool pickle = n >= 2 && magic[0] == 0x80 && magic[1] >= 2 && magic[1] <= 5;
  if (!zip && !pickle) return false;
  *error = path + " is a torch.save archive, not safetensors: export it first with\n"
           "  python3 tools/export_torch.py --module " + path +
           " --out-dir DIR   (a state_dict also needs --arch and --config)\n"
           "then convert DIR/model.safetensors with --config DIR/config.json";
  return true;
}

int ConvertCommand(const ConvertOptions& o) {
  const char* cmd = "convert";
  std::string error;
  if (!CheckOutputPaths({{"--config", o.config}, {"weights", o.weights}}, {{"--out", o.out}},
                        &error)) {
    return ReportError(cmd, error);
  }
  JsonConfig json;
  SafetensorsFile st;
  if (!LoadJsonConfig(o.config, &json, &error)) return ReportError(cmd, error);
  // Without --arch the config must name it (export_torch.py writes "architecture").
  std::string arch_name = o.arch;
  if (arch_name.empty()) {
    if (!json.Has("architecture")) {
      return ReportError(cmd, o.config + " has no \"architecture\" key: give --arch (one of " +
                                  ArchitectureNames() + ")");
    }
    if (!json.GetString("architecture", &arch_name, &error)) {
      return ReportError(cmd, WithPath(o.config, error));
    }
  }
  ElementType matrix_type;
  if (!ParseElementType(o.dtype, &matrix_type)) {
    return ReportError(cmd, "--dtype " + o.dtype + " is not one of f32, f16, bf16, q8");
  }
  Architecture arch;
  Status status = ParseArchitecture(arch_name.c_str(), &arch);
  if (!status.ok()) return ReportStatus(cmd, status);
  WeightFileWriter writer;
  ModelConfig config;
  if (!WriteConfigMetadata(arch, json, &writer, &error) ||
      !DeriveConfig(writer, &config, &error)) {
    return ReportError(cmd, WithPath(o.config, error));
  }
  std::fprintf(stderr, "convert: reading %s\n", o.weights.c_str());
  if (RefuseTorchArchive(o.weights, &error)) return ReportError(cmd, error);
  if (!ReadSafetensorsFile(o.weights, &st, &error) ||
      !CheckAndAddTensors(config, st, o.weights, matrix_type, &writer, &error) ||
      !writer.WriteFile(o.out, &error)) {
    return ReportError(cmd, error);
  }
  std::printf("convert: %s, %zu layer(s), %s -> %s (%zu tensors, matrices as %s)\n",
              ArchitectureName(arch), config.num_layers, o.weights.c_str(), o.out.c_str(),
              st.tensors.size(), ElementTypeName(matrix_type));
  return 0;
}

}  // namespace

void AddConvertCommand(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<ConvertOptions>();
  CLI::App* cmd = app.add_subcommand(
      "convert", "Convert a PyTorch safetensors checkpoint + JSON config into a flat weight file");
  std::vector<std::string> arch_names;
  for (size_t i = 0; i < ArchitectureCount(); ++i) {
    arch_names.push_back(ArchitectureName(ArchitectureAt(i)));
  }
  cmd->add_option("--arch", o->arch,
                  std::string("Architecture: ") + ArchitectureNames() +
                      " (default: the config's \"architecture\" key, as export_torch.py writes it)")
      ->check(CLI::IsMember(arch_names));
  cmd->add_option("--config", o->config, "JSON config: the PyTorch constructor arguments")->required();
  cmd->add_option("weights", o->weights, "Checkpoint .safetensors (state_dict names)")->required();
  cmd->add_option("-o,--out", o->out, "Model file to write")->required();
  cmd->add_option("--dtype", o->dtype,
                  "Storage of weight matrices and embeddings: f32 (default), f16, bf16, or q8 "
                  "(int8, one f16 scale per 32 weights of a row; runtime/FORMAT.md). Norms, "
                  "biases and position embeddings stay f32")
      ->check(CLI::IsMember({"f32", "f16", "bf16", "q8"}));
  cmd->callback([o, exit_code] { *exit_code = ConvertCommand(*o); });
}

}  // namespace attnrt::cli
