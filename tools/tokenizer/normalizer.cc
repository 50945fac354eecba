// Normalizer (see normalizer.h).
#include "tokenizer/normalizer.h"

#include "tokenizer/utf8.h"

namespace attnrt::tok {

bool Normalizer::Load(const Json& j, const std::string& where, std::string* error) {
  steps_.clear();
  if (j.is_null()) return true;
  return LoadComponents(j, where, "normalizers", Bind(this, &Normalizer::LoadOne), error);
}

bool Normalizer::LoadOne(const Json& j, const std::string& where, const std::string& type,
                         std::string* error) {
  const std::string at = Describe(where, j);
  Step step;
  if (type == "NFC" || type == "NFD" || type == "NFKC" || type == "NFKD") {
    if (!CheckKeys(j, at, {"type"}, error)) return false;
    step.kind = Kind::kUnicode;
    step.form = type == "NFC" ? NormalForm::kNfc : type == "NFD" ? NormalForm::kNfd
              : type == "NFKC" ? NormalForm::kNfkc : NormalForm::kNfkd;
  } else if (type == "Prepend") {
    step.kind = Kind::kPrepend;
    if (!CheckKeys(j, at, {"type", "prepend"}, error) ||
        !GetString(j, "prepend", "", at, &step.text, error)) {
      return false;
    }
  } else if (type == "Replace") {
    step.kind = Kind::kReplace;
    const auto pattern = j.find("pattern");
    if (!CheckKeys(j, at, {"type", "pattern", "content"}, error) ||
        !GetString(j, "content", "", at, &step.text, error) ||
        !Pattern::FromJson(pattern == j.end() ? Json() : *pattern, at + ".pattern", &step.pattern,
                           error)) {
      return false;
    }
  } else if (type == "Strip") {
    step.kind = Kind::kStrip;
    if (!CheckKeys(j, at, {"type", "strip_left", "strip_right"}, error) ||
        !GetBool(j, "strip_left", true, at, &step.left, error) ||
        !GetBool(j, "strip_right", true, at, &step.right, error)) {
      return false;
    }
  } else {
    *error = where + ": the normalizer '" + type +
             "' is not supported (supported: NFC, NFD, NFKC, NFKD, Prepend, Replace, Strip, "
             "Sequence)";
    return false;
  }
  steps_.push_back(std::move(step));
  return true;
}

namespace {

bool ReplaceAll(const Pattern& pattern, const std::string& content, std::string* text,
                bool* at_origin, std::string* error) {
  std::vector<Span> matches;
  if (!pattern.FindMatches(*text, &matches, error)) return false;
  if (matches.empty()) return true;
  std::string out;
  out.reserve(text->size());
  size_t prev = 0;
  for (const Span& m : matches) {
    out.append(*text, prev, m.start - prev);
    out += content;
    prev = m.end;
  }
  out.append(*text, prev, std::string::npos);
  // The first character deleted (replaced by nothing): what now starts the text came later.
  if (content.empty() && matches[0].start == 0 && matches[0].end > 0) *at_origin = false;
  text->swap(out);
  return true;
}

void StripWhitespace(bool left, bool right, std::string* text, bool* at_origin) {
  size_t begin = 0, end = text->size();
  if (left) {
    while (begin < end) {
      size_t next = begin;
      if (!IsWhiteSpace(NextCodePoint(*text, &next))) break;
      begin = next;
    }
  }
  if (right) {
    while (end > begin) {
      size_t start = 0;
      if (!IsWhiteSpace(PreviousCodePoint(*text, end, &start))) break;
      end = start;
    }
  }
  if (begin > 0) *at_origin = false;
  *text = text->substr(begin, end - begin);
}

}  // namespace

bool Normalizer::Apply(std::string* text, bool* at_origin, std::string* error) const {
  for (const Step& step : steps_) {
    switch (step.kind) {
      case Kind::kUnicode: {
        std::string out;
        if (!NormalizeUnicode(step.form, *text, &out, error)) return false;
        text->swap(out);
        break;
      }
      case Kind::kPrepend:
        if (!text->empty()) text->insert(0, step.text);
        break;
      case Kind::kReplace:
        if (!ReplaceAll(step.pattern, step.text, text, at_origin, error)) return false;
        break;
      case Kind::kStrip:
        StripWhitespace(step.left, step.right, text, at_origin);
        break;
    }
  }
  return true;
}

}  // namespace attnrt::tok
