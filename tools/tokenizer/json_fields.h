// Reading the component objects of tokenizer.json: every key checked against the ones the
// component knows (an unknown key could change what it does, so it is refused by name), and
// typed getters whose errors name the component, e.g.
//   "pre_tokenizer.pretokenizers[0] (Split): key 'invert': expected a boolean, got 1".
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>

#include <nlohmann/json.hpp>

namespace attnrt::tok {

using Json = nlohmann::json;

// `where` and the object's type, as errors show them.
std::string Describe(const std::string& where, const Json& obj);

// False naming the first key of `obj` that is not in `allowed`.
bool CheckKeys(const Json& obj, const std::string& where, std::initializer_list<const char*> allowed,
               std::string* error);

// Missing or null keys give the fallback; a value of another type is an error.
bool GetBool(const Json& obj, const char* key, bool fallback, const std::string& where, bool* out,
             std::string* error);
bool GetString(const Json& obj, const char* key, const std::string& fallback,
               const std::string& where, std::string* out, std::string* error);
bool GetUint(const Json& obj, const char* key, uint64_t fallback, const std::string& where,
             uint64_t* out, std::string* error);
// A string holding exactly one code point (Rust's char), e.g. Metaspace's replacement.
bool GetChar(const Json& obj, const char* key, const std::string& where, std::string* out,
             std::string* error);

// The object's "type" string; false when it has none.
bool GetType(const Json& obj, const std::string& where, std::string* out, std::string* error);

}  // namespace attnrt::tok
