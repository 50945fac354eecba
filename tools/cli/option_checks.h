// Validators for numeric command-line options, stricter than CLI11's own:
// CLI11's Range and PositiveNumber let "nan" through, and its conversion to
// size_t turns "-1" into 2^64 - 1. Each refuses the value by name and range.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>

namespace attnrt::cli {

// Decimal digits only (no sign, no fraction, no exponent), in [lo, hi].
CLI::Validator WholeNumber(uint64_t lo, uint64_t hi);
// A finite decimal number in [lo, hi] (NaN and infinities refused).
CLI::Validator FiniteNumber(double lo, double hi);
// A value that float32 holds as given: 0 or a normal float32 of either sign, as
// PyTorch's `scale` may be. The scale multiplies every score in float32, so a
// value that would silently round to 0, to a subnormal or to infinity is refused.
CLI::Validator ExactFloat32Scale();

// Largest tensor dimension (batch, heads, sequence, feature) a command accepts,
// the bound model configs use too; products of such dims are still checked.
constexpr uint64_t kMaxDim = uint64_t{1} << 24;

// The thread-count option every command shares: 0 (one per physical core) to 1024.
CLI::Validator ThreadCount();

}  // namespace attnrt::cli
