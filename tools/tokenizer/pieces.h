// The text of one encode call as it moves through the pipeline: a list of pieces, each either
// an added token already found (kept whole) or text still to be normalized, split and handed
// to the model. Splitting follows the reference's SplitDelimiterBehavior.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/pattern.h"

namespace attnrt::tok {

struct Piece {
  std::string text;
  int64_t token_id = -1;   // >= 0: this piece is that added token
  bool at_origin = false;  // begins at byte 0 of the input (Metaspace's prepend_scheme "first")
};

enum class SplitBehavior { kRemoved, kIsolated, kMergedWithPrevious, kMergedWithNext, kContiguous };

// Parses "Removed", "Isolated", ...; false naming the value otherwise.
bool ParseSplitBehavior(const std::string& name, const std::string& where, SplitBehavior* out,
                        std::string* error);

// Splits `piece` at `matches` (sorted, non-overlapping spans of its text) as the behavior says
// (`invert`: the text between matches is what matched); appends the non-empty parts to *out.
// Only the part that starts at byte 0 keeps at_origin.
void SplitPiece(const Piece& piece, const std::vector<Span>& matches, SplitBehavior behavior,
                bool invert, std::vector<Piece>* out);

}  // namespace attnrt::tok
