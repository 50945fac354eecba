// What the attnrt fuzzers share: reading the fuzz input a byte at a time (zeros past
// its end, so every input decodes to something), the entry of the fuzzers that read
// it that way, and an arena in a heap buffer of exactly the requested size, so ASan
// sees any access past the plan.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "attnrt/runtime/arena.h"

namespace attnrt::fuzz {

struct Reader {
  const uint8_t* data;
  size_t size;
  size_t at = 0;
  uint8_t Next() { return at < size ? data[at++] : 0; }
};

// One fuzz input, read through `r`. A fuzzer built with attnrt_add_reader_fuzzer defines it;
// reader_fuzzer_main.cc is its libFuzzer entry.
void FuzzOne(Reader* r);

// An Arena of `bytes` inside *storage (resized for the alignment).
inline Arena ExactArena(size_t bytes, std::vector<uint8_t>* storage) {
  storage->assign(bytes + kArenaAlignment, 0);
  const uintptr_t base = reinterpret_cast<uintptr_t>(storage->data());
  const uintptr_t aligned = (base + kArenaAlignment - 1) & ~uintptr_t{kArenaAlignment - 1};
  return Arena(reinterpret_cast<void*>(aligned), bytes);
}

}  // namespace attnrt::fuzz
