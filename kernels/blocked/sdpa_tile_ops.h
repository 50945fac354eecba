// SdpaTileOps: the SIMD tile operations one kernel family provides for one ISA
// (a Highway target, an xsimd architecture). The blocked drivers
// (sdpa_flash_blocks.h, sdpa_materialized_blocks.h) do everything else: work
// items, scratch layout, causal limits, masks, packing Q and K. They call
// through this table once per tile or row, so each family writes only what
// needs vectors.
//
// Tile layout: packed panels (K^T or Q^T) of E rows x ld floats, V tiles of
// keys x ldv floats, ld and ldv multiples of panel_width (two vectors), all
// 64-byte aligned; accumulator rows o + r * ldv likewise.
//
// The xsimd ISA-flagged files include this header, so it must not define any
// function with external linkage (kernels/xsimd/README.md says why).
#pragma once

#include <cstddef>

#include "attnrt/kernels/kv_type.h"

namespace attnrt {

struct SdpaTileOps {
  const char* isa;     // "AVX2", "AVX512", "NEON", or Highway's target name
  size_t panel_width;  // floats in two vectors: ld and ldv are multiples of it

  // vt[r * ldv + c] = v[r * v_row_stride + c] for c < dim; zero for dim <= c < ldv.
  void (*pack_values)(const float* v, size_t v_row_stride, size_t rows, size_t dim, size_t ldv,
                      float* vt);

  // s[r * lds + c] = scale * a_r . bt[:, c] for r < rows, c < ldb, where row r
  // of A is at a + r * a_row_stride (any alignment) and bt is a packed panel:
  // queries x K^T (materialized) or keys x Q^T (flash, key-major scores).
  void (*qk_tile)(const float* a, size_t a_row_stride, size_t rows, const float* bt, size_t ldb,
                  size_t dim, float scale, float* s, size_t lds);

  // o[r * ldo + c] += sum_{j < keys} P(r, j) * vt[j * ldv + c] for c < ldv, with
  // P(r, j) = p[r * row_stride + j * key_stride]: (lds, 1) for row-major scores,
  // (1, ldq) for key-major ones.
  void (*pv_tile)(const float* p, size_t row_stride, size_t key_stride, size_t rows,
                  const float* vt, size_t ldv, size_t keys, float* o, size_t ldo);

  // Online-softmax step on a key-major tile st (keys rows of ldq floats, already
  // masked), vectorized over the ldq queries: updates the running max m and sum
  // l, turns st into unnormalized probabilities (0 for a query that has seen no
  // allowed key yet), and rescales accumulator rows o + r * ldv (r < rows, ldv
  // floats) by alpha = exp(m_old - m_new) where the max grew.
  void (*flash_update)(float* st, size_t keys, size_t ldq, size_t rows, float* m, float* l,
                       float* alpha, float* o, size_t ldv);

  // The pieces of the materialized kernel's row softmax (SoftmaxRow in
  // sdpa_materialized_blocks.h); s is readable and writable up to a multiple of the
  // vector width. row_max: max of s[0 .. n), kMaskedScore (-inf) when n == 0 (a NaN
  // may or may not win). exp_row_and_sum: s[j] = exp(s[j] - max) for j < n, returns
  // their sum (NaN if any is NaN); max is never -inf (dead rows are not passed).
  float (*row_max)(const float* s, size_t n);
  float (*exp_row_and_sum)(float* s, size_t n, float max);

  // dst[0 .. n) = src[0 .. n) * f for any n and alignment; dst may equal src.
  void (*scale_copy)(const float* src, size_t n, float f, float* dst);

  // A typed KV cache (f16 / q8, sdpa_params.h) as f32 rows: dst[r * ld + c] =
  // scale_r * widen(x_r[c]) for c < dim, zero for dim <= c < ld, r < rows, where x_r
  // is the row of `type` at src + r * row_stride elements and scale_r =
  // scales[r * scale_stride] for q8 (1 otherwise). nullptr: the family reads f32 K/V
  // only (its kernels set SdpaKernel::reads_typed_kv false).
  void (*widen_rows)(KvType type, const void* src, size_t row_stride, const float* scales,
                     size_t scale_stride, size_t rows, size_t dim, size_t ld, float* dst);
};

// How the drivers are declared: forced inline into their caller. Where the
// caller builds its table at compile time (Highway, once per target), the
// compiler then calls the tile operations directly and inlines them, as a
// driver written per target would; through the table, hwy-flash lost 3%.
#define ATTNRT_SDPA_DRIVER inline __attribute__((always_inline))

// qk_tile and pv_tile run four rows at a time. The group at row r of a tile of
// `rows` rows; past the end it repeats the last real row, whose results are then
// written twice, identically. `static`: each file that uses it keeps a private
// copy, never one the linker could share with a file built for another ISA.
struct RowQuad {
  size_t r0, r1, r2, r3;
};

static constexpr RowQuad RowQuadAt(size_t r, size_t rows) {
  return {r, r + 1 < rows ? r + 1 : rows - 1, r + 2 < rows ? r + 2 : rows - 1,
          r + 3 < rows ? r + 3 : rows - 1};
}

}  // namespace attnrt
