// GGUF tensor data -> float32, for the types `attnrt convert` reads from a GGUF file:
// F32, F16, BF16 and the block types Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q4_K, Q5_K, Q6_K.
// Each block type is decoded with the formula (and float operation order) of ggml's
// reference dequantize_row_<type>, so the values are the ones llama.cpp's model holds.
// Block layouts are ggml-common.h's; every field is little-endian.
// Host-only (tools layer).
#pragma once

#include <cstddef>
#include <cstdint>

namespace attnrt {

// True when DequantizeGgml decodes the ggml type `type`.
bool CanDequantizeGgml(uint32_t type);

// Decodes `elements` values (a multiple of the type's block) of ggml type `type` from
// `data` into out[elements]. The caller has checked that `data` holds them (gguf_file.h
// computes each tensor's bytes). False for a type CanDequantizeGgml refuses.
bool DequantizeGgml(uint32_t type, const uint8_t* data, size_t elements, float* out);

// The Q8_0 blocks of one row of `cols` values (a multiple of 32) split into attnrt's q8
// planes (weight_type.h kF16Plane): the int8 values to values[cols], the f16 scale bits
// to scales[cols / 32]. Value-exact: the same integers and the same scales.
void SplitQ8_0Row(const uint8_t* blocks, size_t cols, int8_t* values, uint16_t* scales);

}  // namespace attnrt
