// Linear: y = x W^T + bias with torch.nn.Linear's weight layout (out_features, in_features).
//
// The weight is read in place (row-major N x K, as stored in the weight file) in
// its stored type (f32, f16, bf16, q8, q4_0, q4_K or q6_K; weight_types.inc): there is never
// a dequantized copy of a whole matrix. f32, f16 and bf16 weights are widened in registers
// and multiplied by f32 activations. The integer block types (q8, q4_0, q4_K, q6_K) by default take
// the activations quantized to 8-bit blocks once per row (activation_blocks.h) and sum on
// the CPU's integer dot products; LinearActivations::kF32 keeps f32 activations for them
// too (exact in the weights as stored, slower). The kernel
// packs what it needs into the caller's scratch. The call is split
// into independent work items that the runtime spreads over workers; each worker
// passes its own scratch of LinearScratchFloats floats (kScratchAlignment-aligned).
// No allocation, no exceptions, no printing.
#pragma once

#include <cstddef>
#include <cstdint>

#include "attnrt/kernels/weight_q8.h"

namespace attnrt {

// Which activations a call's integer weights meet (linear_kernel.h's `auto` reads it).
enum class LinearActivations : uint8_t {
  // The best kernel for the type: 8-bit activation blocks for the integer types where this build
  // has an integer kernel (kernels/hwy/linear_int8.cc), f32 otherwise.
  kAuto,
  // f32 activations whatever the type: the exact path (`--activations f32`).
  kF32,
};

struct LinearParams {
  size_t rows;        // M: rows of x and y
  size_t in;          // K: in_features
  size_t out;         // N: out_features
  const float* x;     // M x K, row r at x + r * x_stride
  size_t x_stride;    // floats between rows of x (>= in)
  const void* w;      // N x K row-major (torch.nn.Linear.weight), of type w_type
  const float* bias;  // N floats, or nullptr for no bias
  float* y;           // M x N, row r at y + r * y_stride; must not overlap x, w or bias
  size_t y_stride;    // floats between rows of y (>= out)
  // Last, so positional initializers stay f32.
  WeightType w_type = WeightType::kF32;
  // kF16Plane types (q8) only: the f16 scale plane (out x WeightBlocksPerRow(in), row-major).
  // nullptr = the plane at ScalePlaneOffset(out, in) after w, the layout of a whole matrix
  // (weight_type.h); a slice of a stacked matrix (PyTorch's in_proj) passes its parent's
  // plane here.
  const void* w_scales = nullptr;
  LinearActivations activations = LinearActivations::kAuto;
  // Optional: a copy of w in the layout the `auto` kernel reads fastest, written by
  // PackLinearWeights (LinearPackedBytes bytes, 64-byte aligned); nullptr = w as stored.
  // A kernel that has no such layout reads w.
  const void* w_packed = nullptr;
  // Optional: x as PrepareLinearActivations wrote it for this call (LinearPreparedFloats
  // floats, kScratchAlignment-aligned), read by every work range instead of each range
  // preparing x in its own scratch; nullptr = each range prepares what it reads.
  const float* x_prepared = nullptr;
};

// The f16 scale plane of a kF16Plane weight (q8): w_scales, or the plane of a whole
// matrix after w; nullptr for a type without one.
inline const uint16_t* LinearScalePlane(const LinearParams& p) {
  if (p.w_scales != nullptr) return static_cast<const uint16_t*>(p.w_scales);
  const WeightTypeInfo* t = FindWeightType(p.w_type);
  if (t == nullptr || t->scales != WeightScales::kF16Plane) return nullptr;
  const uint8_t* plane = static_cast<const uint8_t*>(p.w) + ScalePlaneOffset(*t, p.out, p.in);
  return reinterpret_cast<const uint16_t*>(plane);
}

// Floats of scratch one worker needs; depends on the target's vector width, K and
// w_type, never on M or N: at most a 32 KiB weight panel plus 7 panel rows (about
// 33 KiB on AVX-512; 8 KiB on a scalar Cortex-M with K = 1024), and for f16, bf16
// and q8 weights 4 widened rows of one depth block besides (4 KiB on AVX-512;
// one row, 4 KiB at K = 1024, on a scalar Cortex-M). The Cortex-M55's Helium Linear
// (kernels/helium/) needs 16 floats, plus 4 rows of K for f16 weights and 4 floats per
// 32-weight block of a row for q8. The integer kernel (q8, q4_0, q4_K, q6_K) needs 4 rows of
// 8-bit activations and 12 floats per 32-value block of a row (q4_K 2 more) (1.4 K floats: 5.6 KiB at K = 1024).
size_t LinearScratchFloats(const LinearParams& p);
// Independent work items of this call (blocks of output columns x blocks of rows).
// Every output element is summed in the same order however the items are split,
// so any split of [0, items) over workers gives bit-identical results. A w_type
// outside WeightType has no items (callers check types where they load them).
size_t LinearWorkItems(const LinearParams& p);
// Runs items [begin, end). Contiguous ranges are cheaper than single items: a
// range shares one packing of each weight panel it touches.
void LinearRun(const LinearParams& p, size_t begin, size_t end, float* scratch);
// Instruction set LinearRun uses on this machine (e.g. "AVX3", "NEON").
const char* LinearIsa();

// Bytes of the copy of p.w in the layout the `auto` kernel for p reads fastest (today the
// integer kernel's panels of q4_0, q8, q4_K and q6_K on AVX2 and AVX-512: weight_panels.h), or 0 when it reads the weights as stored. Depends on p.w_type, p.in,
// p.out and p.activations only.
size_t LinearPackedBytes(const LinearParams& p);
// Writes that copy of p.w to dst (LinearPackedBytes(p) bytes, 64-byte aligned), for
// p.w_packed. Nothing when LinearPackedBytes(p) is 0.
void PackLinearWeights(const LinearParams& p, void* dst);

// Floats of x as the `auto` kernel for p prepares it once for every work range of the call
// (the integer kernel: x's 8-bit blocks, when its rows are a single chunk, as in a decode
// step), or 0 when each range prepares its own. Split over workers, a call's ranges would
// otherwise each quantize the same x row again. Depends on p's shape, types and w_packed.
size_t LinearPreparedFloats(const LinearParams& p);
// Writes that preparation of p.x to dst (LinearPreparedFloats(p) floats,
// kScratchAlignment-aligned), for p.x_prepared. Nothing when LinearPreparedFloats(p) is 0.
void PrepareLinearActivations(const LinearParams& p, float* dst);

// Scalar oracle for tests: double accumulation, whole call at once.
void ReferenceLinear(const LinearParams& p);
// The oracle of the integer kernels: each row of x rounded to 8-bit blocks as
// activation_blocks.h rounds it, then double sums of those values times the weights as
// stored (y is NaN where a block of the row held a non-finite value).
void ReferenceLinearQ8Activations(const LinearParams& p);

}  // namespace attnrt
