// attnrt: the command-line front end (convert, inspect, plan, run, sdpa, bench,
// kernels, embed, demo, generate, tokenize, detokenize). Each subcommand lives in
// its own cmd_*.cc.
#include <CLI/CLI.hpp>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>

#include "cli/commands.h"
#include "host/mapping_guard.h"

namespace {

// Exit code for usage errors (no subcommand), as Unix tools use it.
constexpr int kExitUsage = 2;

// Everything a command printed must have reached stdout: on a full disk (`> /dev/full`,
// `ulimit -f`) a write, the final flush or the close fails, and exit 0 would claim output
// that was lost. ferror() remembers a failure from any earlier write too.
int FinishStdout(int exit_code) {
  errno = 0;
  const bool flushed = std::fflush(stdout) == 0 && std::ferror(stdout) == 0;
  const int flush_errno = errno;
  const bool closed = std::fclose(stdout) == 0;
  const int close_errno = errno;
  if (flushed && closed) return exit_code;
  const int err = !flushed ? flush_errno : close_errno;
  std::fprintf(stderr, "attnrt: error: cannot write standard output: %s\n",
               err != 0 ? std::strerror(err) : "a write failed");
  return exit_code != 0 ? exit_code : 1;
}

int Main(int argc, char** argv);

// A run whose mapped model or weights shrank underneath it computed on zeros
// (host/mapping_guard.h): whatever it printed is wrong, so it fails.
int CheckMappedInputs(int exit_code) {
  std::string why;
  if (attnrt::MappedInputsIntact(&why)) return exit_code;
  std::fprintf(stderr, "attnrt: error: %s\n", why.c_str());
  return exit_code != 0 ? exit_code : 1;
}

}  // namespace

int main(int argc, char** argv) { return FinishStdout(CheckMappedInputs(Main(argc, argv))); }

namespace {

int Main(int argc, char** argv) {
  CLI::App app{"attnrt: attention runtime for CPUs, from desktop x86 to Cortex-M firmware"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "attnrt 0.1.0");
  int exit_code = 0;
  attnrt::cli::AddSdpaCommand(app, &exit_code);
  attnrt::cli::AddKernelsCommand(app, &exit_code);
  attnrt::cli::AddArchitecturesCommand(app, &exit_code);
  attnrt::cli::AddRunCommand(app, &exit_code);
  attnrt::cli::AddGenerateCommand(app, &exit_code);
  attnrt::cli::AddTokenizeCommand(app, &exit_code);
  attnrt::cli::AddChatCommand(app, &exit_code);
  attnrt::cli::AddDetokenizeCommand(app, &exit_code);
  attnrt::cli::AddInspectCommand(app, &exit_code);
  attnrt::cli::AddPlanCommand(app, &exit_code);
  attnrt::cli::AddEmbedCommand(app, &exit_code);
  attnrt::cli::AddConvertCommand(app, &exit_code);
  attnrt::cli::AddDemoCommand(app, &exit_code);
  attnrt::cli::AddBenchCommand(app, &exit_code);
  // A write past `ulimit -f` then fails with EFBIG like any other write error, so
  // the command removes its temporary file and reports it, instead of dying.
  std::signal(SIGXFSZ, SIG_IGN);
  if (argc < 2) {
    std::fputs(app.help().c_str(), stderr);
    return kExitUsage;
  }
  // Commands run inside parse(). The runtime never throws; what the host layer can
  // throw (allocation of a huge output, thread creation) becomes a message and exit 1.
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const std::bad_alloc&) {
    std::fputs("attnrt: error: out of memory (an input or output is larger than this machine can hold)\n",
               stderr);
    return 1;
  } catch (const std::length_error& e) {
    std::fprintf(stderr, "attnrt: error: a buffer would exceed the largest possible size (%s)\n",
                 e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "attnrt: error: %s\n", e.what());
    return 1;
  }
  return exit_code;
}

}  // namespace
