// RunProgram (see run_program.h).
#include "host/run_program.h"

#include <spawn.h>
#include <sys/wait.h>

#include <cerrno>
#include <cstring>

extern char** environ;

namespace attnrt {

int RunProgram(const std::vector<std::string>& argv, std::string* error) {
  if (argv.empty()) {
    *error = "no program to run";
    return -1;
  }
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid;
  const int rc = posix_spawn(&pid, argv[0].c_str(), nullptr, nullptr, args.data(), environ);
  if (rc != 0) {
    *error = "cannot run " + argv[0] + ": " + std::strerror(rc);
    return -1;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      *error = "cannot wait for " + argv[0] + ": " + std::strerror(errno);
      return -1;
    }
  }
  if (!WIFEXITED(status)) {
    *error = argv[0] + " did not exit normally";
    return -1;
  }
  return WEXITSTATUS(status);
}

}  // namespace attnrt
