// Opening a converted model for the CLI: map the file, validate it, bind the
// architecture. Kept together because every model subcommand needs all three.
#pragma once

#include <string>

#include "attnrt/models/model.h"
#include "attnrt/runtime/weight_file.h"
#include "host/mapped_file.h"

namespace attnrt::cli {

struct OpenedModel {
  MappedFile mapping;
  WeightFile file;
  Model model;
};

// On failure *error names the file and what is wrong with it.
bool OpenModel(const std::string& path, OpenedModel* out, std::string* error);

}  // namespace attnrt::cli
