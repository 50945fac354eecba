// The Helium (MVE) Linear of the Cortex-M55: the same four entry points and contract as
// attnrt/kernels/linear.h, listed as kLinearHelium in kernels/linear_variants.inc, where
// it outranks Highway (Highway 1.0.3 has no MVE target and would run its SCALAR code).
// Declared only when compiled with MVE float.
#pragma once

#include <cstddef>

#include "attnrt/kernels/helium.h"
#include "attnrt/kernels/linear.h"

#if ATTNRT_HELIUM
namespace attnrt {
namespace helium {

size_t LinearScratchFloats(const LinearParams& p);
size_t LinearWorkItems(const LinearParams& p);
void LinearRun(const LinearParams& p, size_t begin, size_t end, float* scratch);
const char* LinearIsa();

}  // namespace helium
}  // namespace attnrt
#endif  // ATTNRT_HELIUM
