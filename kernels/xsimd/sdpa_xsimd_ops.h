// The SIMD tile operations of the xsimd SDPA family, one table per ISA.
//
// Why a table of functions instead of whole kernels per ISA: each ISA's file is
// compiled with that ISA's flags (-mavx2 -mfma, -mavx512f, ...). Any inline
// function with external linkage that such a file emits out of line (a helper
// from sdpa_params.h, sdpa_mask.h or the standard library, especially in debug
// builds) may be the copy the linker keeps for the whole program, and would then
// execute AVX-512 instructions on a CPU without them. So the ISA files contain
// only these tile operations (templates on the xsimd architecture, whose symbols
// are unique per ISA) and export one table; the loops over work items, causal
// limits and masks run in ordinary files (sdpa_xsimd_flash.cc,
// sdpa_xsimd_materialized.cc) and call through the table once per tile.
//
// Tile layout is the Highway family's (kernels/hwy/sdpa_tiles-inl.h): packed
// panels (K^T or Q^T) of E rows x ld floats, V tiles of keys x ldv floats, ld and
// ldv multiples of panel_width (two vectors), all 64-byte aligned.
#pragma once

#include <cstddef>

namespace attnrt {

struct XsimdSdpaOps {
  const char* isa;     // "AVX2", "AVX512", "NEON"
  size_t panel_width;  // floats in two vectors: ldk and ldv are multiples of it

  // kt[e * ldk + c] = k[c * k_row_stride + e] for c < cols; zero for cols <= c < ldk.
  // Packing is here rather than in the drivers because the strided gathers
  // vectorize only with the ISA's inserts (baseline x86-64 leaves them scalar).
  void (*pack_keys_transposed)(const float* k, size_t k_row_stride, size_t cols, size_t dim,
                               size_t ldk, float* kt);

  // qt[e * ldq + r] = scale * q[r * q_row_stride + e] for r < rows; zero for
  // rows <= r < ldq (flash: the block's queries, packed once per block).
  void (*pack_queries_transposed)(const float* q, size_t q_row_stride, size_t rows, size_t dim,
                                  size_t ldq, float scale, float* qt);

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
  // floats) by exp(m_old - m_new) where the max grew.
  void (*flash_update)(float* st, size_t keys, size_t ldq, size_t rows, float* m, float* l,
                       float* alpha, float* o, size_t ldv);

  // Fused softmax of one (already masked) score row over s[0 .. visible); zeroes
  // s[visible .. computed). A dead row (no allowed key) becomes all zeros. When
  // weights_row is set, also writes it: the probabilities, then zeros up to
  // weights_len.
  void (*softmax_row)(float* s, size_t visible, size_t computed, float* weights_row,
                      size_t weights_len);

  // dst[0 .. n) = src[0 .. n) * f for any n and alignment.
  void (*scale_copy)(const float* src, size_t n, float f, float* dst);
};

// Defined only where built (see kernels/xsimd/CMakeLists.txt): x86-64 has the
// AVX2 and AVX-512 tables, AArch64 the NEON one.
extern const XsimdSdpaOps kXsimdSdpaOpsAvx2;
extern const XsimdSdpaOps kXsimdSdpaOpsAvx512;
extern const XsimdSdpaOps kXsimdSdpaOpsNeon;

}  // namespace attnrt
