// LayerNorm over the last dimension, as torch.nn.LayerNorm(n, eps) computes it,
// and Llama's RMSNorm.
//
// Per row: y = (x - mean) / sqrt(var + eps) * gamma + beta, with the biased
// variance (divide by n). The runtime splits rows over workers by passing
// offset pointers and a row count. No allocation, no exceptions, no printing.
#pragma once

#include <cstddef>

namespace attnrt {

// gamma == nullptr means all ones, beta == nullptr all zeros (elementwise_affine
// off). y may equal x (same stride) for in place; otherwise they must not overlap.
void LayerNormRows(const float* x, size_t x_stride, size_t rows, size_t n, const float* gamma,
                   const float* beta, float eps, float* y, size_t y_stride);
// RMSNorm as Llama computes it (llama2.c / Meta RMSNorm): per row
// y = x / sqrt(mean(x^2) + eps) * weight, weight == nullptr meaning all ones.
// Same aliasing rules as LayerNormRows. Summed in float like llama2.c and the
// float32 torch module, so a row whose sum(x^2) passes FLT_MAX (|x| ~ 1e19 / sqrt(n))
// gives 0 (NaN for an inf element).
void RmsNormRows(const float* x, size_t x_stride, size_t rows, size_t n, const float* weight,
                 float eps, float* y, size_t y_stride);
// Instruction set LayerNormRows and RmsNormRows use on this machine.
const char* LayerNormIsa();

// Scalar oracles for tests: in double (LayerNorm in two passes).
void ReferenceLayerNormRows(const float* x, size_t x_stride, size_t rows, size_t n,
                            const float* gamma, const float* beta, float eps, float* y,
                            size_t y_stride);
void ReferenceRmsNormRows(const float* x, size_t x_stride, size_t rows, size_t n,
                          const float* weight, float eps, float* y, size_t y_stride);

}  // namespace attnrt
