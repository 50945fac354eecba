// Turns a Highway per-target SDPA variant into an SdpaKernel entry.
//
// Used once at the end of each variant's .cc, inside `#if HWY_ONCE`. The variant
// defines, per target, <Prefix>ScratchFloats, <Prefix>WorkItems, <Prefix>Run and
// <Prefix>Isa; this exports them and dispatches each call to the best target
// this CPU supports (static dispatch where Highway has no runtime dispatch).
// A variant with a shared buffer and a serial finish step (key-split decode) uses
// ATTNRT_EXPORT_HWY_SDPA_KERNEL_WITH_SHARED and also defines <Prefix>SharedFloats
// and <Prefix>Finish; its <Prefix>Run then takes the shared buffer as a last argument.
// Algorithm: the SdpaAlgorithm enumerator (kFlash, ...); ReturnsWeights and TypedKv:
// the SdpaTraits fields (weights, an f16 / q8 KV cache).
#pragma once

#include "attnrt/kernels/sdpa_kernel.h"
#include "hwy/highway.h"

// The dispatchers both export macros share.
#define ATTNRT_HWY_SDPA_COMMON_DISPATCH_(Prefix)                                     \
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
  const char* Prefix##DispatchIsa() { return HWY_DYNAMIC_DISPATCH(Prefix##Isa)(); } \
  bool Prefix##Available() { return true; }                                          \
  }

#define ATTNRT_EXPORT_HWY_SDPA_KERNEL(Prefix, Symbol, Name, Algorithm, ReturnsWeights, TypedKv) \
  ATTNRT_HWY_SDPA_COMMON_DISPATCH_(Prefix)                                           \
  namespace {                                                                        \
  void Prefix##DispatchRun(const SdpaParams& p, size_t begin, size_t end, float* s,    \
                           float*) {                                                 \
    HWY_DYNAMIC_DISPATCH(Prefix##Run)(p, begin, end, s);                            \
  }                                                                                  \
  }                                                                                  \
  extern const SdpaKernel Symbol = MakeSdpaKernel(                                   \
      {Name, SdpaAlgorithm::Algorithm, SdpaFamily::kHwy, ReturnsWeights, TypedKv},      \
      {Prefix##DispatchIsa, Prefix##Available, Prefix##DispatchScratch,                 \
       Prefix##DispatchItems, Prefix##DispatchRun});

#define ATTNRT_EXPORT_HWY_SDPA_KERNEL_WITH_SHARED(Prefix, Symbol, Name, Algorithm,        \
                                                  ReturnsWeights, TypedKv)               \
  ATTNRT_HWY_SDPA_COMMON_DISPATCH_(Prefix)                                              \
  HWY_EXPORT(Prefix##SharedFloats);                                                     \
  HWY_EXPORT(Prefix##Finish);                                                           \
  namespace {                                                                           \
  void Prefix##DispatchRun(const SdpaParams& p, size_t begin, size_t end, float* s,       \
                           float* shared) {                                             \
    HWY_DYNAMIC_DISPATCH(Prefix##Run)(p, begin, end, s, shared);                       \
  }                                                                                     \
  size_t Prefix##DispatchShared(const SdpaParams& p) {                                 \
    return HWY_DYNAMIC_DISPATCH(Prefix##SharedFloats)(p);                              \
  }                                                                                     \
  void Prefix##DispatchFinish(const SdpaParams& p, float* shared) {                    \
    HWY_DYNAMIC_DISPATCH(Prefix##Finish)(p, shared);                                   \
  }                                                                                     \
  }                                                                                     \
  extern const SdpaKernel Symbol = MakeSdpaKernel(                                      \
      {Name, SdpaAlgorithm::Algorithm, SdpaFamily::kHwy, ReturnsWeights, TypedKv},         \
      {Prefix##DispatchIsa, Prefix##Available, Prefix##DispatchScratch,                    \
       Prefix##DispatchItems, Prefix##DispatchRun, Prefix##DispatchShared,                 \
       Prefix##DispatchFinish});
