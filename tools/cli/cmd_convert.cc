// attnrt convert: a PyTorch checkpoint (safetensors, state_dict names) plus its
// constructor config (JSON) -> one flat weight file the runtime reads in place.
//
// This file holds the options and the file I/O; the conversion itself (config ->
// architecture -> metadata -> checked tensors) is convert_core.h, which the
// convert-input fuzzer drives too.
#include <cstdio>

#include "attnrt/models/model_config.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "convert/convert_core.h"
#include "cli/weight_dtype_option.h"
#include "convert/tensor_encoding.h"
#include "convert/weight_file_writer.h"
#include "host/json_config.h"
#include "host/regular_file.h"
#include "host/safetensors.h"

namespace attnrt::cli {
namespace {

struct ConvertOptions {
  std::string arch, config, weights, out;
  std::string dtype = "f32";
};

// torch.save writes a zip archive (or, before PyTorch 1.6, a pickle): say what to do instead
// of reporting a safetensors header error.
bool RefuseTorchArchive(const std::string& path, std::string* error) {
  // Only a regular file is peeked at (a FIFO would block here); ReadSafetensorsFile then
  // says what is wrong with anything else.
  int err = 0;
  std::string what;
  std::FILE* f = OpenRegularStream(path, &err, &what);
  if (f == nullptr) return false;
  unsigned char magic[4] = {0, 0, 0, 0};
  const size_t n = std::fread(magic, 1, sizeof(magic), f);
  std::fclose(f);
  const bool zip = n == 4 && magic[0] == 'P' && magic[1] == 'K' && magic[2] == 3 && magic[3] == 4;
  const bool pickle = n >= 2 && magic[0] == 0x80 && magic[1] >= 2 && magic[1] <= 5;
  if (!zip && !pickle) return false;
  *error = path + " is a torch.save archive, not safetensors: export it first with\n"
           "  python3 tools/python/export_torch.py --module " + path +
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
  // CLI11 has already checked --dtype; this only turns the name into the type.
  WeightType matrix_type;
  if (!ParseWeightType(o.dtype.c_str(), &matrix_type)) {
    return ReportError(cmd, "--dtype " + o.dtype + " is not one of " + WeightTypeNames());
  }
  WeightFileWriter writer;
  ModelConfig config;
  if (!PrepareConversion(json, o.config, o.arch, &writer, &config, &error)) {
    return ReportError(cmd, error);
  }
  std::fprintf(stderr, "convert: reading %s\n", o.weights.c_str());
  if (RefuseTorchArchive(o.weights, &error)) return ReportError(cmd, error);
  if (!ReadSafetensorsFile(o.weights, &st, &error) ||
      !AddCheckpointTensors(config, st, o.weights, matrix_type, &writer, &error) ||
      !writer.WriteFile(o.out, &error)) {
    return ReportError(cmd, error);
  }
  std::printf("convert: %s, %zu layer(s), %s -> %s (%zu tensors, matrices as %s)\n",
              ArchitectureName(config.arch), config.num_layers, o.weights.c_str(), o.out.c_str(),
              st.tensors.size(), WeightTypeName(matrix_type));
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
  AddWeightDtypeOption(cmd, &o->dtype,
                       "Storage of weight matrices and embeddings (q8: int8, one f16 scale per "
                       "32 weights of a row; q4_0: GGUF's Q4_0, 4 bits and one f16 scale per 32 "
                       "weights; runtime/FORMAT.md). Norms, biases and position "
                       "embeddings stay f32");
  cmd->callback([o, exit_code] { *exit_code = ConvertCommand(*o); });
}

}  // namespace attnrt::cli
