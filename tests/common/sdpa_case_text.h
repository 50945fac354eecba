// Describe(SdpaCase): the one-line text both SDPA harnesses print for a case, written
// into the caller's char buffer: the boards have no std::string, and newlib's
// printf family pulls in malloc (float formatting allocates), so TextBuffer formats
// numbers itself with float arithmetic only.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "attnrt/kernels/kv_store.h"
#include "common/sdpa_case.h"

namespace attnrt::testing {

// Appends to a caller's buffer, always NUL-terminated; what does not fit is cut, and
// length() still counts it (as snprintf does), so a caller can tell.
class TextBuffer {
 public:
  TextBuffer(char* text, size_t size) : text_(text), size_(size) {
    if (size_ > 0) text_[0] = '\0';
  }
  TextBuffer& Char(char c) {
    if (length_ + 1 < size_) {
      text_[length_] = c;
      text_[length_ + 1] = '\0';
    }
    ++length_;
    return *this;
  }
  TextBuffer& Text(const char* s) {
    while (*s != '\0') Char(*s++);
    return *this;
  }
  TextBuffer& Size(size_t value) {
    if (value >= 10) Size(value / 10);  // the leading digits first
    return Char(static_cast<char>('0' + value % 10));
  }
  // Four significant digits, trailing zeros dropped: 0.1, 1.7, 100, -0.05, 1e+31,
  // -3.403e+38, inf, nan.
  TextBuffer& Number(float value);
  size_t length() const { return length_; }

 private:
  char* text_;
  size_t size_;
  size_t length_ = 0;
};

inline TextBuffer& TextBuffer::Number(float value) {
  if (value != value) return Text("nan");
  if (value < 0.0f) {
    Char('-');
    value = -value;
  }
  if (value > 3.40282347e38f) return Text("inf");
  if (value == 0.0f) return Char('0');
  // value ~ digits * 10^(lead - 3), digits in [1000, 9999]: lead is the decimal
  // exponent of the first digit.
  int lead = 3;
  while (value >= 9999.5f) value /= 10.0f, ++lead;
  while (value < 999.5f) value *= 10.0f, --lead;
  char d[4];
  for (uint32_t digits = static_cast<uint32_t>(value + 0.5f), i = 4; i-- > 0; digits /= 10) {
    d[i] = static_cast<char>('0' + digits % 10);
  }
  int last = 3;  // the last nonzero digit
  while (last > 0 && d[last] == '0') --last;
  if (lead < -4 || lead > 8) {  // 1.234e+31
    Char(d[0]);
    if (last > 0) Char('.');
    for (int i = 1; i <= last; ++i) Char(d[i]);
    Text(lead < 0 ? "e-" : "e+");
    return Size(static_cast<size_t>(lead < 0 ? -lead : lead));
  }
  if (lead < 0) {  // 0.0012
    Text("0.");
    for (int i = lead + 1; i < 0; ++i) Char('0');
    for (int i = 0; i <= last; ++i) Char(d[i]);
    return *this;
  }
  for (int i = 0; i <= (lead > last ? lead : last); ++i) {  // 12.5, 100
    Char(i < 4 ? d[i] : '0');
    if (i == lead && last > lead) Char('.');
  }
  return *this;
}

inline const char* MaskKindName(MaskKind m) {
  return m == MaskKind::kBool ? "bool" : m == MaskKind::kAdditive ? "float" : "none";
}

inline const char* MaskShapeName(MaskShape s) {
  switch (s) {
    case MaskShape::kLS: return "LS";
    case MaskShape::kBHLS: return "BHLS";
    case MaskShape::kB1LS: return "B1LS";
    case MaskShape::kB11S: return "B11S";
    case MaskShape::kL1: return "L1";
  }
  return "?";
}

inline const char* CausalKindName(CausalKind c) {
  return c == CausalKind::kUpperLeft    ? "upper-left"
         : c == CausalKind::kLowerRight ? "lower-right"
                                        : "none";
}

inline const char* ExtremeKindName(ExtremeKind e) {
  return e == ExtremeKind::kLowestMask     ? "lowest-mask"
         : e == ExtremeKind::kHugeNegative ? "huge-negative"
                                           : "none";
}

// Writes the case as one line: its name, the shapes, then only what is not the
// default, e.g. "keypad B=2 Hq=4 Hkv=2 L=9 S=130 E=12 Ev=20 mask=bool(B11S) keep=0.7
// causal=lower-right scale=0.5 k[72]=inf seed=3". Returns the full length (the text
// is cut to size - 1 characters).
inline size_t Describe(const SdpaCase& c, char* text, size_t size) {
  TextBuffer t(text, size);
  if (c.name[0] != '\0') t.Text(c.name).Char(' ');
  t.Text("B=").Size(c.batch).Text(" Hq=").Size(c.q_heads).Text(" Hkv=").Size(c.kv_heads);
  t.Text(" L=").Size(c.L).Text(" S=").Size(c.S).Text(" E=").Size(c.E).Text(" Ev=").Size(c.Ev);
  if (c.mask != MaskKind::kNone) {
    t.Text(" mask=").Text(MaskKindName(c.mask)).Char('(').Text(MaskShapeName(c.mask_shape));
    t.Text(") keep=").Number(c.keep_probability);
  }
  if (c.dead_every != 0) t.Text(" dead_every=").Size(c.dead_every);
  if (c.causal != CausalKind::kNone) t.Text(" causal=").Text(CausalKindName(c.causal));
  if (c.scale != 0.0f) t.Text(" scale=").Number(c.scale);
  if (c.window != 0) t.Text(" window=").Size(c.window);
  if (c.alibi) t.Text(" alibi*").Number(c.alibi_scale);
  if (c.softcap != 0.0f) t.Text(" softcap=").Number(c.softcap);
  if (c.sinks) t.Text(" sinks*").Number(c.sink_magnitude).Char('+').Number(c.sink_offset);
  for (size_t i = 0; i < c.poison_count && i < kMaxBadValues; ++i) {
    const BadValue& bad = c.poison[i];
    t.Char(' ').Char(bad.tensor).Char('[').Size(bad.index).Text("]=").Number(bad.value);
  }
  if (c.poison_count > kMaxBadValues) t.Text(" too-many-poisons");
  if (c.nonfinite_keys) t.Text(" nonfinite-keys");
  if (c.nonfinite_queries) t.Text(" nonfinite-queries");
  if (c.extreme != ExtremeKind::kNone) t.Text(" extreme=").Text(ExtremeKindName(c.extreme));
  if (c.kv_type != KvType::kF32) t.Text(" kv=").Text(KvTypeName(c.kv_type));
  if (c.logit_magnitude != 1.0f) t.Text(" logits*").Number(c.logit_magnitude);
  if (c.misalign) t.Text(" misaligned");
  if (c.want_weights) t.Text(" weights");
  if (c.workers != 1) t.Text(" workers=").Size(c.workers);
  t.Text(" seed=").Size(c.seed);
  return t.length();
}

}  // namespace attnrt::testing
