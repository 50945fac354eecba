// Helpers every attnrt subcommand shares: error reporting, .npy <-> shapes.
#pragma once

#include <string>
#include <vector>

#include "attnrt/runtime/status.h"
#include "attnrt/runtime/tensor_shape.h"
#include "npy/npy.h"

namespace attnrt::cli {

// Exit code for a request the runtime refused or for bad input files.
constexpr int kExitFailure = 1;

// Prints "attnrt <command>: error: <message>" to stderr; returns kExitFailure.
int ReportError(const std::string& command, const std::string& message);
int ReportStatus(const std::string& command, const Status& status);

// Reads a .npy file; `role` ("query", "mask", ...) prefixes error messages.
bool LoadNpy(const std::string& path, const std::string& role, npy::Array* out,
             std::string* error);

// A .npy shape as a TensorShape; fails for rank > 4.
bool ToTensorShape(const std::vector<size_t>& dims, const std::string& role, TensorShape* out,
                   std::string* error);
std::vector<size_t> ToVector(const TensorShape& shape);

// A named file argument of a command, e.g. {"--out", path}.
struct PathArg {
  const char* option;
  const std::string& path;
};
// Refuses, before any work, an output that names an input or another output
// (also through links or another spelling): writing it would destroy a file
// the command reads, or one output would silently replace the other. Empty
// paths (options not given) are skipped.
bool CheckOutputPaths(const std::vector<PathArg>& inputs, const std::vector<PathArg>& outputs,
                      std::string* error);

}  // namespace attnrt::cli
