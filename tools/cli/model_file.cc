// OpenModel (see model_file.h).
#include "cli/model_file.h"

namespace attnrt::cli {

bool OpenModel(const std::string& path, OpenedModel* out, std::string* error) {
  if (!out->mapping.Open(path, error)) return false;
  Status st = WeightFile::Open(out->mapping.data(), out->mapping.size(), &out->file);
  if (st.ok()) st = LoadModel(out->file, &out->model);
  if (!st.ok()) {
    *error = path + ": " + st.message();
    return false;
  }
  return true;
}

}  // namespace attnrt::cli
