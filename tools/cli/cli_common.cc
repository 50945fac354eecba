// Shared CLI helpers (see cli_common.h).
#include "cli/cli_common.h"

#include <iostream>

#include "output/output_file.h"

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

bool CheckOutputPaths(const std::vector<PathArg>& inputs, const std::vector<PathArg>& outputs,
                      std::string* error) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    const PathArg& out = outputs[i];
    if (out.path.empty()) continue;
    for (const PathArg& in : inputs) {
      if (!in.path.empty() && SameFile(out.path, in.path)) {
        *error = std::string(out.option) + " " + out.path + " is the same file as " + in.option +
                 " " + in.path + ": refusing to overwrite an input";
        return false;
      }
    }
    for (size_t j = 0; j < i; ++j) {
      if (!outputs[j].path.empty() && SameFile(out.path, outputs[j].path)) {
        *error = std::string(out.option) + " and " + outputs[j].option + " name the same file " +
                 out.path;
        return false;
      }
    }
  }
  return true;
}

}  // namespace attnrt::cli
