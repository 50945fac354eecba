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
  return LoadOne(j, where, error);
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

bool PreTokenizer::LoadMetaspace(const Json& j, const std::string& at, Step* step,
                                 std::string* error) {
  step->kind = Kind::kMetaspace;
  std::string scheme, str_rep;
  bool has_scheme = j.contains("prepend_scheme") && !j["prepend_scheme"].is_null();
  bool add_prefix_space = true;
  if (!CheckKeys(j, at, {"type", "replacement", "prepend_scheme", "split", "add_prefix_space",
                         "str_rep"}, error) ||
      !GetChar(j, "replacement", at, &step->replacement, error) ||
      !GetString(j, "prepend_scheme", "always", at, &scheme, error) ||
      !GetBool(j, "split", true, at, &step->split, error) ||
      !GetBool(j, "add_prefix_space", true, at, &add_prefix_space, error) ||
      !GetString(j, "str_rep", "", at, &str_rep, error)) {
    return false;
  }
  if (scheme == "always") step->prepend = Prepend::kAlways;
  else if (scheme == "first") step->prepend = Prepend::kFirst;
  else if (scheme == "never") step->prepend = Prepend::kNever;
  else {
    *error = at + ": unknown prepend_scheme '" + scheme + "'";
    return false;
  }
  // The older spelling: add_prefix_space false means never, and must not contradict a scheme.
  if (!add_prefix_space) {
    if (has_scheme && step->prepend != Prepend::kNever) {
      *error = at + ": add_prefix_space false contradicts prepend_scheme '" + scheme + "'";
      return false;
    }
    step->prepend = Prepend::kNever;
  }
  return true;
}

bool PreTokenizer::LoadOne(const Json& j, const std::string& where, std::string* error) {
  std::string type;
  if (!GetType(j, where, &type, error)) return false;
  const std::string at = Describe(where, j);
  Step step;
  if (type == "Sequence") {
    if (!CheckKeys(j, at, {"type", "pretokenizers"}, error)) return false;
    const auto it = j.find("pretokenizers");
    if (it == j.end() || !it->is_array()) {
      *error = at + ": expected a list 'pretokenizers'";
      return false;
    }
    for (size_t i = 0; i < it->size(); ++i) {
      if (!LoadOne((*it)[i], where + ".pretokenizers[" + std::to_string(i) + "]", error)) {
        return false;
      }
    }
    return true;
  }
  bool ok = false;
  if (type == "ByteLevel") {
    ok = LoadByteLevel(j, at, &step, error);
  } else if (type == "Split") {
    ok = LoadSplit(j, at, &step, error);
  } else if (type == "Metaspace") {
    ok = LoadMetaspace(j, at, &step, error);
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
      p.text = ReplaceSpaces(p.text, step.replacement);
      const bool starts = p.text.compare(0, step.replacement.size(), step.replacement) == 0;
      if (!starts && (step.prepend == Prepend::kAlways ||
                      (step.prepend == Prepend::kFirst && p.at_origin))) {
        p.text.insert(0, step.replacement);
      }
      if (!step.split) {
        if (!p.text.empty()) out->push_back(std::move(p));
        return true;
      }
      Pattern::FromString(step.replacement).FindMatches(p.text, &matches, error);
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
