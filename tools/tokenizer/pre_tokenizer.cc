// PreTokenizer (see pre_tokenizer.h).
#include "tokenizer/pre_tokenizer.h"

#include "tokenizer/byte_level.h"
#include "tokenizer/unicode_props.h"
#include "tokenizer/utf8.h"

namespace attnrt::tok {
namespace {

// GPT-2's split regex, which the ByteLevel pre-tokenizer uses when use_regex is true.
constexpr const char* kGpt2Regex =
    "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";

std::string ToByteLevel(const std::string& text) {
  std::string out;
  out.reserve(text.size() * 2);
  for (unsigned char c : text) out += ByteLevelChar(c);
  return out;
}

std::string ReplaceSpaces(const std::string& text, const std::string& replacement) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == ' ') out += replacement;
    else out.push_back(c);
  }
  return out;
}

}  // namespace

bool PreTokenizer::Load(const Json& j, const std::string& where, std::string* error) {
  steps_.clear();
  if (j.is_null()) return true;
  return LoadComponents(j, where, "pretokenizers", Bind(this, &PreTokenizer::LoadOne), error);
}

bool PreTokenizer::LoadByteLevel(const Json& j, const std::string& at, Step* step,
                                 std::string* error) {
  step->kind = Kind::kByteLevel;
  bool trim_offsets = true;  // offsets only; ids do not depend on it
  if (!CheckKeys(j, at, {"type", "add_prefix_space", "trim_offsets", "use_regex"}, error) ||
      !GetBool(j, "add_prefix_space", true, at, &step->add_prefix_space, error) ||
      !GetBool(j, "trim_offsets", true, at, &trim_offsets, error) ||
      !GetBool(j, "use_regex", true, at, &step->use_regex, error)) {
    return false;
  }
  return !step->use_regex || Pattern::FromRegex(kGpt2Regex, at, &step->pattern, error);
}

bool PreTokenizer::LoadSplit(const Json& j, const std::string& at, Step* step,
                             std::string* error) {
  step->kind = Kind::kSplit;
  std::string behavior;
  const auto pattern = j.find("pattern");
  return CheckKeys(j, at, {"type", "pattern", "behavior", "invert"}, error) &&
         Pattern::FromJson(pattern == j.end() ? Json() : *pattern, at + ".pattern",
                           &step->pattern, error) &&
         GetString(j, "behavior", "", at, &behavior, error) &&
         ParseSplitBehavior(behavior, at + ".behavior", &step->behavior, error) &&
         GetBool(j, "invert", false, at, &step->invert, error);
}


bool PreTokenizer::LoadOne(const Json& j, const std::string& where, const std::string& type,
                           std::string* error) {
  const std::string at = Describe(where, j);
  Step step;
  bool ok = false;
  if (type == "ByteLevel") {
    ok = LoadByteLevel(j, at, &step, error);
  } else if (type == "Split") {
    ok = LoadSplit(j, at, &step, error);
  } else if (type == "Metaspace") {
    step.kind = Kind::kMetaspace;
    ok = GetMetaspaceOptions(j, at, &step.metaspace, error);
  } else if (type == "Digits") {
    step.kind = Kind::kDigits;
    ok = CheckKeys(j, at, {"type", "individual_digits"}, error) &&
         GetBool(j, "individual_digits", false, at, &step.individual_digits, error);
  } else {
    *error = where + ": the pre-tokenizer '" + type +
             "' is not supported (supported: ByteLevel, Split, Metaspace, Digits, Sequence)";
    return false;
  }
  if (ok) steps_.push_back(std::move(step));
  return ok;
}

bool PreTokenizer::ApplyStep(const Step& step, const Piece& piece, std::vector<Piece>* out,
                             std::string* error) const {
  std::vector<Span> matches;
  switch (step.kind) {
    case Kind::kByteLevel: {
      Piece p = piece;
      if (step.add_prefix_space && (p.text.empty() || p.text[0] != ' ')) p.text.insert(0, " ");
      const size_t first = out->size();
      if (step.use_regex) {
        if (!step.pattern.FindMatches(p.text, &matches, error)) return false;
        SplitPiece(p, matches, SplitBehavior::kIsolated, false, out);
      } else if (!p.text.empty()) {
        out->push_back(std::move(p));
      }
      for (size_t i = first; i < out->size(); ++i) (*out)[i].text = ToByteLevel((*out)[i].text);
      return true;
    }
    case Kind::kSplit:
      if (!step.pattern.FindMatches(piece.text, &matches, error)) return false;
      SplitPiece(piece, matches, step.behavior, step.invert, out);
      return true;
    case Kind::kMetaspace: {
      Piece p = piece;
      const MetaspaceOptions& m = step.metaspace;
      p.text = ReplaceSpaces(p.text, m.replacement);
      const bool starts = p.text.compare(0, m.replacement.size(), m.replacement) == 0;
      if (!starts && (m.prepend == MetaspaceOptions::Prepend::kAlways ||
                      (m.prepend == MetaspaceOptions::Prepend::kFirst && p.at_origin))) {
        p.text.insert(0, m.replacement);
      }
      if (!m.split) {
        if (!p.text.empty()) out->push_back(std::move(p));
        return true;
      }
      Pattern::FromString(m.replacement).FindMatches(p.text, &matches, error);
      SplitPiece(p, matches, SplitBehavior::kMergedWithNext, false, out);
      return true;
    }
    case Kind::kDigits:
      for (size_t i = 0; i < piece.text.size();) {
        const size_t start = i;
        if (IsNumeric(NextCodePoint(piece.text, &i))) matches.push_back({start, i});
      }
      SplitPiece(piece, matches,
                 step.individual_digits ? SplitBehavior::kIsolated : SplitBehavior::kContiguous,
                 false, out);
      return true;
  }
  return true;
}

bool PreTokenizer::Apply(std::vector<Piece>* pieces, std::string* error) const {
  for (const Step& step : steps_) {
    std::vector<Piece> next;
    next.reserve(pieces->size());
    for (Piece& piece : *pieces) {
      if (piece.token_id >= 0) {
        next.push_back(std::move(piece));
      } else if (!ApplyStep(step, piece, &next, error)) {
        return false;
      }
    }
    pieces->swap(next);
  }
  return true;
}

}  // namespace attnrt::tok
