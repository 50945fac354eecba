// The plan is exact: a run in an arena of exactly PlanModel's bytes succeeds
// and reaches that high-water mark; one byte less fails with the clear status.
// And a model run makes no heap allocation at all (counted around the run).
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <new>

#include "host/aligned_buffer.h"
#include "host/thread_pool.h"
#include "attnrt/kernels/linear_kernel.h"
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
  // Stored type of the matrices and the run's activations (--activations, issue 32): the
  // Linear kernel, and so the scratch the plan must count, follows both.
  WeightType type = WeightType::kF32;
  LinearActivations activations = LinearActivations::kAuto;
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
  ASSERT_TRUE(MakeModel(v.arch, v.bias, v.norm_first, &fx, &error, 0, v.type)) << error;
  const ModelConfig& c = fx.model.config;
  for (size_t workers : {1, 2}) {
    for (size_t seq : {1, 5, 70}) {
      const size_t batch = 2;
      ThreadPool pool(workers);
      ModelPlan plan;
      ASSERT_TRUE(
          PlanModel(fx.model, batch, seq, workers, &plan, false, nullptr, v.activations).ok());
      EXPECT_EQ(plan.arena_bytes, plan.activation_bytes + plan.scratch_bytes);
      TensorShape x_shape, y_shape;
      ASSERT_TRUE(ModelInputShape(c, batch, seq, &x_shape).ok());
      ASSERT_TRUE(ModelOutputShape(c, batch, seq, &y_shape).ok());
      std::vector<float> x(Elements(x_shape), 0.5f), y(Elements(y_shape));
      ModelInput in;
      in.x = x.data();
      in.linear_activations = v.activations;
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
                      Variant{Architecture::kVit, true, false},
                      Variant{Architecture::kEncoderLayer, true, false, WeightType::kQ8},
                      Variant{Architecture::kEncoderLayer, true, false, WeightType::kQ8,
                              LinearActivations::kF32},
                      Variant{Architecture::kEncoder, false, true, WeightType::kQ4_0,
                              LinearActivations::kF32}));

// A code outside LinearActivations (a cast from a caller's integer) is refused by name,
// by the plan and by the run, before any work.
TEST(ModelPlan, UnknownLinearActivationsAreRefused) {
  ModelFixture fx;
  std::string error;
  ASSERT_TRUE(MakeModel(Architecture::kEncoderLayer, true, false, &fx, &error)) << error;
  const LinearActivations bad = static_cast<LinearActivations>(7);
  ModelPlan plan;
  const Status planned = PlanModel(fx.model, 1, 4, 1, &plan, false, nullptr, bad);
  EXPECT_EQ(planned.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(planned.message()).find("linear activations code 7"), std::string::npos)
      << planned.message();
  std::vector<float> x(4 * fx.model.config.model_dim, 0.5f), y(x.size());
  ModelInput in;
  in.x = x.data();
  in.batch = 1;
  in.seq = 4;
  in.linear_activations = bad;
  AlignedBuffer buffer(1 << 20);
  Arena arena(buffer.data(), 1 << 20);
  SerialExecutor serial;
  const Status ran = RunModel(fx.model, in, y.data(), &arena, &serial);
  EXPECT_EQ(ran.code(), StatusCode::kInvalidArgument) << ran.message();
}

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

// The language-model architectures (the fixture has a small config of each).
std::vector<Architecture> LmArchitectures() {
  std::vector<Architecture> out;
  for (size_t i = 0; i < ArchitectureCount(); ++i) {
    if (ArchitectureIsLanguageModel(ArchitectureAt(i))) out.push_back(ArchitectureAt(i));
  }
  return out;
}

