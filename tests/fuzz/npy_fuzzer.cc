// libFuzzer target for attnrt::npy::Parse: no crash or huge allocation on any input, every error
// names the file, and every accepted float32 array survives an encode/parse round trip exactly.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "npy/npy.h"

namespace {

[[noreturn]] void Die(const char* what, const std::string& detail) {
  std::fprintf(stderr, "npy_fuzzer: %s: %s\n", what, detail.c_str());
  std::abort();
}

void CheckRoundTrip(const attnrt::npy::Array& a) {
  std::vector<uint8_t> bytes;
  std::string error;
  if (!attnrt::npy::EncodeFloat32(a.shape, a.f32.data(), &bytes, &error)) {
    Die("EncodeFloat32 rejected a parsed array", error);
  }
  attnrt::npy::Array b;
  if (!attnrt::npy::Parse(bytes.data(), bytes.size(), "roundtrip.npy", &b, &error)) {
    Die("Parse rejected EncodeFloat32 output", error);
  }
  if (b.shape != a.shape || b.f32.size() != a.f32.size() ||
      (!a.f32.empty() && std::memcmp(a.f32.data(), b.f32.data(), a.f32.size() * 4) != 0)) {
    Die("round trip changed the array", attnrt::npy::ShapeString(a.shape));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  attnrt::npy::Array a;
  std::string error;
  if (!attnrt::npy::Parse(data, size, "fuzz.npy", &a, &error)) {
    if (error.rfind("fuzz.npy: ", 0) != 0) Die("error does not name the file", error);
    return 0;
  }
  const size_t n = a.size();
  if (a.dtype == attnrt::npy::DType::kBool) {
    if (a.b8.size() != n || !a.f32.empty()) Die("bool array of the wrong size", error);
    for (uint8_t v : a.b8) {
      if (v > 1) Die("bool byte other than 0/1 accepted", std::to_string(v));
    }
    return 0;
  }
  if (a.f32.size() != n || !a.b8.empty()) Die("float32 array of the wrong size", "");
  CheckRoundTrip(a);
  return 0;
}
