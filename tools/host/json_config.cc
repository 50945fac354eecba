// Strict JSON parsing (duplicate keys, nesting depth) and JsonConfig's typed getters.
//
// nlohmann::json throws on bad input; every exception is caught here and turned into an error
// string, so callers see only bool + message.
#include "host/json_config.h"

#include "host/regular_file.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>
#include <set>
#include <unordered_set>
#include <sstream>

namespace attnrt {
namespace {

using Json = nlohmann::json;

// nlohmann's messages start with "[json.exception.parse_error.101] "; the tag helps nobody.
std::string WithoutExceptionTag(const char* what) {
  std::string s(what);
  if (!s.empty() && s[0] == '[') {
    const size_t close = s.find("] ");
    if (close != std::string::npos) s.erase(0, close + 2);
  }
  return s;
}

// How a value looks in an error message: short, with its JSON type.
std::string Describe(const Json& value) {
  std::string text = value.dump();
  constexpr size_t kMaxQuote = 40;
  if (text.size() > kMaxQuote) text = text.substr(0, kMaxQuote) + "...";
  return text + " (" + value.type_name() + ")";
}

// nlohmann's DOM builder with the two checks on the way. Built on the SAX interface rather than
// a parse callback: at every object's end the callback parser scans the whole enclosing array or
// object for discarded values, which is quadratic in its length (seconds for a tokenizer
// config's 6,000 added tokens).
class StrictDomBuilder : public nlohmann::detail::json_sax_dom_parser<Json> {
 public:
  using Base = nlohmann::detail::json_sax_dom_parser<Json>;
  StrictDomBuilder(Json& root, size_t max_depth) : Base(root, true), max_depth_(max_depth) {}

  // nlohmann::json::sax_parse calls these by name on this type.
  bool start_object(std::size_t n) {
    if (!Enter()) return false;
    open_objects_.emplace_back();
    return Base::start_object(n);
  }
  bool end_object() {
    open_objects_.pop_back();
    --depth_;
    return Base::end_object();
  }
  bool start_array(std::size_t n) { return Enter() && Base::start_array(n); }
  bool end_array() {
    --depth_;
    return Base::end_array();
  }
  bool key(std::string& k) {
    if (!open_objects_.back().insert(k).second) {
      violation_ = "duplicate key " + Json(k).dump();
      return false;
    }
    return Base::key(k);
  }
  const std::string& violation() const { return violation_; }

 private:
  bool Enter() {
    // `depth_` is the number of containers already open around this one.
    if (depth_ + 1 > max_depth_) {
      violation_ = "nesting deeper than " + std::to_string(max_depth_) + " levels";
      return false;
    }
    ++depth_;
    return true;
  }

  size_t max_depth_;
  size_t depth_ = 0;
  // One set of seen keys per open object.
  std::vector<std::unordered_set<std::string>> open_objects_;
  std::string violation_;
};

}  // namespace

bool ParseJson(const char* text, size_t size, const std::string& name, size_t max_depth,
               Json* out, std::string* error) {
  // nlohmann's lexer ends the input at a NUL byte, so `{...}\0{...}` would parse as its first
  // object while `{...} {...}` is refused. No JSON text holds a raw NUL (even inside a string
  // it must be escaped): refuse it by offset.
  if (const void* nul = std::memchr(text, '\0', size)) {
    if (error) {
      *error = name + ": invalid JSON: a NUL byte at offset " +
               std::to_string(static_cast<const char*>(nul) - text);
    }
    return false;
  }
  try {
    Json root;
    StrictDomBuilder builder(root, max_depth);
    if (!Json::sax_parse(text, text + size, &builder)) {
      if (error) *error = name + ": " + builder.violation();
      return false;
    }
    *out = std::move(root);
  } catch (const Json::exception& e) {
    if (error) *error = name + ": invalid JSON: " + WithoutExceptionTag(e.what());
    return false;
  } catch (const std::exception& e) {  // std::bad_alloc on a hostile header
    if (error) *error = name + ": cannot parse JSON: " + e.what();
    return false;
  }
  return true;
}

bool ParseJsonConfig(const std::string& text, const std::string& name, JsonConfig* out,
                     std::string* error) {
  // Configs are flat, but a value may be a list or small object: allow some nesting.
  constexpr size_t kMaxConfigDepth = 16;
  Json root;
  if (!ParseJson(text.data(), text.size(), name, kMaxConfigDepth, &root, error)) return false;
  if (!root.is_object()) {
    if (error) *error = name + ": top level must be a JSON object, got " + Describe(root);
    return false;
  }
  out->name_ = name;
  out->root_ = std::move(root);
  return true;
}

bool LoadJsonConfig(const std::string& path, JsonConfig* out, std::string* error) {
  // A config is a small JSON object of constructor arguments.
  constexpr size_t kMaxConfigBytes = size_t{1} << 20;
  std::string text;
  return ReadRegularFileText(path, kMaxConfigBytes, "a JSON config file", &text, error) &&
         ParseJsonConfig(text, path, out, error);
}

const Json* JsonConfig::Find(const std::string& key) const {
  const auto it = root_.find(key);
  if (it == root_.end() || it->is_null()) return nullptr;
  return &*it;
}

bool JsonConfig::KeyError(const std::string& key, const std::string& what,
                          std::string* error) const {
  if (error) *error = name_ + ": key '" + key + "': " + what;
  return false;
}

bool JsonConfig::TypeError(const std::string& key, const char* expected, const Json& got,
                           std::string* error) const {
  return KeyError(key, std::string("expected ") + expected + ", got " + Describe(got), error);
}

bool JsonConfig::Missing(const std::string& key, const char* expected, std::string* error) const {
  const auto it = root_.find(key);
  if (it != root_.end()) {
    return KeyError(key, std::string("is null; expected ") + expected, error);
  }
  if (error) *error = name_ + ": missing required key '" + key + "' (" + expected + ")";
  return false;
}

bool JsonConfig::GetInt(const std::string& key, int64_t* out, std::string* error) const {
  constexpr const char* kExpected = "an integer";
  const Json* value = Find(key);
  if (value == nullptr) return Missing(key, kExpected, error);
  if (value->is_number_unsigned()) {
    const uint64_t u = value->get<uint64_t>();
    if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return KeyError(key, "integer " + value->dump() + " is out of range", error);
    }
    *out = static_cast<int64_t>(u);
    return true;
  }
  if (value->is_number_integer()) {
    *out = value->get<int64_t>();
    return true;
  }
  return TypeError(key, kExpected, *value, error);
}