void MakeLm(bool untied, bool half_rope, size_t batch, LmFixture* lm, size_t window = 0,
            Architecture arch = Architecture::kLlama, WeightType type = WeightType::kF32) {
  std::string error;
  ASSERT_TRUE(MakeModel(arch, untied, half_rope, &lm->fx, &error, window, type)) << error;
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

// A session shape that returns the logits of every position, as the agreement tests compare.
LmShape AllLogitsShape(size_t batch, size_t max_seq, size_t chunk) {
  LmShape shape;
  shape.batch = batch;
  shape.max_seq = max_seq;
  shape.chunk = chunk;
  shape.all_logits = true;
  return shape;
}

// A session started in an arena of exactly its plan, the way a caller uses the
// plan; it holds the arena the session points at, so it stays where it is made.
struct PlannedSession {
  LmPlan plan;
  AlignedBuffer buffer{0};
  Arena arena{nullptr, 0};
  LmSession session;
};

// Plans `shape` for `m` and starts out->session in an arena of exactly the plan.
void StartPlanned(const Model& m, const LmShape& shape, size_t workers, PlannedSession* out) {
  ASSERT_TRUE(PlanLm(m, shape, workers, &out->plan).ok());
  out->buffer = AlignedBuffer(out->plan.arena_bytes);
  out->arena = Arena(out->buffer.data(), out->plan.arena_bytes);
  const Status st = out->session.Start(m, shape, &out->arena);
  ASSERT_TRUE(st.ok()) << st.message();
}

// The plan of a session (window 0: none) has exactly the documented KV cache
// (R = max_seq, or min(max_seq, W - 1 + chunk) rows) and is the high-water mark
// of the worst chunk; one byte less fails clearly; Feed never touches the heap.
void CheckLmPlan(size_t batch, size_t chunk, size_t window,
                 Architecture arch = Architecture::kLlama, WeightType type = WeightType::kF32,
                 LinearActivations activations = LinearActivations::kAuto) {
  SCOPED_TRACE(std::string(ArchitectureName(arch)) + " batch " + std::to_string(batch) +
               " chunk " + std::to_string(chunk) + " window " + std::to_string(window) + " " +
               WeightTypeName(type) +
               (activations == LinearActivations::kF32 ? " f32 activations" : ""));
  LmFixture lm;
  MakeLm(batch == 2, chunk == 5, batch, &lm, window, arch, type);
  const Model& m = lm.fx.model;
  const ModelConfig& c = m.config;
  // Gemma 3's fixture has its own window, on one layer of two: the cache keeps every row.
  if (arch == Architecture::kGemma3) {
    window = 0;
  } else {
    ASSERT_EQ(c.sliding_window, window);
  }
  LmShape shape;
  shape.batch = batch;
  shape.max_seq = 40;
  shape.chunk = chunk;
  shape.linear_activations = activations;
  ThreadPool pool(2);
  LmPlan plan;
  ASSERT_TRUE(PlanLm(m, shape, pool.workers(), &plan).ok());
  LmShape resolved;
  ASSERT_TRUE(CheckLmShape(m, shape, &resolved).ok());
  const size_t rows =
      window == 0 ? shape.max_seq : std::min(shape.max_seq, window - 1 + resolved.chunk);
  EXPECT_EQ(plan.cache_rows, rows);
  EXPECT_EQ(plan.kv_cache_bytes,
            2 * c.num_layers * batch * rows * c.kv_heads * c.qk_dim * sizeof(float));
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

TEST(LanguageModelPlan, KvCacheBytesAreExactAndPlanIsTheHighWaterMark) {
  for (Architecture arch : LmArchitectures()) {
    for (size_t batch : {1, 2}) {
      for (size_t chunk : {0, 5}) CheckLmPlan(batch, chunk, 0, arch);
    }
  }
}

// The Linear kernels' packed copies (model.h): where the integer kernel reads q4_0's panel
// copy (AVX2, AVX-512), PackModelWeights gives every q4_0 matrix one, which FindPackedCopy
// finds (and nothing for the gathered embeddings); a buffer one byte short, or misaligned,
// is refused by name with nothing packed; none is made for f32 activations; and a session
// on the packed model gives the unpacked model's logits bit for bit (the copy holds the same
// bytes in panel order). Elsewhere there is nothing to pack (skipped).
TEST(ModelPacked, Q4_0CopiesAreFoundAndGiveTheSameLogits) {
  LmFixture lm;
  MakeLm(true, false, 1, &lm, 0, Architecture::kLlama, WeightType::kQ4_0);
  if (::testing::Test::HasFatalFailure()) return;
  Model packed = lm.fx.model;
  size_t bytes = 1, f32_bytes = 1;
  ASSERT_TRUE(ModelPackedBytes(packed, LinearActivations::kAuto, &bytes).ok());
  ASSERT_TRUE(ModelPackedBytes(packed, LinearActivations::kF32, &f32_bytes).ok());
  EXPECT_EQ(f32_bytes, 0u) << "the f32-activation kernel reads the weights as stored";
  if (bytes == 0) GTEST_SKIP() << "the integer kernel reads no packed copy on " << LinearIsa();

  AlignedBuffer buffer(bytes + kPackedAlignment);
  Status st = PackModelWeights(&packed, LinearActivations::kAuto, buffer.data(), bytes - 1);
  EXPECT_EQ(st.code(), StatusCode::kBufferTooSmall) << st.message();
  EXPECT_NE(std::string(st.message()).find(std::to_string(bytes)), std::string::npos)
      << st.message();
  st = PackModelWeights(&packed, LinearActivations::kAuto, buffer.data() + 1, bytes);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << st.message();
  EXPECT_EQ(packed.packed_count, 0u);
  st = PackModelWeights(&packed, LinearActivations::kAuto, buffer.data(), bytes);
  ASSERT_TRUE(st.ok()) << st.message();

  size_t matrices = 0;
  const auto expect_copy = [&](const LinearWeights& w) {
    if (w.weight == nullptr) return;
    ++matrices;
    const uint8_t* copy = static_cast<const uint8_t*>(FindPackedCopy(packed, w));
    ASSERT_NE(copy, nullptr) << w.out << "x" << w.in;
    EXPECT_TRUE(copy >= buffer.data() && copy < buffer.data() + bytes);
  };
  for (size_t l = 0; l < packed.config.num_layers; ++l) {
    const LayerWeights& w = packed.layers[l];
    for (const LinearWeights* m : {&w.q, &w.k, &w.v, &w.o, &w.ff1, &w.ff2, &w.ff3}) {
      expect_copy(*m);
    }
  }
  expect_copy(packed.head);
  EXPECT_EQ(packed.packed_count, matrices);
  EXPECT_EQ(FindPackedCopy(packed, packed.token_embedding), nullptr);
  EXPECT_EQ(FindPackedCopy(lm.fx.model, packed.head), nullptr) << "the unpacked model has none";

  const size_t n = 12, vocab = packed.config.vocab_size;
  PlannedSession a, b;
  StartPlanned(lm.fx.model, AllLogitsShape(1, n, 0), 2, &a);
  StartPlanned(packed, AllLogitsShape(1, n, 0), 2, &b);
  if (::testing::Test::HasFatalFailure()) return;
  std::vector<float> ya(n * vocab), yb(n * vocab);
  ThreadPool pool(2);
  ASSERT_TRUE(a.session.Feed(lm.tokens.data(), n, ya.data(), &pool).ok());
  ASSERT_TRUE(b.session.Feed(lm.tokens.data(), n, yb.data(), &pool).ok());
  EXPECT_EQ(std::memcmp(ya.data(), yb.data(), ya.size() * sizeof(float)), 0);
  // The packed session read the copies: with them zeroed (every scale 0) its logits move.
  const size_t table = (packed.packed_count * sizeof(PackedMatrix) + kPackedAlignment - 1) /
                       kPackedAlignment * kPackedAlignment;
  std::memset(buffer.data() + table, 0, bytes - table);
  PlannedSession c;
  StartPlanned(packed, AllLogitsShape(1, n, 0), 2, &c);
  if (::testing::Test::HasFatalFailure()) return;
  ASSERT_TRUE(c.session.Feed(lm.tokens.data(), n, yb.data(), &pool).ok());
  EXPECT_NE(std::memcmp(ya.data(), yb.data(), ya.size() * sizeof(float)), 0);
}

// Integer weights with --activations f32 (issue 32) run on another Linear kernel than by
// default (hwy-int8 rounds activations; the f32 kernel packs weight panels), with another
// scratch: the plan counts the kernel that runs (exact, one byte less fails), the two plans
// differ (else this would not show that), and the choice reaches the kernel (the logits
// move by no more than the rounding of the activations). A code outside the enum is refused.
TEST(LanguageModelPlan, F32ActivationsArePlannedForTheKernelThatRuns) {
  for (WeightType type : {WeightType::kQ8, WeightType::kQ4_0}) {
    SCOPED_TRACE(WeightTypeName(type));
    EXPECT_FALSE(AutoLinearKernel(type, LinearActivations::kF32).quantizes_activations);
    for (LinearActivations a : {LinearActivations::kAuto, LinearActivations::kF32}) {
      for (size_t chunk : {0, 5}) CheckLmPlan(1, chunk, 0, Architecture::kLlama, type, a);
    }
    LmFixture lm;
    MakeLm(false, false, 1, &lm, 0, Architecture::kLlama, type);
    const Model& m = lm.fx.model;
    LmShape rounded = AllLogitsShape(1, 12, 0);
    LmShape exact = rounded;
    exact.linear_activations = LinearActivations::kF32;
    PlannedSession a, b;
    StartPlanned(m, rounded, 2, &a);
    StartPlanned(m, exact, 2, &b);
    if (::testing::Test::HasFatalFailure()) return;
    EXPECT_NE(a.plan.scratch_bytes, b.plan.scratch_bytes);
    const size_t vocab = m.config.vocab_size;
    std::vector<float> ya(12 * vocab), yb(12 * vocab);
    ThreadPool pool(2);
    ASSERT_TRUE(a.session.Feed(lm.tokens.data(), 12, ya.data(), &pool).ok());
    ASSERT_TRUE(b.session.Feed(lm.tokens.data(), 12, yb.data(), &pool).ok());
    double diff = 0, scale = 1;
    for (size_t i = 0; i < ya.size(); ++i) {
      diff = std::max(diff, std::fabs(static_cast<double>(ya[i]) - yb[i]));
      scale = std::max(scale, std::fabs(static_cast<double>(yb[i])));
    }
    EXPECT_GT(diff, 0.0) << "f32 activations gave the rounded run's logits bit for bit";
    EXPECT_LT(diff / scale, 5e-2);
  }
  LmFixture lm;
  MakeLm(false, false, 1, &lm);
  LmShape bad;
  bad.max_seq = 8;
  bad.linear_activations = static_cast<LinearActivations>(9);
  LmPlan plan;
  const Status st = PlanLm(lm.fx.model, bad, 1, &plan);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(st.message()).find("linear activations code 9"), std::string::npos)
      << st.message();
}

// With a sliding window the cache keeps min(max_seq, W - 1 + chunk) rows (W = 1:
// only the chunk's own; W - 1 + chunk >= max_seq: all of them), and the plan is
// still the high-water mark of a session that moves rows.
TEST(LanguageModelPlan, SlidingWindowShrinksTheCacheAndPlanIsTheHighWaterMark) {
  for (size_t window : {1, 4, 9, 36, 100}) {
    for (size_t batch : {1, 2}) {
      for (size_t chunk : {1, 5}) CheckLmPlan(batch, chunk, window);
    }
  }
  // Smaller than the same session without a window, by exactly the dropped rows.
  LmFixture full, windowed;
  MakeLm(false, false, 1, &full);
  MakeLm(false, false, 1, &windowed, 6);
  LmShape shape;
  shape.max_seq = 40;
  shape.chunk = 3;
  LmPlan a, b;
  ASSERT_TRUE(PlanLm(full.fx.model, shape, 1, &a).ok());
  ASSERT_TRUE(PlanLm(windowed.fx.model, shape, 1, &b).ok());
  const ModelConfig& c = full.fx.model.config;
  EXPECT_EQ(b.cache_rows, 8u);
  EXPECT_EQ(a.kv_cache_bytes - b.kv_cache_bytes,
            2 * c.num_layers * (40 - 8) * c.kv_heads * c.qk_dim * sizeof(float));
  EXPECT_LT(b.arena_bytes, a.arena_bytes);
}

// A windowed session that moves rows (R < max_seq) computes what one that keeps
// every row (chunk = max_seq: R = max_seq) does with the same window, for every
// chunking and token by token up to max_seq; and the window changes the logits.
TEST(LanguageModelSession, SlidingWindowMovingRowsMatchesKeepingThemAll) {
  const size_t window = 6, n = 40, batch = 2;
  for (bool half : {false, true}) {
    LmFixture lm;
    MakeLm(true, half, batch, &lm, window);
    const Model& m = lm.fx.model;
    const size_t vocab = m.config.vocab_size;
    ThreadPool pool(2);
    const std::vector<int32_t> tokens = Slice(lm, batch, 0, n);
    // Logits of every position, fed in pieces of `piece` tokens with chunk `chunk`.
    const auto run = [&](const Model& model, size_t chunk, size_t piece, size_t* rows) {
      PlannedSession s;
      StartPlanned(model, AllLogitsShape(batch, n, chunk), pool.workers(), &s);
      *rows = s.plan.cache_rows;
      std::vector<float> logits(batch * n * vocab), part;
      for (size_t t0 = 0; t0 < n; t0 += piece) {
        const size_t len = std::min(piece, n - t0);
        part.assign(batch * len * vocab, 0.0f);
        const std::vector<int32_t> ids = Slice(lm, batch, t0, len);
        const Status st = s.session.Feed(ids.data(), len, part.data(), &pool);
        EXPECT_TRUE(st.ok()) << st.message();
        for (size_t b = 0; b < batch; ++b) {
          std::copy(part.begin() + b * len * vocab, part.begin() + (b + 1) * len * vocab,
                    logits.begin() + (b * n + t0) * vocab);
        }
      }
      EXPECT_EQ(s.session.position(), n);
      EXPECT_LE(s.arena.high_water(), s.plan.arena_bytes);
      return logits;
    };
    size_t rows;
    const std::vector<float> kept = run(m, n, n, &rows);
    EXPECT_EQ(rows, n);
    for (size_t chunk : {size_t{1}, size_t{3}, window - 1, window, window + 4}) {
      for (size_t piece : {size_t{1}, chunk, size_t{7}, n}) {
        SCOPED_TRACE("chunk " + std::to_string(chunk) + " piece " + std::to_string(piece));
        const std::vector<float> moved = run(m, chunk, piece, &rows);
        EXPECT_EQ(rows, window - 1 + chunk);
        for (size_t i = 0; i < kept.size(); ++i) {
          ASSERT_NEAR(moved[i], kept[i], 1e-4f * (1.0f + std::fabs(kept[i]))) << "element " << i;
        }
      }
    }
    // The same weights without the window: the first `window` positions agree,
    // later ones differ (the window hides keys there).
    LmFixture unwindowed;
    MakeLm(true, half, batch, &unwindowed);
    const std::vector<float> full = run(unwindowed.fx.model, n, n, &rows);
    float early = 0.0f, late = 0.0f;  // largest differences before / from position W
    for (size_t b = 0; b < batch; ++b) {
      for (size_t t = 0; t < n; ++t) {
        float& worst = t < window ? early : late;
        for (size_t v = 0; v < vocab; ++v) {
          const size_t i = (b * n + t) * vocab + v;
          worst = std::max(worst, std::fabs(full[i] - kept[i]));
        }
      }
    }
    EXPECT_LT(early, 1e-4f);
    EXPECT_GT(late, 1e-2f);
  }
}

// sliding_window in a file: absent is none; a positive integer is the window; 0,
// negative, float and string values are refused by name.
TEST(LanguageModelConfig, SlidingWindowIsReadAndBadValuesAreRefused) {
  const auto read = [](const std::function<void(WeightFileWriter*)>& set, ModelConfig* c) {
    WeightFileWriter w;
    w.SetString("arch", "llama");
    SetLlamaConfig(/*half_rope=*/false, &w);
    set(&w);
    std::vector<uint8_t> bytes;
    std::string error;
    EXPECT_TRUE(w.Serialize(&bytes, &error)) << error;
    WeightFile file;
    Status st = WeightFile::Open(bytes.data(), bytes.size(), &file);
    if (st.ok()) st = ReadModelConfig(file, c);
    return std::string(st.ok() ? "" : st.message());
  };
  ModelConfig c;
  EXPECT_EQ(read([](WeightFileWriter*) {}, &c), "");
  EXPECT_EQ(c.sliding_window, 0u);
  EXPECT_EQ(read([](WeightFileWriter* w) { w->SetInt("sliding_window", 7); }, &c), "");
  EXPECT_EQ(c.sliding_window, 7u);
  EXPECT_EQ(read([](WeightFileWriter* w) { w->SetInt("sliding_window", 1); }, &c), "");
  EXPECT_EQ(c.sliding_window, 1u);
  const std::pair<std::function<void(WeightFileWriter*)>, const char*> bad[] = {
      {[](WeightFileWriter* w) { w->SetInt("sliding_window", 0); }, "got 0"},
      {[](WeightFileWriter* w) { w->SetInt("sliding_window", -4); }, "got -4"},
      {[](WeightFileWriter* w) { w->SetInt("sliding_window", int64_t{1} << 40); }, "1..16777216"},
      {[](WeightFileWriter* w) { w->SetFloat("sliding_window", 4.0); }, "integer"},
      {[](WeightFileWriter* w) { w->SetString("sliding_window", "4"); }, "integer"},
  };
  for (const auto& [set, needle] : bad) {
    const std::string message = read(set, &c);
    EXPECT_NE(message.find("sliding_window"), std::string::npos) << message;
    EXPECT_NE(message.find(needle), std::string::npos) << message;
  }
}

// Prefill in one chunk, in chunks of 5, and token by token (decode steps over
// the cache) compute the same next-token logits: RoPE positions, cache writes
// and the two attention kernels agree.
TEST(LanguageModelSession, ChunkedPrefillAndDecodeStepsAgree) {
  for (Architecture arch : LmArchitectures()) {
  for (bool half : {false, true}) {
    SCOPED_TRACE(std::string(ArchitectureName(arch)) + (half ? " half" : " interleaved"));
    LmFixture lm;
    MakeLm(true, half, 2, &lm, 0, arch);
    const Model& m = lm.fx.model;
    const size_t vocab = m.config.vocab_size, n = 23, batch = 2;
    ThreadPool pool(2);
    std::vector<std::vector<float>> results;
    for (size_t chunk : {size_t{23}, size_t{5}, size_t{1}}) {
      PlannedSession s;
      ASSERT_NO_FATAL_FAILURE(StartPlanned(m, AllLogitsShape(batch, n, chunk), pool.workers(), &s));
      std::vector<float> logits(batch * n * vocab);
      const std::vector<int32_t> tokens = Slice(lm, batch, 0, n);
      ASSERT_TRUE(s.session.Feed(tokens.data(), n, logits.data(), &pool).ok());
      results.push_back(logits);
      // Reset and feed again: the same numbers, bit for bit.
      s.session.Reset();
      std::vector<float> again(logits.size());
      ASSERT_TRUE(s.session.Feed(tokens.data(), n, again.data(), &pool).ok());
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
    PlannedSession s;
    ASSERT_NO_FATAL_FAILURE(StartPlanned(m, shape, pool.workers(), &s));
    std::vector<float> last(batch * vocab);
    const std::vector<int32_t> tokens = Slice(lm, batch, 0, n);
    ASSERT_TRUE(s.session.Feed(tokens.data(), n, last.data(), &pool).ok());
    for (size_t b = 0; b < batch; ++b) {
      for (size_t v = 0; v < vocab; ++v) {
        EXPECT_NEAR(last[b * vocab + v], results[0][(b * n + n - 1) * vocab + v], 1e-5f);
      }
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
  ThreadPool pool(1);
  PlannedSession planned;
  ASSERT_NO_FATAL_FAILURE(StartPlanned(m, shape, 1, &planned));
  LmSession& session = planned.session;
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
  LmPlan plan;
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
  st = RunModel(m, in, x, &planned.arena, &pool);
  EXPECT_NE(std::string(st.message()).find("language model"), std::string::npos) << st.message();
}

}  // namespace
}  // namespace attnrt::testing
