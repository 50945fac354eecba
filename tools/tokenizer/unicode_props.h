// Unicode data for the tokenizer, from ICU (Debian's libicu): normalization forms and the
// character properties the reference library tests with Rust's char methods and regex classes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace attnrt::tok {

enum class NormalForm { kNfc, kNfd, kNfkc, kNfkd };

// *out = `text` (valid UTF-8) in the given normalization form. False only when ICU fails
// (out of memory), with the reason in *error.
bool NormalizeUnicode(NormalForm form, std::string_view text, std::string* out,
                      std::string* error);

// Rust's char::is_whitespace (the White_Space property).
bool IsWhiteSpace(uint32_t cp);
// Rust's char::is_numeric (general categories Nd, Nl, No).
bool IsNumeric(uint32_t cp);
// The Rust regex crate's Unicode \w: Alphabetic, marks, Nd, Pc and Join_Control.
bool IsRegexWordChar(uint32_t cp);

}  // namespace attnrt::tok
