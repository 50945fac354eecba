// --activations auto|f32 (issue 32): what the Linear layers' integer weights (q8, q4_0,
// q4_K, q6_K)
// multiply. auto rounds each input row to 8-bit blocks for the integer kernel (hwy-int8);
// f32 widens the weights and keeps the activations f32, the exact path of before issue 32
// (slower). One option definition for every command that runs or plans a model with Linear
// layers (run, generate, chat, bench lm, plan, and embed, which records it in the firmware
// header for the C API's attnrt_model_set_activations).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "attnrt/kernels/linear.h"

namespace attnrt::cli {

// Adds --activations to `cmd`, validated to auto | f32; `what` ends its help text.
void AddActivationsOption(CLI::App* cmd, std::string* value, const std::string& what);

// The value of a name the option accepted ("f32" -> kF32, else kAuto).
LinearActivations ActivationsFromName(const std::string& name);
const char* ActivationsName(LinearActivations activations);

}  // namespace attnrt::cli
