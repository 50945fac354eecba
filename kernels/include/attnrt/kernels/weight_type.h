// Stored weight types: the enum and every per-type fact, derived from the one list in
// weight_types.inc, so that adding a type does not mean finding every switch.
//
// Activations, accumulation and softmax are always f32; a kernel reads a stored type
// and widens it in registers. The codes are the weight file's dtype codes
// (runtime/FORMAT.md), so a tensor's type goes from the file to the kernel as is.
// The KV cache has its own, smaller list of types (kv_type.h).
//
// Bytes come from bits and block size alone, so a sub-byte type (4-bit values in
// blocks with an f16 scale, GGUF's q4_0; GGUF's k-quant super-blocks) is a new line in the
// list, not new size math.
//
// Header-only and allocation-free: used by kernels, the runtime's file checks, the
// converter and the CLI alike (one definition of each size rule).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace attnrt {

enum class WeightType : uint8_t {
#define ATTNRT_WEIGHT_TYPE(Name, code, name, bits, block, scales, bytes) k##Name = code,
#include "attnrt/kernels/weight_types.inc"
#undef ATTNRT_WEIGHT_TYPE
};

// Where a type keeps its per-block scales.
enum class WeightScales : uint8_t {
  // Plain values, no scales (block 1).
  kNone,
  // Two planes (our q8): the values row-major (rows * cols values, rows not padded to
  // whole blocks), zeros up to the next multiple of 64 bytes, then one f16 scale per
  // block, row-major. SIMD loads of either plane need no shuffling.
  kF16Plane,
  // GGUF's layout (q4_0, q8_0): rows of whole blocks, each block its f16 scale then
  // its block * bits / 8 bytes of values (a row's last block zero-padded).
  kF16InBlock,
  // GGUF's k-quant super-blocks (q4_K, q6_K): rows of whole blocks of `bytes` bytes, each
  // holding its values and its own sub-block scales in the type's layout (weight_q4_K.h,
  // weight_q6_K.h). A stored row is a whole number of blocks: the reader and the writer
  // refuse other widths (the kernels read a short last block as zero-padded all the same).
  kSuperBlock,
};

struct WeightTypeInfo {
  WeightType type;
  const char* name;
  uint16_t bits;   // stored bits per value, scales apart
  uint16_t block;  // values per block along a row (one scale each); 1 for plain types
  WeightScales scales;
  uint16_t bytes;  // bytes of one block (with its scales for kF16InBlock and kSuperBlock)
};

