// Checked access to tokenizer.json's component objects (see json_fields.h).
#include "tokenizer/json_fields.h"

#include "tokenizer/utf8.h"

namespace attnrt::tok {
namespace {

std::string Shown(const Json& value) {
  std::string text = value.dump(-1, ' ', false, Json::error_handler_t::replace);
  if (text.size() > 60) text = text.substr(0, 60) + "...";
  return text;
}

bool WrongType(const std::string& where, const char* key, const char* expected, const Json& got,
               std::string* error) {
  *error = where + ": key '" + key + "': expected " + expected + ", got " + Shown(got);
  return false;
}

}  // namespace

std::string Describe(const std::string& where, const Json& obj) {
  if (obj.is_object()) {
    const auto it = obj.find("type");
    if (it != obj.end() && it->is_string()) return where + " (" + it->get<std::string>() + ")";
  }
  return where;
}

bool CheckKeys(const Json& obj, const std::string& where,
               std::initializer_list<const char*> allowed, std::string* error) {
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    bool known = false;
    for (const char* key : allowed) known = known || it.key() == key;
    if (!known) {
      std::string list;
      for (const char* key : allowed) list += (list.empty() ? "" : ", ") + std::string(key);
      *error = where + ": unknown key '" + it.key() + "' (this implementation knows: " + list + ")";
      return false;
    }
  }
  return true;
}

bool GetBool(const Json& obj, const char* key, bool fallback, const std::string& where, bool* out,
             std::string* error) {
  const auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) {
    *out = fallback;
    return true;
  }
  if (!it->is_boolean()) return WrongType(where, key, "a boolean", *it, error);
  *out = it->get<bool>();
  return true;
}

bool GetString(const Json& obj, const char* key, const std::string& fallback,
               const std::string& where, std::string* out, std::string* error) {
  const auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) {
    *out = fallback;
    return true;
  }
  if (!it->is_string()) return WrongType(where, key, "a string", *it, error);
  *out = it->get<std::string>();
  return true;
}

bool GetUint(const Json& obj, const char* key, uint64_t fallback, const std::string& where,
             uint64_t* out, std::string* error) {
  const auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) {
    *out = fallback;
    return true;
  }
  if (!it->is_number_unsigned()) return WrongType(where, key, "a non-negative integer", *it, error);
  *out = it->get<uint64_t>();
  return true;
}

bool GetChar(const Json& obj, const char* key, const std::string& where, std::string* out,
             std::string* error) {
  const auto it = obj.find(key);
  if (it == obj.end() || !it->is_string()) {
    return WrongType(where, key, "a one-character string", it == obj.end() ? Json() : *it, error);
  }
  const std::string& s = it->get_ref<const std::string&>();
  if (s.empty() || SequenceLength(static_cast<uint8_t>(s[0])) != s.size()) {
    return WrongType(where, key, "a one-character string", *it, error);
  }
  *out = s;
  return true;
}

bool GetType(const Json& obj, const std::string& where, std::string* out, std::string* error) {
  if (!obj.is_object()) {
    *error = where + ": expected an object, got " + Shown(obj);
    return false;
  }
  const auto it = obj.find("type");
  if (it == obj.end() || !it->is_string()) {
    *error = where + ": no \"type\"";
    return false;
  }
  *out = it->get<std::string>();
  return true;
}

}  // namespace attnrt::tok
