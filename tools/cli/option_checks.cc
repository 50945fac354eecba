// Numeric option validators (see option_checks.h).
#include "cli/option_checks.h"

#include <cerrno>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace attnrt::cli {
namespace {

std::string Quoted(const std::string& s) { return "'" + s + "'"; }

// Parses the whole string as a double; false for empty or trailing text.
bool ParseDouble(const std::string& s, double* out) {
  if (s.empty()) return false;
  char* end = nullptr;
  errno = 0;
  *out = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size();
}

}  // namespace

CLI::Validator WholeNumber(uint64_t lo, uint64_t hi) {
  const std::string range = "a whole number in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
  return CLI::Validator(
      [lo, hi, range](std::string& s) -> std::string {
        bool digits = !s.empty() && s.size() <= 20;
        for (char c : s) digits = digits && c >= '0' && c <= '9';
        if (!digits) return "must be " + range + ", got " + Quoted(s);
        errno = 0;
        const unsigned long long v = std::strtoull(s.c_str(), nullptr, 10);
        if (errno == ERANGE || v < lo || v > hi) return "must be " + range + ", got " + s;
        return std::string();
      },
      "UINT in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
}

CLI::Validator FiniteNumber(double lo, double hi) {
  char text[96];
  std::snprintf(text, sizeof(text), "a finite number in [%g, %g]", lo, hi);
  const std::string range = text;
  return CLI::Validator(
      [lo, hi, range](std::string& s) -> std::string {
        double v;
        if (!ParseDouble(s, &v) || !std::isfinite(v) || v < lo || v > hi) {
          return "must be " + range + ", got " + Quoted(s);
        }
        return std::string();
      },
      "NUMBER");
}

CLI::Validator ExactFloat32Scale() {
  return CLI::Validator(
      [](std::string& s) -> std::string {
        double v;
        if (!ParseDouble(s, &v) || !std::isfinite(v)) {
          return "must be a finite number, got " + Quoted(s);
        }
        const double magnitude = std::fabs(v);
        if (v != 0.0 && (magnitude < static_cast<double>(FLT_MIN) ||
                         magnitude > static_cast<double>(FLT_MAX))) {
          char range[64];
          std::snprintf(range, sizeof(range), "%.9g to %.9g", static_cast<double>(FLT_MIN),
                        static_cast<double>(FLT_MAX));
          return "must be 0 or a normal float32 (magnitude " + std::string(range) +
                 "; float32 would turn it into 0 or infinity), got " + s;
        }
        return std::string();
      },
      "FLOAT");
}

CLI::Validator ThreadCount() { return WholeNumber(0, 1024); }

}  // namespace attnrt::cli
