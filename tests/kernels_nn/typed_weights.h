// Test-side typed weight matrices: f32 values encoded as f16, bf16, q8, q4_0, q4_K or q6_K
// with the conversions of float16.h and the weight_<type>.h quantizers, stored in a
// byte buffer with guard bytes on both sides, and the exact f32 values the
// encoding stands for (what a kernel must compute with).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "attnrt/kernels/weight_codecs.h"

namespace attnrt::testing {

class TypedMatrix {
 public:
  static constexpr size_t kGuard = 64;
  static constexpr uint8_t kGuardByte = 0xA5;

  // Encodes rows x cols values (row-major) as `type`; `values` becomes the decoded
  // f32 values. `misalign` shifts the data off the buffer's vector alignment by one
  // element's natural alignment: 4 bytes for f32, 2 for the 16-bit types and q8 (whose
  // scale plane stays 2-byte aligned, as the format promises). Less would be a
  // misaligned scalar load, which is undefined behaviour (UBSan), not a test.
  TypedMatrix(WeightType type, size_t rows, size_t cols, bool misalign, float* values)
      : type_(type), offset_(kGuard + (misalign ? (type == WeightType::kF32 ? 4 : 2) : 0)) {
    MatrixBytes(type, rows, cols, &bytes_);
    storage_.assign(bytes_ + offset_ + kGuard, kGuardByte);
    uint8_t* base = storage_.data() + offset_;
    const size_t n = rows * cols;
    switch (type) {
      case WeightType::kF32:
        std::memcpy(base, values, n * sizeof(float));
        break;
      case WeightType::kF16:
        for (size_t i = 0; i < n; ++i) {
          const uint16_t h = F32ToF16(values[i]);
          std::memcpy(base + 2 * i, &h, 2);
          values[i] = F16ToF32(h);
        }
        break;
      case WeightType::kBF16:
        for (size_t i = 0; i < n; ++i) {
          const uint16_t h = F32ToBF16(values[i]);
          std::memcpy(base + 2 * i, &h, 2);
          values[i] = BF16ToF32(h);
        }
        break;
      case WeightType::kQ4_0: {
        const WeightMatrixRef m{base, nullptr, cols};
        const size_t row_bytes = WeightBlocksPerRow(kQ4_0Info, cols) * kQ4_0BlockBytes;
        for (size_t r = 0; r < rows; ++r) QuantizeQ4_0Row(values + r * cols, cols, base + r * row_bytes);
        for (size_t r = 0; r < rows; ++r) {
          for (size_t c = 0; c < cols; ++c) values[r * cols + c] = Q4_0Scalar::Value(m, r, c);
        }
        break;
      }
      case WeightType::kQ4_K:
      case WeightType::kQ6_K: {  // a short last block (cols % 256) is zero-padded
        const WeightMatrixRef m{base, nullptr, cols};
        const size_t row_bytes = WeightBlocksPerRow(*FindWeightType(type), cols) *
                                 FindWeightType(type)->bytes;
        for (size_t r = 0; r < rows; ++r) {
          if (type == WeightType::kQ4_K) {
            QuantizeQ4_KRow(values + r * cols, cols, base + r * row_bytes);
          } else {
            QuantizeQ6_KRow(values + r * cols, cols, base + r * row_bytes);
          }
        }
        for (size_t r = 0; r < rows; ++r) {
          for (size_t c = 0; c < cols; ++c) values[r * cols + c] = WeightValue(type, m, r, c);
        }
        break;
      }
      case WeightType::kQ8: {
        auto* q = reinterpret_cast<int8_t*>(base);
        auto* scales = reinterpret_cast<uint16_t*>(base + Q8ScalesOffset(rows, cols));
        const size_t blocks = Q8BlocksPerRow(cols);
        for (size_t r = 0; r < rows; ++r) {
          QuantizeQ8Row(values + r * cols, cols, q + r * cols, scales + r * blocks);
          for (size_t c = 0; c < cols; ++c) {
            values[r * cols + c] =
                F16ToF32(scales[r * blocks + c / kQ8Block]) * float(q[r * cols + c]);
          }
        }
        break;
      }
    }
  }

  const void* data() const { return storage_.data() + offset_; }
  WeightType type() const { return type_; }

  bool GuardsIntact() const {
    for (size_t i = 0; i < storage_.size(); ++i) {
      if ((i < offset_ || i >= offset_ + bytes_) && storage_[i] != kGuardByte) return false;
    }
    return true;
  }

 private:
  WeightType type_;
  size_t offset_;
  size_t bytes_ = 0;
  std::vector<uint8_t> storage_;
};

}  // namespace attnrt::testing
