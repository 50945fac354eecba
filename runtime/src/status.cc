// Formatting for Status messages without printf (see status.h for why).
#include "attnrt/runtime/status.h"

namespace attnrt {
namespace {

struct Arg {
  bool is_string;
  const char* s;
  size_t n;
};

class MessageWriter {
 public:
  MessageWriter(char* buf, size_t cap) : buf_(buf), cap_(cap) {}
  void Put(char c) {
    if (len_ + 1 < cap_) buf_[len_++] = c;
    buf_[len_] = '\0';
  }
  void PutString(const char* s) {
    for (; s != nullptr && *s != '\0'; ++s) Put(*s);
  }
  void PutNumber(size_t n) {
    char digits[24];
    int count = 0;
    do {
      digits[count++] = static_cast<char>('0' + n % 10);
      n /= 10;
    } while (n != 0);
    while (count > 0) Put(digits[--count]);
  }

 private:
  char* buf_;
  size_t cap_;
  size_t len_ = 0;
};

void Format(char* buf, size_t cap, const char* format, const Arg* args, size_t num_args) {
  MessageWriter out(buf, cap);
  size_t next = 0;
  for (const char* p = format; *p != '\0'; ++p) {
    const bool placeholder = p[0] == '%' && (p[1] == 's' || p[1] == 'z');
    if (!placeholder) {
      out.Put(*p);
      continue;
    }
    ++p;
    if (next < num_args) {
      const Arg& arg = args[next++];
      if (arg.is_string) {
        out.PutString(arg.s);
      } else {
        out.PutNumber(arg.n);
      }
    }
  }
}

}  // namespace

const char* StatusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return "ok";
    case StatusCode::kInvalidArgument: return "invalid argument";
    case StatusCode::kShapeMismatch: return "shape mismatch";
    case StatusCode::kArenaTooSmall: return "arena too small";
    case StatusCode::kBadFile: return "bad file";
    case StatusCode::kUnsupported: return "unsupported";
    case StatusCode::kOverflow: return "size overflow";
  }
  return "unknown";
}

static void FormatInto(char* buf, const char* format, const Arg* args, size_t n) {
  Format(buf, Status::kMaxMessage, format, args, n);
}

#define ATTNRT_STATUS_BODY(...)                                        \
  Status st;                                                           \
  st.code_ = code == StatusCode::kOk ? StatusCode::kInvalidArgument : code; \
  const Arg args[] = {__VA_ARGS__};                                    \
  FormatInto(st.message_, format, args, sizeof(args) / sizeof(args[0])); \
  return st;

Status Status::Error(StatusCode code, const char* format) {
  Status st;
  st.code_ = code == StatusCode::kOk ? StatusCode::kInvalidArgument : code;
  FormatInto(st.message_, format, nullptr, 0);
  return st;
}
Status Status::Error(StatusCode code, const char* format, size_t a) {
  ATTNRT_STATUS_BODY(Arg{false, nullptr, a})
}
Status Status::Error(StatusCode code, const char* format, size_t a, size_t b) {
  ATTNRT_STATUS_BODY(Arg{false, nullptr, a}, Arg{false, nullptr, b})
}
Status Status::Error(StatusCode code, const char* format, size_t a, size_t b, size_t c) {
  ATTNRT_STATUS_BODY(Arg{false, nullptr, a}, Arg{false, nullptr, b}, Arg{false, nullptr, c})
}
Status Status::Error(StatusCode code, const char* format, const char* s) {
  ATTNRT_STATUS_BODY(Arg{true, s, 0})
}
Status Status::Error(StatusCode code, const char* format, const char* s, size_t a) {
  ATTNRT_STATUS_BODY(Arg{true, s, 0}, Arg{false, nullptr, a})
}
Status Status::Error(StatusCode code, const char* format, const char* s, size_t a, size_t b) {
  ATTNRT_STATUS_BODY(Arg{true, s, 0}, Arg{false, nullptr, a}, Arg{false, nullptr, b})
}
Status Status::Error(StatusCode code, const char* format, const char* s, const char* t) {
  ATTNRT_STATUS_BODY(Arg{true, s, 0}, Arg{true, t, 0})
}
Status Status::Error(StatusCode code, const char* format, const char* s, size_t a, size_t b,
                     size_t c) {
  ATTNRT_STATUS_BODY(Arg{true, s, 0}, Arg{false, nullptr, a}, Arg{false, nullptr, b},
                     Arg{false, nullptr, c})
}
Status Status::Error(StatusCode code, const char* format, const char* s, size_t a, size_t b,
                     size_t c, size_t d) {
  ATTNRT_STATUS_BODY(Arg{true, s, 0}, Arg{false, nullptr, a}, Arg{false, nullptr, b},
                     Arg{false, nullptr, c}, Arg{false, nullptr, d})
}

#undef ATTNRT_STATUS_BODY

}  // namespace attnrt
