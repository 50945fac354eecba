// CRC32C (Castagnoli): the weight file's checksum. No allocation, no state.
#pragma once

#include <cstddef>
#include <cstdint>

namespace attnrt {

// CRC32C (reflected polynomial 0x82F63B78) of `size` bytes, continuing from `crc`
// (start with 0). Uses the SSE4.2 crc32 instruction or ARMv8 CRC when present,
// Crc32cPortable otherwise.
uint32_t Crc32c(uint32_t crc, const void* data, size_t size);

// The same with one table lookup per byte: the path on CPUs without a CRC32C
// instruction (32-bit Arm, Cortex-M); declared here so every host tests it.
uint32_t Crc32cPortable(uint32_t crc, const void* data, size_t size);

}  // namespace attnrt
