// The Linear implementations of this build as entries of one list
// (kernels/linear_variants.inc), as the SDPA variants are (sdpa_kernel.h): which one
// runs a call is a lookup, not an #if inside one of them. linear.h's four entry points
// run the `auto` choice: the highest-ranked kernel that supports the weight type (and, when
// a call asks for f32 activations, does not quantize them). Today that is Highway's integer
// kernel for q8, q4_0, q4_K and q6_K (8-bit activations, on every target: SCALAR code on the Cortex-M
// boards), then Helium on a Cortex-M55 for the types it reads (f32, f16, bf16, and q8 with
// f32 activations), then Highway's f32-activation kernel (every type); the reference last.
// No allocation, no exceptions, no printing.
#pragma once

#include <cstddef>

#include "attnrt/kernels/linear.h"
#include "attnrt/kernels/weight_type.h"

namespace attnrt {

struct LinearKernel {
  const char* name;  // "reference", "hwy", "hwy-int8", "helium"
  // `auto` prefers a higher rank among the kernels that support a call's type, so a new
  // kernel is preferred (or not) by its entry, not by an edit of the others.
  int rank;
  bool (*supports)(WeightType type);
  // The entry points of linear.h, for this kernel.
  size_t (*scratch_floats)(const LinearParams& p);
  size_t (*work_items)(const LinearParams& p);
  void (*run)(const LinearParams& p, size_t begin, size_t end, float* scratch);
  const char* (*isa)();
  // True when the kernel rounds activations to 8-bit blocks (activation_blocks.h): a call
  // with LinearActivations::kF32 never runs it.
  bool quantizes_activations;
  // Optional (nullptr: none): the bytes of a copy of p.w in a layout this kernel reads
  // faster (0: none for this call), and the function that writes it (LinearParams::w_packed).
  size_t (*packed_bytes)(const LinearParams& p);
  void (*pack)(const LinearParams& p, void* dst);
  // Optional (nullptr: none): the floats of x as this kernel prepares it once per call (0:
  // none for this call), and the function that writes them (LinearParams::x_prepared).
  size_t (*prepared_floats)(const LinearParams& p);
  void (*prepare)(const LinearParams& p, float* dst);
};

size_t LinearKernelCount();
const LinearKernel& LinearKernelAt(size_t index);
// nullptr when no kernel of this build has that name.
const LinearKernel* FindLinearKernel(const char* name);
// The highest-ranked kernel that supports `type` (with kF32, among those that keep f32
// activations); for a code outside the list, the highest-ranked kernel (whose entry points
// then report no work).
const LinearKernel& AutoLinearKernel(WeightType type,
                                     LinearActivations activations = LinearActivations::kAuto);

}  // namespace attnrt