bool JsonConfig::GetInt(const std::string& key, int64_t fallback, int64_t* out,
                        std::string* error) const {
  if (!Has(key)) {
    *out = fallback;
    return true;
  }
  return GetInt(key, out, error);
}

bool JsonConfig::GetFloat(const std::string& key, double* out, std::string* error) const {
  constexpr const char* kExpected = "a number";
  const Json* value = Find(key);
  if (value == nullptr) return Missing(key, kExpected, error);
  if (!value->is_number()) return TypeError(key, kExpected, *value, error);
  *out = value->get<double>();
  return true;
}

bool JsonConfig::GetFloat(const std::string& key, double fallback, double* out,
                          std::string* error) const {
  if (!Has(key)) {
    *out = fallback;
    return true;
  }
  return GetFloat(key, out, error);
}

bool JsonConfig::GetBool(const std::string& key, bool* out, std::string* error) const {
  constexpr const char* kExpected = "true or false";
  const Json* value = Find(key);
  if (value == nullptr) return Missing(key, kExpected, error);
  if (!value->is_boolean()) return TypeError(key, kExpected, *value, error);
  *out = value->get<bool>();
  return true;
}

bool JsonConfig::GetBool(const std::string& key, bool fallback, bool* out,
                         std::string* error) const {
  if (!Has(key)) {
    *out = fallback;
    return true;
  }
  return GetBool(key, out, error);
}

bool JsonConfig::GetString(const std::string& key, std::string* out, std::string* error) const {
  constexpr const char* kExpected = "a string";
  const Json* value = Find(key);
  if (value == nullptr) return Missing(key, kExpected, error);
  if (!value->is_string()) return TypeError(key, kExpected, *value, error);
  *out = value->get<std::string>();
  return true;
}

bool JsonConfig::GetString(const std::string& key, const std::string& fallback, std::string* out,
                           std::string* error) const {
  if (!Has(key)) {
    *out = fallback;
    return true;
  }
  return GetString(key, out, error);
}

bool JsonConfig::Has(const std::string& key) const { return Find(key) != nullptr; }

std::vector<std::string> JsonConfig::Keys() const {
  std::vector<std::string> keys;
  for (const auto& item : root_.items()) keys.push_back(item.key());
  std::sort(keys.begin(), keys.end());
  return keys;
}

std::vector<std::string> JsonConfig::UnknownKeys(const std::vector<std::string>& allowed) const {
  std::vector<std::string> unknown;
  for (const std::string& key : Keys()) {
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) unknown.push_back(key);
  }
  return unknown;
}

bool JsonConfig::CheckNoUnknownKeys(const std::vector<std::string>& allowed,
                                    std::string* error) const {
  const std::vector<std::string> unknown = UnknownKeys(allowed);
  if (unknown.empty()) return true;
  std::string message = name_ + ": unknown key";
  if (unknown.size() > 1) message += "s";
  for (size_t i = 0; i < unknown.size(); ++i) message += (i ? ", '" : " '") + unknown[i] + "'";
  message += " (allowed: ";
  for (size_t i = 0; i < allowed.size(); ++i) message += (i ? ", " : "") + allowed[i];
  message += ")";
  if (error) *error = message;
  return false;
}

}  // namespace attnrt
