// Pattern matching for tokenizer.json (see pattern.h): literal search, or PCRE2 on a pattern
// translated from Oniguruma's syntax.
#define PCRE2_CODE_UNIT_WIDTH 8
#include "tokenizer/pattern.h"

#include <pcre2.h>

#include <cctype>
#include <cstdio>

#include "tokenizer/utf8.h"

namespace attnrt::tok {

// Oniguruma's \s (tab to carriage return, NEL, the Z categories) and \w (letters, marks,
// decimal digits, connector punctuation) as class members. PCRE2's own \s also takes
// U+180E and its \w takes every number but no mark.
constexpr const char* kOnigSpaceMembers = "\\t-\\r\\x{85}\\p{Z}";
constexpr const char* kOnigWordMembers = "\\p{L}\\p{M}\\p{Nd}\\p{Pc}";

namespace {

bool Refuse(const std::string& onig, size_t at, const std::string& what, std::string* error) {
  *error = "regex " + nlohmann::json(onig).dump() + ": " + what + " at byte " +
           std::to_string(at) + " is not supported (Oniguruma and PCRE2 read it differently)";
  return false;
}

bool IsHex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// The escape at onig[i] == '\\'; appends its translation and advances *i past it.
bool TranslateEscape(const std::string& onig, bool in_class, size_t* i, std::string* out,
                     std::string* error) {
  const size_t at = *i;
  if (at + 1 >= onig.size()) return Refuse(onig, at, "a trailing backslash", error);
  const char c = onig[at + 1];
  *i = at + 2;
  switch (c) {
    case 's':
      *out += in_class ? std::string(kOnigSpaceMembers) : "[" + std::string(kOnigSpaceMembers) + "]";
      return true;
    case 'w':
      *out += in_class ? std::string(kOnigWordMembers) : "[" + std::string(kOnigWordMembers) + "]";
      return true;
    case 'S':
    case 'W':
      if (in_class) return Refuse(onig, at, std::string("\\") + c + " inside a class", error);
      *out += "[^" + std::string(c == 'S' ? kOnigSpaceMembers : kOnigWordMembers) + "]";
      return true;
    case 'v':  // Oniguruma: the vertical tab; PCRE2: any vertical space
      *out += "\\x{0B}";
      return true;
    case 'u': {  // Ruby's \uHHHH
      if (at + 6 > onig.size() || !IsHex(onig[at + 2]) || !IsHex(onig[at + 3]) ||
          !IsHex(onig[at + 4]) || !IsHex(onig[at + 5])) {
        return Refuse(onig, at, "\\u without four hex digits", error);
      }
      *out += "\\x{" + onig.substr(at + 2, 4) + "}";
      *i = at + 6;
      return true;
    }
    case 'p':
    case 'P': {
      const size_t close = onig.find('}', at);
      if (at + 2 >= onig.size() || onig[at + 2] != '{' || close == std::string::npos) {
        return Refuse(onig, at, std::string("\\") + c + " without {name}", error);
      }
      out->append(onig, at, close + 1 - at);
      *i = close + 1;
      return true;
    }
    case 'x': {
      // \xHH or \x{H...}: the same in both.
      size_t end = at + 2;
      if (end < onig.size() && onig[end] == '{') {
        end = onig.find('}', end);
        if (end == std::string::npos) return Refuse(onig, at, "\\x{ without }", error);
        ++end;
      } else {
        while (end < onig.size() && end < at + 4 && IsHex(onig[end])) ++end;
      }
      out->append(onig, at, end - at);
      *i = end;
      return true;
    }
    case 'd': case 'D': case 't': case 'n': case 'r': case 'f': case 'e': case 'a':
    case 'A': case 'z':
      out->append(onig, at, 2);
      return true;
    case 'b':
      if (in_class) {  // a backspace in both
        out->append(onig, at, 2);
        return true;
      }
      return Refuse(onig, at, "\\b (word boundary)", error);
    default:
      break;
  }
  const unsigned char uc = static_cast<unsigned char>(c);
  if (uc >= 0x80 || !(std::isalnum(uc))) {  // an escaped symbol is that symbol in both
    // A multi-byte character is copied whole.
    const size_t len = uc >= 0x80 ? SequenceLength(uc) : 1;
    out->push_back('\\');
    out->append(onig, at + 1, len);
    *i = at + 1 + len;
    return true;
  }
  return Refuse(onig, at, std::string("the escape \\") + c, error);
}

// "(?" at onig[i]: group kinds that mean the same in both are copied; option groups other
// than i are refused.
bool TranslateGroupStart(const std::string& onig, size_t* i, std::string* out,
                         std::string* error) {
  const size_t at = *i;
  size_t k = at + 2;
  if (k < onig.size() && (onig[k] == ':' || onig[k] == '=' || onig[k] == '!' ||
                          onig[k] == '>' || onig[k] == '<' || onig[k] == '#')) {
    out->append(onig, at, 3);
    *i = at + 3;
    return true;
  }
  while (k < onig.size() && (onig[k] == 'i' || onig[k] == '-')) ++k;
  if (k < onig.size() && k > at + 2 && (onig[k] == ':' || onig[k] == ')')) {
    out->append(onig, at, k + 1 - at);
    *i = k + 1;
    return true;
  }
  return Refuse(onig, at, "the group or option " + onig.substr(at, k + 1 - at), error);
}

}  // namespace

bool TranslateOnigurumaRegex(const std::string& onig, std::string* pcre2, std::string* error) {
  std::string out;
  bool in_class = false;
  size_t class_start = 0;  // where the members of the open class begin
  size_t i = 0;
  while (i < onig.size()) {
    const char c = onig[i];
    if (c == '\\') {
      if (!TranslateEscape(onig, in_class, &i, &out, error)) return false;
      continue;
    }
    if (in_class) {
      if (c == ']' && i > class_start) {
        in_class = false;
      } else if (c == '[') {
        return Refuse(onig, i, "a nested class or POSIX class", error);
      } else if (c == '&' && i + 1 < onig.size() && onig[i + 1] == '&') {
        return Refuse(onig, i, "class intersection &&", error);
      }
      out.push_back(c);
      ++i;
      continue;
    }
    switch (c) {
      case '[':
        in_class = true;
        out.push_back(c);
        ++i;
        if (i < onig.size() && onig[i] == '^') out.push_back(onig[i++]);
        class_start = i;  // a ']' right here is a member
        continue;
      case '^':
      case '$':
        return Refuse(onig, i, std::string("the anchor ") + c, error);
      case '(':
        if (i + 1 < onig.size() && onig[i + 1] == '?') {
          if (!TranslateGroupStart(onig, &i, &out, error)) return false;
          continue;
        }
        break;
      case '{':
        if (i + 1 < onig.size() && onig[i + 1] == ',') {
          return Refuse(onig, i, "the quantifier {,n}", error);
        }
        break;
      default:
        break;
    }
    out.push_back(c);
    ++i;
  }
  if (in_class) return Refuse(onig, class_start, "an unclosed class", error);
  *pcre2 = std::move(out);
  return true;
}

class CompiledRegex {
 public:
  ~CompiledRegex() {
    if (jit_stack_ != nullptr) pcre2_jit_stack_free(jit_stack_);
    if (code_ != nullptr) pcre2_code_free(code_);
  }
  bool Compile(const std::string& onig, const std::string& where, std::string* error) {
    std::string translated;
    if (!TranslateOnigurumaRegex(onig, &translated, error)) {
      *error = where + ": " + *error;
      return false;
    }
    pcre2_compile_context* ctx = pcre2_compile_context_create(nullptr);
    if (ctx == nullptr) {
      *error = where + ": out of memory compiling a regex";
      return false;
    }
    pcre2_set_newline(ctx, PCRE2_NEWLINE_LF);  // '.' stops at \n only, as in Oniguruma
    int code = 0;
    PCRE2_SIZE offset = 0;
    code_ = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(translated.data()), translated.size(),
                          PCRE2_UTF | PCRE2_UCP, &code, &offset, ctx);
    pcre2_compile_context_free(ctx);
    if (code_ == nullptr) {
      PCRE2_UCHAR message[256];
      pcre2_get_error_message(code, message, sizeof(message));
      *error = where + ": regex " + nlohmann::json(onig).dump() + " does not compile: " +
               reinterpret_cast<const char*>(message);
      return false;
    }
    // Without a JIT (some platforms) PCRE2's interpreter gives the same matches, slower.
    if (pcre2_jit_compile(code_, PCRE2_JIT_COMPLETE) == 0) {
      jit_stack_ = pcre2_jit_stack_create(32 * 1024, 8 * 1024 * 1024, nullptr);
    }
    return true;
  }

