// --temperature, --top-k, --top-p and --seed: how the next token is chosen, one option
// definition for every command that samples (generate, chat).
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>

#include "attnrt/models/sampling.h"

namespace attnrt::cli {

struct SamplingOptions {
  float temperature = 0.0f;
  size_t top_k = 0;
  float top_p = 1.0f;
  uint64_t seed = 0;

  SamplingParams params() const;
};

void AddSamplingOptions(CLI::App* cmd, SamplingOptions* o);

}  // namespace attnrt::cli
