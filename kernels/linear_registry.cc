// The registry of Linear kernels compiled into this build (the list is
// kernels/linear_variants.inc) and linear.h's entry points, which run the `auto` choice.
#include "attnrt/kernels/helium.h"
#include "attnrt/kernels/linear.h"
#include "attnrt/kernels/linear_kernel.h"
#include "kernels/helium/linear_helium.h"  // ATTNRT_HELIUM_READS_EVERY_WEIGHT_TYPE
#include "kernels/kernel_list.h"

// Hosted builds (tests, CLI) list every kernel; firmware only those `auto` may choose.
#ifndef ATTNRT_LIST_EVERY_LINEAR_KERNEL
#define ATTNRT_LIST_EVERY_LINEAR_KERNEL 1
#endif

namespace attnrt {

#define ATTNRT_LINEAR_VARIANT(symbol, linked) extern const LinearKernel symbol;
#include "linear_variants.inc"
#undef ATTNRT_LINEAR_VARIANT

namespace {
// nullptr for a kernel this build does not link (its `linked` is false): a constant, so
// no reference to the symbol is emitted and --gc-sections drops its code.
const LinearKernel* const kLinearSlots[] = {
#define ATTNRT_LINEAR_VARIANT(symbol, linked) (linked) ? &symbol : nullptr,
#include "linear_variants.inc"
#undef ATTNRT_LINEAR_VARIANT
};
}  // namespace

size_t LinearKernelCount() { return ListedKernelCount(kLinearSlots); }
const LinearKernel& LinearKernelAt(size_t index) { return ListedKernelAt(kLinearSlots, index); }
const LinearKernel* FindLinearKernel(const char* name) {
  return FindListedKernel(kLinearSlots, name);
}

const LinearKernel& AutoLinearKernel(WeightType type, LinearActivations activations) {
  const LinearKernel* best = nullptr;
  const LinearKernel* best_any = nullptr;
  for (const LinearKernel* kernel : kLinearSlots) {
    if (kernel == nullptr) continue;
    if (best_any == nullptr || kernel->rank > best_any->rank) best_any = kernel;
    const bool allowed =
        activations != LinearActivations::kF32 || !kernel->quantizes_activations;
    if (allowed && kernel->supports(type) && (best == nullptr || kernel->rank > best->rank)) {
      best = kernel;
    }
  }
  return best != nullptr ? *best : *best_any;
}

size_t LinearScratchFloats(const LinearParams& p) {
  return AutoLinearKernel(p.w_type, p.activations).scratch_floats(p);
}
size_t LinearWorkItems(const LinearParams& p) {
  return AutoLinearKernel(p.w_type, p.activations).work_items(p);
}
void LinearRun(const LinearParams& p, size_t begin, size_t end, float* scratch) {
  AutoLinearKernel(p.w_type, p.activations).run(p, begin, end, scratch);
}
const char* LinearIsa() { return AutoLinearKernel(WeightType::kF32).isa(); }
size_t LinearPackedBytes(const LinearParams& p) {
  const LinearKernel& k = AutoLinearKernel(p.w_type, p.activations);
  return k.packed_bytes != nullptr ? k.packed_bytes(p) : 0;
}
size_t LinearPreparedFloats(const LinearParams& p) {
  const LinearKernel& k = AutoLinearKernel(p.w_type, p.activations);
  return k.prepared_floats != nullptr ? k.prepared_floats(p) : 0;
}
void PrepareLinearActivations(const LinearParams& p, float* dst) {
  const LinearKernel& k = AutoLinearKernel(p.w_type, p.activations);
  if (k.prepare != nullptr && k.prepared_floats(p) != 0) k.prepare(p, dst);
}
void PackLinearWeights(const LinearParams& p, void* dst) {
  const LinearKernel& k = AutoLinearKernel(p.w_type, p.activations);
  if (k.pack != nullptr && k.packed_bytes(p) != 0) k.pack(p, dst);
}

}  // namespace attnrt
