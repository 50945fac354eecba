// KvType alone: the storage types of a KV cache (kv_store.h has their layouts and the
// store/widen functions). A separate list from the weight types (weight_type.h): the
// cache's q8 has one f32 scale per row, written token by token, where a weight q8 has
// f16 scales per 32-value block. The codes match the weight codes of the same names
// only so that the C API's and the CLI's numbers and names stay as they were.
//
// Enum only, so that headers included by ISA-flagged files (the xsimd tiles,
// sdpa_params.h) can name a type without pulling in inline functions whose out-of-line
// copies the linker could take from a file built for a wider ISA
// (kernels/xsimd/README.md).
#pragma once

#include <cstdint>

namespace attnrt {

enum class KvType : uint8_t {
  kF32 = 1,
  kF16 = 2,  // IEEE 754 binary16
  kQ8 = 4,   // int8 with one f32 scale per row (sdpa_params.h)
};

}  // namespace attnrt
