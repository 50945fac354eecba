// --kernel / --causal parsing shared by the SDPA-running subcommands.
#include "cli/kernel_choice.h"

#include "attnrt/runtime/sdpa.h"

namespace attnrt::cli {

void AddKernelOption(CLI::App& cmd, std::string* kernel) {
  cmd.add_option("--kernel", *kernel, "Kernel variant (see `attnrt kernels`) or auto")
      ->capture_default_str();
}

void AddCausalOption(CLI::App& cmd, std::string* causal) {
  cmd.add_option("--causal", *causal,
                 "Causal rule: upper-left (PyTorch is_causal: query i sees keys j <= i) or "
                 "lower-right (query i sees keys j <= i + S - L, as a KV cache needs)")
      ->check(CLI::IsMember({"none", "upper-left", "lower-right"}))
      ->capture_default_str();
}

CausalKind ParseCausal(const std::string& causal) {
  if (causal == "upper-left") return CausalKind::kUpperLeft;
  if (causal == "lower-right") return CausalKind::kLowerRight;
  return CausalKind::kNone;
}

bool ResolveKernel(const std::string& name, const SdpaParams& p, const SdpaKernel** kernel,
                   std::string* error) {
  if (name == "auto") {
    *kernel = &ChooseSdpaKernel(p);
    return true;
  }
  *kernel = FindSdpaKernel(name.c_str());
  if (*kernel != nullptr && (*kernel)->available()) return true;
  if (*kernel != nullptr) {
    // Compiled in, but for an instruction set this CPU lacks: say which.
    *error = "kernel '" + name + "' needs " + (*kernel)->isa() + ", which this CPU lacks (auto runs " +
             ChooseSdpaKernel(p).name + " on " + ChooseSdpaKernel(p).isa() + " here); available:";
  } else {
    *error = "unknown kernel '" + name + "'; available:";
  }
  for (size_t i = 0; i < SdpaKernelCount(); ++i) {
    if (SdpaKernelAt(i).available()) *error += std::string(" ") + SdpaKernelAt(i).name;
  }
  *error += " auto";
  return false;
}

}  // namespace attnrt::cli
