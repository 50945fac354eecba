// ggml block decoding (see gguf_dequant.h). The loops follow ggml-quants.c's reference
// dequantizers; the comments give each block's layout in bytes.
#include "convert/gguf_dequant.h"

#include <cstring>

#include "attnrt/kernels/weight_codecs.h"

namespace attnrt {
namespace {

constexpr size_t kQK = 256;

uint16_t Le16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | (p[1] << 8)); }
float Half(const uint8_t* p) { return F16ToF32(Le16(p)); }

// Q4_0, 18 bytes: f16 d, 16 bytes of nibbles (low: values 0-15, high: 16-31); (q - 8) * d.
void Q4_0Block(const uint8_t* b, float* y) {
  const float d = Half(b);
  for (int j = 0; j < 16; ++j) {
    y[j] = static_cast<float>((b[2 + j] & 0x0F) - 8) * d;
    y[j + 16] = static_cast<float>((b[2 + j] >> 4) - 8) * d;
  }
}

// Q4_1, 20 bytes: f16 d, f16 m, 16 bytes of nibbles; q * d + m.
void Q4_1Block(const uint8_t* b, float* y) {
  const float d = Half(b), m = Half(b + 2);
  for (int j = 0; j < 16; ++j) {
    y[j] = static_cast<float>(b[4 + j] & 0x0F) * d + m;
    y[j + 16] = static_cast<float>(b[4 + j] >> 4) * d + m;
  }
}

// Q5_0 (22 bytes: f16 d, u32 high bits, 16 bytes of nibbles; (q - 16) * d) and Q5_1
// (24 bytes: f16 d, f16 m, u32 high bits, nibbles; q * d + m). Bit j of the high word
// is the fifth bit of value j.
void Q5Block(const uint8_t* b, bool with_min, float* y) {
  const float d = Half(b);
  const float m = with_min ? Half(b + 2) : 0.0f;
  const uint8_t* h = b + (with_min ? 4 : 2);
  const uint32_t qh = static_cast<uint32_t>(h[0]) | (static_cast<uint32_t>(h[1]) << 8) |
                      (static_cast<uint32_t>(h[2]) << 16) | (static_cast<uint32_t>(h[3]) << 24);
  const uint8_t* qs = h + 4;
  for (int j = 0; j < 16; ++j) {
    const int x0 = (qs[j] & 0x0F) | static_cast<int>(((qh >> j) << 4) & 0x10);
    const int x1 = (qs[j] >> 4) | static_cast<int>((qh >> (j + 12)) & 0x10);
    if (with_min) {
      y[j] = static_cast<float>(x0) * d + m;
      y[j + 16] = static_cast<float>(x1) * d + m;
    } else {
      y[j] = static_cast<float>(x0 - 16) * d;
      y[j + 16] = static_cast<float>(x1 - 16) * d;
    }
  }
}

// Q8_0, 34 bytes: f16 d, 32 int8; q * d.
void Q8_0Block(const uint8_t* b, float* y) {
  const float d = Half(b);
  for (int j = 0; j < 32; ++j) y[j] = static_cast<float>(static_cast<int8_t>(b[2 + j])) * d;
}

// The 6-bit scale and min of sub-block j (0-7) of a Q4_K / Q5_K block's 12 scale bytes.
void ScaleMinK4(int j, const uint8_t* q, uint8_t* d, uint8_t* m) {
  if (j < 4) {
    *d = q[j] & 63;
    *m = q[j + 4] & 63;
  } else {
    *d = static_cast<uint8_t>((q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4));
    *m = static_cast<uint8_t>((q[j + 4] >> 4) | ((q[j] >> 6) << 4));
  }
}

// Q4_K (144 bytes: f16 d, f16 dmin, 12 scale bytes, 128 bytes of nibbles) and Q5_K
// (176 bytes: the same with 32 bytes of fifth bits before the nibbles): 8 sub-blocks of
// 32, each d * scale * q - dmin * min.
void QK45Block(const uint8_t* b, bool five, float* y) {
  const float d = Half(b), min = Half(b + 2);
  const uint8_t* scales = b + 4;
  const uint8_t* qh = b + 16;
  const uint8_t* q = b + (five ? 48 : 16);
  uint8_t u1 = 1, u2 = 2;
  for (int j = 0, is = 0; j < static_cast<int>(kQK); j += 64, is += 2) {
    uint8_t sc, m;
    ScaleMinK4(is, scales, &sc, &m);
    const float d1 = d * sc, m1 = min * m;
    ScaleMinK4(is + 1, scales, &sc, &m);
    const float d2 = d * sc, m2 = min * m;
    for (int l = 0; l < 32; ++l) {
      const int hi = five && (qh[l] & u1) ? 16 : 0;
      *y++ = d1 * static_cast<float>((q[l] & 0xF) + hi) - m1;
    }
    for (int l = 0; l < 32; ++l) {
      const int hi = five && (qh[l] & u2) ? 16 : 0;
      *y++ = d2 * static_cast<float>((q[l] >> 4) + hi) - m2;
    }
    q += 32;
    u1 = static_cast<uint8_t>(u1 << 2);
    u2 = static_cast<uint8_t>(u2 << 2);
  }
}

