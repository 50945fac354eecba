// Streaming generated tokens as text: each new token decodes the whole reply again (so the
// text printed is exactly the decode of all its tokens, as `attnrt detokenize` gives it) and
// only text that cannot change any more is released: a trailing incomplete UTF-8 character
// (decoded as U+FFFD until its last byte token arrives), trailing whitespace (a decoder may
// still join it to the next token) and a tail that could begin a stop string wait for the next
// token. A stop string ends the text before it; it is never released.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace attnrt::cli {

class TextStreamer {
 public:
  // ids -> text; false with *error on failure.
  using DecodeFn =
      std::function<bool(const std::vector<uint32_t>& ids, std::string* text, std::string* error)>;

  TextStreamer(DecodeFn decode, std::vector<std::string> stops);

  // Adds one token; appends the text it releases to *out. *stopped turns true when a stop
  // string appeared (the text before it has then all been released).
  bool Push(uint32_t id, std::string* out, bool* stopped, std::string* error);
  // No more tokens: releases what was held back (up to a stop string).
  bool Finish(std::string* out, std::string* error);
  // Everything released so far.
  const std::string& released() const { return released_; }

 private:
  // Releases text_ up to `end` when the released text is still its prefix.
  void Release(size_t end, std::string* out);
  size_t StopAt() const;  // where the first stop string starts in text_, or npos

  DecodeFn decode_;
  std::vector<std::string> stops_;
  std::vector<uint32_t> ids_;
  std::string text_;      // the decode of ids_
  std::string released_;  // what has been handed out
  bool stopped_ = false;
};

}  // namespace attnrt::cli
