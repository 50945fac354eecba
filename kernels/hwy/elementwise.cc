// hwy elementwise ops: GELU (exact erf form and tanh form), erf, the softmax's exp, ReLU,
// residual add, scaling, SwiGLU's silu(gate) * up and GeGLU's gelu_tanh(gate) * up.
//
// Memory-bound streams: one load and one store per vector, so no unrolling. The
// last partial vector goes through a stack buffer of one vector so it runs the
// very same arithmetic as the body (results never depend on an element's
// position) and nothing is read or written past the end.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/hwy/elementwise.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include <cstddef>

#include "attnrt/kernels/elementwise.h"
#include "hwy/highway.h"
#include "kernels/hwy/hwy_namespace.h"
#include "kernels/hwy/erf-inl.h"
#include "kernels/hwy/exp-inl.h"
#include "kernels/hwy/sigmoid_activations-inl.h"

ATTNRT_HWY_BEGIN

using DF = hn::ScalableTag<float>;

// x[i] = op(x[i]) for i < n, op mapping a vector to a vector.
template <class Op>
HWY_INLINE void MapInPlace(float* HWY_RESTRICT x, size_t n, Op op) {
  const DF d;
  const size_t N = hn::Lanes(d);
  size_t i = 0;
  for (; i + N <= n; i += N) hn::StoreU(op(d, hn::LoadU(d, x + i)), d, x + i);
  if (i == n) return;
  HWY_ALIGN float tail[hn::MaxLanes(DF())] = {};
  const size_t rest = n - i;
  for (size_t j = 0; j < rest; ++j) tail[j] = x[i + j];
  hn::Store(op(d, hn::Load(d, tail)), d, tail);
  for (size_t j = 0; j < rest; ++j) x[i + j] = tail[j];
}

// The op that is one of the -inl.h functions f(d, x) (ErfFloat, ExpSoftmax, GeluTanh, Silu).
template <hn::Vec<DF> (*F)(DF, hn::Vec<DF>)>
struct FunctionOp {
  HWY_INLINE hn::Vec<DF> operator()(DF d, hn::Vec<DF> x) const { return F(d, x); }
};
using ErfOp = FunctionOp<ErfFloat<DF, hn::Vec<DF>>>;
using SoftmaxExpOp = FunctionOp<ExpSoftmax<DF, hn::Vec<DF>>>;
using GeluTanhOp = FunctionOp<GeluTanh<DF, hn::Vec<DF>>>;
using SiluOp = FunctionOp<Silu<DF, hn::Vec<DF>>>;

struct GeluOp {
  template <class V>
  HWY_INLINE V operator()(DF d, V x) const {
    const V half_x = hn::Mul(x, hn::Set(d, 0.5f));
    const V e = ErfFloat(d, hn::Mul(x, hn::Set(d, 0.707106781186547524f)));
    return hn::MulAdd(half_x, e, half_x);
  }
};

struct ReluOp {
  // Lt is false for NaN, so NaN passes through (Max(x, 0) would turn it into 0 on x86).
  template <class V>
  HWY_INLINE V operator()(DF d, V x) const {
    return hn::IfThenZeroElse(hn::Lt(x, hn::Zero(d)), x);
  }
};

struct ScaleOp {
  float s;
  template <class V>
  HWY_INLINE V operator()(DF d, V x) const {
    return hn::Mul(x, hn::Set(d, s));
  }
};

// gate[i] = op(gate[i]) * up[i], the tail through one-vector buffers (see MapInPlace).
template <class Op>
HWY_INLINE void MapMulInPlace(float* HWY_RESTRICT gate, const float* HWY_RESTRICT up, size_t n,
                              Op op) {
  const DF d;
  const size_t N = hn::Lanes(d);
  size_t i = 0;
  for (; i + N <= n; i += N) {
    hn::StoreU(hn::Mul(op(d, hn::LoadU(d, gate + i)), hn::LoadU(d, up + i)), d, gate + i);
  }
  if (i == n) return;
  HWY_ALIGN float gate_tail[hn::MaxLanes(DF())] = {};
  HWY_ALIGN float up_tail[hn::MaxLanes(DF())] = {};
  const size_t rest = n - i;
  for (size_t j = 0; j < rest; ++j) {
    gate_tail[j] = gate[i + j];
    up_tail[j] = up[i + j];
  }
  hn::Store(hn::Mul(op(d, hn::Load(d, gate_tail)), hn::Load(d, up_tail)), d, gate_tail);
  for (size_t j = 0; j < rest; ++j) gate[i + j] = gate_tail[j];
}