// Q6_K, 210 bytes: 128 bytes low nibbles, 64 bytes high 2-bit pairs, 16 int8 scales,
// f16 d: 16 sub-blocks of 16, each d * scale * (q - 32).
void Q6_KBlock(const uint8_t* b, float* y) {
  const uint8_t* ql = b;
  const uint8_t* qh = b + 128;
  const int8_t* sc = reinterpret_cast<const int8_t*>(b + 192);
  const float d = Half(b + 208);
  for (size_t n = 0; n < kQK; n += 128) {
    for (int l = 0; l < 32; ++l) {
      const int is = l / 16;
      const int q1 = ((ql[l] & 0xF) | (((qh[l] >> 0) & 3) << 4)) - 32;
      const int q2 = ((ql[l + 32] & 0xF) | (((qh[l] >> 2) & 3) << 4)) - 32;
      const int q3 = ((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32;
      const int q4 = ((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32;
      y[l] = d * sc[is] * static_cast<float>(q1);
      y[l + 32] = d * sc[is + 2] * static_cast<float>(q2);
      y[l + 64] = d * sc[is + 4] * static_cast<float>(q3);
      y[l + 96] = d * sc[is + 6] * static_cast<float>(q4);
    }
    y += 128;
    ql += 64;
    qh += 32;
    sc += 8;
  }
}

struct BlockDecoder {
  uint32_t type;
  size_t block, bytes;
  void (*decode)(const uint8_t* b, float* y);
};

const BlockDecoder kDecoders[] = {
    {2, 32, 18, Q4_0Block},
    {3, 32, 20, Q4_1Block},
    {6, 32, 22, [](const uint8_t* b, float* y) { Q5Block(b, false, y); }},
    {7, 32, 24, [](const uint8_t* b, float* y) { Q5Block(b, true, y); }},
    {8, 32, 34, Q8_0Block},
    {12, kQK, 144, [](const uint8_t* b, float* y) { QK45Block(b, false, y); }},
    {13, kQK, 176, [](const uint8_t* b, float* y) { QK45Block(b, true, y); }},
    {14, kQK, 210, Q6_KBlock},
};

const BlockDecoder* FindDecoder(uint32_t type) {
  for (const BlockDecoder& d : kDecoders) {
    if (d.type == type) return &d;
  }
  return nullptr;
}

}  // namespace

bool CanDequantizeGgml(uint32_t type) {
  return type == 0 || type == 1 || type == 30 || FindDecoder(type) != nullptr;
}

bool DequantizeGgml(uint32_t type, const uint8_t* data, size_t elements, float* out) {
  switch (type) {
    case 0:  // F32
      if (elements != 0) std::memcpy(out, data, elements * 4);  // little-endian host
      return true;
    case 1:  // F16
      for (size_t i = 0; i < elements; ++i) out[i] = F16ToF32(Le16(data + 2 * i));
      return true;
    case 30:  // BF16
      for (size_t i = 0; i < elements; ++i) out[i] = BF16ToF32(Le16(data + 2 * i));
      return true;
    default:
      break;
  }
  const BlockDecoder* d = FindDecoder(type);
  if (d == nullptr || elements % d->block != 0) return false;
  for (size_t b = 0; b < elements / d->block; ++b) d->decode(data + b * d->bytes, out + b * d->block);
  return true;
}

void SplitQ8_0Row(const uint8_t* blocks, size_t cols, int8_t* values, uint16_t* scales) {
  for (size_t b = 0; b < cols / 32; ++b) {
    const uint8_t* block = blocks + b * 34;
    scales[b] = Le16(block);
    std::memcpy(values + b * 32, block + 2, 32);
  }
}

}  // namespace attnrt