  // One search from `start`; false at no match, *failed on an engine error.
  bool Search(std::string_view text, size_t start, pcre2_match_context* mctx,
              pcre2_match_data* md, Span* found, int* failed) const {
    const int rc = pcre2_match(code_, reinterpret_cast<PCRE2_SPTR>(text.data()), text.size(),
                               start, PCRE2_NO_UTF_CHECK, md, mctx);
    if (rc == PCRE2_ERROR_NOMATCH) return false;
    if (rc < 0) {
      *failed = rc;
      return false;
    }
    const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(md);
    found->start = ov[0];
    found->end = ov[1];
    return true;
  }

  pcre2_code* code() const { return code_; }
  pcre2_jit_stack* jit_stack() const { return jit_stack_; }

 private:
  pcre2_code* code_ = nullptr;
  pcre2_jit_stack* jit_stack_ = nullptr;
};

bool Pattern::FromRegex(const std::string& regex, const std::string& where, Pattern* out,
                        std::string* error) {
  if (regex.empty()) {
    *error = where + ": an empty pattern is not supported";
    return false;
  }
  auto compiled = std::make_shared<CompiledRegex>();
  if (!compiled->Compile(regex, where, error)) return false;
  out->literal_.clear();
  out->regex_ = std::move(compiled);
  return true;
}

