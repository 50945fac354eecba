// Turns a Highway per-target SDPA variant into an SdpaKernel entry.
//
// Used once at the end of each variant's .cc, inside `#if HWY_ONCE`. The variant
// defines, per target, <Prefix>ScratchFloats, <Prefix>WorkItems, <Prefix>Run and
// <Prefix>Isa; this exports them and dispatches each call to the best target
// this CPU supports (static dispatch where Highway has no runtime dispatch).
#pragma once

#include "attnrt/kernels/sdpa_kernel.h"
#include "hwy/highway.h"

#define ATTNRT_EXPORT_HWY_SDPA_KERNEL(Prefix, Symbol, Name, ReturnsWeights)          \
  HWY_EXPORT(Prefix##ScratchFloats);                                                 \
  HWY_EXPORT(Prefix##WorkItems);                                                     \
  HWY_EXPORT(Prefix##Run);                                                           \
  HWY_EXPORT(Prefix##Isa);                                                           \
  namespace {                                                                        \
  size_t Prefix##DispatchScratch(const SdpaParams& p) {                             \
    return HWY_DYNAMIC_DISPATCH(Prefix##ScratchFloats)(p);                          \
  }                                                                                  \
  size_t Prefix##DispatchItems(const SdpaParams& p) {                               \
    return HWY_DYNAMIC_DISPATCH(Prefix##WorkItems)(p);                              \
  }                                                                                  \
  void Prefix##DispatchRun(const SdpaParams& p, size_t begin, size_t end, float* s) { \
    HWY_DYNAMIC_DISPATCH(Prefix##Run)(p, begin, end, s);                            \
  }                                                                                  \
  const char* Prefix##DispatchIsa() { return HWY_DYNAMIC_DISPATCH(Prefix##Isa)(); } \
  bool Prefix##Available() { return true; }                                          \
  }                                                                                  \
  extern const SdpaKernel Symbol = {                                                 \
      Name, "hwy", ReturnsWeights, Prefix##DispatchIsa, Prefix##Available,           \
      Prefix##DispatchScratch, Prefix##DispatchItems, Prefix##DispatchRun};
