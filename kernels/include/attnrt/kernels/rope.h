// Rotary position embedding (RoPE) of query and key heads, in place.
//
// Pair i of a head (0 <= i < head_dim / 2) is rotated by the angle
// position * theta^(-2i / head_dim). Which two elements form pair i is the style:
//   kInterleaved: (x[2i], x[2i+1])            Meta's Llama code, llama2.c
//   kHalf:        (x[i],  x[i + head_dim/2])  GPT-NeoX, Hugging Face rotate_half
// and (a, b) becomes (a cos - b sin, a sin + b cos) in both.
//
// The angles come from a table the caller fills once (RopeTable) and keeps, so
// a decode step does no transcendental math. No allocation, no exceptions, no printing.
#pragma once

#include <cstddef>

namespace attnrt {

enum class RopeStyle : unsigned char { kInterleaved, kHalf };

// How a family stretches RoPE to longer contexts (Hugging Face's rope_scaling):
//   kLinear: every frequency divided by `factor` (position interpolation);
//   kLlama3: Llama 3.1's: pairs whose wavelength 2 pi / f is shorter than
//            original_max_positions / high_freq_factor keep f, longer than
//            original_max_positions / low_freq_factor get f / factor, and those in
//            between blend the two by how far they sit between those bounds.
enum class RopeScalingKind : unsigned char { kNone, kLinear, kLlama3 };
struct RopeScaling {
  RopeScalingKind kind = RopeScalingKind::kNone;
  double factor = 1.0;
  double low_freq_factor = 1.0;
  double high_freq_factor = 4.0;
  double original_max_positions = 8192.0;
};

// The frequency of pair i (0 <= i < head_dim / 2): theta^(-2i / head_dim), scaled.
double RopeFrequency(size_t i, size_t head_dim, double theta, const RopeScaling& scaling);

// Floats of a table for positions [0, positions) at this head_dim (even).
// Row p holds head_dim/2 cosines then head_dim/2 sines; returns 0 on overflow.
size_t RopeTableFloats(size_t positions, size_t head_dim);
// Fills the table; angles are computed in double and rounded once (Hugging Face
// and llama2.c form position * frequency in float32, so at position 4096 their
// cos/sin differ from these by up to ~2e-4). Writes nothing if RopeTableFloats is 0.
void RopeTable(size_t positions, size_t head_dim, double theta, float* table,
               const RopeScaling& scaling = RopeScaling{});

// Rotates `heads` heads of head_dim floats in each of `rows` rows of x (row r
// starts at x + r * x_stride, head h at + h * head_dim). Row r is at position
// first_position + r; the table must cover positions up to first_position + rows - 1.
// An odd head_dim (which has no table) leaves x unchanged.
void RopeRows(float* x, size_t x_stride, size_t rows, size_t heads, size_t head_dim,
              size_t first_position, const float* table, RopeStyle style);
// Instruction set RopeRows uses on this machine.
const char* RopeIsa();

// Scalar oracle for tests: the angle and the rotation in double, no table.
void ReferenceRopeRows(float* x, size_t x_stride, size_t rows, size_t heads, size_t head_dim,
                       size_t first_position, double theta, RopeStyle style);

}  // namespace attnrt