void SiluMulInPlace(float* gate, const float* up, size_t n) {
  MapMulInPlace(gate, up, n, SiluOp());
}
void GeluTanhMulInPlace(float* gate, const float* up, size_t n) {
  MapMulInPlace(gate, up, n, GeluTanhOp());
}
void GeluTanhInPlace(float* x, size_t n) { MapInPlace(x, n, GeluTanhOp()); }
void ScaleInPlace(float* x, size_t n, float s) { MapInPlace(x, n, ScaleOp{s}); }
void GeluInPlace(float* x, size_t n) { MapInPlace(x, n, GeluOp()); }
void ErfInPlace(float* x, size_t n) { MapInPlace(x, n, ErfOp()); }
void SoftmaxExpInPlace(float* x, size_t n) { MapInPlace(x, n, SoftmaxExpOp()); }
void ReluInPlace(float* x, size_t n) { MapInPlace(x, n, ReluOp()); }

// y may equal x exactly; partial overlap is not supported.
void AddInPlace(float* y, const float* x, size_t n) {
  const DF d;
  const size_t N = hn::Lanes(d);
  size_t i = 0;
  for (; i + N <= n; i += N) {
    hn::StoreU(hn::Add(hn::LoadU(d, y + i), hn::LoadU(d, x + i)), d, y + i);
  }
  for (; i < n; ++i) y[i] += x[i];
}

const char* ElementwiseIsa() { return hwy::TargetName(HWY_TARGET); }

ATTNRT_HWY_END

#if HWY_ONCE
#include "attnrt/kernels/nn_kernel.h"
#include "kernels/hwy/nn_hwy.h"

namespace attnrt {

HWY_EXPORT(GeluInPlace);
HWY_EXPORT(ErfInPlace);
HWY_EXPORT(SoftmaxExpInPlace);
HWY_EXPORT(ReluInPlace);
HWY_EXPORT(AddInPlace);
HWY_EXPORT(SiluMulInPlace);
HWY_EXPORT(GeluTanhInPlace);
HWY_EXPORT(GeluTanhMulInPlace);
HWY_EXPORT(ScaleInPlace);
HWY_EXPORT(ElementwiseIsa);

void HwyGeluInPlace(float* x, size_t n) { HWY_DYNAMIC_DISPATCH(GeluInPlace)(x, n); }
void HwyErfInPlace(float* x, size_t n) { HWY_DYNAMIC_DISPATCH(ErfInPlace)(x, n); }
void HwySoftmaxExpInPlace(float* x, size_t n) { HWY_DYNAMIC_DISPATCH(SoftmaxExpInPlace)(x, n); }
void HwyReluInPlace(float* x, size_t n) { HWY_DYNAMIC_DISPATCH(ReluInPlace)(x, n); }
void HwyAddInPlace(float* y, const float* x, size_t n) {
  HWY_DYNAMIC_DISPATCH(AddInPlace)(y, x, n);
}
void HwySiluMulInPlace(float* gate, const float* up, size_t n) {
  HWY_DYNAMIC_DISPATCH(SiluMulInPlace)(gate, up, n);
}
void HwyGeluTanhInPlace(float* x, size_t n) { HWY_DYNAMIC_DISPATCH(GeluTanhInPlace)(x, n); }
void HwyGeluTanhMulInPlace(float* gate, const float* up, size_t n) {
  HWY_DYNAMIC_DISPATCH(GeluTanhMulInPlace)(gate, up, n);
}
void HwyScaleInPlace(float* x, size_t n, float s) { HWY_DYNAMIC_DISPATCH(ScaleInPlace)(x, n, s); }
const char* HwyNnIsa() { return HWY_DYNAMIC_DISPATCH(ElementwiseIsa)(); }

// nn_variants.inc; rank 1: every op, on the best Highway target of this machine.
extern const NnKernel kNnHwy = {"hwy",
                                1,
                                HwyNnIsa,
                                HwyLayerNormRows,
                                HwyRmsNormRows,
                                HwyRopeRows,
                                HwyGeluInPlace,
                                HwyReluInPlace,
                                HwyAddInPlace,
                                HwySiluMulInPlace,
                                HwyGeluTanhInPlace,
                                HwyGeluTanhMulInPlace,
                                HwyScaleInPlace,
                                HwyErfInPlace,
                                HwySoftmaxExpInPlace,
                                HwyStoreKvRows};

}  // namespace attnrt
#endif  // HWY_ONCE