Pattern Pattern::FromString(std::string literal) {
  Pattern p;
  p.literal_ = std::move(literal);
  return p;
}

bool Pattern::FromJson(const nlohmann::json& j, const std::string& where, Pattern* out,
                       std::string* error) {
  if (j.is_object() && j.size() == 1) {
    const auto it = j.begin();
    if (it.value().is_string()) {
      const std::string& text = it.value().get_ref<const std::string&>();
      if (it.key() == "Regex") return FromRegex(text, where, out, error);
      if (it.key() == "String") {
        if (text.empty()) {
          *error = where + ": an empty pattern is not supported";
          return false;
        }
        *out = FromString(text);
        return true;
      }
    }
  }
  *error = where + ": expected {\"String\": ...} or {\"Regex\": ...}, got " + j.dump();
  return false;
}

bool Pattern::FindMatches(std::string_view text, std::vector<Span>* out,
                          std::string* error) const {
  out->clear();
  if (!regex_) {
    for (size_t at = text.find(literal_); at != std::string_view::npos;
         at = text.find(literal_, at + literal_.size())) {
      out->push_back({at, at + literal_.size()});
    }
    return true;
  }
  pcre2_match_data* md = pcre2_match_data_create_from_pattern(regex_->code(), nullptr);
  pcre2_match_context* mctx = pcre2_match_context_create(nullptr);
  if (md == nullptr || mctx == nullptr) {
    pcre2_match_data_free(md);
    pcre2_match_context_free(mctx);
    *error = "out of memory matching a regex";
    return false;
  }
  if (regex_->jit_stack() != nullptr) pcre2_jit_stack_assign(mctx, nullptr, regex_->jit_stack());
  // Oniguruma's find_iter as the reference's binding walks it.
  size_t search_from = 0;
  bool have_last = false;
  size_t last_end = 0;
  int failed = 0;
  Span m;
  while (search_from <= text.size() && regex_->Search(text, search_from, mctx, md, &m, &failed)) {
    if (m.start == m.end && have_last && last_end == m.end) {
      search_from += search_from < text.size()
                         ? SequenceLength(static_cast<uint8_t>(text[search_from]))
                         : 1;
      continue;
    }
    search_from = m.end;
    last_end = m.end;
    have_last = true;
    out->push_back(m);
  }
  pcre2_match_data_free(md);
  pcre2_match_context_free(mctx);
  if (failed != 0) {
    PCRE2_UCHAR message[256];
    pcre2_get_error_message(failed, message, sizeof(message));
    *error = std::string("regex match failed: ") + reinterpret_cast<const char*>(message);
    return false;
  }
  return true;
}

}  // namespace attnrt::tok
