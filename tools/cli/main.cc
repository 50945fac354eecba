// attnrt: the command-line front end (convert, inspect, plan, run, sdpa, bench,
// kernels, embed, demo). Each subcommand lives in its own cmd_*.cc.
#include <CLI/CLI.hpp>

#include "cli/commands.h"

int main(int argc, char** argv) {
  CLI::App app{"attnrt: attention runtime for CPUs, from desktop x86 to Cortex-M firmware"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "attnrt 0.1.0");
  int exit_code = 0;
  attnrt::cli::AddSdpaCommand(app, &exit_code);
  attnrt::cli::AddKernelsCommand(app, &exit_code);
  attnrt::cli::AddRunCommand(app, &exit_code);
  attnrt::cli::AddInspectCommand(app, &exit_code);
  attnrt::cli::AddPlanCommand(app, &exit_code);
  attnrt::cli::AddEmbedCommand(app, &exit_code);
  attnrt::cli::AddConvertCommand(app, &exit_code);
  attnrt::cli::AddDemoCommand(app, &exit_code);
  attnrt::cli::AddBenchCommand(app, &exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  return exit_code;
}
