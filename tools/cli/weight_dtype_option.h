// --dtype: the storage type of weight matrices (weight_types.inc), one option definition
// for every command that takes it (convert, bench lm); its choices and messages come
// from the list, so a new weight type needs no edit here.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "attnrt/kernels/weight_type.h"
#include "convert/tensor_encoding.h"  // WeightTypeNames

namespace attnrt::cli {

// Adds --dtype to `cmd`, validated to a weight type's name or one of `presets` (convert's
// q4_K_M mix); `help` starts its help text, the choices end it.
void AddWeightDtypeOption(CLI::App* cmd, std::string* value, const std::string& help,
                          const std::vector<std::string>& presets = {});

}  // namespace attnrt::cli
