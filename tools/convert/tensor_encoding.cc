// Tensor encoding for the weight file writer: one loop per type over the scalar
// conversions of float16.h and the quantizers of weight_q8.h, weight_q4_0.h, weight_q4_K.h
// and weight_q6_K.h, so the converter and the
// kernels' tests round the same way.
#include "convert/tensor_encoding.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace attnrt {
namespace {

constexpr float kF16Max = 65504.0f;

std::string Where(size_t cols, size_t i) {
  return "row " + std::to_string(cols == 0 ? 0 : i / cols) + ", column " +
         std::to_string(cols == 0 ? 0 : i % cols);
}

void PutU16(uint8_t* p, uint16_t v) {
  p[0] = static_cast<uint8_t>(v);
  p[1] = static_cast<uint8_t>(v >> 8);
}

// q4_K and q6_K (kSuperBlock): rows of whole 256-value blocks only (GGUF stores no short
// one), finite values, and every block's f16 d (and dmin) finite.
bool EncodeSuperBlocks(WeightType type, size_t rows, size_t cols, const float* data, uint8_t* dst,
                       std::string* error) {
  const WeightTypeInfo& info = *FindWeightType(type);
  if (!RowWidthIsStorable(info, cols)) {
    *error = "rows of " + std::to_string(cols) + " values are not whole " + info.name +
             " blocks of " + std::to_string(info.block) +
             " values (GGUF's k-quants store no short block); store this tensor as q4_0, q8 or "
             "f16";
    return false;
  }
  const size_t blocks = WeightBlocksPerRow(info, cols);
  const BlockF16Field* fields = nullptr;
  const size_t field_count = SuperBlockF16Fields(type, &fields);
  for (size_t r = 0; r < rows; ++r) {
    const float* row = data + r * cols;
    for (size_t c = 0; c < cols; ++c) {
      if (!std::isfinite(row[c])) {
        *error = "value " + std::to_string(row[c]) + " at " + Where(cols, r * cols + c) +
                 " is not finite, which " + info.name + " cannot store";
        return false;
      }
    }
    uint8_t* row_blocks = dst + r * blocks * info.bytes;
    if (type == WeightType::kQ4_K) {
      QuantizeQ4_KRow(row, cols, row_blocks);
    } else {
      QuantizeQ6_KRow(row, cols, row_blocks);
    }
    for (size_t b = 0; b < blocks; ++b) {
      for (size_t f = 0; f < field_count; ++f) {
        const uint8_t* at = row_blocks + b * info.bytes + fields[f].at;
        if (((at[0] | at[1] << 8) & 0x7C00) == 0x7C00) {
          *error = "block " + std::to_string(b) + " of row " + std::to_string(r) + " (columns " +
                   std::to_string(b * info.block) + ".." +
                   std::to_string((b + 1) * info.block - 1) + ") has values too large for " +
                   info.name + "'s f16 " + fields[f].name;
          return false;
        }
      }
    }
  }
  return true;
}

}  // namespace

std::string WeightTypeNames() {
  std::string names;
  for (const WeightTypeInfo& t : kWeightTypes) {
    names += (names.empty() ? "" : ", ") + std::string(t.name);
  }
  return names;
}

bool EncodeMatrix(WeightType type, size_t rows, size_t cols, const float* data,
                  std::vector<uint8_t>* out, std::string* error) {
  size_t bytes;
  if (!MatrixBytes(type, rows, cols, &bytes)) {
    *error = "size overflows";
    return false;
  }
  out->assign(bytes, 0);
  const size_t n = rows * cols;
  uint8_t* dst = out->data();
  switch (type) {
    case WeightType::kF32:
      if (n != 0) std::memcpy(dst, data, n * 4);  // little-endian host (checked by the reader)
      return true;
    case WeightType::kF16:
      for (size_t i = 0; i < n; ++i) {
        const uint16_t h = F32ToF16(data[i]);
        if (std::isfinite(data[i]) && (h & 0x7FFFu) == 0x7C00u) {
          *error = "value " + std::to_string(data[i]) + " at " + Where(cols, i) +
                   " is beyond f16's range (65504); store this tensor as bf16 or f32";
          return false;
        }
        PutU16(dst + 2 * i, h);
      }
      return true;
    case WeightType::kBF16:
      for (size_t i = 0; i < n; ++i) PutU16(dst + 2 * i, F32ToBF16(data[i]));
      return true;
    case WeightType::kQ8: {
      const size_t blocks = Q8BlocksPerRow(cols);
      std::vector<uint16_t> scales(blocks);
      uint8_t* scale_plane = dst + Q8ScalesOffset(rows, cols);
      for (size_t r = 0; r < rows; ++r) {
        const float* row = data + r * cols;
        for (size_t c = 0; c < cols; ++c) {
          if (!std::isfinite(row[c])) {
            *error = "value " + std::to_string(row[c]) + " at " + Where(cols, r * cols + c) +
                     " is not finite, which q8 cannot store";
            return false;
          }
        }
        QuantizeQ8Row(row, cols, reinterpret_cast<int8_t*>(dst + r * cols), scales.data());
        for (size_t b = 0; b < blocks; ++b) {
          if ((scales[b] & 0x7C00u) == 0x7C00u) {
            *error = "block " + std::to_string(b) + " of row " + std::to_string(r) +
                     " has values too large for an f16 q8 scale (max |x| must be below " +
                     std::to_string(kF16Max * 127.0f) + ")";
            return false;
          }
          PutU16(scale_plane + 2 * (r * blocks + b), scales[b]);
        }
      }
      return true;
    }
    case WeightType::kQ4_0: {
      const size_t blocks = WeightBlocksPerRow(kQ4_0Info, cols);
      for (size_t r = 0; r < rows; ++r) {
        const float* row = data + r * cols;
        for (size_t c = 0; c < cols; ++c) {
          if (!std::isfinite(row[c])) {
            *error = "value " + std::to_string(row[c]) + " at " + Where(cols, r * cols + c) +
                     " is not finite, which q4_0 cannot store";
            return false;
          }
        }
        uint8_t* row_blocks = dst + r * blocks * kQ4_0BlockBytes;
        QuantizeQ4_0Row(row, cols, row_blocks);
        for (size_t b = 0; b < blocks; ++b) {
          if ((Q4_0ScaleBits(row_blocks + b * kQ4_0BlockBytes) & 0x7C00u) == 0x7C00u) {
            *error = "block " + std::to_string(b) + " of row " + std::to_string(r) +
                     " (columns " + std::to_string(b * kQ4_0Block) + ".." +
                     std::to_string(std::min(cols, (b + 1) * kQ4_0Block) - 1) +
                     ") has values too large for an f16 q4_0 scale (max |x| must be below " +
                     std::to_string(kF16Max * 8.0f) + ")";
            return false;
          }
        }
      }
      return true;
    }
    case WeightType::kQ4_K:
    case WeightType::kQ6_K:
      return EncodeSuperBlocks(type, rows, cols, data, dst, error);
  }
  *error = "unknown element type";
  return false;
}

}  // namespace attnrt