inline constexpr WeightTypeInfo kWeightTypes[] = {
#define ATTNRT_WEIGHT_TYPE(Name, code, name, bits, block, scales, bytes) \
  {WeightType::k##Name, name, bits, block, WeightScales::scales, bytes},
#include "attnrt/kernels/weight_types.inc"
#undef ATTNRT_WEIGHT_TYPE
};

inline constexpr size_t kWeightTypeCount = sizeof(kWeightTypes) / sizeof(kWeightTypes[0]);

// "1 f32, 2 f16, ...": the codes and names, for messages that list what is known.
inline constexpr const char* kWeightTypeCodes =
#define ATTNRT_WEIGHT_TYPE(Name, code, name, bits, block, scales, bytes) ", " #code " " name
#include "attnrt/kernels/weight_types.inc"
#undef ATTNRT_WEIGHT_TYPE
    + 2;  // skip the first ", "

// The sizes below assume these; a new line that breaks one fails to compile here.
constexpr bool WeightTypesAreWellFormed() {
  for (size_t i = 0; i < kWeightTypeCount; ++i) {
    const WeightTypeInfo& t = kWeightTypes[i];
    if (i > 0 && static_cast<uint8_t>(t.type) <= static_cast<uint8_t>(kWeightTypes[i - 1].type)) {
      return false;  // codes unique and increasing
    }
    if (t.bits == 0 || t.block == 0) return false;
    switch (t.scales) {
      case WeightScales::kNone:
        if (t.block != 1 || t.bits % 8 != 0 || t.bytes * 8 != t.bits) return false;
        break;
      case WeightScales::kF16Plane:
        if (t.bits % 8 != 0) return false;  // a row of values is whole bytes
        if (t.bytes * 8 != t.block * t.bits) return false;
        break;
      case WeightScales::kF16InBlock:
        if (t.block * t.bits % 8 != 0) return false;  // a block is whole bytes
        if (t.bytes != 2 + t.block * t.bits / 8) return false;
        break;
      case WeightScales::kSuperBlock:
        if (t.bytes * 8 <= t.block * t.bits) return false;  // the scales are in the block
        break;
    }
  }
  return true;
}
static_assert(WeightTypesAreWellFormed(), "weight_types.inc: see WeightTypesAreWellFormed");

// The row for a file's dtype code; nullptr for a code that is no weight type.
constexpr const WeightTypeInfo* FindWeightType(uint8_t code) {
  for (const WeightTypeInfo& t : kWeightTypes) {
    if (static_cast<uint8_t>(t.type) == code) return &t;
  }
  return nullptr;
}
constexpr const WeightTypeInfo* FindWeightType(WeightType t) {
  return FindWeightType(static_cast<uint8_t>(t));
}

constexpr bool IsKnownWeightType(uint8_t code) { return FindWeightType(code) != nullptr; }

// "f32", "q8", ...; nullptr for a value outside the list.
constexpr const char* WeightTypeName(WeightType t) {
  const WeightTypeInfo* info = FindWeightType(t);
  return info != nullptr ? info->name : nullptr;
}

// The type spelled `name` (as WeightTypeName); false when none is.
inline bool ParseWeightType(const char* name, WeightType* out) {
  for (const WeightTypeInfo& t : kWeightTypes) {
    if (std::strcmp(name, t.name) == 0) {
      *out = t.type;
      return true;
    }
  }
  return false;
}

// Blocks (scales) per row of `cols` values; the last block may be short.
constexpr size_t WeightBlocksPerRow(const WeightTypeInfo& t, size_t cols) {
  return cols / t.block + (cols % t.block != 0 ? 1 : 0);
}

// Bytes of the first `rows` rows of a matrix's values: where row `rows` starts, so a
// slice of rows [first, ...) of a stacked matrix starts at ValueRowsBytes(t, first, cols).
// For kF16InBlock and kSuperBlock the blocks carry their scales. The caller has checked the
// matrix's size (MatrixBytes), so nothing here overflows.
constexpr size_t ValueRowsBytes(const WeightTypeInfo& t, size_t rows, size_t cols) {
  return t.scales == WeightScales::kF16InBlock || t.scales == WeightScales::kSuperBlock
             ? rows * WeightBlocksPerRow(t, cols) * t.bytes
             : rows * cols * (t.bits / 8);
}

// True when rows of `cols` values are whole blocks as the type requires (kSuperBlock types
// store no short block; every other type stores any width).
constexpr bool RowWidthIsStorable(const WeightTypeInfo& t, size_t cols) {
  return t.scales != WeightScales::kSuperBlock || cols % t.block == 0;
}

// kF16Plane: bytes from the start of a matrix to its scale plane (the value plane
// rounded up to 64 bytes). The caller has checked the matrix's size.
constexpr size_t ScalePlaneOffset(const WeightTypeInfo& t, size_t rows, size_t cols) {
  return (ValueRowsBytes(t, rows, cols) + 63) / 64 * 64;
}

// Bytes of a rows x cols matrix of type t; false when a product overflows `Size` (size_t
// for buffers; the file reader uses uint64_t, the width of the file's fields).
template <typename Size>
constexpr bool MatrixBytes(const WeightTypeInfo& t, Size rows, Size cols, Size* bytes) {
  const Size max = static_cast<Size>(~Size{0});
  if (cols != 0 && rows > max / cols) return false;
  const Size n = rows * cols;
  const Size blocks = cols / t.block + (cols % t.block != 0 ? 1 : 0);
  switch (t.scales) {
    case WeightScales::kNone: {
      const Size value_bytes = t.bits / 8;
      if (n > max / value_bytes) return false;
      *bytes = n * value_bytes;
      return true;
    }
    case WeightScales::kF16Plane: {
      const Size value_bytes = t.bits / 8;
      if (n > max / value_bytes || n * value_bytes > max - 63) return false;
      if (blocks != 0 && rows > max / 2 / blocks) return false;
      const Size scale_bytes = 2 * rows * blocks;
      const Size offset = (n * value_bytes + 63) / 64 * 64;  // ScalePlaneOffset
      if (offset > max - scale_bytes) return false;
      *bytes = offset + scale_bytes;
      return true;
    }
    case WeightScales::kF16InBlock:
    case WeightScales::kSuperBlock: {
      const Size block_bytes = t.bytes;
      if (blocks != 0 && rows > max / block_bytes / blocks) return false;
      *bytes = rows * blocks * block_bytes;
      return true;
    }
  }
  return false;
}

// The same for a type given by its enumerator; false for a value outside the list.
template <typename Size>
constexpr bool MatrixBytes(WeightType t, Size rows, Size cols, Size* bytes) {
  const WeightTypeInfo* info = FindWeightType(t);
  return info != nullptr && MatrixBytes(*info, rows, cols, bytes);
}

}  // namespace attnrt
