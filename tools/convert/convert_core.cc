// Config + checkpoint in memory -> weight-file writer (see convert_core.h).
//
// The config keys and expected tensors come from models/ (model_config.h,
// model_spec.h), the same tables the runtime loader checks against, so a file
// that converts is a file that loads.
#include "convert/convert_core.h"

#include <algorithm>
#include <vector>

#include "attnrt/models/model_spec.h"
#include "attnrt/runtime/status.h"
#include "convert/config_metadata.h"
#include "host/with_path.h"
#include "npy/npy.h"

namespace attnrt {

bool PrepareConversion(const JsonConfig& json, const std::string& config_source,
                       const std::string& arch_option, WeightFileWriter* writer,
                       ModelConfig* config, std::string* error) {
  // Without --arch the config must name it (export_torch.py writes "architecture").
  std::string arch_name = arch_option;
  if (arch_name.empty()) {
    if (!json.Has("architecture")) {
      *error = config_source + " has no \"architecture\" key: give --arch (one of " +
               ArchitectureNames() + ")";
      return false;
    }
    if (!json.GetString("architecture", &arch_name, error)) {
      *error = WithPath(config_source, *error);
      return false;
    }
  }
  Architecture arch;
  const Status status = ParseArchitecture(arch_name.c_str(), &arch);
  if (!status.ok()) {
    *error = status.message();
    return false;
  }
  if (!WriteConfigMetadata(arch, json, writer, error) || !DeriveConfig(*writer, config, error)) {
    *error = WithPath(config_source, *error);
    return false;
  }
  return true;
}

bool AddCheckpointTensors(const ModelConfig& config, const SafetensorsFile& st,
                          const std::string& source, const MatrixTypeRequest& types,
                          WeightFileWriter* writer, std::string* error) {
  const size_t n = ModelTensorCount(config);
  bool output_tied = false;  // llama's optional output.weight left out
  for (size_t i = 0; i < n; ++i) {
    TensorSpec spec;
    if (ModelTensorAt(config, i, &spec) && spec.optional && spec.role == MatrixRole::kOutput) {
      output_tied = st.Find(spec.name) == nullptr;
    }
  }
  std::vector<TensorStorage> storage;
  if (!ChooseTensorStorage(types, config, output_tied, &storage, error)) {
    *error = source + ": " + *error;
    return false;
  }
  std::vector<std::string> names;
  for (size_t i = 0; i < n; ++i) {
    TensorSpec spec;
    if (!ModelTensorAt(config, i, &spec)) {
      *error = "internal: tensor " + std::to_string(i) + " of the architecture has no name";
      return false;
    }
    names.push_back(spec.name);
    const std::vector<size_t> want(spec.shape.dims, spec.shape.dims + spec.shape.rank);
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
    // `keep`: the checkpoint's values as read, f32.
    const WeightType type = storage[i].keep ? WeightType::kF32 : storage[i].type;
    if (!writer->AddTensor(t->name, t->shape, t->values.data(), type, error)) return false;
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

}  // namespace attnrt
