// The plan is exact: a run in an arena of exactly PlanModel's bytes succeeds
// and reaches that high-water mark; one byte less fails with the clear status.
// And a model run makes no heap allocation at all (counted around the run).
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <new>

#include "host/aligned_buffer.h"
#include "host/thread_pool.h"
#include "attnrt/models/language_model.h"
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

// ---- language models (llama): KV cache plan, chunked prefill, decode steps ----

namespace attnrt::testing {
namespace {

struct LmFixture {
  ModelFixture fx;
  std::vector<int32_t> tokens;  // batch rows of max_seq_len ids
};

void MakeLm(bool untied, bool half_rope, size_t batch, LmFixture* lm) {
  std::string error;
  ASSERT_TRUE(MakeModel(Architecture::kLlama, untied, half_rope, &lm->fx, &error)) << error;
  const ModelConfig& c = lm->fx.model.config;
  std::mt19937 rng(11);
  std::uniform_int_distribution<int32_t> id(0, static_cast<int32_t>(c.vocab_size) - 1);
  lm->tokens.resize(batch * c.max_seq_len);
  for (int32_t& t : lm->tokens) t = id(rng);
}

// Rows [t0, t0 + n) of every sequence, as Feed wants them (batch rows of n).
std::vector<int32_t> Slice(const LmFixture& lm, size_t batch, size_t t0, size_t n) {
  const size_t stride = lm.fx.model.config.max_seq_len;
  std::vector<int32_t> out;
  for (size_t b = 0; b < batch; ++b) {
    out.insert(out.end(), lm.tokens.begin() + b * stride + t0,
               lm.tokens.begin() + b * stride + t0 + n);
  }
  return out;
}

TEST(LanguageModelPlan, KvCacheBytesAreExactAndPlanIsTheHighWaterMark) {
  for (size_t batch : {1, 2}) {
    for (size_t chunk : {0, 5}) {
      LmFixture lm;
      MakeLm(batch == 2, chunk == 5, batch, &lm);
      const Model& m = lm.fx.model;
      const ModelConfig& c = m.config;
      LmShape shape;
      shape.batch = batch;
      shape.max_seq = 40;
      shape.chunk = chunk;
      ThreadPool pool(2);
      LmPlan plan;
      ASSERT_TRUE(PlanLm(m, shape, pool.workers(), &plan).ok());
      EXPECT_EQ(plan.kv_cache_bytes,
                2 * c.num_layers * batch * shape.max_seq * c.kv_heads * c.qk_dim * sizeof(float));
      LmShape resolved;
      ASSERT_TRUE(CheckLmShape(m, shape, &resolved).ok());
      // The plan is the worst of: a chunk of c tokens ending at the last position,
      // for every c the planner measures. Run each in an arena of exactly the plan.
      AlignedBuffer buffer(plan.arena_bytes);
      std::vector<float> logits(batch * c.vocab_size);
      size_t worst = 0;
      std::vector<size_t> lengths;
      for (size_t n = 1; n <= resolved.chunk && n <= 32; ++n) lengths.push_back(n);
      lengths.push_back(resolved.chunk);
      for (size_t n : lengths) {
        Arena arena(buffer.data(), plan.arena_bytes);
        LmSession session;
        ASSERT_TRUE(session.Start(m, shape, &arena).ok());
        const std::vector<int32_t> head = Slice(lm, batch, 0, shape.max_seq - n);
        const std::vector<int32_t> tail = Slice(lm, batch, shape.max_seq - n, n);
        if (!head.empty()) {
          ASSERT_TRUE(session.Feed(head.data(), shape.max_seq - n, logits.data(), &pool).ok());
        }
        g_allocations = 0;
        g_counting = true;
        const Status st = session.Feed(tail.data(), n, logits.data(), &pool);
        g_counting = false;
        ASSERT_TRUE(st.ok()) << st.message();
        EXPECT_EQ(g_allocations.load(), 0u) << "heap allocations during Feed";
        EXPECT_EQ(session.position(), shape.max_seq);
        EXPECT_LE(arena.high_water(), plan.arena_bytes);
        worst = std::max(worst, arena.high_water());
      }
      EXPECT_EQ(worst, plan.arena_bytes) << "batch " << batch << " chunk " << chunk;
      // One byte short of the plan: the worst chunk fails, clearly.
      Arena small(buffer.data(), plan.arena_bytes - 1);
      LmSession session;
      Status st = session.Start(m, shape, &small);
      for (size_t n : lengths) {
        if (!st.ok()) break;
        session.Reset();
        const std::vector<int32_t> all = Slice(lm, batch, 0, shape.max_seq - n);
        const std::vector<int32_t> tail = Slice(lm, batch, shape.max_seq - n, n);
        if (!all.empty()) st = session.Feed(all.data(), shape.max_seq - n, logits.data(), &pool);
        if (st.ok()) st = session.Feed(tail.data(), n, logits.data(), &pool);
      }
      EXPECT_EQ(st.code(), StatusCode::kArenaTooSmall) << st.message();
    }
  }
}

// Prefill in one chunk, in chunks of 5, and token by token (decode steps over
// the cache) compute the same next-token logits: RoPE positions, cache writes
// and the two attention kernels agree.
TEST(LanguageModelSession, ChunkedPrefillAndDecodeStepsAgree) {
  for (bool half : {false, true}) {
    LmFixture lm;
    MakeLm(true, half, 2, &lm);
    const Model& m = lm.fx.model;
    const size_t vocab = m.config.vocab_size, n = 23, batch = 2;
    ThreadPool pool(2);
    std::vector<std::vector<float>> results;
    for (size_t chunk : {size_t{23}, size_t{5}, size_t{1}}) {
      LmShape shape;
      shape.batch = batch;
      shape.max_seq = n;
      shape.chunk = chunk;
      shape.all_logits = true;
      LmPlan plan;
      ASSERT_TRUE(PlanLm(m, shape, pool.workers(), &plan).ok());
      AlignedBuffer buffer(plan.arena_bytes);
      Arena arena(buffer.data(), plan.arena_bytes);
      LmSession session;
      ASSERT_TRUE(session.Start(m, shape, &arena).ok());
      std::vector<float> logits(batch * n * vocab);
      const std::vector<int32_t> tokens = Slice(lm, batch, 0, n);
      ASSERT_TRUE(session.Feed(tokens.data(), n, logits.data(), &pool).ok());
      results.push_back(logits);
      // Reset and feed again: the same numbers, bit for bit.
      session.Reset();
      std::vector<float> again(logits.size());
      ASSERT_TRUE(session.Feed(tokens.data(), n, again.data(), &pool).ok());
      EXPECT_EQ(again, logits);
    }
    for (size_t r = 1; r < results.size(); ++r) {
      for (size_t i = 0; i < results[0].size(); ++i) {
        ASSERT_NEAR(results[r][i], results[0][i], 1e-4f * (1.0f + std::fabs(results[0][i])))
            << "chunking " << r << " element " << i;
      }
    }
    // Last-token logits (all_logits off) are the last rows of the full ones.
    LmShape shape;
    shape.batch = batch;
    shape.max_seq = n;
    LmPlan plan;
    ASSERT_TRUE(PlanLm(m, shape, pool.workers(), &plan).ok());
    AlignedBuffer buffer(plan.arena_bytes);
    Arena arena(buffer.data(), plan.arena_bytes);
    LmSession session;
    ASSERT_TRUE(session.Start(m, shape, &arena).ok());
    std::vector<float> last(batch * vocab);
    const std::vector<int32_t> tokens = Slice(lm, batch, 0, n);
    ASSERT_TRUE(session.Feed(tokens.data(), n, last.data(), &pool).ok());
    for (size_t b = 0; b < batch; ++b) {
      for (size_t v = 0; v < vocab; ++v) {
        EXPECT_NEAR(last[b * vocab + v], results[0][(b * n + n - 1) * vocab + v], 1e-5f);
      }
    }
  }
}

TEST(LanguageModelSession, RefusesBadTokensAndOverflowBeforeAnyWork) {
  LmFixture lm;
  MakeLm(false, false, 1, &lm);
  const Model& m = lm.fx.model;
  LmShape shape;
  shape.max_seq = 8;
  LmPlan plan;
  ThreadPool pool(1);
  ASSERT_TRUE(PlanLm(m, shape, 1, &plan).ok());
  AlignedBuffer buffer(plan.arena_bytes);
  Arena arena(buffer.data(), plan.arena_bytes);
  LmSession session;
  ASSERT_TRUE(session.Start(m, shape, &arena).ok());
  std::vector<float> logits(m.config.vocab_size);
  const int32_t good[3] = {1, 2, 3};
  ASSERT_TRUE(session.Feed(good, 3, logits.data(), &pool).ok());
  const int32_t bad_high[2] = {4, 37};  // vocab is 37
  Status st = session.Feed(bad_high, 2, logits.data(), &pool);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(st.message()).find("token id 37 at (sequence 0, token 1)"), std::string::npos)
      << st.message();
  const int32_t negative[1] = {-5};
  st = session.Feed(negative, 1, logits.data(), &pool);
  EXPECT_NE(std::string(st.message()).find("token id -5"), std::string::npos) << st.message();
  const int32_t many[6] = {1, 1, 1, 1, 1, 1};  // 3 + 6 > 8
  st = session.Feed(many, 6, logits.data(), &pool);
  EXPECT_NE(std::string(st.message()).find("would pass max_seq 8"), std::string::npos) << st.message();
  EXPECT_EQ(session.position(), 3u);
  // Longer than the model's max_seq_len (48), a non-language model, batch 0.
  LmShape too_long;
  too_long.max_seq = 49;
  EXPECT_NE(std::string(PlanLm(m, too_long, 1, &plan).message()).find("max_seq_len 48"),
            std::string::npos);
  ModelFixture mha;
  std::string error;
  ASSERT_TRUE(MakeModel(Architecture::kMha, true, false, &mha, &error));
  EXPECT_NE(std::string(PlanLm(mha.model, shape, 1, &plan).message()).find("not a language model"),
            std::string::npos);
  // RunModel refuses a language model by name.
  ModelInput in;
  in.batch = 1;
  in.seq = 2;
  float x[48] = {};
  in.x = x;
  st = RunModel(m, in, x, &arena, &pool);
  EXPECT_NE(std::string(st.message()).find("language model"), std::string::npos) << st.message();
}

}  // namespace
}  // namespace attnrt::testing
