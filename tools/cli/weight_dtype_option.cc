#include "cli/weight_dtype_option.h"


namespace attnrt::cli {

void AddWeightDtypeOption(CLI::App* cmd, std::string* value, const std::string& help,
                          const std::vector<std::string>& presets) {
  std::vector<std::string> names;
  for (const WeightTypeInfo& t : kWeightTypes) names.emplace_back(t.name);
  std::string choices = WeightTypeNames();
  for (const std::string& p : presets) {
    names.push_back(p);
    choices += ", " + p;
  }
  cmd->add_option("--dtype", *value, help + "; one of " + choices)
      ->capture_default_str()
      ->check(CLI::IsMember(names));
}

}  // namespace attnrt::cli
