// Scalar oracles for Linear, LayerNorm, RMSNorm, RoPE and the elementwise ops.
//
// Plain loops accumulating in double, one output at a time: obviously right when
// read, and the values every vectorized variant is tested against.
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "attnrt/kernels/activation_blocks.h"
#include "attnrt/kernels/elementwise.h"
#include "attnrt/kernels/float16.h"
#include "attnrt/kernels/kv_store.h"
#include "attnrt/kernels/layer_norm.h"
#include "attnrt/kernels/linear.h"
#include "attnrt/kernels/linear_kernel.h"
#include "attnrt/kernels/nn_kernel.h"
#include "attnrt/kernels/rope.h"
#include "attnrt/kernels/weight_codecs.h"

namespace attnrt {

// Weights are widened by their type's scalar codec (weight_codecs.h), so the oracle
// shares no code with the SIMD kernels.
void ReferenceLinear(const LinearParams& p) {
  const WeightMatrixRef w{p.w, LinearScalePlane(p), p.in};
  for (size_t m = 0; m < p.rows; ++m) {
    const float* x = p.x + m * p.x_stride;
    for (size_t n = 0; n < p.out; ++n) {
      double acc = p.bias != nullptr ? double(p.bias[n]) : 0.0;
      for (size_t k = 0; k < p.in; ++k) acc += double(x[k]) * WeightValue(p.w_type, w, n, k);
      p.y[m * p.y_stride + n] = static_cast<float>(acc);
    }
  }
}

// Quantizes one block at a time on the stack (the oracle holds no row buffer) and sums
// each output's blocks in order.
void ReferenceLinearQ8Activations(const LinearParams& p) {
  const WeightMatrixRef w{p.w, LinearScalePlane(p), p.in};
  int8_t q[kActivationBlock];
  float d;
  for (size_t m = 0; m < p.rows; ++m) {
    const float* x = p.x + m * p.x_stride;
    for (size_t n = 0; n < p.out; ++n) {
      double acc = p.bias != nullptr ? double(p.bias[n]) : 0.0;
      for (size_t k0 = 0; k0 < p.in; k0 += kActivationBlock) {
        const size_t len = p.in - k0 < kActivationBlock ? p.in - k0 : kActivationBlock;
        QuantizeActivationRow(x + k0, len, q, &d);
        for (size_t j = 0; j < len; ++j) {
          acc += double(q[j]) * double(d) * WeightValue(p.w_type, w, n, k0 + j);
        }
      }
      p.y[m * p.y_stride + n] = static_cast<float>(acc);
    }
  }
}

namespace {

bool ReferenceSupports(WeightType t) { return IsKnownWeightType(static_cast<uint8_t>(t)); }
size_t ReferenceScratchFloats(const LinearParams&) { return 0; }
// One item, the whole call: the oracle is not split.
size_t ReferenceWorkItems(const LinearParams& p) {
  return p.rows != 0 && ReferenceSupports(p.w_type) ? 1 : 0;
}
void ReferenceRun(const LinearParams& p, size_t begin, size_t end, float*) {
  if (begin == 0 && end >= 1 && ReferenceWorkItems(p) == 1) ReferenceLinear(p);
}
const char* ReferenceIsa() { return "scalar"; }

}  // namespace

// linear_variants.inc. Rank 0: `auto` takes it only for a type no other kernel reads.
extern const LinearKernel kLinearReference = {"reference",  0, ReferenceSupports,
                                              ReferenceScratchFloats, ReferenceWorkItems,
                                              ReferenceRun, ReferenceIsa, false,
                                              nullptr, nullptr, nullptr, nullptr};

void ReferenceLayerNormRows(const float* x, size_t x_stride, size_t rows, size_t n,
                            const float* gamma, const float* beta, float eps, float* y,
                            size_t y_stride) {
  if (n == 0) return;
  for (size_t r = 0; r < rows; ++r) {
    const float* xr = x + r * x_stride;
    float* yr = y + r * y_stride;
    double mean = 0.0;
    for (size_t i = 0; i < n; ++i) mean += xr[i];
    mean /= double(n);
    double var = 0.0;
    for (size_t i = 0; i < n; ++i) var += (xr[i] - mean) * (xr[i] - mean);
    var /= double(n);
    const double rstd = 1.0 / std::sqrt(var + double(eps));
    for (size_t i = 0; i < n; ++i) {
      const double g = gamma != nullptr ? double(gamma[i]) : 1.0;
      const double b = beta != nullptr ? double(beta[i]) : 0.0;
      yr[i] = static_cast<float>((xr[i] - mean) * rstd * g + b);
    }
  }
}

void ReferenceRmsNormRows(const float* x, size_t x_stride, size_t rows, size_t n,
                          const float* weight, float eps, float* y, size_t y_stride) {
  if (n == 0) return;
  for (size_t r = 0; r < rows; ++r) {
    const float* xr = x + r * x_stride;
    float* yr = y + r * y_stride;
    double sum_squares = 0.0;
    for (size_t i = 0; i < n; ++i) sum_squares += double(xr[i]) * double(xr[i]);
    const double rstd = 1.0 / std::sqrt(sum_squares / double(n) + double(eps));
    for (size_t i = 0; i < n; ++i) {
      const double w = weight != nullptr ? double(weight[i]) : 1.0;
      yr[i] = static_cast<float>(double(xr[i]) * rstd * w);
    }
  }
}

void ReferenceRopeRows(float* x, size_t x_stride, size_t rows, size_t heads, size_t head_dim,
                       size_t first_position, double theta, RopeStyle style) {
  if (head_dim % 2 != 0) return;  // as RopeRows: no pairs to rotate
  const size_t half = head_dim / 2;
  for (size_t r = 0; r < rows; ++r) {
    const double position = double(first_position + r);
    for (size_t h = 0; h < heads; ++h) {
      float* head = x + r * x_stride + h * head_dim;
      for (size_t i = 0; i < half; ++i) {
        const double angle = position * std::pow(theta, -double(2 * i) / double(head_dim));
        const double c = std::cos(angle), s = std::sin(angle);
        float* a = style == RopeStyle::kInterleaved ? head + 2 * i : head + i;
        float* b = style == RopeStyle::kInterleaved ? head + 2 * i + 1 : head + i + half;
        const double va = *a, vb = *b;
        *a = static_cast<float>(va * c - vb * s);
        *b = static_cast<float>(va * s + vb * c);
      }
    }
  }
}

void ReferenceSiluMulInPlace(float* gate, const float* up, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    const double g = gate[i];
    gate[i] = static_cast<float>(g / (1.0 + std::exp(-g)) * double(up[i]));
  }
}

