// tokenizer.json's "decoder": ByteLevel, ByteFallback, Fuse, Strip, Replace, Metaspace and
// Sequence of them, chained over the list of token strings as the reference does (each step
// maps the list to a new list; the result is their concatenation). With no decoder the tokens
// are joined with spaces. Any other decoder is refused by name at load.
#pragma once

#include <string>
#include <vector>

#include "tokenizer/json_fields.h"
#include "tokenizer/pattern.h"

namespace attnrt::tok {

class Decoder {
 public:
  // `j` is the decoder object or null (none).
  bool Load(const Json& j, const std::string& where, std::string* error);

  bool Decode(std::vector<std::string> tokens, std::string* text, std::string* error) const;

 private:
  enum class Kind { kByteLevel, kByteFallback, kFuse, kStrip, kReplace, kMetaspace };
  struct Step {
    Kind kind;
    std::string content;      // Strip's character, Replace's content, Metaspace's replacement
    size_t start = 0, stop = 0;  // Strip
    Pattern pattern;          // Replace
    bool strip_first = true;  // Metaspace: prepend_scheme is not "never"
  };
  bool LoadOne(const Json& j, const std::string& where, const std::string& type,
               std::string* error);
  bool ApplyStep(const Step& step, std::vector<std::string>* tokens, std::string* error) const;

  std::vector<Step> steps_;
  bool none_ = true;
};

}  // namespace attnrt::tok
