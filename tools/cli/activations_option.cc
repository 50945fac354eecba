#include "cli/activations_option.h"

namespace attnrt::cli {

void AddActivationsOption(CLI::App* cmd, std::string* value, const std::string& what) {
  cmd->add_option("--activations", *value,
                  "Activations of integer weights (q8, q4_0, q4_K, q6_K): auto rounds each Linear input to "
                  "8-bit blocks for the integer kernel (hwy-int8); f32 widens the weights and "
                  "multiplies them by f32 activations, the exact path (slower). Other weight "
                  "types always run on f32 activations; " + what)
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "f32"}));
}

LinearActivations ActivationsFromName(const std::string& name) {
  return name == "f32" ? LinearActivations::kF32 : LinearActivations::kAuto;
}

const char* ActivationsName(LinearActivations activations) {
  return activations == LinearActivations::kF32 ? "f32" : "auto";
}

}  // namespace attnrt::cli