namespace {

// 0.5 x (1 + tanh(u)) = x / (1 + e^(-2u)), u = sqrt(2/pi) (x + 0.044715 x^3): the
// literal form loses everything to cancellation in 1 + tanh(u) below x = -7 even in
// double; this one is exact up to double rounding for every float x, +-inf and NaN
// included (x = -inf: -inf / inf = NaN, as torch's -inf * 0).
double GeluTanh(double x) {
  const double sqrt_2_over_pi = 0.79788456080286535588;
  const double two_u = 2.0 * sqrt_2_over_pi * (x + 0.044715 * x * x * x);
  return x / (1.0 + std::exp(-two_u));
}

}  // namespace

void ReferenceGeluTanhInPlace(float* x, size_t n) {
  for (size_t i = 0; i < n; ++i) x[i] = static_cast<float>(GeluTanh(x[i]));
}

void ReferenceGeluTanhMulInPlace(float* gate, const float* up, size_t n) {
  for (size_t i = 0; i < n; ++i) gate[i] = static_cast<float>(GeluTanh(gate[i]) * double(up[i]));
}

// The double product of two floats is exact, so this rounds once, as a float multiply.
void ReferenceScaleInPlace(float* x, size_t n, float s) {
  for (size_t i = 0; i < n; ++i) x[i] = static_cast<float>(double(x[i]) * double(s));
}

