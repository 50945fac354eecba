// What a command's report says about the Linear kernels a model's matrices run on: every
// weight type the model multiplies (a file may mix them per tensor: convert --dtype q4_K_M
// stores q4_K and q6_K, --dtype-for any mix, GGUF files their own), each with the kernel
// `auto` picks for it (AutoLinearKernel, linear_kernel.h) under the run's --activations.
// One definition for generate, bench lm, run and plan, so they name the same pairs.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "attnrt/kernels/linear.h"
#include "attnrt/kernels/linear_kernel.h"
#include "attnrt/kernels/weight_type.h"
#include "attnrt/models/model.h"

namespace attnrt::cli {

// One weight type the model's Linear matrices are stored in, and the kernel it runs on.
struct LinearUse {
  WeightType type;
  const LinearKernel* kernel;
};

// Every type ModelMultipliesType finds, in the weight-type list's order (f32 first).
std::vector<LinearUse> ModelLinearUses(const Model& model, LinearActivations activations);

// For a report line after "linear ": "q4_K:hwy-int8 on AVX3_DL, q6_K:hwy-int8 on AVX3_DL".
std::string LinearUsesText(const std::vector<LinearUse>& uses);

// Adds "linear_kernels": {"q4_K": {"kernel": "hwy-int8", "isa": "AVX3_DL"}, ...} and the keys
// that named one kernel before files mixed types: "linear_kernel", "linear_isa" and
// "weight_dtype", whose values are the one pair's, or null when the model mixes types (a
// single name would be wrong for some of its matrices).
void AddLinearUsesJson(const std::vector<LinearUse>& uses, nlohmann::ordered_json* j);

}  // namespace attnrt::cli
