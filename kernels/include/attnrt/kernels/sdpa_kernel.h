// SdpaKernel: how a kernel variant presents itself to the runtime.
//
// A variant splits a call into independent work items (for example one per
// batch x head x query block). The runtime hands each worker a contiguous range
// of items and a private scratch buffer of `scratch_floats` floats, 64-byte
// aligned. Kernels never allocate, throw, print or keep state between calls.
#pragma once

#include <cstddef>
#include <cstdint>

#include "attnrt/kernels/sdpa_params.h"

namespace attnrt {

// Scratch buffers handed to kernels are aligned to this many bytes.
constexpr size_t kScratchAlignment = 64;

// What a variant computes with: the algorithm decides what it can return and how
// its cost grows (README.md, "Kernel variants"), the family which code base implements it.
enum class SdpaAlgorithm : uint8_t {
  kReference,     // scalar, double accumulation: the oracle every test compares with
  kMaterialized,  // scores of a query block materialized, then softmax and values (weights)
  kFlash,         // online softmax over key blocks, scratch independent of the key count
  kDecode,        // few queries: keys split over workers, partial softmaxes merged
};
enum class SdpaFamily : uint8_t { kReference, kHwy, kXsimd, kHelium };

// "reference", "materialized", ... / "reference", "hwy", "xsimd", "helium".
const char* SdpaAlgorithmName(SdpaAlgorithm algorithm);
const char* SdpaFamilyName(SdpaFamily family);

// A variant's description: what it is, independent of how it runs.
struct SdpaTraits {
  const char* name;  // what `--kernel` takes, e.g. "hwy-flash"
  SdpaAlgorithm algorithm;
  SdpaFamily family;
  bool returns_weights;  // can fill SdpaParams::weights
  bool reads_typed_kv;   // reads keys and values stored as f16 or q8 (SdpaParams::kv_type)
};

// A variant's entry points.
struct SdpaEntryPoints {
  // Instruction set the variant runs on this machine (resolved at run time).
  const char* (*isa)();
  // True when this machine can run the variant at all.
  bool (*available)();
  // Floats of scratch one worker needs for this call.
  size_t (*scratch_floats)(const SdpaParams& p);
  // Independent work items of this call.
  size_t (*work_items)(const SdpaParams& p);
  // Runs items [begin, end) with `scratch` of scratch_floats(p) floats.
  // `shared` is one buffer of shared_floats(p) floats common to all items (items
  // write disjoint parts of it), or nullptr when the variant needs none.
  void (*run)(const SdpaParams& p, size_t begin, size_t end, float* scratch, float* shared);
  // Optional (nullptr = none): floats of the shared buffer, and a serial step run
  // once after every item finished, e.g. merging per-split partial softmax
  // results (max, sum, accumulator) of a key-split decode variant.
  size_t (*shared_floats)(const SdpaParams& p) = nullptr;
  void (*finish)(const SdpaParams& p, float* shared) = nullptr;
};

// A registered variant: its traits and entry points side by side (flat, so callers
// write kernel.name and kernel.run). Made only by MakeSdpaKernel.
struct SdpaKernel : SdpaTraits, SdpaEntryPoints {};

constexpr SdpaKernel MakeSdpaKernel(const SdpaTraits& traits, const SdpaEntryPoints& entry) {
  return SdpaKernel{traits, entry};
}

// Every variant compiled into this build, in a fixed order (reference first).
size_t SdpaKernelCount();
const SdpaKernel& SdpaKernelAt(size_t index);
// nullptr when no variant has that name.
const SdpaKernel* FindSdpaKernel(const char* name);
// The first variant (in list order) of that family and algorithm; nullptr when none.
const SdpaKernel* FindSdpaKernel(SdpaFamily family, SdpaAlgorithm algorithm);

}  // namespace attnrt
