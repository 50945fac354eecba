// The --kernel and --causal options, shared by sdpa, plan and bench.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "attnrt/kernels/sdpa_kernel.h"

namespace attnrt::cli {

void AddKernelOption(CLI::App& cmd, std::string* kernel);
void AddCausalOption(CLI::App& cmd, std::string* causal);
CausalKind ParseCausal(const std::string& causal);

// "auto" or a variant name -> the kernel; an unknown name lists the valid ones.
bool ResolveKernel(const std::string& name, const SdpaParams& p, const SdpaKernel** kernel,
                   std::string* error);

}  // namespace attnrt::cli
