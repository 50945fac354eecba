// The byte stream of the tokenizer's compact form (tokenizer.h, Tokenizer::Compile): little-
// endian u32s and length-prefixed byte strings, escaped so the result holds no NUL byte (a
// weight file's string metadata may not) -- 0x00 becomes 0x01 0x02 and 0x01 becomes 0x01 0x03.
// The reader checks every length against what is left, so a damaged stream is an error,
// never a read past its end.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace attnrt::tok {

class CompactWriter {
 public:
  void U32(uint32_t v);
  void Bytes(std::string_view s);  // u32 length, then the bytes
  // The escaped stream.
  std::string Finish() const;

 private:
  std::string raw_;
};

class CompactReader {
 public:
  // False when `escaped` holds an escape that is not one of the two above.
  bool Open(std::string_view escaped);
  bool U32(uint32_t* v);
  bool Bytes(std::string_view* s);  // valid until the reader is destroyed
  size_t remaining() const { return raw_.size() - at_; }

 private:
  std::string raw_;
  size_t at_ = 0;
};

}  // namespace attnrt::tok
