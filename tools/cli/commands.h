// The attnrt subcommands. Each Add*Command registers its options on `app` and a
// callback that stores the command's exit code in *exit_code.
#pragma once

#include <CLI/CLI.hpp>

namespace attnrt::cli {

void AddSdpaCommand(CLI::App& app, int* exit_code);
void AddKernelsCommand(CLI::App& app, int* exit_code);

}  // namespace attnrt::cli
