// Decoder (see decoder.h).
#include "tokenizer/decoder.h"

#include "tokenizer/byte_level.h"
#include "tokenizer/utf8.h"

namespace attnrt::tok {
namespace {

// "<0xAB>" -> 0xAB; -1 for anything else.
int ByteToken(const std::string& t) {
  if (t.size() != 6 || t.compare(0, 3, "<0x") != 0 || t[5] != '>') return -1;
  int value = 0;
  for (int k = 3; k < 5; ++k) {
    const char c = t[k];
    const int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10
                    : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (digit < 0) return -1;
    value = value * 16 + digit;
  }
  return value;
}

// All tokens' bytes through the byte-level alphabet (a token with a character outside it
// gives its own UTF-8), then one lossy UTF-8 string.
std::vector<std::string> ByteLevelDecode(const std::vector<std::string>& tokens) {
  std::string bytes;
  for (const std::string& t : tokens) {
    const size_t mark = bytes.size();
    bool all = true;
    for (size_t i = 0; i < t.size() && all;) {
      const int b = ByteLevelByte(NextCodePoint(t, &i));
      if (b < 0) all = false;
      else bytes.push_back(static_cast<char>(b));
    }
    if (!all) {
      bytes.resize(mark);
      bytes += t;
    }
  }
  return {Utf8Lossy(bytes)};
}

// Runs of <0xXX> tokens become their bytes when those are valid UTF-8, else one U+FFFD each.
std::vector<std::string> ByteFallbackDecode(const std::vector<std::string>& tokens) {
  std::vector<std::string> out;
  std::string pending;
  size_t pending_count = 0;
  auto flush = [&]() {
    if (pending_count == 0) return;
    if (FirstInvalidUtf8(pending) == std::string::npos) {
      out.push_back(pending);
    } else {
      for (size_t k = 0; k < pending_count; ++k) out.push_back("\xEF\xBF\xBD");
    }
    pending.clear();
    pending_count = 0;
  };
  for (const std::string& t : tokens) {
    const int b = ByteToken(t);
    if (b >= 0) {
      pending.push_back(static_cast<char>(b));
      ++pending_count;
    } else {
      flush();
      out.push_back(t);
    }
  }
  flush();
  return out;
}

// Up to `start` leading and `stop` trailing copies of the character `c`, removed per token.
std::string StripToken(const std::string& t, const std::string& c, size_t start, size_t stop) {
  size_t begin = 0, end = t.size();
  for (size_t k = 0; k < start && t.compare(begin, c.size(), c) == 0 && begin < end; ++k) {
    begin += c.size();
  }
  for (size_t k = 0; k < stop && end >= begin + c.size() &&
                     t.compare(end - c.size(), c.size(), c) == 0; ++k) {
    end -= c.size();
  }
  return t.substr(begin, end - begin);
}

}  // namespace

bool Decoder::Load(const Json& j, const std::string& where, std::string* error) {
  steps_.clear();
  none_ = j.is_null();
  if (none_) return true;
  return LoadComponents(j, where, "decoders", Bind(this, &Decoder::LoadOne), error);
}


bool Decoder::LoadOne(const Json& j, const std::string& where, const std::string& type,
                      std::string* error) {
  const std::string at = Describe(where, j);
  Step step;
  bool ok = true;
  if (type == "ByteLevel") {
    step.kind = Kind::kByteLevel;
    ok = CheckKeys(j, at, {"type", "add_prefix_space", "trim_offsets", "use_regex"}, error);
  } else if (type == "ByteFallback") {
    step.kind = Kind::kByteFallback;
    ok = CheckKeys(j, at, {"type"}, error);
  } else if (type == "Fuse") {
    step.kind = Kind::kFuse;
    ok = CheckKeys(j, at, {"type"}, error);
  } else if (type == "Strip") {
    step.kind = Kind::kStrip;
    uint64_t start = 0, stop = 0;
    ok = CheckKeys(j, at, {"type", "content", "start", "stop"}, error) &&
         GetChar(j, "content", at, &step.content, error) &&
         GetUint(j, "start", 0, at, &start, error) && GetUint(j, "stop", 0, at, &stop, error);
    step.start = static_cast<size_t>(start);
    step.stop = static_cast<size_t>(stop);
  } else if (type == "Replace") {
    step.kind = Kind::kReplace;
    const auto pattern = j.find("pattern");
    ok = CheckKeys(j, at, {"type", "pattern", "content"}, error) &&
         GetString(j, "content", "", at, &step.content, error) &&
         Pattern::FromJson(pattern == j.end() ? Json() : *pattern, at + ".pattern", &step.pattern,
                           error);
  } else if (type == "Metaspace") {
    step.kind = Kind::kMetaspace;
    MetaspaceOptions m;
    ok = GetMetaspaceOptions(j, at, &m, error);
    step.content = m.replacement;
    step.strip_first = m.prepend != MetaspaceOptions::Prepend::kNever;
  } else {
    *error = where + ": the decoder '" + type +
             "' is not supported (supported: ByteLevel, ByteFallback, Fuse, Strip, Replace, "
             "Metaspace, Sequence)";
    return false;
  }
  if (ok) steps_.push_back(std::move(step));
  return ok;
}

bool Decoder::ApplyStep(const Step& step, std::vector<std::string>* tokens,
                        std::string* error) const {
  switch (step.kind) {
    case Kind::kByteLevel:
      *tokens = ByteLevelDecode(*tokens);
      return true;
    case Kind::kByteFallback:
      *tokens = ByteFallbackDecode(*tokens);
      return true;
    case Kind::kFuse: {
      std::string all;
      for (const std::string& t : *tokens) all += t;
      tokens->assign(1, std::move(all));
      return true;
    }
    case Kind::kStrip:
      for (std::string& t : *tokens) t = StripToken(t, step.content, step.start, step.stop);
      return true;
    case Kind::kReplace: {
      std::vector<Span> matches;
      for (std::string& t : *tokens) {
        if (!step.pattern.FindMatches(t, &matches, error)) return false;
        if (matches.empty()) continue;
        std::string out;
        size_t prev = 0;
        for (const Span& m : matches) {
          out.append(t, prev, m.start - prev);
          out += step.content;
          prev = m.end;
        }
        out.append(t, prev, std::string::npos);
        t.swap(out);
      }
      return true;
    }
    case Kind::kMetaspace:
      // The replacement becomes a space, except in the first token when a prefix was added,
      // where every replacement character is dropped.
      for (size_t i = 0; i < tokens->size(); ++i) {
        std::string& t = (*tokens)[i];
        std::string out;
        for (size_t at = 0; at < t.size();) {
          if (t.compare(at, step.content.size(), step.content) == 0) {
            if (!(i == 0 && step.strip_first)) out.push_back(' ');
            at += step.content.size();
          } else {
            const size_t n = SequenceLength(static_cast<uint8_t>(t[at]));
            out.append(t, at, n);
            at += n;
          }
        }
        t.swap(out);
      }
      return true;
  }
  return true;
}

bool Decoder::Decode(std::vector<std::string> tokens, std::string* text,
                     std::string* error) const {
  text->clear();
  if (none_) {
    for (size_t i = 0; i < tokens.size(); ++i) {
      if (i > 0) text->push_back(' ');
      *text += tokens[i];
    }
    return true;
  }
  for (const Step& step : steps_) {
    if (!ApplyStep(step, &tokens, error)) return false;
  }
  for (const std::string& t : tokens) *text += t;
  return true;
}

}  // namespace attnrt::tok
