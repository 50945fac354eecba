// The Linear kernel list (kernels/linear_variants.inc): `auto` takes the highest-ranked
// kernel that reads a type (among those keeping f32 activations when a call asks for them),
// linear.h's entry points run it, and every listed kernel's results match the scalar
// reference (ReferenceLinearQ8Activations for a kernel that quantizes activations) through
// the item interface alone.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "attnrt/kernels/helium.h"
#include "attnrt/kernels/linear.h"
#include "attnrt/kernels/linear_kernel.h"
#include "kernels_nn/typed_weights.h"

namespace attnrt {
namespace {

TEST(LinearKernelList, AutoIsTheHighestRankedKernelOfEachType) {
  ASSERT_GE(LinearKernelCount(), 2u);
  ASSERT_NE(FindLinearKernel("reference"), nullptr);
  ASSERT_NE(FindLinearKernel("hwy"), nullptr);
  ASSERT_NE(FindLinearKernel("hwy-int8"), nullptr);
  EXPECT_EQ(FindLinearKernel("nope"), nullptr);
  for (const WeightTypeInfo& t : kWeightTypes) {
    for (LinearActivations a : {LinearActivations::kAuto, LinearActivations::kF32}) {
      const LinearKernel& chosen = AutoLinearKernel(t.type, a);
      EXPECT_TRUE(chosen.supports(t.type)) << t.name;
      if (a == LinearActivations::kF32) {
        EXPECT_FALSE(chosen.quantizes_activations) << t.name;
      }
      for (size_t i = 0; i < LinearKernelCount(); ++i) {
        const LinearKernel& k = LinearKernelAt(i);
        if (k.supports(t.type) && (a == LinearActivations::kAuto || !k.quantizes_activations)) {
          EXPECT_LE(k.rank, chosen.rank) << k.name << " " << t.name;
        }
      }
    }
    // The integer kernel takes the integer block types (q8, q4_0, q4_K, q6_K) on every
    // target (over Helium's q8 on the M55); Helium reads the float ones (f16, bf16, f32).
    const bool int8 = t.type == WeightType::kQ4_0 || t.type == WeightType::kQ8 ||
                      t.type == WeightType::kQ4_K || t.type == WeightType::kQ6_K;
    const char* expected = int8 ? "hwy-int8" : ATTNRT_HELIUM ? "helium" : "hwy";
    EXPECT_STREQ(AutoLinearKernel(t.type).name, expected) << t.name;
    EXPECT_EQ(AutoLinearKernel(t.type).quantizes_activations, int8) << t.name;
  }
  EXPECT_STREQ(LinearIsa(), AutoLinearKernel(WeightType::kF32).isa());
}

// Each kernel run as a caller would run it (items split in two ranges, its own scratch)
// gives the reference's values within float rounding.
TEST(LinearKernelList, EveryKernelMatchesTheReference) {
  const size_t M = 5, K = 70, N = 19;
  std::vector<float> x(M * K), bias(N);
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(0.37f * float(i));
  for (size_t i = 0; i < N; ++i) bias[i] = 0.1f * float(i);
  for (const WeightTypeInfo& t : kWeightTypes) {
    std::vector<float> values(N * K);
    for (size_t i = 0; i < values.size(); ++i) values[i] = std::cos(0.11f * float(i));
    const testing::TypedMatrix w(t.type, N, K, false, values.data());
    LinearParams p{M, K, N, x.data(), K, w.data(), bias.data(), nullptr, N, t.type};
    std::vector<float> exact(M * N), rounded(M * N);
    p.y = exact.data();
    ReferenceLinear(p);
    p.y = rounded.data();
    ReferenceLinearQ8Activations(p);
    for (size_t i = 0; i < LinearKernelCount(); ++i) {
      const LinearKernel& k = LinearKernelAt(i);
      if (!k.supports(t.type)) continue;
      const std::vector<float>& want = k.quantizes_activations ? rounded : exact;
      std::vector<float> got(M * N, -1.0f);
      p.y = got.data();
      std::vector<float> scratch(k.scratch_floats(p) + 64);
      float* aligned = scratch.data();
      while (reinterpret_cast<uintptr_t>(aligned) % 64 != 0) ++aligned;
      const size_t items = k.work_items(p);
      k.run(p, 0, items / 2, aligned);
      k.run(p, items / 2, items, aligned);
      for (size_t j = 0; j < got.size(); ++j) {
        EXPECT_NEAR(got[j], want[j], 1e-4f * (1.0f + std::fabs(want[j])))
            << k.name << " " << t.name << " at " << j;
      }
    }
  }
}

}  // namespace
}  // namespace attnrt
