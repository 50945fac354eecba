// GPT-2's byte-level alphabet: each of the 256 byte values stands for one printable code point
// (the printable Latin-1 bytes for themselves, the others for U+0100 onwards, in order).
#pragma once

#include <cstdint>
#include <string>

namespace attnrt::tok {

// The UTF-8 of the code point that stands for byte `b`.
const std::string& ByteLevelChar(uint8_t b);
// The byte code point `cp` stands for, or -1 when it stands for none.
int ByteLevelByte(uint32_t cp);

}  // namespace attnrt::tok
