// What the hostile-input tests of tools/tokenizer share: a file with a few random bytes changed.
#pragma once

#include <random>
#include <string>

namespace attnrt {

// `base` with 1 to 4 of its bytes replaced by random ones (`base` must not be empty).
inline std::string Mutated(const std::string& base, std::mt19937& rng) {
  std::string mutated = base;
  const int edits = 1 + static_cast<int>(rng() % 4);
  for (int e = 0; e < edits; ++e) mutated[rng() % mutated.size()] = static_cast<char>(rng());
  return mutated;
}

}  // namespace attnrt
