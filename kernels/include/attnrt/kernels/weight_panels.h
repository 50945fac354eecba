// Panel copies of block-quantized matrices (LinearParams::w_packed): what the integer
// kernel's panels (kernels/hwy/int8_panels-inl.h) read with one weight row per 32-bit lane,
// 16 or 8 rows per vector, by plain loads. The rows as stored take a load per row, a
// transpose and a gather of the scales per block; this copy has the same values in as many
// bytes, reordered once at load (q8's and q6_K's bytes also recoded for the dot: below).
//
// Rows in groups of kPanelCopyRows (a last short group repeats its last row); per group,
// block after block (a q4_0 block, a k-quant super-block), the group's rows' copies of the
// block as fields, each field's kPanelCopyRows copies contiguous in row order: the field of
// width w at byte o of the block is at kPanelCopyRows * o + w * r for row r
// (PanelCopyFieldAt). A type's fields are its leading f16 scales (2 bytes each), then
// 32-bit words (q4_0: d, then 4 words of nibbles; q4_K: d, dmin, 3 words of 6-bit scales, 32
// words of nibbles). q8, whose rows and scales are stored apart (weight_q8.h), is copied as
// blocks of kQ8CopyBlockBytes: d, then 8 words of the values as offset bytes v + 128 (v ^
// 0x80): vpdpbusd's unsigned operand, so the activations stay signed and the dot starts from
// the activations' -128 * sum, a term of the x row (no per-row word: the copy has q8's bytes).
// q6_K's block, whose f16 d ends it, is copied with d first, its 6-bit values regrouped so
// that a chunk of 32 is one masked load (PackQ6_KPanelCopy), then its 16 scale bytes: d and
// 52 words, the block's 210 bytes.
//
// Header-only and allocation-free.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "attnrt/kernels/weight_q6_K.h"
#include "attnrt/kernels/weight_type.h"

