// The plan is exact: a run in an arena of exactly PlanModel's bytes succeeds
// and reaches that high-water mark; one byte less fails with the clear status.
// And a model run makes no heap allocation at all (counted around the run).
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include "host/aligned_buffer.h"
#include "host/thread_pool.h"
#include "models/model_fixture.h"

// Counts every operator new in this test binary while `g_counting` is set.
static std::atomic<bool> g_counting{false};
static std::atomic<size_t> g_allocations{0};

// The replacements pair malloc with free on purpose; GCC sees operator new's pointer
// reach free() and warns, which is right in general and wrong here.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
void* operator new(size_t n) {
  if (g_counting) ++g_allocations;
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }

// malloc/calloc/realloc from our static libraries go through --wrap (see CMake).
extern "C" {
void* __real_malloc(size_t);
void* __real_calloc(size_t, size_t);
void* __real_realloc(void*, size_t);
void* __wrap_malloc(size_t n) {
  if (g_counting) ++g_allocations;
  return __real_malloc(n);
}
void* __wrap_calloc(size_t a, size_t b) {
  if (g_counting) ++g_allocations;
  return __real_calloc(a, b);
}
void* __wrap_realloc(void* p, size_t n) {
  if (g_counting) ++g_allocations;
  return __real_realloc(p, n);
}
}

namespace attnrt::testing {
namespace {

struct Variant {
  Architecture arch;
  bool bias;
  bool norm_first;
};

class ModelPlanTest : public ::testing::TestWithParam<Variant> {};

size_t Elements(const TensorShape& s) {
  size_t n = 1;
  for (size_t i = 0; i < s.rank; ++i) n *= s.dims[i];
  return n;
}

TEST_P(ModelPlanTest, PlanEqualsHighWaterAndOneByteLessFails) {
  const Variant v = GetParam();
  ModelFixture fx;
  std::string error;
  ASSERT_TRUE(MakeModel(v.arch, v.bias, v.norm_first, &fx, &error)) << error;
  const ModelConfig& c = fx.model.config;
  for (size_t workers : {1, 2}) {
    for (size_t seq : {1, 5, 70}) {
      const size_t batch = 2;
      ThreadPool pool(workers);
      ModelPlan plan;
      ASSERT_TRUE(PlanModel(fx.model, batch, seq, workers, &plan).ok());
      EXPECT_EQ(plan.arena_bytes, plan.activation_bytes + plan.scratch_bytes);
      TensorShape x_shape, y_shape;
      ASSERT_TRUE(ModelInputShape(c, batch, seq, &x_shape).ok());
      ASSERT_TRUE(ModelOutputShape(c, batch, seq, &y_shape).ok());
      std::vector<float> x(Elements(x_shape), 0.5f), y(Elements(y_shape));
      ModelInput in;
      in.x = x.data();
      ASSERT_TRUE(ModelBatchAndSeq(c, x_shape, &in.batch, &in.seq).ok());
      // An image model attends over all patches; the others get a causal rule on top.
      in.causal = c.arch == Architecture::kVit ? CausalKind::kNone : CausalKind::kUpperLeft;

      AlignedBuffer buffer(plan.arena_bytes);
      Arena exact(buffer.data(), plan.arena_bytes);
      g_allocations = 0;
      g_counting = true;
      const Status st = RunModel(fx.model, in, y.data(), &exact, &pool);
      g_counting = false;
      ASSERT_TRUE(st.ok()) << st.message();
      EXPECT_EQ(exact.high_water(), plan.arena_bytes) << "seq " << seq << " workers " << workers;
      EXPECT_EQ(g_allocations.load(), 0u) << "heap allocations during a model run";

      Arena short_by_one(buffer.data(), plan.arena_bytes - 1);
      const Status too_small = RunModel(fx.model, in, y.data(), &short_by_one, &pool);
      EXPECT_EQ(too_small.code(), StatusCode::kArenaTooSmall);
      EXPECT_NE(std::string(too_small.message()).find("arena too small: need"), std::string::npos)
          << too_small.message();
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Architectures, ModelPlanTest,
    ::testing::Values(Variant{Architecture::kMha, true, false},
                      Variant{Architecture::kMha, false, false},
                      Variant{Architecture::kEncoderLayer, true, false},
                      Variant{Architecture::kEncoderLayer, false, true},
                      Variant{Architecture::kSelfAttention, false, false},
                      Variant{Architecture::kSingleHead, false, false},
                      Variant{Architecture::kEncoder, true, false},
                      Variant{Architecture::kEncoder, false, true},
                      Variant{Architecture::kVit, true, false}));

TEST(ModelLoad, MissingExtraAndMisshapedTensorsAreNamed) {
  ModelFixture fx;
  std::string error;
  ASSERT_TRUE(MakeModel(Architecture::kSelfAttention, false, false, &fx, &error)) << error;
  // A file whose metadata promises d_k = 13 no longer matches W_q (12, 20).
  WeightFileWriter w;
  w.SetString("arch", "self-attention");
  w.SetInt("d_model", 20);
  w.SetInt("d_k", 13);
  w.SetInt("d_v", 7);
  std::vector<float> zeros(20 * 20, 0.0f);
  ASSERT_TRUE(w.AddTensorF32("W_q.weight", {12, 20}, zeros.data(), &error));
  std::vector<uint8_t> bytes;
  ASSERT_TRUE(w.Serialize(&bytes, &error));
  WeightFile file;
  ASSERT_TRUE(WeightFile::Open(bytes.data(), bytes.size(), &file).ok());
  Model model;
  const Status st = LoadModel(file, &model);
  EXPECT_NE(std::string(st.message()).find("'W_q.weight' has the wrong shape"), std::string::npos)
      << st.message();
}

}  // namespace
}  // namespace attnrt::testing
