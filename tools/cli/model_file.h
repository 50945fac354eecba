// Opening a converted model for the CLI: map the file, validate it, bind the
// architecture, and give the Linear kernels the packed weight copies they read. Kept
// together because every model subcommand needs them.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "attnrt/kernels/linear.h"
#include "attnrt/models/model.h"
#include "attnrt/runtime/weight_file.h"
#include "host/aligned_buffer.h"
#include "host/mapped_file.h"

namespace attnrt::cli {

struct OpenedModel {
  MappedFile mapping;
  WeightFile file;
  Model model;
  std::unique_ptr<AlignedBuffer> packed;  // PackModelWeights's copies (none: nullptr)
};

// On failure *error names the file and what is wrong with it. `run_with`: the activations
// the commands will run the model with, whose Linear kernels get their packed copies of
// the weights (PackForKernels); nullopt (inspect, plan, embed): none.
bool OpenModel(const std::string& path, OpenedModel* out, std::string* error,
               std::optional<LinearActivations> run_with = std::nullopt);

// The packed weight copies the `auto` Linear kernels for `activations` read (model.h's
// PackModelWeights), in *packed (nullptr when no matrix has one).
bool PackForKernels(Model* model, LinearActivations activations,
                    std::unique_ptr<AlignedBuffer>* packed, std::string* error);

}  // namespace attnrt::cli
