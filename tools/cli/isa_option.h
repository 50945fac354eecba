// --isa: run a command's Highway code (kernels, the FMA peak, the plain read) on one target
// this CPU supports instead of the best, e.g. AVX2 code on an AVX-512 machine, to measure what
// users of older CPUs get and to compare with a peer built for that ISA (bench lm beside
// llama.cpp's haswell CPU backend: bench/run_llamacpp_report.py --isa avx2).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace attnrt::cli {

// Adds --isa to `cmd`: "best" (default) or a Highway target this CPU supports (avx3_dl, avx3,
// avx2, sse4, ... by case-insensitive name); others are refused by name with the list of
// those it supports.
void AddIsaOption(CLI::App* cmd, std::string* value);

// Steers every later Highway dispatch to the target the option named and those below it, as
// on a CPU whose best target it is ("best": no change).
// Call before anything is dispatched (a model's load packs panel copies for its target).
void SelectIsa(const std::string& name);

}  // namespace attnrt::cli
