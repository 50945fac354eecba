// The Helium (MVE) Linear of the Cortex-M55: the same four entry points and contract as
// attnrt/kernels/linear.h, listed as kLinearHelium in kernels/linear_variants.inc, where
// it outranks Highway (Highway 1.0.3 has no MVE target and would run its SCALAR code).
// Declared only when compiled with MVE float.
#pragma once

#include <cstddef>

#include "attnrt/kernels/helium.h"
#include "attnrt/kernels/linear.h"
#include "attnrt/kernels/weight_type.h"

#if ATTNRT_HELIUM
namespace attnrt {
namespace helium {

// The weight types the loops of linear_helium.cc read; `auto` sends the others to Highway.
constexpr bool ReadsWeightType(WeightType t) {
  return t == WeightType::kF32 || t == WeightType::kF16 || t == WeightType::kBF16 ||
         t == WeightType::kQ8;
}
constexpr bool ReadsEveryWeightType() {
  for (const WeightTypeInfo& t : kWeightTypes) {
    if (!ReadsWeightType(t.type)) return false;
  }
  return true;
}

size_t LinearScratchFloats(const LinearParams& p);
size_t LinearWorkItems(const LinearParams& p);
void LinearRun(const LinearParams& p, size_t begin, size_t end, float* scratch);
const char* LinearIsa();

}  // namespace helium
}  // namespace attnrt
// When Helium reads every weight type, Highway's Linear is never `auto`'s choice on this
// build, and the firmware's list leaves it out (linear_variants.inc).
#define ATTNRT_HELIUM_READS_EVERY_WEIGHT_TYPE (::attnrt::helium::ReadsEveryWeightType())
#else
#define ATTNRT_HELIUM_READS_EVERY_WEIGHT_TYPE false
#endif  // ATTNRT_HELIUM
