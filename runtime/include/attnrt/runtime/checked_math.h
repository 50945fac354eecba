// Overflow-checked size arithmetic. Every size derived from untrusted input
// (file headers, tensor shapes, CLI numbers) goes through these.
#pragma once

#include <cstddef>

namespace attnrt {

// Returns false (and leaves *out untouched) when a * b does not fit in size_t.
inline bool CheckedMul(size_t a, size_t b, size_t* out) {
  size_t r;
  if (__builtin_mul_overflow(a, b, &r)) return false;
  *out = r;
  return true;
}

inline bool CheckedAdd(size_t a, size_t b, size_t* out) {
  size_t r;
  if (__builtin_add_overflow(a, b, &r)) return false;
  *out = r;
  return true;
}

// Product of n sizes; false on overflow.
inline bool CheckedProduct(const size_t* dims, size_t n, size_t* out) {
  size_t r = 1;
  for (size_t i = 0; i < n; ++i) {
    if (!CheckedMul(r, dims[i], &r)) return false;
  }
  *out = r;
  return true;
}

// Rounds up to a multiple of `align` (a power of two); false on overflow.
inline bool CheckedAlignUp(size_t n, size_t align, size_t* out) {
  size_t r;
  if (!CheckedAdd(n, align - 1, &r)) return false;
  *out = r & ~(align - 1);
  return true;
}

}  // namespace attnrt
