// hwy LayerNorm over rows, torch.nn.LayerNorm semantics (biased variance).
//
// Three passes over a row that sits in L1 (n <= a few thousand floats):
//   1. m = sum(x) / n;
//   2. with d = x - m: s1 = sum(d), s2 = sum(d^2); the corrected two-pass
//      formulas mean = m + s1/n, var = s2/n - (s1/n)^2 undo the rounding error of
//      m, so rows with a large offset (|mean| >> std) keep their accuracy;
//   3. y = ((x - m) - s1/n) * (rstd * gamma) + beta.
// x - m is exact when x is near m (Sterbenz), which is what keeps offset rows
// accurate. Pass 3 reads x fully before writing y's lanes, so y == x is fine.
//
// RMSNorm (Llama) is two passes: ss = sum(x^2) with two vector accumulators, then
// y = (x * rstd) * w, rstd = 1 / sqrt(ss / n + eps), all in float as llama2.c and
// the float32 torch module compute it (so, like them, sum(x^2) overflows to inf
// when |x| reaches ~1e19). Pass 2 is multiplies only: the scalar tail rounds as
// the vector body does, so a value's result never depends on its position.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/hwy/layer_norm.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include <cmath>
#include <cstddef>

#include "attnrt/kernels/layer_norm.h"
#include "hwy/highway.h"
#include "kernels/hwy/hwy_namespace.h"

ATTNRT_HWY_BEGIN

using DF = hn::ScalableTag<float>;

// acc + v (kSquares false) or acc + v * v.
template <bool kSquares, class V>
HWY_INLINE V AddTerm(V acc, V v) {
  if constexpr (kSquares) {
    return hn::MulAdd(v, v, acc);
  } else {
    return hn::Add(acc, v);
  }
}

// sum(x) (LayerNorm's pass 1) or sum(x^2) (RMSNorm's), with two vector accumulators.
template <bool kSquares>
HWY_INLINE float RowSum(const float* HWY_RESTRICT x, size_t n) {
  const DF d;
  const size_t N = hn::Lanes(d);
  auto acc0 = hn::Zero(d), acc1 = hn::Zero(d);
  size_t i = 0;
  for (; i + 2 * N <= n; i += 2 * N) {
    const auto v0 = hn::LoadU(d, x + i);
    const auto v1 = hn::LoadU(d, x + i + N);
    acc0 = AddTerm<kSquares>(acc0, v0);
    acc1 = AddTerm<kSquares>(acc1, v1);
  }
  for (; i + N <= n; i += N) acc0 = AddTerm<kSquares>(acc0, hn::LoadU(d, x + i));
  float sum = hn::GetLane(hn::SumOfLanes(d, hn::Add(acc0, acc1)));
  if constexpr (kSquares) {
    for (; i < n; ++i) sum += x[i] * x[i];
  } else {
    for (; i < n; ++i) sum += x[i];
  }
  return sum;
}

// s1 = sum(x - m), s2 = sum((x - m)^2).
HWY_INLINE void RowDeviationSums(const float* HWY_RESTRICT x, size_t n, float m, float* s1,
                                 float* s2) {
  const DF d;
  const size_t N = hn::Lanes(d);
  const auto vm = hn::Set(d, m);
  auto sum1 = hn::Zero(d), sum2 = hn::Zero(d);
  size_t i = 0;
  for (; i + N <= n; i += N) {
    const auto dev = hn::Sub(hn::LoadU(d, x + i), vm);
    sum1 = hn::Add(sum1, dev);
    sum2 = hn::MulAdd(dev, dev, sum2);
  }
  float t1 = hn::GetLane(hn::SumOfLanes(d, sum1));
  float t2 = hn::GetLane(hn::SumOfLanes(d, sum2));
  for (; i < n; ++i) {
    const float dev = x[i] - m;
    t1 += dev;
    t2 += dev * dev;
  }
  *s1 = t1;
  *s2 = t2;
}

// One vector of output: y = ((x - m) - c) * (rstd * gamma) + beta.
HWY_INLINE hn::Vec<DF> NormalizeVector(DF d, hn::Vec<DF> x, hn::Vec<DF> m, hn::Vec<DF> c,
                                       hn::Vec<DF> rstd, const float* gamma, const float* beta,
                                       size_t i) {
  const auto scale = gamma == nullptr ? rstd : hn::Mul(rstd, hn::LoadU(d, gamma + i));
  const auto shift = beta == nullptr ? hn::Zero(d) : hn::LoadU(d, beta + i);
  return hn::MulAdd(hn::Sub(hn::Sub(x, m), c), scale, shift);
}

