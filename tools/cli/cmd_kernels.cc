// attnrt kernels: the SDPA variants this CPU runs, one per line under a "#"
// header line: name, ISA it runs here, family, and whether it can return
// attention weights. With --json: a JSON list of objects
// {"name", "isa", "family", "returns_weights", "available"} (every compiled
// variant, with "available" false for those this CPU lacks the ISA for).
#include <cstdio>

#include <nlohmann/json.hpp>

#include "attnrt/kernels/sdpa_kernel.h"
#include "cli/commands.h"

namespace attnrt::cli {

void AddKernelsCommand(CLI::App& app, int* exit_code) {
  auto json = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand("kernels", "List the attention kernel variants and the ISA each runs");
  cmd->add_flag("--json", *json,
                "Print only a JSON list of {name, isa, family, algorithm, returns_weights, reads_typed_kv, available}, "
                "every compiled variant");
  cmd->callback([exit_code, json] {
    if (*json) {
      nlohmann::ordered_json list = nlohmann::ordered_json::array();
      for (size_t i = 0; i < SdpaKernelCount(); ++i) {
        const SdpaKernel& k = SdpaKernelAt(i);
        list.push_back({{"name", k.name},
                        {"isa", k.isa()},
                        {"family", SdpaFamilyName(k.family)},
                        {"algorithm", SdpaAlgorithmName(k.algorithm)},
                        {"returns_weights", k.returns_weights},
                        {"reads_typed_kv", k.reads_typed_kv},
                        {"available", k.available()}});
      }
      std::printf("%s\n", list.dump(2).c_str());
      *exit_code = 0;
      return;
    }
    // The header starts with '#' so line-oriented readers can skip it as a comment.
    std::printf("%-26s %-8s %-10s %s\n", "# name", "ISA", "family", "weights");
    for (size_t i = 0; i < SdpaKernelCount(); ++i) {
      const SdpaKernel& k = SdpaKernelAt(i);
      if (!k.available()) continue;
      std::printf("%-26s %-8s %-10s %s\n", k.name, k.isa(), SdpaFamilyName(k.family),
                  k.returns_weights ? "weights" : "no-weights");
    }
    *exit_code = 0;
  });
}

}  // namespace attnrt::cli
