// The patterns of tokenizer.json ({"String": "..."} or {"Regex": "..."}) as the reference
// library matches them. Its regexes are Oniguruma's (Ruby syntax); they run here on PCRE2
// (UTF + UCP, JIT-compiled where the platform has a JIT), after a translation that keeps
// Oniguruma's meaning of \s and \w, and a check that refuses by name every construct whose
// meaning differs between the two engines (^ and $, \h, \b, POSIX classes, (?m), ...).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace attnrt::tok {

struct Span {
  size_t start = 0;
  size_t end = 0;
};

class CompiledRegex;

class Pattern {
 public:
  // Reads {"String": s} or {"Regex": r}; `where` names the field in errors. An empty
  // pattern is refused (the reference matches it everywhere, which no tokenizer means).
  static bool FromJson(const nlohmann::json& j, const std::string& where, Pattern* out,
                       std::string* error);
  static bool FromRegex(const std::string& regex, const std::string& where, Pattern* out,
                        std::string* error);
  static Pattern FromString(std::string literal);

  // The matches in `text` (valid UTF-8), left to right and non-overlapping, as the
  // reference's Oniguruma iterator finds them (an empty match right where the previous one
  // ended is skipped). False only when the regex engine gives up (its limits).
  bool FindMatches(std::string_view text, std::vector<Span>* out, std::string* error) const;

 private:
  std::string literal_;
  std::shared_ptr<const CompiledRegex> regex_;  // null for a literal
};

// An Oniguruma pattern in PCRE2 syntax with Oniguruma's meaning, or false with the
// construct that has none here. Exposed for tests.
bool TranslateOnigurumaRegex(const std::string& onig, std::string* pcre2, std::string* error);

}  // namespace attnrt::tok
