// Reading the component objects of tokenizer.json: every key checked against the ones the
// component knows (an unknown key could change what it does, so it is refused by name), and
// typed getters whose errors name the component, e.g.
//   "pre_tokenizer.pretokenizers[0] (Split): key 'invert': expected a boolean, got 1".
#pragma once

#include <cstdint>
#include <functional>
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

// The Metaspace pre-tokenizer's and decoder's settings (one deserializer in the reference):
// prepend_scheme "always" / "first" / "never", or the older add_prefix_space (false: never).
struct MetaspaceOptions {
  enum class Prepend { kAlways, kFirst, kNever };
  std::string replacement;  // one character
  Prepend prepend = Prepend::kAlways;
  bool split = true;
};
bool GetMetaspaceOptions(const Json& j, const std::string& at, MetaspaceOptions* out,
                         std::string* error);

// Calls `load_one(component, where, type, error)` on `j`, or, when `j` is a Sequence, on each
// component of its list `list_key` ("normalizers", "decoders", ...) in order, nested Sequences
// flattened (the same as running them one after another).
using LoadComponent = std::function<bool(const Json& j, const std::string& where,
                                         const std::string& type, std::string* error)>;
bool LoadComponents(const Json& j, const std::string& where, const char* list_key,
                    const LoadComponent& load_one, std::string* error);
// A member function LoadOne of *self as a LoadComponent.
template <typename T>
LoadComponent Bind(T* self, bool (T::*load_one)(const Json&, const std::string&,
                                                const std::string&, std::string*)) {
  return [self, load_one](const Json& j, const std::string& where, const std::string& type,
                          std::string* error) { return (self->*load_one)(j, where, type, error); };
}

}  // namespace attnrt::tok
