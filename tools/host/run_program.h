// Running a helper program from the CLI (the demo's matplotlib heatmap): the
// arguments go to execv as they are, never through a shell, so nothing in them
// (a path with spaces or quotes) is interpreted. Host-only.
#pragma once

#include <string>
#include <vector>

namespace attnrt {

// Runs argv[0] (a path) with argv, waits, and returns its exit status; -1 when
// it could not be started or did not exit normally (*error then says why).
int RunProgram(const std::vector<std::string>& argv, std::string* error);

}  // namespace attnrt
