// The lookups every kernel list shares (linear_registry.cc, nn_registry.cc): a list is an
// array of slots, nullptr where this build does not link an entry, each entry a struct
// with a `name`. Kernel-internal.
#pragma once

#include <cstddef>
#include <cstring>

namespace attnrt {

template <class Kernel, size_t N>
size_t ListedKernelCount(const Kernel* const (&slots)[N]) {
  size_t count = 0;
  for (const Kernel* kernel : slots) count += kernel != nullptr ? 1 : 0;
  return count;
}

// The index-th linked kernel; the caller keeps index < ListedKernelCount(slots).
template <class Kernel, size_t N>
const Kernel& ListedKernelAt(const Kernel* const (&slots)[N], size_t index) {
  size_t slot = 0;
  for (;; ++slot) {
    if (slots[slot] != nullptr && index-- == 0) break;
  }
  return *slots[slot];
}

// nullptr when no linked kernel has that name.
template <class Kernel, size_t N>
const Kernel* FindListedKernel(const Kernel* const (&slots)[N], const char* name) {
  for (const Kernel* kernel : slots) {
    if (kernel != nullptr && std::strcmp(kernel->name, name) == 0) return kernel;
  }
  return nullptr;
}

}  // namespace attnrt
