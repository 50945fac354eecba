// Overflow-checked size arithmetic. Every size derived from untrusted input
// (file headers, tensor shapes, CLI numbers) goes through these.
//
// size_t is 64 bits on x86-64 and AArch64 but 32 bits on ARMv7 Linux and Cortex-M, while file
// formats store u64 fields. A u64 from a file is narrowed only through SizeFromU64; sums and
// products of u64 fields are checked with the *U64 functions before that, so a message can name
// the real value rather than a truncated one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace attnrt {

// Width of size_t on this platform, for messages ("does not fit this platform's 32-bit size_t").
constexpr size_t kSizeBits = sizeof(size_t) * 8;

namespace checked_math_detail {
// a * b and a + b in T; false (and *out untouched) when the result does not fit.
template <typename T>
inline bool Mul(T a, T b, T* out) {
  T r;
  if (__builtin_mul_overflow(a, b, &r)) return false;
  *out = r;
  return true;
}
template <typename T>
inline bool Add(T a, T b, T* out) {
  T r;
  if (__builtin_add_overflow(a, b, &r)) return false;
  *out = r;
  return true;
}
}  // namespace checked_math_detail

// Returns false (and leaves *out untouched) when a * b does not fit in size_t.
inline bool CheckedMul(size_t a, size_t b, size_t* out) {
  return checked_math_detail::Mul(a, b, out);
}

inline bool CheckedAdd(size_t a, size_t b, size_t* out) {
  return checked_math_detail::Add(a, b, out);
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

// False (and *out untouched) when v does not fit this platform's size_t: never on a 64-bit
// target, for v >= 2^32 on a 32-bit one.
inline bool SizeFromU64(uint64_t v, size_t* out) {
  if (v > static_cast<uint64_t>(static_cast<size_t>(-1))) return false;
  *out = static_cast<size_t>(v);
  return true;
}

// The same checks in 64 bits, for file fields before they are narrowed to size_t.
inline bool CheckedMulU64(uint64_t a, uint64_t b, uint64_t* out) {
  return checked_math_detail::Mul(a, b, out);
}

inline bool CheckedAddU64(uint64_t a, uint64_t b, uint64_t* out) {
  return checked_math_detail::Add(a, b, out);
}

#if SIZE_MAX < UINT64_MAX
// Where size_t is narrower than uint64_t, passing a uint64_t to the size_t functions above would
// truncate it silently before the check. These overloads win over the conversion for any
// uint64_t argument and are deleted, so such a call does not compile: convert with SizeFromU64
// (or use the *U64 functions) instead.
template <typename A, typename B,
          typename = std::enable_if_t<std::is_same<A, uint64_t>::value ||
                                      std::is_same<B, uint64_t>::value>>
bool CheckedMul(A a, B b, size_t* out) = delete;
template <typename A, typename B,
          typename = std::enable_if_t<std::is_same<A, uint64_t>::value ||
                                      std::is_same<B, uint64_t>::value>>
bool CheckedAdd(A a, B b, size_t* out) = delete;
template <typename A, typename B,
          typename = std::enable_if_t<std::is_same<A, uint64_t>::value ||
                                      std::is_same<B, uint64_t>::value>>
bool CheckedAlignUp(A n, B align, size_t* out) = delete;
#endif

}  // namespace attnrt
