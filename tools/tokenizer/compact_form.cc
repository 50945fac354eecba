// CompactWriter / CompactReader (see compact_form.h).
#include "tokenizer/compact_form.h"

#include <cstring>

namespace attnrt::tok {

void CompactWriter::U32(uint32_t v) {
  for (int k = 0; k < 4; ++k) raw_.push_back(static_cast<char>((v >> (8 * k)) & 0xFF));
}

void CompactWriter::Bytes(std::string_view s) {
  U32(static_cast<uint32_t>(s.size()));
  raw_.append(s.data(), s.size());
}

std::string CompactWriter::Finish() const {
  std::string out;
  out.reserve(raw_.size() + raw_.size() / 16);
  for (char c : raw_) {
    if (c == '\0' || c == '\x01') {
      out.push_back('\x01');
      out.push_back(c == '\0' ? '\x02' : '\x03');
    } else {
      out.push_back(c);
    }
  }
  return out;
}

bool CompactReader::Open(std::string_view escaped) {
  raw_.clear();
  raw_.reserve(escaped.size());
  at_ = 0;
  size_t i = 0;
  while (i < escaped.size()) {
    const void* mark = std::memchr(escaped.data() + i, '\x01', escaped.size() - i);
    const size_t next = mark == nullptr ? escaped.size()
                                        : static_cast<const char*>(mark) - escaped.data();
    raw_.append(escaped.data() + i, next - i);
    if (next == escaped.size()) break;
    if (next + 1 >= escaped.size() ||
        (escaped[next + 1] != '\x02' && escaped[next + 1] != '\x03')) {
      return false;
    }
    raw_.push_back(escaped[next + 1] == '\x02' ? '\0' : '\x01');
    i = next + 2;
  }
  return true;
}

bool CompactReader::U32(uint32_t* v) {
  if (remaining() < 4) return false;
  uint32_t x = 0;
  for (int k = 0; k < 4; ++k) x |= uint32_t{static_cast<uint8_t>(raw_[at_ + k])} << (8 * k);
  at_ += 4;
  *v = x;
  return true;
}

bool CompactReader::Bytes(std::string_view* s) {
  uint32_t n = 0;
  if (!U32(&n) || remaining() < n) return false;
  *s = std::string_view(raw_).substr(at_, n);
  at_ += n;
  return true;
}

}  // namespace attnrt::tok