void ReferenceGeluInPlace(float* x, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    const double v = x[i];
    x[i] = static_cast<float>(0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0))));
  }
}

void ReferenceReluInPlace(float* x, size_t n) {
  for (size_t i = 0; i < n; ++i) x[i] = x[i] < 0.0f ? 0.0f : x[i];
}

void ReferenceAddInPlace(float* y, const float* x, size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] += x[i];
}

namespace {

// RopeRows' contract from its table, one pair at a time in double.
void ReferenceRopeTableRows(float* x, size_t x_stride, size_t rows, size_t heads,
                            size_t head_dim, size_t first_position, const float* table,
                            RopeStyle style) {
  if (head_dim % 2 != 0) return;
  const size_t half = head_dim / 2;
  for (size_t r = 0; r < rows; ++r) {
    const float* cos = table + (first_position + r) * head_dim;
    for (size_t h = 0; h < heads; ++h) {
      float* head = x + r * x_stride + h * head_dim;
      for (size_t i = 0; i < half; ++i) {
        float* a = style == RopeStyle::kInterleaved ? head + 2 * i : head + i;
        float* b = style == RopeStyle::kInterleaved ? head + 2 * i + 1 : head + i + half;
        const double va = *a, vb = *b, c = cos[i], sn = cos[half + i];
        *a = static_cast<float>(va * c - vb * sn);
        *b = static_cast<float>(va * sn + vb * c);
      }
    }
  }
}

// kv_store.h's layouts, one element at a time.
bool ReferenceStoreKvRows(KvType type, const float* src, size_t src_row_stride, size_t rows,
                          size_t cols, void* dst, size_t dst_row_stride, float* scales,
                          size_t scale_stride) {
  if (!IsKvType(type)) return false;
  for (size_t r = 0; r < rows; ++r) {
    const float* s = src + r * src_row_stride;
    if (type == KvType::kF32) {
      float* out = static_cast<float*>(dst) + r * dst_row_stride;
      for (size_t c = 0; c < cols; ++c) out[c] = s[c];
    } else if (type == KvType::kF16) {
      uint16_t* out = static_cast<uint16_t*>(dst) + r * dst_row_stride;
      for (size_t c = 0; c < cols; ++c) out[c] = F32ToKvF16(s[c]);
    } else {
      int8_t* out = static_cast<int8_t*>(dst) + r * dst_row_stride;
      float amax = 0.0f;
      bool finite = true;
      for (size_t c = 0; c < cols; ++c) {
        finite = finite && std::isfinite(s[c]);
        amax = std::fabs(s[c]) > amax ? std::fabs(s[c]) : amax;
      }
      const float scale = finite ? amax / 127.0f : NAN;
      for (size_t c = 0; c < cols; ++c) {
        const float q = finite && scale != 0.0f ? std::nearbyint(s[c] / scale) : 0.0f;
        out[c] = static_cast<int8_t>(q < -127.0f ? -127.0f : (q > 127.0f ? 127.0f : q));
      }
      scales[r * scale_stride] = finite && scale == 0.0f ? 0.0f : scale;
    }
  }
  return true;
}

}  // namespace

// Erf and SoftmaxExp have no oracle here (their tests sweep std::erf / std::exp): nullptr.
extern const NnKernel kNnReference = {"reference",
                                      0,
                                      ReferenceIsa,
                                      ReferenceLayerNormRows,
                                      ReferenceRmsNormRows,
                                      ReferenceRopeTableRows,
                                      ReferenceGeluInPlace,
                                      ReferenceReluInPlace,
                                      ReferenceAddInPlace,
                                      ReferenceSiluMulInPlace,
                                      ReferenceGeluTanhInPlace,
                                      ReferenceGeluTanhMulInPlace,
                                      ReferenceScaleInPlace,
                                      nullptr,
                                      nullptr,
                                      ReferenceStoreKvRows};

}  // namespace attnrt
