// Test buffers for the nn kernel tests: random contents, an optional one-float
// misalignment, and guard floats on both sides that must survive every call;
// and dense grids of inputs for accuracy sweeps, with the worst error they found.
#pragma once

#include <cstddef>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace attnrt::testing {

// What output buffers hold before a call, so a test sees which elements a kernel wrote.
constexpr float kUntouched = 31337.0f;

class GuardedFloats {
 public:
  static constexpr size_t kGuard = 64;
  static constexpr float kGuardValue = -7777.0f;

  // `misalign` shifts the data by one float from the storage's own alignment.
  GuardedFloats(size_t n, bool misalign)
      : n_(n), offset_(kGuard + (misalign ? 1 : 0)), storage_(n + offset_ + kGuard, kGuardValue) {}

  float* data() { return storage_.data() + offset_; }
  const float* data() const { return storage_.data() + offset_; }
  size_t size() const { return n_; }
  float& operator[](size_t i) { return data()[i]; }
  float operator[](size_t i) const { return data()[i]; }

  // `n` floats, all `value` (e.g. kUntouched for an output).
  static GuardedFloats Filled(size_t n, bool misalign, float value) {
    GuardedFloats f(n, misalign);
    f.Fill(value);
    return f;
  }

  // Normal(offset, scale) values.
  void FillNormal(std::mt19937* rng, float scale, float offset = 0.0f) {
    std::normal_distribution<float> normal(0.0f, 1.0f);
    for (size_t i = 0; i < n_; ++i) data()[i] = offset + scale * normal(*rng);
  }
  void Fill(float value) {
    for (size_t i = 0; i < n_; ++i) data()[i] = value;
  }

  // True when nothing before or after [data, data + n) was written.
  bool GuardsIntact() const {
    for (size_t i = 0; i < offset_; ++i) {
      if (!SameBits(storage_[i], kGuardValue)) return false;
    }
    for (size_t i = offset_ + n_; i < storage_.size(); ++i) {
      if (!SameBits(storage_[i], kGuardValue)) return false;
    }
    return true;
  }

  // Bitwise equality of the data (NaNs compare by bits).
  bool SameBitsAs(const GuardedFloats& other) const {
    return n_ == other.n_ && std::memcmp(data(), other.data(), n_ * sizeof(float)) == 0;
  }

  static bool SameBits(float a, float b) { return std::memcmp(&a, &b, sizeof(float)) == 0; }

 private:
  size_t n_;
  size_t offset_;
  std::vector<float> storage_;
};

// lo, lo + step, lo + 2 step, ... up to hi (as floats).
inline std::vector<float> DenseGrid(double lo, double hi, double step) {
  const size_t n = size_t((hi - lo) / step) + 1;
  std::vector<float> x(n);
  for (size_t i = 0; i < n; ++i) x[i] = static_cast<float>(lo + double(i) * step);
  return x;
}

// The largest error of a sweep and the input it came from, for the test's record.
struct WorstError {
  double error = 0.0;
  float x = 0.0f;

  void Update(double e, float at) {
    if (e > error) {
      error = e;
      x = at;
    }
  }
  std::string Text() const {
    char text[48];
    std::snprintf(text, sizeof(text), "%.3g at x=%.9g", error, double(x));
    return text;
  }
};

}  // namespace attnrt::testing
