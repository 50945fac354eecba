// LayerNorm over the last dimension, as torch.nn.LayerNorm(n, eps) computes it.
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
// Instruction set LayerNormRows uses on this machine.
const char* LayerNormIsa();

// Scalar oracle for tests: two passes in double.
void ReferenceLayerNormRows(const float* x, size_t x_stride, size_t rows, size_t n,
                            const float* gamma, const float* beta, float eps, float* y,
                            size_t y_stride);

}  // namespace attnrt
