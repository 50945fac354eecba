// The byte-level alphabet (see byte_level.h), built once.
#include "tokenizer/byte_level.h"

#include <array>

#include "tokenizer/utf8.h"

namespace attnrt::tok {
namespace {

bool StandsForItself(int b) {
  return (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
}

struct Alphabet {
  std::array<std::string, 256> chars;
  std::array<int, 512> bytes;  // every code point used is below U+0144
  Alphabet() {
    bytes.fill(-1);
    int next = 256;
    for (int b = 0; b < 256; ++b) {
      const int cp = StandsForItself(b) ? b : next++;
      AppendCodePoint(static_cast<uint32_t>(cp), &chars[b]);
      bytes[cp] = b;
    }
  }
};

const Alphabet& TheAlphabet() {
  static const Alphabet alphabet;
  return alphabet;
}

}  // namespace

const std::string& ByteLevelChar(uint8_t b) { return TheAlphabet().chars[b]; }

int ByteLevelByte(uint32_t cp) { return cp < 512 ? TheAlphabet().bytes[cp] : -1; }

}  // namespace attnrt::tok
