// The Tokenizer of a cross build that found no PCRE2 or ICU for its target
// (tools/tokenizer/CMakeLists.txt): every entry point refuses by name, so `tokenize`,
// `generate --prompt`, `chat` and the tokenizer C API say why instead of misbehaving, and
// `convert` keeps a folder's tokenizer files without the compact form. Host builds always
// have the real engine (tokenizer.cc).
#include "tokenizer/tokenizer.h"

namespace attnrt {
namespace {

bool Unavailable(const std::string& name, std::string* error) {
  *error = name + ": this attnrt was cross-built without its tokenizer (PCRE2 and ICU were not "
                  "found for the target; toolchains/install_cross_deps.sh installs them when the "
                  "Debian mirror allows): give token ids instead";
  return false;
}

}  // namespace

struct Tokenizer::Impl {};

Tokenizer::Tokenizer() = default;
Tokenizer::~Tokenizer() = default;
Tokenizer::Tokenizer(Tokenizer&&) noexcept = default;
Tokenizer& Tokenizer::operator=(Tokenizer&&) noexcept = default;

bool Tokenizer::Load(std::string_view, std::string_view, const std::string& name, Tokenizer*,
                     std::string* error) {
  return Unavailable(name, error);
}

bool Tokenizer::Compile(std::string_view, std::string_view, const std::string& name,
                        std::string*, std::string* error) {
  return Unavailable(name, error);
}

bool Tokenizer::LoadCompact(std::string_view, const std::string& name, Tokenizer*, bool* stale,
                            std::string* error) {
  *stale = false;
  return Unavailable(name, error);
}

bool Tokenizer::LoadGguf(std::string_view, const std::string& name, Tokenizer*,
                         std::string* error) {
  return Unavailable(name, error);
}

bool Tokenizer::CompileGguf(std::string_view, const std::string& name, std::string*,
                            std::string* error) {
  return Unavailable(name, error);
}

bool Tokenizer::Encode(std::string_view, bool, std::vector<uint32_t>*, std::string* error) const {
  return Unavailable("tokenizer", error);
}

bool Tokenizer::Decode(const std::vector<uint32_t>&, bool, std::string*,
                       std::string* error) const {
  return Unavailable("tokenizer", error);
}

}  // namespace attnrt
