// "path: message" for an error about a file, without naming the path twice when
// the message already starts with it. Shared by the CLI and the converter.
#pragma once

#include <string>

namespace attnrt {

inline std::string WithPath(const std::string& path, const std::string& message) {
  const std::string prefix = path + ": ";
  return message.compare(0, prefix.size(), prefix) == 0 ? message : prefix + message;
}

}  // namespace attnrt
