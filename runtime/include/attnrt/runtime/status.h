// Status: what every fallible runtime function returns instead of throwing.
//
// A status carries a code and a short message with the numbers involved, e.g.
// "arena too small: need 81920 bytes, have 65536". The message lives inside the
// object (no heap), so it works the same on a host and in firmware. Tools turn a
// failed status into a message on stderr and a non-zero exit code.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace attnrt {

enum class StatusCode : uint8_t {
  kOk = 0,
  kInvalidArgument,  // a parameter is out of range or inconsistent
  kShapeMismatch,    // tensor shapes do not fit together
  kArenaTooSmall,    // the caller's arena cannot hold the plan
  kBadFile,          // a weight file failed validation
  kUnsupported,      // valid request the chosen kernel or build cannot serve
  kOverflow,         // a size computation overflowed size_t
  kBufferTooSmall,   // a caller's output buffer cannot hold the result (the size is reported)
};

const char* StatusCodeName(StatusCode code);

// One argument of a status message: a string for "%s", a number for "%z".
struct StatusArg {
  StatusArg(const char* text) : is_string(true), s(text) {}
  template <typename T, typename = std::enable_if_t<std::is_integral<T>::value>>
  StatusArg(T v) : n(static_cast<uint64_t>(v)) {}
  bool is_string = false;
  const char* s = nullptr;
  uint64_t n = 0;
};

class Status {
 public:
  static constexpr size_t kMaxMessage = 200;

  Status() = default;
  static Status Ok() { return Status(); }

  // `format` understands "%s" (const char*) and "%z" (any integer, printed in
  // full as an unsigned 64-bit number, so a damaged file's u64 field reads the
  // same on a 32-bit target), filled from the arguments in order; other text is
  // copied as is and the result is cut to kMaxMessage. Kept tiny on purpose:
  // printf-family formatting drags heap use into newlib firmware.
  static Status Error(StatusCode code, const char* format) {
    return FromArgs(code, format, nullptr, 0);
  }
  template <typename... Args>
  static Status Error(StatusCode code, const char* format, Args... args) {
    const StatusArg list[] = {StatusArg(args)...};
    return FromArgs(code, format, list, sizeof...(Args));
  }
  // The formatter behind Error, for callers that gather their arguments first.
  static Status FromArgs(StatusCode code, const char* format, const StatusArg* args, size_t count);

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
