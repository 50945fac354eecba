// The registry of Linear kernels compiled into this build (the list is
// kernels/linear_variants.inc) and linear.h's entry points, which run the `auto` choice.
#include <cstring>

#include "attnrt/kernels/helium.h"
#include "attnrt/kernels/linear.h"
#include "attnrt/kernels/linear_kernel.h"

namespace attnrt {

#define ATTNRT_LINEAR_VARIANT(symbol) extern const LinearKernel symbol;
#include "linear_variants.inc"
#undef ATTNRT_LINEAR_VARIANT

namespace {
const LinearKernel* const kAllLinearKernels[] = {
#define ATTNRT_LINEAR_VARIANT(symbol) &symbol,
#include "linear_variants.inc"
#undef ATTNRT_LINEAR_VARIANT
};
}  // namespace

size_t LinearKernelCount() { return sizeof(kAllLinearKernels) / sizeof(kAllLinearKernels[0]); }

const LinearKernel& LinearKernelAt(size_t index) { return *kAllLinearKernels[index]; }

const LinearKernel* FindLinearKernel(const char* name) {
  for (const LinearKernel* kernel : kAllLinearKernels) {
    if (std::strcmp(kernel->name, name) == 0) return kernel;
  }
  return nullptr;
}

const LinearKernel& AutoLinearKernel(WeightType type) {
  const LinearKernel* best = nullptr;
  const LinearKernel* best_any = nullptr;
  for (const LinearKernel* kernel : kAllLinearKernels) {
    if (best_any == nullptr || kernel->rank > best_any->rank) best_any = kernel;
    if (kernel->supports(type) && (best == nullptr || kernel->rank > best->rank)) best = kernel;
  }
  return best != nullptr ? *best : *best_any;
}

size_t LinearScratchFloats(const LinearParams& p) {
  return AutoLinearKernel(p.w_type).scratch_floats(p);
}
size_t LinearWorkItems(const LinearParams& p) { return AutoLinearKernel(p.w_type).work_items(p); }
void LinearRun(const LinearParams& p, size_t begin, size_t end, float* scratch) {
  AutoLinearKernel(p.w_type).run(p, begin, end, scratch);
}
const char* LinearIsa() { return AutoLinearKernel(WeightType::kF32).isa(); }

}  // namespace attnrt