namespace attnrt {

constexpr size_t kPanelCopyRows = 16;
constexpr size_t kQ8CopyBlockBytes = 2 + 32;
// q6_K's copied block: d, the values (3 arrays of 32 bytes per 128-value half, below), the
// scales.
constexpr size_t kQ6_KCopyQAt = 2, kQ6_KCopyScalesAt = 2 + kQ6_KScalesAt;
static_assert(kQ6_KDAt + 2 == kQ6_KBlockBytes, "q6_K's d ends its block");

// A type's block in the copy: its bytes, and how many 2-byte fields lead it.
inline size_t PanelCopyBlockBytes(WeightType t) {
  return t == WeightType::kQ8 ? kQ8CopyBlockBytes : FindWeightType(t)->bytes;
}
inline size_t PanelCopyF16Fields(WeightType t) { return t == WeightType::kQ4_K ? 2 : 1; }

// Where the field at byte `o` of a block starts within the group's copy of that block.
constexpr size_t PanelCopyFieldAt(size_t o) { return kPanelCopyRows * o; }

// Bytes of the panel copy of `rows` rows of `blocks` blocks of `block_bytes`; 0 if that
// overflows size_t.
inline size_t PanelCopyBytes(size_t rows, size_t blocks, size_t block_bytes) {
  const size_t groups = rows / kPanelCopyRows + (rows % kPanelCopyRows != 0);
  size_t bytes;
  if (__builtin_mul_overflow(groups, blocks, &bytes) ||
      __builtin_mul_overflow(bytes, kPanelCopyRows * block_bytes, &bytes)) {
    return 0;
  }
  return bytes;
}

// Row r's `block` (block_bytes: f16_fields 2-byte fields, then 32-bit words) into the
// group's copy of that block at `dst`.
inline void ScatterPanelCopyBlock(const uint8_t* block, size_t block_bytes, size_t f16_fields,
                                  size_t r, uint8_t* dst) {
  for (size_t o = 0; o < block_bytes;) {
    const size_t width = o < 2 * f16_fields ? 2 : 4;
    std::memcpy(dst + PanelCopyFieldAt(o) + width * r, block + o, width);
    o += width;
  }
}

// Writes a panel copy of `rows` rows of `blocks` blocks (each block_bytes in the copy: the
// first f16_fields 2-byte fields, then 32-bit words) to dst (PanelCopyBytes bytes):
// block_of(n, b, out) writes row n's block b as copied. A short last group repeats its last
// row.
template <class BlockOf>
inline void PackPanelGroups(size_t rows, size_t blocks, size_t block_bytes, size_t f16_fields,
                            uint8_t* dst, BlockOf block_of) {
  uint8_t block[256];  // the largest copied block: q6_K's 210 bytes
  static_assert(kQ6_KBlockBytes <= sizeof(block) && kQ8CopyBlockBytes <= sizeof(block) &&
                    FindWeightType(WeightType::kQ4_K)->bytes <= sizeof(block) &&
                    FindWeightType(WeightType::kQ4_0)->bytes <= sizeof(block),
                "every copied type's block fits");
  for (size_t n0 = 0; n0 < rows; n0 += kPanelCopyRows) {
    for (size_t b = 0; b < blocks; ++b, dst += kPanelCopyRows * block_bytes) {
      for (size_t r = 0; r < kPanelCopyRows; ++r) {
        block_of(n0 + r < rows ? n0 + r : rows - 1, b, block);
        ScatterPanelCopyBlock(block, block_bytes, f16_fields, r, dst);
      }
    }
  }
}

// Writes the panel copy of w (`rows` rows of `blocks` blocks of `block_bytes`, the first
// `f16_fields` 2-byte fields of a block, the rest 32-bit words) to dst
// (PanelCopyBytes(rows, blocks, block_bytes) bytes).
inline void PackPanelCopy(const uint8_t* w, size_t rows, size_t blocks, size_t block_bytes,
                          size_t f16_fields, uint8_t* dst) {
  const size_t row_bytes = blocks * block_bytes;
  PackPanelGroups(rows, blocks, block_bytes, f16_fields, dst,
                  [&](size_t n, size_t b, uint8_t* out) {
                    std::memcpy(out, w + n * row_bytes + b * block_bytes, block_bytes);
                  });
}

// Writes the panel copy of a q8 matrix (`rows` rows of K values, `scales` its plane of
// blocks = ceil(K / 32) f16 scales per row) to dst (PanelCopyBytes(rows, blocks,
// kQ8CopyBlockBytes) bytes): per row and block, d and the 32 values as v + 128 (zeros past K,
// so 128).
inline void PackQ8PanelCopy(const int8_t* values, const uint16_t* scales, size_t rows, size_t K,
                            uint8_t* dst) {
  const size_t blocks = K / 32 + (K % 32 != 0);
  PackPanelGroups(rows, blocks, kQ8CopyBlockBytes, 1, dst,
                  [&](size_t n, size_t b, uint8_t* out) {
                    std::memcpy(out, scales + n * blocks + b, 2);
                    const size_t count = K - 32 * b < 32 ? K - 32 * b : 32;
                    for (size_t i = 0; i < 32; ++i) {
                      const int8_t v = i < count ? values[n * K + 32 * b + i] : 0;
                      out[2 + i] = static_cast<uint8_t>(static_cast<uint8_t>(v) ^ 0x80u);
                    }
                  });
}

// Writes the panel copy of a q6_K matrix (`rows` rows of `blocks` super-blocks) to dst
// (PanelCopyBytes(rows, blocks, kQ6_KBlockBytes) bytes): each block with its d first, then
// per 128-value half h its 4 chunks' values q0..q3 (32 each, 6 bits) as 3 arrays of 32
// bytes at kQ6_KCopyQAt + 96 h + 32 j: q_j | (bits 2j, 2j + 1 of q3) << 6. Chunks 0-2 are
// then one load and a mask a word, chunk 3 three loads and 8 operations; as stored (ql
// nibbles and qh bit pairs) every chunk took two loads and 4-5 operations a word.
inline void PackQ6_KPanelCopy(const uint8_t* w, size_t rows, size_t blocks, uint8_t* dst) {
  PackPanelGroups(rows, blocks, kQ6_KBlockBytes, 1, dst, [&](size_t n, size_t b, uint8_t* out) {
    const uint8_t* block = w + (n * blocks + b) * kQ6_KBlockBytes;
    std::memcpy(out, block + kQ6_KDAt, 2);
    for (size_t h = 0; h < 2; ++h) {
      for (size_t i = 0; i < 32; ++i) {
        unsigned q[4];
        Q6_KQuants4(block, h, i, q);
        for (size_t j = 0; j < 3; ++j) {
          out[kQ6_KCopyQAt + 96 * h + 32 * j + i] =
              static_cast<uint8_t>(q[j] | ((q[3] >> (2 * j)) & 3u) << 6);
        }
      }
    }
    std::memcpy(out + kQ6_KCopyScalesAt, block + kQ6_KScalesAt, kQ6_KDAt - kQ6_KScalesAt);
  });
}

}  // namespace attnrt
