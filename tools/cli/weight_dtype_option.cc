#include "cli/weight_dtype_option.h"

#include <vector>

namespace attnrt::cli {

std::string WeightTypeNames() {
  std::string names;
  for (const WeightTypeInfo& t : kWeightTypes) names += (names.empty() ? "" : ", ") + std::string(t.name);
  return names;
}

void AddWeightDtypeOption(CLI::App* cmd, std::string* value, const std::string& help) {
  std::vector<std::string> names;
  for (const WeightTypeInfo& t : kWeightTypes) names.emplace_back(t.name);
  cmd->add_option("--dtype", *value, help + "; one of " + WeightTypeNames())
      ->capture_default_str()
      ->check(CLI::IsMember(names));
}

}  // namespace attnrt::cli
