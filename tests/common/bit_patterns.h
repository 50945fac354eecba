// Exact bit patterns of floats, and little-endian bytes, for the tests that build binary
// files by hand or check what a reader returns: comparing patterns, not values, tells
// -0 from +0 and keeps NaN payloads, which == cannot.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

namespace attnrt::testing {

inline uint32_t Bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  return b;
}

inline uint64_t Bits(double d) {
  uint64_t b;
  std::memcpy(&b, &d, sizeof b);
  return b;
}

inline float FloatFromBits(uint32_t b) {
  float f;
  std::memcpy(&f, &b, sizeof f);
  return f;
}

// Appends the low `n` bytes of `v`, least significant first.
inline void AppendLE(std::vector<uint8_t>* out, uint64_t v, int n) {
  for (int i = 0; i < n; ++i) out->push_back(static_cast<uint8_t>(v >> (8 * i)));
}

}  // namespace attnrt::testing
