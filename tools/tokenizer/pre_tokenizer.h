// tokenizer.json's "pre_tokenizer": ByteLevel (with GPT-2's split regex), Split (a string or
// regex pattern, every split behavior, invert), Metaspace (prepend schemes always / first /
// never, split), Digits and Sequence of them. Any other pre-tokenizer is refused by name when
// the tokenizer is loaded.
#pragma once

#include <string>
#include <vector>

#include "tokenizer/json_fields.h"
#include "tokenizer/pattern.h"
#include "tokenizer/pieces.h"

namespace attnrt::tok {

class PreTokenizer {
 public:
  // `j` is the pre-tokenizer object or null (none: each piece goes to the model whole).
  bool Load(const Json& j, const std::string& where, std::string* error);

  // Splits and rewrites the pieces that are not added tokens, in place.
  bool Apply(std::vector<Piece>* pieces, std::string* error) const;

 private:
  enum class Kind { kByteLevel, kSplit, kMetaspace, kDigits };
  struct Step {
    Kind kind;
    bool add_prefix_space = false;  // ByteLevel
    bool use_regex = false;         // ByteLevel
    Pattern pattern;                // Split; ByteLevel's regex
    SplitBehavior behavior = SplitBehavior::kIsolated;
    bool invert = false;
    MetaspaceOptions metaspace;
    bool individual_digits = false;
  };
  bool LoadOne(const Json& j, const std::string& where, const std::string& type,
               std::string* error);
  bool LoadByteLevel(const Json& j, const std::string& at, Step* step, std::string* error);
  bool LoadSplit(const Json& j, const std::string& at, Step* step, std::string* error);
  bool ApplyStep(const Step& step, const Piece& piece, std::vector<Piece>* out,
                 std::string* error) const;

  std::vector<Step> steps_;
};

}  // namespace attnrt::tok
