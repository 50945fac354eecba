// MergeKeyPaddingMask (see key_padding_mask.h).
#include "cli/key_padding_mask.h"

#include <limits>

namespace attnrt::cli {
namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// The mask's dims right-aligned to (B, H, L, S), 1 where missing.
bool AlignedDims(const npy::Array& m, size_t batch, size_t seq, size_t dims[4],
                 std::string* error) {
  if (m.shape.size() < 2 || m.shape.size() > 4) {
    *error = "--mask must have 2 to 4 dims (L, S) .. (B, H, L, S), got " +
             npy::ShapeString(m.shape);
    return false;
  }
  const size_t pad = 4 - m.shape.size();
  for (size_t i = 0; i < 4; ++i) dims[i] = i < pad ? 1 : m.shape[i - pad];
  const size_t want[4] = {batch, dims[1], seq, seq};
  for (size_t i : {0, 2, 3}) {
    if (dims[i] != 1 && dims[i] != want[i]) {
      *error = "--mask " + npy::ShapeString(m.shape) + " does not broadcast to (batch " +
               std::to_string(batch) + ", heads, " + std::to_string(seq) + ", " +
               std::to_string(seq) + ")";
      return false;
    }
  }
  return true;
}

}  // namespace

bool MergeKeyPaddingMask(const npy::Array* mask, const npy::Array& padding, size_t batch,
                         size_t seq, npy::Array* out, std::string* error) {
  if (padding.shape != std::vector<size_t>{batch, seq}) {
    *error = "--key-padding-mask must be (batch " + std::to_string(batch) + ", seq " +
             std::to_string(seq) + "), got " + npy::ShapeString(padding.shape);
    return false;
  }
  const bool pad_bool = padding.dtype == npy::DType::kBool;
  // Additive value of key j of batch b from the padding mask alone.
  auto pad_add = [&](size_t b, size_t j) {
    const size_t k = b * seq + j;
    return pad_bool ? (padding.b8[k] ? kNegInf : 0.0f) : padding.f32[k];
  };
  if (mask == nullptr) {
    out->shape = {batch, 1, 1, seq};
    out->dtype = padding.dtype;
    out->b8.clear();
    out->f32.clear();
    if (pad_bool) {
      for (uint8_t p : padding.b8) out->b8.push_back(p ? 0 : 1);
    } else {
      out->f32 = padding.f32;
    }
    return true;
  }
  size_t d[4];
  if (!AlignedDims(*mask, batch, seq, d, error)) return false;
  const size_t heads = d[1];
  const bool both_bool = pad_bool && mask->dtype == npy::DType::kBool;
  out->shape = {batch, heads, seq, seq};
  out->dtype = both_bool ? npy::DType::kBool : npy::DType::kFloat32;
  out->b8.clear();
  out->f32.clear();
  for (size_t b = 0; b < batch; ++b) {
    for (size_t h = 0; h < heads; ++h) {
      for (size_t i = 0; i < seq; ++i) {
        for (size_t j = 0; j < seq; ++j) {
          // Broadcast index into the mask: a dim of 1 stays at 0.
          const size_t mi = (((d[0] == 1 ? 0 : b) * d[1] + (d[1] == 1 ? 0 : h)) * d[2] +
                             (d[2] == 1 ? 0 : i)) * d[3] + (d[3] == 1 ? 0 : j);
          if (both_bool) {
            out->b8.push_back(mask->b8[mi] && !padding.b8[b * seq + j] ? 1 : 0);
          } else {
            const float m = mask->dtype == npy::DType::kBool ? (mask->b8[mi] ? 0.0f : kNegInf)
                                                             : mask->f32[mi];
            out->f32.push_back(m + pad_add(b, j));
          }
        }
      }
    }
  }
  return true;
}

}  // namespace attnrt::cli
