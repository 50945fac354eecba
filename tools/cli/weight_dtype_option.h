// --dtype: the storage type of weight matrices (weight_types.inc), one option definition
// for every command that takes it (convert, bench lm); its choices and messages come
// from the list, so a new weight type needs no edit here.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "attnrt/kernels/weight_type.h"

namespace attnrt::cli {

// "f32, f16, bf16, q8": every weight type's name, in the list's order.
std::string WeightTypeNames();

// Adds --dtype to `cmd`, validated to a weight type's name; `help` starts its help text,
// the choices end it.
void AddWeightDtypeOption(CLI::App* cmd, std::string* value, const std::string& help);

}  // namespace attnrt::cli
