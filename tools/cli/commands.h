// The attnrt subcommands. Each Add*Command registers its options on `app` and a
// callback that stores the command's exit code in *exit_code.
#pragma once

#include <CLI/CLI.hpp>

namespace attnrt::cli {

void AddSdpaCommand(CLI::App& app, int* exit_code);
void AddKernelsCommand(CLI::App& app, int* exit_code);
void AddArchitecturesCommand(CLI::App& app, int* exit_code);
void AddRunCommand(CLI::App& app, int* exit_code);
void AddInspectCommand(CLI::App& app, int* exit_code);
void AddPlanCommand(CLI::App& app, int* exit_code);
void AddEmbedCommand(CLI::App& app, int* exit_code);
void AddConvertCommand(CLI::App& app, int* exit_code);
void AddDemoCommand(CLI::App& app, int* exit_code);
void AddBenchCommand(CLI::App& app, int* exit_code);
void AddGenerateCommand(CLI::App& app, int* exit_code);
void AddTokenizeCommand(CLI::App& app, int* exit_code);
void AddChatCommand(CLI::App& app, int* exit_code);
void AddDetokenizeCommand(CLI::App& app, int* exit_code);
// `bench lm`, registered under `bench` by AddBenchCommand.
void AddBenchLmCommand(CLI::App& bench, int* exit_code);

}  // namespace attnrt::cli
