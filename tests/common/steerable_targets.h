// The Highway targets a dynamically dispatched function can be steered to on this
// CPU (hwy::SetSupportedTargetsForTest), so a test can run it on each one: AVX3,
// AVX2, SSE4 and SCALAR on an AVX-512 x86. A target this CPU supports but the
// function was not compiled for (SSSE3 here) would silently run another one, so a
// target is kept only when the function's own ISA name, read while steered to it,
// is that target's name.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hwy/targets.h"

namespace attnrt::testing {

// `isa` returns the name of the target the function dispatches to now.
template <class IsaName>
std::vector<int64_t> SteerableTargets(IsaName isa) {
  std::vector<int64_t> kept;
  const uint64_t supported = static_cast<uint64_t>(hwy::SupportedTargets());
  // Highway's target bits run from the best target (lowest bit) down.
  for (uint64_t bits = supported; bits != 0; bits &= bits - 1) {
    const int64_t target = static_cast<int64_t>(bits & (~bits + 1));
    hwy::SetSupportedTargetsForTest(target);
    if (std::string(isa()) == hwy::TargetName(target)) kept.push_back(target);
  }
  hwy::SetSupportedTargetsForTest(0);
  return kept;
}

// The same, for a per-target test suite, which must not be empty: a static-dispatch
// build (32-bit ARM) may report no supported target, and then the one target the
// function does run is tested.
template <class IsaName>
std::vector<int64_t> TargetsToTest(IsaName isa) {
  std::vector<int64_t> kept = SteerableTargets(isa);
  if (kept.empty()) kept.push_back(HWY_STATIC_TARGET);
  return kept;
}

}  // namespace attnrt::testing
