// UTF-8 for the tokenizer: walking code points, checking input, and turning arbitrary bytes
// into text the way Rust's String::from_utf8_lossy does (the reference's decoders use it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace attnrt::tok {

// The code point starting at s[*i] in valid UTF-8; advances *i past it.
uint32_t NextCodePoint(std::string_view s, size_t* i);
// The code point ending just before s[end] in valid UTF-8, and where it starts.
uint32_t PreviousCodePoint(std::string_view s, size_t end, size_t* start);
// Bytes of the UTF-8 sequence a valid lead byte starts.
inline size_t SequenceLength(uint8_t lead) {
  return lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
}
void AppendCodePoint(uint32_t cp, std::string* out);

// Offset of the first byte that is not part of well-formed UTF-8 (overlong forms,
// surrogates and values past U+10FFFF are not), or npos when all of `s` is.
size_t FirstInvalidUtf8(std::string_view s);

// `bytes` as text: every maximal ill-formed subsequence becomes one U+FFFD (Unicode's
// "substitution of maximal subparts", which Rust's from_utf8_lossy implements).
std::string Utf8Lossy(std::string_view bytes);

}  // namespace attnrt::tok
