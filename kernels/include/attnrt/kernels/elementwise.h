// Elementwise ops of the transformer blocks, in place over n contiguous floats.
//
// GELU is PyTorch's default (approximate='none'): 0.5 x (1 + erf(x / sqrt 2)).
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
// erf of each element: the building block of GELU, exposed so tests can sweep it.
void ErfInPlace(float* x, size_t n);
// e^x as the SDPA softmax computes it (float-only; exactly 0 below -87; NaN stays NaN;
// valid for x <= 88), exposed so tests can sweep it.
void SoftmaxExpInPlace(float* x, size_t n);
// Instruction set these ops use on this machine.
const char* ElementwiseIsa();

// Scalar oracles for tests (std::erf and std::exp in double).
void ReferenceGeluInPlace(float* x, size_t n);
void ReferenceReluInPlace(float* x, size_t n);
void ReferenceAddInPlace(float* y, const float* x, size_t n);
void ReferenceSiluMulInPlace(float* gate, const float* up, size_t n);

}  // namespace attnrt
