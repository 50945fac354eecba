// SplitPiece: the reference's NormalizedString::split on a list of matches.
#include "tokenizer/pieces.h"

namespace attnrt::tok {
namespace {

struct Segment {
  size_t start, end;
  bool is_match;
};

// The whole text as alternating gaps and matches (a match may be empty).
std::vector<Segment> Segments(size_t size, const std::vector<Span>& matches, bool invert) {
  std::vector<Segment> segs;
  if (size == 0) {
    segs.push_back({0, 0, invert});
    return segs;
  }
  size_t prev = 0;
  for (const Span& m : matches) {
    if (prev != m.start) segs.push_back({prev, m.start, invert});
    segs.push_back({m.start, m.end, !invert});
    prev = m.end;
  }
  if (prev != size) segs.push_back({prev, size, invert});
  return segs;
}

}  // namespace

bool ParseSplitBehavior(const std::string& name, const std::string& where, SplitBehavior* out,
                        std::string* error) {
  if (name == "Removed") *out = SplitBehavior::kRemoved;
  else if (name == "Isolated") *out = SplitBehavior::kIsolated;
  else if (name == "MergedWithPrevious") *out = SplitBehavior::kMergedWithPrevious;
  else if (name == "MergedWithNext") *out = SplitBehavior::kMergedWithNext;
  else if (name == "Contiguous") *out = SplitBehavior::kContiguous;
  else {
    *error = where + ": unknown split behavior '" + name + "'";
    return false;
  }
  return true;
}

void SplitPiece(const Piece& piece, const std::vector<Span>& matches, SplitBehavior behavior,
                bool invert, std::vector<Piece>* out) {
  const std::vector<Segment> segs = Segments(piece.text.size(), matches, invert);
  // (start, end, removed) ranges, built as the reference folds its match list.
  std::vector<Segment> parts;
  switch (behavior) {
    case SplitBehavior::kRemoved:
      for (const Segment& s : segs) parts.push_back({s.start, s.end, s.is_match});
      break;
    case SplitBehavior::kIsolated:
      for (const Segment& s : segs) parts.push_back({s.start, s.end, false});
      break;
    case SplitBehavior::kContiguous: {
      bool previous_match = false;
      for (const Segment& s : segs) {
        if (s.is_match == previous_match && !parts.empty()) parts.back().end = s.end;
        else parts.push_back({s.start, s.end, false});
        previous_match = s.is_match;
      }
      break;
    }
    case SplitBehavior::kMergedWithPrevious: {
      bool previous_match = false;
      for (const Segment& s : segs) {
        if (s.is_match && !previous_match && !parts.empty()) parts.back().end = s.end;
        else parts.push_back({s.start, s.end, false});
        previous_match = s.is_match;
      }
      break;
    }
    case SplitBehavior::kMergedWithNext: {
      bool previous_match = false;
      for (size_t k = segs.size(); k-- > 0;) {
        const Segment& s = segs[k];
        if (s.is_match && !previous_match && !parts.empty()) parts.back().start = s.start;
        else parts.push_back({s.start, s.end, false});
        previous_match = s.is_match;
      }
      std::vector<Segment> forward(parts.rbegin(), parts.rend());
      parts.swap(forward);
      break;
    }
  }
  for (const Segment& p : parts) {
    if (p.is_match || p.end == p.start) continue;  // removed, or empty
    Piece sub;
    sub.text.assign(piece.text, p.start, p.end - p.start);
    sub.at_origin = piece.at_origin && p.start == 0;
    out->push_back(std::move(sub));
  }
}

}  // namespace attnrt::tok
