#include "cli/linear_report.h"

#include <nlohmann/json.hpp>

namespace attnrt::cli {

std::vector<LinearUse> ModelLinearUses(const Model& model, LinearActivations activations) {
  std::vector<LinearUse> uses;
  for (const WeightTypeInfo& info : kWeightTypes) {
    if (ModelMultipliesType(model, info.type)) {
      uses.push_back({info.type, &AutoLinearKernel(info.type, activations)});
    }
  }
  return uses;
}

std::string LinearUsesText(const std::vector<LinearUse>& uses) {
  // A model always has a matrix; "none" keeps the line readable if one ever has not.
  if (uses.empty()) return "none";
  std::string text;
  for (const LinearUse& u : uses) {
    if (!text.empty()) text += ", ";
    text += std::string(WeightTypeName(u.type)) + ":" + u.kernel->name + " on " + u.kernel->isa();
  }
  return text;
}

void AddLinearUsesJson(const std::vector<LinearUse>& uses, nlohmann::ordered_json* j) {
  nlohmann::ordered_json kernels = nlohmann::ordered_json::object();
  for (const LinearUse& u : uses) {
    kernels[WeightTypeName(u.type)] = {{"kernel", u.kernel->name}, {"isa", u.kernel->isa()}};
  }
  const bool one = uses.size() == 1;
  (*j)["linear_kernel"] = one ? nlohmann::ordered_json(uses[0].kernel->name) : nullptr;
  (*j)["linear_isa"] = one ? nlohmann::ordered_json(uses[0].kernel->isa()) : nullptr;
  (*j)["weight_dtype"] = one ? nlohmann::ordered_json(WeightTypeName(uses[0].type)) : nullptr;
  (*j)["linear_kernels"] = kernels;
}

}  // namespace attnrt::cli
