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

bool GetMetaspaceOptions(const Json& j, const std::string& at, MetaspaceOptions* out,
                         std::string* error) {
  using Prepend = MetaspaceOptions::Prepend;
  std::string scheme, str_rep;
  const bool has_scheme = j.contains("prepend_scheme") && !j["prepend_scheme"].is_null();
  bool add_prefix_space = true;
  if (!CheckKeys(j, at, {"type", "replacement", "prepend_scheme", "split", "add_prefix_space",
                         "str_rep"}, error) ||
      !GetChar(j, "replacement", at, &out->replacement, error) ||
      !GetString(j, "prepend_scheme", "always", at, &scheme, error) ||
      !GetBool(j, "split", true, at, &out->split, error) ||
      !GetBool(j, "add_prefix_space", true, at, &add_prefix_space, error) ||
      !GetString(j, "str_rep", "", at, &str_rep, error)) {
    return false;
  }
  if (scheme == "always") out->prepend = Prepend::kAlways;
  else if (scheme == "first") out->prepend = Prepend::kFirst;
  else if (scheme == "never") out->prepend = Prepend::kNever;
  else {
    *error = at + ": unknown prepend_scheme '" + scheme + "'";
    return false;
  }
  if (!add_prefix_space) {
    if (has_scheme && out->prepend != Prepend::kNever) {
      *error = at + ": add_prefix_space false contradicts prepend_scheme '" + scheme + "'";
      return false;
    }
    out->prepend = Prepend::kNever;
  }
  return true;
}

bool LoadComponents(const Json& j, const std::string& where, const char* list_key,
                    const LoadComponent& load_one, std::string* error) {
  std::string type;
  if (!GetType(j, where, &type, error)) return false;
  if (type != "Sequence") return load_one(j, where, type, error);
  const std::string at = Describe(where, j);
  if (!CheckKeys(j, at, {"type", list_key}, error)) return false;
  const auto it = j.find(list_key);
  if (it == j.end() || !it->is_array()) {
    *error = at + ": expected a list '" + list_key + "'";
    return false;
  }
  for (size_t i = 0; i < it->size(); ++i) {
    const std::string item = where + "." + list_key + "[" + std::to_string(i) + "]";
    if (!LoadComponents((*it)[i], item, list_key, load_one, error)) return false;
  }
  return true;
}

}  // namespace attnrt::tok
