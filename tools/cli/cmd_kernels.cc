// attnrt kernels: one compiled SDPA variant per line: name, ISA it runs here,
// family, and whether it can return attention weights.
#include <cstdio>

#include "attnrt/kernels/sdpa_kernel.h"
#include "cli/commands.h"

namespace attnrt::cli {

void AddKernelsCommand(CLI::App& app, int* exit_code) {
  CLI::App* cmd = app.add_subcommand("kernels", "List the attention kernel variants and the ISA each runs");
  cmd->callback([exit_code] {
    for (size_t i = 0; i < SdpaKernelCount(); ++i) {
      const SdpaKernel& k = SdpaKernelAt(i);
      if (!k.available()) continue;
      std::printf("%-26s %-8s %-10s %s\n", k.name, k.isa(), k.family,
                  k.returns_weights ? "weights" : "no-weights");
    }
    *exit_code = 0;
  });
}

}  // namespace attnrt::cli
