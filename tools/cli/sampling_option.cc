#include "cli/sampling_option.h"

#include "cli/option_checks.h"

namespace attnrt::cli {

SamplingParams SamplingOptions::params() const {
  SamplingParams p;
  p.temperature = temperature;
  p.top_k = top_k;
  p.top_p = top_p;
  return p;
}

void AddSamplingOptions(CLI::App* cmd, SamplingOptions* o) {
  cmd->add_option("--temperature", o->temperature,
                  "Sampling temperature; 0 is greedy (argmax)")
      ->capture_default_str()
      ->check(FiniteNumber(0.0, 100.0));
  cmd->add_option("--top-k", o->top_k, "Sample among the k most likely tokens (0: all)")
      ->capture_default_str()
      ->check(WholeNumber(0, kMaxDim));
  cmd->add_option("--top-p", o->top_p,
                  "Nucleus sampling: the fewest most likely tokens whose probability reaches p")
      ->capture_default_str()
      ->check(FiniteNumber(1e-6, 1.0));
  cmd->add_option("--seed", o->seed, "Random seed for sampling")
      ->capture_default_str()
      ->check(WholeNumber(0, UINT64_MAX));
}

}  // namespace attnrt::cli
