// Status: what every fallible runtime function returns instead of throwing.
//
// A status carries a code and a short message with the numbers involved, e.g.
// "arena too small: need 81920 bytes, have 65536". The message lives inside the
// object (no heap), so it works the same on a host and in firmware. Tools turn a
// failed status into a message on stderr and a non-zero exit code.
#pragma once

#include <cstddef>
#include <cstdint>

namespace attnrt {

enum class StatusCode : uint8_t {
  kOk = 0,
  kInvalidArgument,  // a parameter is out of range or inconsistent
  kShapeMismatch,    // tensor shapes do not fit together
  kArenaTooSmall,    // the caller's arena cannot hold the plan
  kBadFile,          // a weight file failed validation
  kUnsupported,      // valid request the chosen kernel or build cannot serve
  kOverflow,         // a size computation overflowed size_t
};

const char* StatusCodeName(StatusCode code);

class Status {
 public:
  static constexpr size_t kMaxMessage = 200;

  Status() = default;
  static Status Ok() { return Status(); }

  // `format` understands "%s" (const char*) and "%z" (size_t), in that order of
  // appearance as given by the arguments; other text is copied as is. Kept tiny
  // on purpose: printf-family formatting drags heap use into newlib firmware.
  static Status Error(StatusCode code, const char* format);
  static Status Error(StatusCode code, const char* format, size_t a);
  static Status Error(StatusCode code, const char* format, size_t a, size_t b);
  static Status Error(StatusCode code, const char* format, size_t a, size_t b, size_t c);
  static Status Error(StatusCode code, const char* format, const char* s);
  static Status Error(StatusCode code, const char* format, const char* s, size_t a);
  static Status Error(StatusCode code, const char* format, const char* s, size_t a, size_t b);
  static Status Error(StatusCode code, const char* format, const char* s, const char* t);
  static Status Error(StatusCode code, const char* format, const char* s, size_t a, size_t b,
                      size_t c);
  static Status Error(StatusCode code, const char* format, const char* s, size_t a, size_t b,
                      size_t c, size_t d);

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const char* message() const { return ok() ? "ok" : message_; }

 private:
  StatusCode code_ = StatusCode::kOk;
  char message_[kMaxMessage] = {0};
};

// Propagates a failed status to the caller.
#define ATTNRT_RETURN_IF_ERROR(expr)          \
  do {                                        \
    ::attnrt::Status attnrt_status_ = (expr); \
    if (!attnrt_status_.ok()) return attnrt_status_; \
  } while (0)

}  // namespace attnrt
