// The C++ API's answers for the C API test; see capi_reference.h.
#include "capi_reference.h"

#include <cstdio>
#include <vector>

#include "attnrt/models/language_model.h"
#include "attnrt/models/model.h"
#include "attnrt/models/sampling.h"

namespace {

using namespace attnrt;

// Splits [0, items) into `workers` ranges and runs them in order: the same
// split as split_parallel_for in capi_test.c, so results compare bit for bit.
class SplitExecutor final : public Executor {
 public:
  explicit SplitExecutor(size_t workers) : workers_(workers) {}
  size_t workers() const override { return workers_; }
  void ParallelFor(size_t items, WorkFn fn, void* context) override {
    for (size_t w = 0; w < workers_; ++w) {
      const size_t begin = items * w / workers_, end = items * (w + 1) / workers_;
      if (begin < end) fn(context, begin, end, w);
    }
  }

 private:
  size_t workers_;
};

int Fail(const char* what, const Status& s) {
  std::fprintf(stderr, "reference: %s: %s\n", what, s.message());
  return 1;
}

struct Loaded {
  WeightFile file;
  Model model;
};

int Load(const void* data, size_t bytes, Loaded* out) {
  Status s = WeightFile::Open(data, bytes, &out->file);
  if (!s.ok()) return Fail("open", s);
  s = LoadModel(out->file, &out->model);
  return s.ok() ? 0 : Fail("load", s);
}

}  // namespace

extern "C" int ref_model_run(const void* file, size_t file_bytes, const float* x, size_t batch,
                             size_t seq, size_t workers, int activations, float* y,
                             size_t* arena_bytes) {
  static Loaded loaded;
  if (Load(file, file_bytes, &loaded) != 0) return 1;
  ModelPlan plan;
  const LinearActivations linear = static_cast<LinearActivations>(activations);
  Status s = PlanModel(loaded.model, batch, seq, workers, &plan, false, nullptr, linear);
  if (!s.ok()) return Fail("plan", s);
  if (arena_bytes != nullptr) *arena_bytes = plan.arena_bytes;
  std::vector<unsigned char> buffer(plan.arena_bytes + kArenaAlignment);
  void* base = buffer.data() + (kArenaAlignment - reinterpret_cast<uintptr_t>(buffer.data()) % kArenaAlignment);
  Arena arena(base, plan.arena_bytes);
  ModelInput input;
  input.x = x;
  input.batch = batch;
  input.seq = seq;
  input.linear_activations = linear;
  SplitExecutor executor(workers);
  s = RunModel(loaded.model, input, y, &arena, &executor);
  return s.ok() ? 0 : Fail("run", s);
}

extern "C" int ref_lm_greedy(const void* file, size_t file_bytes, size_t max_seq, int kv_type,
                             int activations, int packed, const int32_t* prompt,
                             size_t prompt_len, size_t steps, int32_t* tokens, float* logits,
                             size_t* arena_bytes) {
  static Loaded loaded;
  static std::vector<unsigned char> copies;
  if (Load(file, file_bytes, &loaded) != 0) return 1;
  const LinearActivations linear = static_cast<LinearActivations>(activations);
  if (packed != 0) {
    size_t bytes = 0;
    Status s = ModelPackedBytes(loaded.model, linear, &bytes);
    if (!s.ok()) return Fail("packed bytes", s);
    copies.assign(bytes + kPackedAlignment, 0);
    unsigned char* at = copies.data() + (kPackedAlignment - reinterpret_cast<uintptr_t>(copies.data()) % kPackedAlignment);
    s = PackModelWeights(&loaded.model, linear, at, bytes);
    if (!s.ok()) return Fail("pack", s);
  }
  LmShape shape;
  shape.max_seq = max_seq;
  shape.kv_type = static_cast<KvType>(kv_type);
  shape.linear_activations = linear;
  LmPlan plan;
  Status s = PlanLm(loaded.model, shape, 1, &plan);
  if (!s.ok()) return Fail("plan lm", s);
  if (arena_bytes != nullptr) *arena_bytes = plan.arena_bytes;
  std::vector<unsigned char> buffer(plan.arena_bytes + kArenaAlignment);
  void* base = buffer.data() + (kArenaAlignment - reinterpret_cast<uintptr_t>(buffer.data()) % kArenaAlignment);
  Arena arena(base, plan.arena_bytes);
  LmSession session;
  s = session.Start(loaded.model, shape, &arena);
  if (!s.ok()) return Fail("start", s);
  SerialExecutor serial;
  const size_t vocab = loaded.model.config.vocab_size;
  s = session.Feed(prompt, prompt_len, logits, &serial);
  if (!s.ok()) return Fail("feed prompt", s);
  SamplingParams greedy;
  uint64_t state = SamplingSeed(0);
  for (size_t i = 0; i < steps; ++i) {
    const int32_t next = static_cast<int32_t>(
        SampleToken(logits + i * vocab, vocab, greedy, &state, nullptr, nullptr));
    tokens[i] = next;
    s = session.Feed(&next, 1, logits + (i + 1) * vocab, &serial);
    if (!s.ok()) return Fail("feed", s);
  }
  return 0;
}

extern "C" int ref_sample(const float* logits, size_t vocab, float temperature, size_t top_k,
                          float top_p, uint64_t seed, int32_t* token) {
  SamplingParams p;
  p.temperature = temperature;
  p.top_k = top_k;
  p.top_p = top_p;
  uint64_t state = SamplingSeed(seed);
  std::vector<float> probabilities(vocab);
  std::vector<uint32_t> order(vocab);
  *token = static_cast<int32_t>(
      SampleToken(logits, vocab, p, &state, probabilities.data(), order.data()));
  return 0;
}
