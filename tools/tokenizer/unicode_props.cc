// ICU behind unicode_props.h. ICU normalizes UTF-16, so text goes through it only when it
// is not plain ASCII (which every normalization form leaves as it is).
#include "tokenizer/unicode_props.h"

#include <unicode/uchar.h>
#include <unicode/unorm2.h>
#include <unicode/ustring.h>

#include <vector>

namespace attnrt::tok {
namespace {

bool IsAscii(std::string_view s) {
  for (char c : s) {
    if (static_cast<unsigned char>(c) >= 0x80) return false;
  }
  return true;
}

const UNormalizer2* Instance(NormalForm form, UErrorCode* status) {
  switch (form) {
    case NormalForm::kNfc: return unorm2_getNFCInstance(status);
    case NormalForm::kNfd: return unorm2_getNFDInstance(status);
    case NormalForm::kNfkc: return unorm2_getNFKCInstance(status);
    case NormalForm::kNfkd: return unorm2_getNFKDInstance(status);
  }
  return nullptr;
}

bool IcuFailed(UErrorCode status, const char* step, std::string* error) {
  if (U_SUCCESS(status)) return false;
  *error = std::string("Unicode normalization failed (ICU ") + step + ": " + u_errorName(status) + ")";
  return true;
}

}  // namespace

bool NormalizeUnicode(NormalForm form, std::string_view text, std::string* out,
                      std::string* error) {
  if (IsAscii(text)) {
    out->assign(text);
    return true;
  }
  UErrorCode status = U_ZERO_ERROR;
  const UNormalizer2* norm = Instance(form, &status);
  if (IcuFailed(status, "instance", error)) return false;
  // UTF-16 needs at most one unit per UTF-8 byte; NFKD can grow text up to 18 times per
  // code point, so the normalized buffer is sized by asking first.
  std::vector<UChar> src(text.size() + 1);
  int32_t src_len = 0;
  u_strFromUTF8(src.data(), static_cast<int32_t>(src.size()), &src_len, text.data(),
                static_cast<int32_t>(text.size()), &status);
  if (IcuFailed(status, "from UTF-8", error)) return false;
  std::vector<UChar> dst(static_cast<size_t>(src_len) * 2 + 16);
  int32_t dst_len = unorm2_normalize(norm, src.data(), src_len, dst.data(),
                                     static_cast<int32_t>(dst.size()), &status);
  if (status == U_BUFFER_OVERFLOW_ERROR) {
    status = U_ZERO_ERROR;
    dst.resize(static_cast<size_t>(dst_len) + 1);
    dst_len = unorm2_normalize(norm, src.data(), src_len, dst.data(),
                               static_cast<int32_t>(dst.size()), &status);
  }
  if (IcuFailed(status, "normalize", error)) return false;
  int32_t utf8_len = 0;
  u_strToUTF8(nullptr, 0, &utf8_len, dst.data(), dst_len, &status);
  if (status == U_BUFFER_OVERFLOW_ERROR) status = U_ZERO_ERROR;
  if (IcuFailed(status, "to UTF-8", error)) return false;
  out->assign(static_cast<size_t>(utf8_len), '\0');
  u_strToUTF8(out->data(), utf8_len, &utf8_len, dst.data(), dst_len, &status);
  if (status == U_STRING_NOT_TERMINATED_WARNING) status = U_ZERO_ERROR;
  return !IcuFailed(status, "to UTF-8", error);
}

bool IsWhiteSpace(uint32_t cp) { return u_isUWhiteSpace(static_cast<UChar32>(cp)) != 0; }

bool IsNumeric(uint32_t cp) {
  const int8_t type = u_charType(static_cast<UChar32>(cp));
  return type == U_DECIMAL_DIGIT_NUMBER || type == U_LETTER_NUMBER || type == U_OTHER_NUMBER;
}

bool IsRegexWordChar(uint32_t cp) {
  const UChar32 c = static_cast<UChar32>(cp);
  if (u_hasBinaryProperty(c, UCHAR_ALPHABETIC) || u_hasBinaryProperty(c, UCHAR_JOIN_CONTROL)) {
    return true;
  }
  const int32_t mask = U_GET_GC_MASK(c);
  return (mask & (U_GC_M_MASK | U_GC_ND_MASK | U_GC_PC_MASK)) != 0;
}

}  // namespace attnrt::tok
