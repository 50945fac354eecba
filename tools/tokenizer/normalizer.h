// tokenizer.json's "normalizer": NFC, NFD, NFKC, NFKD, Prepend, Replace, Strip and Sequence of
// them, applied to each stretch of text between added tokens as the reference does. Any
// other normalizer is refused by name when the tokenizer is loaded.
#pragma once

#include <string>
#include <vector>

#include "tokenizer/json_fields.h"
#include "tokenizer/pattern.h"
#include "tokenizer/unicode_props.h"

namespace attnrt::tok {

class Normalizer {
 public:
  // `j` is the normalizer object or null (none).
  bool Load(const Json& j, const std::string& where, std::string* error);

  // Normalizes *text in place; *at_origin turns false when the text's first character is
  // removed (its first byte then comes from later in the input).
  bool Apply(std::string* text, bool* at_origin, std::string* error) const;

  bool empty() const { return steps_.empty(); }

 private:
  enum class Kind { kUnicode, kPrepend, kReplace, kStrip };
  struct Step {
    Kind kind;
    NormalForm form = NormalForm::kNfc;
    std::string text;  // Prepend's prefix, Replace's content
    Pattern pattern;   // Replace
    bool left = false, right = false;  // Strip
  };
  bool LoadOne(const Json& j, const std::string& where, const std::string& type,
               std::string* error);

  std::vector<Step> steps_;
};

}  // namespace attnrt::tok
