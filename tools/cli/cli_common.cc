// Shared CLI helpers (see cli_common.h).
#include "cli/cli_common.h"

#include <iostream>

namespace attnrt::cli {

int ReportError(const std::string& command, const std::string& message) {
  std::cerr << "attnrt " << command << ": error: " << message << "\n";
  return kExitFailure;
}

int ReportStatus(const std::string& command, const Status& status) {
  return ReportError(command, status.message());
}

bool LoadNpy(const std::string& path, const std::string& role, npy::Array* out,
             std::string* error) {
  std::string detail;
  if (!npy::ReadFile(path, out, &detail)) {
    *error = role + " " + detail;
    return false;
  }
  return true;
}

bool ToTensorShape(const std::vector<size_t>& dims, const std::string& role, TensorShape* out,
                   std::string* error) {
  if (dims.size() > TensorShape::kMaxRank) {
    *error = role + " has rank " + std::to_string(dims.size()) + " " + npy::ShapeString(dims) +
             "; at most 4 dimensions (B, H, rows, cols) are supported";
    return false;
  }
  out->rank = dims.size();
  for (size_t i = 0; i < dims.size(); ++i) out->dims[i] = dims[i];
  return true;
}

std::vector<size_t> ToVector(const TensorShape& shape) {
  return std::vector<size_t>(shape.dims, shape.dims + shape.rank);
}

}  // namespace attnrt::cli