void NormalizeRow(const float* x, size_t n, const float* HWY_RESTRICT gamma,
                  const float* HWY_RESTRICT beta, float eps, float* y) {
  const DF d;
  const size_t N = hn::Lanes(d);
  const float inv_n = 1.0f / static_cast<float>(n);
  const float m = RowSum<false>(x, n) * inv_n;
  float s1, s2;
  RowDeviationSums(x, n, m, &s1, &s2);
  const float c = s1 * inv_n;
  const float var = HWY_MAX(s2 * inv_n - c * c, 0.0f);
  const float rstd = 1.0f / std::sqrt(var + eps);

  const auto vm = hn::Set(d, m), vc = hn::Set(d, c), vr = hn::Set(d, rstd);
  size_t i = 0;
  for (; i + N <= n; i += N) {
    hn::StoreU(NormalizeVector(d, hn::LoadU(d, x + i), vm, vc, vr, gamma, beta, i), d, y + i);
  }
  if (i == n) return;
  // Last partial vector through one-vector buffers: same arithmetic, no over-read.
  HWY_ALIGN float xt[hn::MaxLanes(DF())] = {};
  HWY_ALIGN float gt[hn::MaxLanes(DF())] = {};
  HWY_ALIGN float bt[hn::MaxLanes(DF())] = {};
  const size_t rest = n - i;
  for (size_t j = 0; j < rest; ++j) {
    xt[j] = x[i + j];
    if (gamma != nullptr) gt[j] = gamma[i + j];
    if (beta != nullptr) bt[j] = beta[i + j];
  }
  const auto out = NormalizeVector(d, hn::Load(d, xt), vm, vc, vr, gamma == nullptr ? nullptr : gt,
                                   beta == nullptr ? nullptr : bt, 0);
  hn::Store(out, d, xt);
  for (size_t j = 0; j < rest; ++j) y[i + j] = xt[j];
}

void LayerNormRows(const float* x, size_t x_stride, size_t rows, size_t n, const float* gamma,
                   const float* beta, float eps, float* y, size_t y_stride) {
  if (n == 0) return;
  for (size_t r = 0; r < rows; ++r) {
    NormalizeRow(x + r * x_stride, n, gamma, beta, eps, y + r * y_stride);
  }
}

void RmsNormRow(const float* x, size_t n, const float* HWY_RESTRICT weight, float eps, float* y) {
  const DF d;
  const size_t N = hn::Lanes(d);
  const float mean_square = RowSum<true>(x, n) / static_cast<float>(n);
  const float rstd = 1.0f / std::sqrt(mean_square + eps);
  const auto vr = hn::Set(d, rstd);
  size_t i = 0;
  if (weight == nullptr) {
    for (; i + N <= n; i += N) hn::StoreU(hn::Mul(hn::LoadU(d, x + i), vr), d, y + i);
    for (; i < n; ++i) y[i] = x[i] * rstd;
    return;
  }
  for (; i + N <= n; i += N) {
    const auto scaled = hn::Mul(hn::LoadU(d, x + i), vr);
    hn::StoreU(hn::Mul(scaled, hn::LoadU(d, weight + i)), d, y + i);
  }
  for (; i < n; ++i) y[i] = (x[i] * rstd) * weight[i];
}

void RmsNormRows(const float* x, size_t x_stride, size_t rows, size_t n, const float* weight,
                 float eps, float* y, size_t y_stride) {
  if (n == 0) return;
  for (size_t r = 0; r < rows; ++r) {
    RmsNormRow(x + r * x_stride, n, weight, eps, y + r * y_stride);
  }
}

ATTNRT_HWY_END

#if HWY_ONCE
#include "kernels/hwy/nn_hwy.h"

namespace attnrt {

HWY_EXPORT(LayerNormRows);
HWY_EXPORT(RmsNormRows);

void HwyLayerNormRows(const float* x, size_t x_stride, size_t rows, size_t n,
                      const float* gamma, const float* beta, float eps, float* y,
                      size_t y_stride) {
  HWY_DYNAMIC_DISPATCH(LayerNormRows)(x, x_stride, rows, n, gamma, beta, eps, y, y_stride);
}

void HwyRmsNormRows(const float* x, size_t x_stride, size_t rows, size_t n, const float* weight,
                    float eps, float* y, size_t y_stride) {
  HWY_DYNAMIC_DISPATCH(RmsNormRows)(x, x_stride, rows, n, weight, eps, y, y_stride);
}

}  // namespace attnrt
#endif  // HWY_ONCE
