// ElementType alone: the storage type codes (element_type.h has their layouts and
// conversions). Separate so that headers included by ISA-flagged files (the xsimd
// tiles, sdpa_params.h) can name a type without pulling in the inline conversion
// functions, whose out-of-line copies the linker could otherwise take from a file
// built for a wider ISA (kernels/xsimd/README.md).
#pragma once

#include <cstdint>

namespace attnrt {

enum class ElementType : uint8_t {
  kF32 = 1,
  kF16 = 2,   // IEEE 754 binary16
  kBF16 = 3,  // the upper 16 bits of an f32
  kQ8 = 4,    // weights: block-quantized int8 with f16 scales (element_type.h);
              // KV cache: int8 with one f32 scale per row (sdpa_params.h)
};

}  // namespace attnrt
