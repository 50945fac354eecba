// --chunk: how many tokens a language-model session pushes through the layers at once, one
// option definition for the commands that run or plan one (generate, run, plan).
#pragma once

#include <cstddef>
#include <string>

#include <CLI/CLI.hpp>

namespace attnrt::cli {

// Adds --chunk (1 to kMaxDim; 0, unset, is the session's default of 256) to `cmd`; `cap`
// says what the command caps it at ("seq", "prompt + new tokens").
void AddChunkOption(CLI::App* cmd, size_t* chunk, const std::string& cap);

}  // namespace attnrt::cli
