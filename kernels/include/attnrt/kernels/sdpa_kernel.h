// SdpaKernel: how a kernel variant presents itself to the runtime.
//
// A variant splits a call into independent work items (for example one per
// batch x head x query block). The runtime hands each worker a contiguous range
// of items and a private scratch buffer of `scratch_floats` floats, 64-byte
// aligned. Kernels never allocate, throw, print or keep state between calls.
#pragma once

#include <cstddef>

#include "attnrt/kernels/sdpa_params.h"

namespace attnrt {

// Scratch buffers handed to kernels are aligned to this many bytes.
constexpr size_t kScratchAlignment = 64;

struct SdpaKernel {
  const char* name;     // what `--kernel` takes, e.g. "hwy-flash"
  const char* family;   // "reference", "hwy", "xsimd"
  bool returns_weights; // can fill SdpaParams::weights
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
  size_t (*shared_floats)(const SdpaParams& p);
  void (*finish)(const SdpaParams& p, float* shared);
  // Reads keys and values stored as f16 or q8 (SdpaParams::kv_type); false: f32 only.
  bool reads_typed_kv;
};

// Every variant compiled into this build, in a fixed order (reference first).
size_t SdpaKernelCount();
const SdpaKernel& SdpaKernelAt(size_t index);
// nullptr when no variant has that name.
const SdpaKernel* FindSdpaKernel(const char* name);

}  // namespace attnrt
