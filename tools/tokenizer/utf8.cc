// UTF-8 walking, validation and lossy conversion (see utf8.h).
#include "tokenizer/utf8.h"

namespace attnrt::tok {
namespace {

bool IsContinuation(uint8_t b) { return (b & 0xC0) == 0x80; }

// The range the second byte of a sequence may take after `lead` (the first byte), which
// rules out overlong forms, surrogates and code points past U+10FFFF; {0, 0} for a byte that
// cannot start a sequence.
struct ByteRange {
  uint8_t lo, hi;
};
ByteRange SecondByteRange(uint8_t lead) {
  if (lead >= 0xC2 && lead <= 0xDF) return {0x80, 0xBF};
  if (lead == 0xE0) return {0xA0, 0xBF};
  if (lead == 0xED) return {0x80, 0x9F};
  if (lead >= 0xE1 && lead <= 0xEF) return {0x80, 0xBF};
  if (lead == 0xF0) return {0x90, 0xBF};
  if (lead >= 0xF1 && lead <= 0xF3) return {0x80, 0xBF};
  if (lead == 0xF4) return {0x80, 0x8F};
  return {0, 0};
}

// Bytes of the well-formed sequence at s[i] (1 for ASCII), or 0 with *bad set to the length
// of the maximal ill-formed subpart there (at least 1).
size_t WellFormedAt(std::string_view s, size_t i, size_t* bad) {
  const uint8_t lead = static_cast<uint8_t>(s[i]);
  if (lead < 0x80) return 1;
  const ByteRange second = SecondByteRange(lead);
  *bad = 1;
  if (second.hi == 0) return 0;
  const size_t want = SequenceLength(lead);
  if (i + 1 >= s.size()) return 0;
  const uint8_t b1 = static_cast<uint8_t>(s[i + 1]);
  if (b1 < second.lo || b1 > second.hi) return 0;
  for (size_t k = 2; k < want; ++k) {
    *bad = k;
    if (i + k >= s.size() || !IsContinuation(static_cast<uint8_t>(s[i + k]))) return 0;
  }
  return want;
}

}  // namespace

uint32_t NextCodePoint(std::string_view s, size_t* i) {
  const uint8_t lead = static_cast<uint8_t>(s[*i]);
  const size_t n = SequenceLength(lead);
  uint32_t cp = n == 1 ? lead : n == 2 ? (lead & 0x1F) : n == 3 ? (lead & 0x0F) : (lead & 0x07);
  for (size_t k = 1; k < n; ++k) cp = (cp << 6) | (static_cast<uint8_t>(s[*i + k]) & 0x3F);
  *i += n;
  return cp;
}

uint32_t PreviousCodePoint(std::string_view s, size_t end, size_t* start) {
  size_t i = end - 1;
  while (i > 0 && IsContinuation(static_cast<uint8_t>(s[i]))) --i;
  *start = i;
  return NextCodePoint(s, &i);
}

void AppendCodePoint(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

size_t FirstInvalidUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    // ASCII runs are the common case.
    while (i < s.size() && static_cast<uint8_t>(s[i]) < 0x80) ++i;
    if (i == s.size()) break;
    size_t bad = 0;
    const size_t n = WellFormedAt(s, i, &bad);
    if (n == 0) return i;
    i += n;
  }
  return std::string_view::npos;
}

std::string Utf8Lossy(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  size_t i = 0;
  while (i < bytes.size()) {
    size_t bad = 0;
    const size_t n = WellFormedAt(bytes, i, &bad);
    if (n == 0) {
      out += "\xEF\xBF\xBD";
      i += bad;
    } else {
      out.append(bytes.data() + i, n);
      i += n;
    }
  }
  return out;
}

}  // namespace attnrt::tok
