// The Linear implementations of this build as entries of one list
// (kernels/linear_variants.inc), as the SDPA variants are (sdpa_kernel.h): which one
// runs a call is a lookup, not an #if inside one of them. linear.h's four entry points
// run the `auto` choice: the highest-ranked kernel that supports the weight type.
// Today that is Helium on a Cortex-M55 (every type it reads), else Highway (every type,
// dynamic dispatch on a host, SCALAR on a Cortex-M7); the scalar reference ranks last.
// No allocation, no exceptions, no printing.
#pragma once

#include <cstddef>

#include "attnrt/kernels/linear.h"
#include "attnrt/kernels/weight_type.h"

namespace attnrt {

struct LinearKernel {
  const char* name;  // "reference", "hwy", "helium"
  // `auto` prefers a higher rank among the kernels that support a call's type, so a new
  // kernel is preferred (or not) by its entry, not by an edit of the others.
  int rank;
  bool (*supports)(WeightType type);
  // The entry points of linear.h, for this kernel.
  size_t (*scratch_floats)(const LinearParams& p);
  size_t (*work_items)(const LinearParams& p);
  void (*run)(const LinearParams& p, size_t begin, size_t end, float* scratch);
  const char* (*isa)();
};

size_t LinearKernelCount();
const LinearKernel& LinearKernelAt(size_t index);
// nullptr when no kernel of this build has that name.
const LinearKernel* FindLinearKernel(const char* name);
// The highest-ranked kernel that supports `type`; for a code outside the list, the
// highest-ranked kernel (whose entry points then report no work).
const LinearKernel& AutoLinearKernel(WeightType type);

}  // namespace attnrt
