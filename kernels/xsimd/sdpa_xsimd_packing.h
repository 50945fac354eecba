// Scalar pieces shared by the xsimd flash and materialized drivers: scratch
// layout rounding, packing K^T and V tiles in the layout sdpa_xsimd_ops.h
// describes, and applying the causal rule and masks to a score row. Compiled
// without ISA flags (only the drivers include this), so the mask helpers of
// sdpa_mask.h are used here and never from the ISA files.
#pragma once

#include <cstddef>

#include "attnrt/kernels/sdpa_kernel.h"
#include "attnrt/kernels/sdpa_mask.h"
#include "attnrt/kernels/sdpa_params.h"

namespace attnrt {
namespace xsimd_sdpa {

inline size_t RoundUp(size_t n, size_t m) { return (n + m - 1) / m * m; }

// Scratch regions start on this many floats so every region is 64-byte aligned.
constexpr size_t kRegionAlignFloats = kScratchAlignment / sizeof(float);

inline size_t AlignFloats(size_t n) { return RoundUp(n, kRegionAlignFloats); }

inline size_t MinSize(size_t a, size_t b) { return a < b ? a : b; }

// kt[e * ldk + c] = k[c * k_row_stride + e] for c < cols; zero for cols <= c < ldk.
inline void PackKeysTransposed(const float* k, size_t k_row_stride, size_t cols, size_t dim,
                               size_t ldk, float* kt) {
  for (size_t e = 0; e < dim; ++e) {
    float* dst = kt + e * ldk;
    for (size_t c = 0; c < cols; ++c) dst[c] = k[c * k_row_stride + e];
    for (size_t c = cols; c < ldk; ++c) dst[c] = 0.0f;
  }
}

// vt[r * ldv + c] = v[r * v_row_stride + c] for c < dim; zero for dim <= c < ldv.
inline void PackValues(const float* v, size_t v_row_stride, size_t rows, size_t dim, size_t ldv,
                       float* vt) {
  for (size_t r = 0; r < rows; ++r) {
    float* dst = vt + r * ldv;
    const float* src = v + r * v_row_stride;
    for (size_t c = 0; c < dim; ++c) dst[c] = src[c];
    for (size_t c = dim; c < ldv; ++c) dst[c] = 0.0f;
  }
}

// Applies the causal rule and the mask to s[0 .. n) for query row i whose keys
// start at key j0. Runs only on tiles the causal diagonal cuts or with a mask.
inline void MaskRow(const SdpaParams& p, size_t b, size_t h, size_t i, size_t j0, size_t n,
                    float* s) {
  const uint8_t* mask_row = p.mask_kind == MaskKind::kNone ? nullptr : MaskRowBytes(p, b, h, i);
  for (size_t j = 0; j < n; ++j) s[j] = ApplyMask(p, mask_row, i, j0 + j, s[j]);
}

inline void ZeroFloats(float* x, size_t n) {
  for (size_t j = 0; j < n; ++j) x[j] = 0.0f;
}

// Work item -> (batch, query head, first query row) for blocks of `block_rows` queries.
struct QueryBlock {
  size_t b, h, i0, rows;
};

inline QueryBlock QueryBlockOf(const SdpaParams& p, size_t item, size_t block_rows) {
  const size_t blocks = (p.q_len + block_rows - 1) / block_rows;
  QueryBlock q;
  q.b = item / (blocks * p.q_heads);
  q.h = (item / blocks) % p.q_heads;
  q.i0 = (item % blocks) * block_rows;
  q.rows = MinSize(block_rows, p.q_len - q.i0);
  return q;
}

inline size_t QueryBlockCount(const SdpaParams& p, size_t block_rows) {
  return p.batch * p.q_heads * ((p.q_len + block_rows - 1) / block_rows);
}

}  // namespace xsimd_sdpa
}  // namespace attnrt
