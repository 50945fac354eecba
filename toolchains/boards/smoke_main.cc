// Smoke image for the board support: proves that start-up, static constructors, the FPU
// (and MVE on Cortex-M55), the semihosting console and the exit code all work, with no
// heap in the image. Prints one summary line and returns ATTNRT_SMOKE_EXIT_CODE (0
// unless the build sets it, which is how the exit-code path itself is tested).
//
// Nonzero returns below 20 mean a self-check failed; the line before says which.
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "board_runtime.h"
#include "semihost.h"

// The board support stands alone (no attnrt headers), so it spells the condition of
// attnrt/kernels/helium.h (ATTNRT_HELIUM) once for itself.
#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 2)
#define SMOKE_HAS_MVE_FLOAT 1
#include <arm_mve.h>
#else
#define SMOKE_HAS_MVE_FLOAT 0
#endif

#ifdef ATTNRT_SMOKE_WITH_HWY
#include "hwy/highway.h"
#endif

#ifndef ATTNRT_SMOKE_EXIT_CODE
#define ATTNRT_SMOKE_EXIT_CODE 0
#endif

namespace {

// e^x with float arithmetic only: x = n*ln2 + r with |r| <= ln2/2, e^r by a degree-6
// Taylor polynomial (error < 2e-7 relative there), 2^n by building the exponent bits.
float ExpFloatOnly(float x) {
  if (x > 88.0f) x = 88.0f;
  if (x < -87.0f) x = -87.0f;
  const float kLog2e = 1.44269504f;
  const float kLn2Hi = 0.693359375f;  // ln2 split so n*kLn2Hi is exact
  const float kLn2Lo = -2.12194440e-4f;
  const float n = __builtin_floorf(x * kLog2e + 0.5f);
  const float r = (x - n * kLn2Hi) - n * kLn2Lo;
  float p = 1.0f / 720.0f;
  p = p * r + 1.0f / 120.0f;
  p = p * r + 1.0f / 24.0f;
  p = p * r + 1.0f / 6.0f;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  const uint32_t bits = static_cast<uint32_t>(static_cast<int32_t>(n) + 127) << 23;
  float scale;
  memcpy(&scale, &bits, sizeof(scale));
  return p * scale;
}

// A static object whose constructor must have run before main.
class Counter {
 public:
  Counter() : value_(41) { value_ += 1; }
  virtual ~Counter() = default;  // deleting destructor refers to operator delete
  virtual int value() const { return value_; }

 private:
  int value_;
};
Counter g_counter;

// .data must be copied from its load image and .bss zeroed by the start-up code.
volatile uint32_t g_data_word = 0x5eedu;
volatile uint32_t g_bss_words[8];

// Dot product of 16 floats: MVE vectors on Cortex-M55, plain loop elsewhere.
float Dot16(const float* a, const float* b) {
#if SMOKE_HAS_MVE_FLOAT
  float32x4_t acc = vdupq_n_f32(0.0f);
  for (int i = 0; i < 16; i += 4) acc = vfmaq_f32(acc, vld1q_f32(a + i), vld1q_f32(b + i));
  return vgetq_lane_f32(acc, 0) + vgetq_lane_f32(acc, 1) + vgetq_lane_f32(acc, 2) +
         vgetq_lane_f32(acc, 3);
#else
  float acc = 0.0f;
  for (int i = 0; i < 16; ++i) acc += a[i] * b[i];
  return acc;
#endif
}

const char* VectorUnit() {
#if SMOKE_HAS_MVE_FLOAT
  return "MVE(float)";
#else
  return "none";
#endif
}

bool FormatterAgrees(float value, int decimals, const char* expected) {
  char text[32];
  semihost_format_float(text, sizeof(text), value, decimals);
  if (strcmp(text, expected) == 0) return true;
  semihost_write0("smoke: formatter mismatch: got ");
  semihost_write0(text);
  semihost_write0(" want ");
  semihost_write0(expected);
  semihost_write0("\n");
  return false;
}

float Abs(float v) { return v < 0.0f ? -v : v; }

}  // namespace

int main() {
  if (g_counter.value() != 42) {
    semihost_write0("smoke: static constructor did not run\n");
    return 10;
  }

  bool bss_zero = true;
  for (int i = 0; i < 8; ++i) bss_zero = bss_zero && g_bss_words[i] == 0u;
  if (g_data_word != 0x5eedu || !bss_zero) {
    semihost_write0("smoke: .data or .bss not initialized\n");
    return 14;
  }

  const float e = ExpFloatOnly(1.0f);
  const float e_minus_3 = ExpFloatOnly(-3.0f);
  if (Abs(e - 2.71828183f) > 1e-6f || Abs(e_minus_3 - 0.0497870684f) > 1e-8f) {
    semihost_write0("smoke: float exp is off\n");
    return 11;
  }

  if (!FormatterAgrees(2.71828183f, 5, "2.71828") || !FormatterAgrees(-0.5f, 2, "-0.50") ||
      !FormatterAgrees(0.9996f, 3, "1.000") || !FormatterAgrees(3.0e12f, 3, "3.000e+12") ||
      !FormatterAgrees(__builtin_inff(), 2, "inf")) {
    return 12;
  }

  float a[16], b[16];
  for (int i = 0; i < 16; ++i) {
    a[i] = static_cast<float>(i) * 0.5f;
    b[i] = 2.0f;
  }
  const float dot = Dot16(a, b);  // sum of i for i < 16 = 120
  if (dot != 120.0f) {
    semihost_write0("smoke: vector dot product is wrong\n");
    return 13;
  }

  const size_t image_bytes = sizeof(a) + sizeof(b) + sizeof(g_counter);
  semihost_write0("smoke: exp(1)=");
  semihost_write_float(e, 6);
  semihost_write0(" exp(-3)=");
  semihost_write_float(e_minus_3, 7);
  semihost_write0(" dot=");
  semihost_write_float(dot, 1);
  semihost_write0(" bytes=");
  semihost_write_size(image_bytes);
  semihost_write0(" vector_unit=");
  semihost_write0(VectorUnit());
#ifdef ATTNRT_SMOKE_WITH_HWY
  {
    namespace hn = hwy::HWY_NAMESPACE;
    const hn::ScalableTag<float> d;
    float lanes_sum = 0.0f;
    for (size_t i = 0; i < 16; i += hn::Lanes(d)) {
      lanes_sum += hn::GetLane(hn::SumOfLanes(d, hn::LoadU(d, a + i)));
    }
    semihost_write0(" hwy_target=");
    semihost_write0(hwy::TargetName(HWY_STATIC_TARGET));
    semihost_write0(" hwy_sum=");
    semihost_write_float(lanes_sum, 1);
  }
#endif
  semihost_write0("\n");
  return ATTNRT_SMOKE_EXIT_CODE;
}
