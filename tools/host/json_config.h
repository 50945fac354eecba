// JSON for the host tools: one strict parser (used by the config loader and the safetensors
// reader) and JsonConfig, a flat key -> value config file read through typed getters.
//
// Nothing here throws across the API: every failure returns false and an error that starts with
// the file name and, for a getter, names the key, e.g.
//   "model.json: key 'num_heads': expected an integer, got \"2\" (string)".
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace attnrt {

// Parses `size` bytes of JSON text into *out. Besides invalid JSON (and invalid UTF-8), rejects a
// key that appears twice in one object (plain nlohmann::json would silently keep the last one)
// and nesting deeper than `max_depth` objects/arrays (the top-level value counts as depth 1).
// Errors start with "`name`: ".
bool ParseJson(const char* text, size_t size, const std::string& name, size_t max_depth,
               nlohmann::json* out, std::string* error);

// A config file whose top level is a JSON object. Getters come in two forms:
//   required: GetInt(key, &value, &error)            missing key or null -> error
//   optional: GetInt(key, fallback, &value, &error)  missing key or null -> fallback
// In both forms a present value of the wrong type is an error (a typo'd type is never ignored).
// Null counts as absent so a config can say "d_k": null for PyTorch's None default.
class JsonConfig {
 public:
  // Integers only: 16 is accepted, 16.0 and "16" are not.
  bool GetInt(const std::string& key, int64_t* out, std::string* error) const;
  bool GetInt(const std::string& key, int64_t fallback, int64_t* out, std::string* error) const;
  // Any JSON number (an integer too).
  bool GetFloat(const std::string& key, double* out, std::string* error) const;
  bool GetFloat(const std::string& key, double fallback, double* out, std::string* error) const;
  // true or false only.
  bool GetBool(const std::string& key, bool* out, std::string* error) const;
  bool GetBool(const std::string& key, bool fallback, bool* out, std::string* error) const;
  bool GetString(const std::string& key, std::string* out, std::string* error) const;
  bool GetString(const std::string& key, const std::string& fallback, std::string* out,
                 std::string* error) const;

  // True when `key` is present with a non-null value.
  bool Has(const std::string& key) const;
  // Every top-level key, sorted.
  std::vector<std::string> Keys() const;
  // The top-level keys not in `allowed`, sorted.
  std::vector<std::string> UnknownKeys(const std::vector<std::string>& allowed) const;
  // False with "cfg.json: unknown key 'foo' (allowed: a, b, c)" when any key is not allowed.
  bool CheckNoUnknownKeys(const std::vector<std::string>& allowed, std::string* error) const;

  // The file name used in error messages.
  const std::string& name() const { return name_; }
  const nlohmann::json& root() const { return root_; }

 private:
  friend bool ParseJsonConfig(const std::string& text, const std::string& name, JsonConfig* out,
                              std::string* error);
  // The value of `key`, or null when it is absent (or null).
  const nlohmann::json* Find(const std::string& key) const;
  bool KeyError(const std::string& key, const std::string& what, std::string* error) const;
  bool TypeError(const std::string& key, const char* expected, const nlohmann::json& got,
                 std::string* error) const;
  bool Missing(const std::string& key, const char* expected, std::string* error) const;

  std::string name_;
  nlohmann::json root_ = nlohmann::json::object();
};

// Parses config text; `name` (usually the path) prefixes every error.
bool ParseJsonConfig(const std::string& text, const std::string& name, JsonConfig* out,
                     std::string* error);
// Reads and parses the config file at `path`.
bool LoadJsonConfig(const std::string& path, JsonConfig* out, std::string* error);

}  // namespace attnrt
