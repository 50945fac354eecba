// Formatting for Status messages without printf (see status.h for why).
#include "attnrt/runtime/status.h"

namespace attnrt {
namespace {

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
  void PutNumber(uint64_t n) {
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

void Format(char* buf, size_t cap, const char* format, const StatusArg* args, size_t num_args) {
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
      const StatusArg& arg = args[next++];
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
    case StatusCode::kBufferTooSmall: return "buffer too small";
  }
  return "unknown";
}

Status Status::FromArgs(StatusCode code, const char* format, const StatusArg* args,
                        size_t count) {
  Status st;
  st.code_ = code == StatusCode::kOk ? StatusCode::kInvalidArgument : code;
  Format(st.message_, kMaxMessage, format, args, count);
  return st;
}


}  // namespace attnrt
