// The implementations of the non-attention kernels (LayerNorm/RMSNorm, RoPE, the
// elementwise ops, the KV-cache store) as entries of one list (kernels/nn_variants.inc),
// as Linear's are (linear_kernel.h): which one runs a call is a lookup, not an #if.
// One list rather than one per op family: an implementation family (reference, Highway,
// a future Helium) is one translation unit's worth of ops sharing one ISA, so it is one
// entry; an entry that lacks an op leaves it nullptr and `auto` takes the next one.
// The entry points of layer_norm.h, rope.h, elementwise.h and kv_store.h run, per op,
// the highest-ranked entry that serves it (today Highway everywhere: dynamic dispatch on
// a host, SCALAR on a Cortex-M); the scalar reference ranks last.
// No allocation, no exceptions, no printing.
#pragma once

#include <cstddef>

#include "attnrt/kernels/elementwise.h"
#include "attnrt/kernels/kv_store.h"
#include "attnrt/kernels/layer_norm.h"
#include "attnrt/kernels/rope.h"

namespace attnrt {

struct NnKernel {
  const char* name;  // "reference", "hwy"
  // `auto` prefers a higher rank among the entries that serve an op.
  int rank;
  const char* (*isa)();
  // The entry points of the op headers, for this kernel; nullptr where it does not
  // serve the op.
  decltype(&LayerNormRows) layer_norm_rows;
  decltype(&RmsNormRows) rms_norm_rows;
  decltype(&RopeRows) rope_rows;
  decltype(&GeluInPlace) gelu;
  decltype(&ReluInPlace) relu;
  decltype(&AddInPlace) add;
  decltype(&SiluMulInPlace) silu_mul;
  decltype(&GeluTanhInPlace) gelu_tanh;
  decltype(&GeluTanhMulInPlace) gelu_tanh_mul;
  decltype(&ScaleInPlace) scale;
  decltype(&ErfInPlace) erf;
  decltype(&SoftmaxExpInPlace) softmax_exp;
  decltype(&StoreKvRows) store_kv_rows;
};

// The list's slots: nullptr for an entry this build does not link (firmware lists
// only what `auto` may choose).
extern const NnKernel* const kNnKernelSlots[];
extern const size_t kNnKernelSlotCount;

size_t NnKernelCount();
const NnKernel& NnKernelAt(size_t index);
// nullptr when no kernel of this build has that name.
const NnKernel* FindNnKernel(const char* name);

// The highest-ranked linked kernel whose `op` (e.g. &NnKernel::gelu) is not nullptr: a
// scan of two or three constant slots, cheap beside a row of any op.
template <class Op>
const NnKernel& AutoNnKernel(Op NnKernel::*op) {
  const NnKernel* best = nullptr;
  for (size_t i = 0; i < kNnKernelSlotCount; ++i) {
    const NnKernel* k = kNnKernelSlots[i];
    if (k != nullptr && k->*op != nullptr && (best == nullptr || k->rank > best->rank)) best = k;
  }
  return *best;  // the build lists an entry for every op (nn_kernel_list_test checks)
}

}  // namespace attnrt
