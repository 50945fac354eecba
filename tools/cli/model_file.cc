// OpenModel, PackForKernels (see model_file.h).
#include "cli/model_file.h"

namespace attnrt::cli {

bool OpenModel(const std::string& path, OpenedModel* out, std::string* error,
               std::optional<LinearActivations> run_with) {
  if (!out->mapping.Open(path, error)) return false;
  Status st = WeightFile::Open(out->mapping.data(), out->mapping.size(), &out->file);
  if (st.ok()) st = LoadModel(out->file, &out->model);
  if (!st.ok()) {
    *error = path + ": " + st.message();
    return false;
  }
  if (run_with && !PackForKernels(&out->model, *run_with, &out->packed, error)) {
    *error = path + ": " + *error;
    return false;
  }
  return true;
}

bool PackForKernels(Model* model, LinearActivations activations,
                    std::unique_ptr<AlignedBuffer>* packed, std::string* error) {
  size_t bytes;
  Status st = ModelPackedBytes(*model, activations, &bytes);
  if (st.ok() && bytes != 0) {
    *packed = std::make_unique<AlignedBuffer>(bytes);
    if (!(*packed)->ok()) {
      *error = "cannot allocate " + std::to_string(bytes) + " bytes for the packed weights";
      return false;
    }
    st = PackModelWeights(model, activations, (*packed)->data(), bytes);
  }
  if (!st.ok()) {
    *error = st.message();
    return false;
  }
  return true;
}

}  // namespace attnrt::cli
