// The libFuzzer entry of the fuzzers that read their input through fuzz::Reader
// (attnrt_add_reader_fuzzer): each input goes to the fuzzer's own fuzz::FuzzOne.
#include <cstddef>
#include <cstdint>

#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  attnrt::fuzz::Reader r{data, size};
  attnrt::fuzz::FuzzOne(&r);
  return 0;
}
