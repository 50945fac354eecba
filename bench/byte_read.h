// The floor of a memory-bound kernel: one vectorized pass that reads every byte of
// a buffer (as 32-bit words, whatever they encode), on the Highway target that
// dynamic dispatch picks, so a forced target (hwy::SetSupportedTargetsForTest)
// applies to it as it does to the kernel it is compared with.
#pragma once

#include <cstddef>
#include <cstdint>

namespace attnrt {

// Wrapping sum of the buffer's 32-bit words (a tail of bytes added one by one),
// returned so the reads cannot be optimized away.
uint32_t ReadBytes(const void* data, size_t bytes);

}  // namespace attnrt
