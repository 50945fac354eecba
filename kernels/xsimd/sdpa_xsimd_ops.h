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
// Tile layout is the Highway family's (kernels/hwy/sdpa_tiles-inl.h): K^T tiles of
// E rows x ldk floats, V tiles of keys x ldv floats, ldk and ldv multiples of
// panel_width (two vectors), score rows `lds` floats apart, all 64-byte aligned.
#pragma once

#include <cstddef>

namespace attnrt {

struct XsimdSdpaOps {
  const char* isa;     // "AVX2", "AVX512", "NEON"
  size_t panel_width;  // floats in two vectors: ldk and ldv are multiples of it

  // s[r * lds + c] = scale * q_r . kt[:, c] for r < rows, c < ldk (query row r at
  // q + r * q_row_stride, any alignment).
  void (*qk_tile)(const float* q, size_t q_row_stride, size_t rows, const float* kt, size_t ldk,
                  size_t dim, float scale, float* s, size_t lds);

  // o[r * ldo + c] += sum_{j < keys} p[r * ldp + j] * vt[j * ldv + c] for c < ldv.
  void (*pv_tile)(const float* p, size_t ldp, size_t rows, const float* vt, size_t ldv,
                  size_t keys, float* o, size_t ldo);

  // Online-softmax step for `rows` score rows of one key tile (already masked):
  // updates the running max m[r] and sum l[r], rescales accumulator row
  // o + r * ldv (ldv floats) when the max grows, and turns s[r][0 .. keys) into
  // unnormalized probabilities (all 0 while a row has seen no allowed key).
  void (*flash_update)(float* s, size_t lds, size_t rows, size_t keys, float* m, float* l,
                       float* o, size_t ldv);

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
