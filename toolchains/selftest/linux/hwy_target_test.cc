// Prints the Highway target that dynamic dispatch picks on this (emulated) CPU, checks
// that the SIMD code computes the right sum there, and compares the target with
// EXPECT_HWY_TARGET when set. Also touches benchmark and xsimd so their packages link.
#include <cstdio>
#include <cstdlib>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "hwy_target_test.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace selftest {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

float SumAndName(const float* values, size_t count, const char** name) {
  *name = hwy::TargetName(HWY_TARGET);
  const hn::ScalableTag<float> d;
  auto acc = hn::Zero(d);
  size_t i = 0;
  for (; i + hn::Lanes(d) <= count; i += hn::Lanes(d)) {
    acc = hn::Add(acc, hn::LoadU(d, values + i));
  }
  float sum = hn::GetLane(hn::SumOfLanes(d, acc));
  for (; i < count; ++i) sum += values[i];
  return sum;
}

}  // namespace HWY_NAMESPACE
}  // namespace selftest
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include <benchmark/benchmark.h>
#include <gtest/gtest.h>

#include <xsimd/xsimd.hpp>

namespace selftest {
HWY_EXPORT(SumAndName);

TEST(HwyTarget, DispatchedTargetRuns) {
  float values[37];
  for (int i = 0; i < 37; ++i) values[i] = static_cast<float>(i);
  const char* name = nullptr;
  const float sum = HWY_DYNAMIC_DISPATCH(SumAndName)(values, 37, &name);
  std::printf("selftest: hwy dispatched target %s (static %s), xsimd arch %s, qemu cpu %s\n",
              name, hwy::TargetName(HWY_STATIC_TARGET), xsimd::default_arch::name(),
              std::getenv("QEMU_CPU") ? std::getenv("QEMU_CPU") : "(default)");
  EXPECT_EQ(666.0f, sum);
  if (const char* want = std::getenv("EXPECT_HWY_TARGET")) EXPECT_STREQ(want, name);
}

TEST(HwyTarget, BenchmarkLinks) {
  // A symbol from libbenchmark (not only its headers) proves the :arch library links.
  EXPECT_GT(benchmark::CPUInfo::Get().num_cpus, 0);
}

}  // namespace selftest
#endif  // HWY_ONCE
