// Elementwise ops of the transformer blocks, in place over n contiguous floats.
//
// GeluInPlace is PyTorch's default GELU (approximate='none'): 0.5 x (1 + erf(x / sqrt 2)).
// The vectorized erf is float-only (no double helpers, so it also runs on
// Cortex-M), max abs error below 1e-6. No allocation, no exceptions, no printing.
#pragma once

#include <cstddef>

namespace attnrt {

void GeluInPlace(float* x, size_t n);
// max(x, 0); NaN stays NaN as in torch.relu.
void ReluInPlace(float* x, size_t n);
// y[i] += x[i] (the residual connection); x may equal y.
void AddInPlace(float* y, const float* x, size_t n);
// gate[i] = silu(gate[i]) * up[i], silu(x) = x / (1 + e^-x): the SwiGLU
// feed-forward of Llama (w2(silu(w1 x) * w3 x)). up must not overlap gate.
// Float-only, relative error below 1e-6; as torch.nn.functional.silu, silu(+inf)
// = inf, silu(-inf) = NaN, NaN stays NaN; below -87 silu is -0 (true |value| < 1.5e-36).
void SiluMulInPlace(float* gate, const float* up, size_t n);
// GELU with PyTorch's approximate='tanh' (GPT-2's gelu_new, Gemma's gelu_pytorch_tanh):
// 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), in place. Computed as the same function
// x * sigmoid(2 sqrt(2/pi) (x + 0.044715 x^3)), which has no cancellation in 1 + tanh;
// float-only, relative error below 1e-6 (about 4e-7) wherever |value| >= 1e-36.
// As torch's float formula: NaN stays NaN, gelu_tanh(+inf) = +inf, gelu_tanh(-inf) = NaN
// (-inf * 0, as torch gives, and as GeluInPlace), and finite x below -10 give -0 (torch
// gives -0 from about -5.2 down, where its 1 + tanh rounds to 0; the true |value| there
// is under 1e-7, and under 2e-37 below -10).
void GeluTanhInPlace(float* x, size_t n);
// gate[i] = gelu_tanh(gate[i]) * up[i]: Gemma's GeGLU feed-forward
// (down(gelu_tanh(gate x) * up x)). up must not overlap gate.
void GeluTanhMulInPlace(float* gate, const float* up, size_t n);
// x[i] *= s (Gemma's embedding scale sqrt(hidden)); one float multiply, as torch's.
void ScaleInPlace(float* x, size_t n, float s);
// erf of each element: the building block of GELU, exposed so tests can sweep it.
void ErfInPlace(float* x, size_t n);
// e^x as the SDPA softmax computes it (float-only; exactly 0 below -87; NaN stays NaN;
// valid for x <= 88), exposed so tests can sweep it.
void SoftmaxExpInPlace(float* x, size_t n);
// Instruction set these ops use on this machine.
const char* ElementwiseIsa();

// Scalar oracles for tests (std::erf and std::exp in double; gelu_tanh as
// x / (1 + e^(-2 sqrt(2/pi) (x + 0.044715 x^3))), exact up to double rounding).
void ReferenceGeluInPlace(float* x, size_t n);
void ReferenceReluInPlace(float* x, size_t n);
void ReferenceAddInPlace(float* y, const float* x, size_t n);
void ReferenceSiluMulInPlace(float* gate, const float* up, size_t n);
void ReferenceGeluTanhInPlace(float* x, size_t n);
void ReferenceGeluTanhMulInPlace(float* gate, const float* up, size_t n);
void ReferenceScaleInPlace(float* x, size_t n, float s);

}  // namespace attnrt
