// Encodes f32 tensor values into a stored element type (f32, f16, bf16, q8, q4_0, q4_K, q6_K)
// with the byte layouts of kernels/include/attnrt/kernels/weight_type.h and the weight_<type>.h
// headers (little-endian, as FORMAT.md says).
//
// A value the type cannot hold is refused by name instead of being stored as something else:
// f16 overflow (|x| > 65504 would become inf), non-finite values in the block types (a block
// scale would be inf or NaN), blocks whose scale overflows f16, and q4_K / q6_K rows that are
// not whole 256-value blocks. Host-only (tools layer).
#ifndef ATTNRT_TOOLS_CONVERT_TENSOR_ENCODING_H_
#define ATTNRT_TOOLS_CONVERT_TENSOR_ENCODING_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "attnrt/kernels/weight_codecs.h"

namespace attnrt {

// "f32, f16, bf16, q8, ...": every weight type's name, in the list's order, for messages.
std::string WeightTypeNames();

// Encodes a rows x cols matrix (C order). On failure *error names the first bad value by its
// row and column. `out` is resized to exactly MatrixBytes(type, rows, cols).
bool EncodeMatrix(WeightType type, size_t rows, size_t cols, const float* data,
                  std::vector<uint8_t>* out, std::string* error);

}  // namespace attnrt

#endif  // ATTNRT_TOOLS_CONVERT_TENSOR_ENCODING_H_
