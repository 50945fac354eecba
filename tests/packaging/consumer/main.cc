// Runs a converted model and a language model through the C++ API; prints the
// same lines as the C example (consumer_c/main.c) does through the C API.
// Usage: example MODEL.attnrt LM.attnrt
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <vector>

#include "attnrt/models/language_model.h"
#include "attnrt/models/model.h"
#include "attnrt/models/sampling.h"

using namespace attnrt;

namespace {

std::vector<char> ReadFile(const char* path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<char>(std::istreambuf_iterator<char>(in), {});
}

// The arena: one buffer, 64-byte aligned, as big as the plan says.
struct ArenaBuffer {
  explicit ArenaBuffer(size_t bytes) : block(bytes + kArenaAlignment) {}
  void* data() {
    const uintptr_t p = reinterpret_cast<uintptr_t>(block.data());
    return block.data() + (kArenaAlignment - p % kArenaAlignment) % kArenaAlignment;
  }
  std::vector<unsigned char> block;
};

int Fail(const char* what, const Status& s) {
  std::fprintf(stderr, "%s: %s\n", what, s.message());
  return 1;
}

int RunModelFile(const char* path) {
  const std::vector<char> bytes = ReadFile(path);
  WeightFile file;
  Status s = WeightFile::Open(bytes.data(), bytes.size(), &file);
  if (!s.ok()) return Fail(path, s);
  static Model model;  // large (every layer's pointers): keep it off the stack
  if (!(s = LoadModel(file, &model)).ok()) return Fail(path, s);
  const size_t batch = 1, seq = 8, dim = model.config.model_dim;
  ModelPlan plan;
  if (!(s = PlanModel(model, batch, seq, /*workers=*/1, &plan)).ok()) return Fail("plan", s);
  std::vector<float> x(batch * seq * dim), y(batch * seq * model.config.out_dim);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 17) / 8.0f - 1.0f;
  ArenaBuffer buffer(plan.arena_bytes);
  Arena arena(buffer.data(), plan.arena_bytes);
  ModelInput input;
  input.x = x.data();
  input.batch = batch;
  input.seq = seq;
  SerialExecutor serial;
  if (!(s = RunModel(model, input, y.data(), &arena, &serial)).ok()) return Fail("run", s);
  double sum = 0.0;
  for (float v : y) sum += v;
  std::printf("model: arena %lu bytes, output sum %.6f\n",
              static_cast<unsigned long>(plan.arena_bytes), sum);
  return 0;
}

int Generate(const char* path) {
  const std::vector<char> bytes = ReadFile(path);
  WeightFile file;
  Status s = WeightFile::Open(bytes.data(), bytes.size(), &file);
  if (!s.ok()) return Fail(path, s);
  static Model model;
  if (!(s = LoadModel(file, &model)).ok()) return Fail(path, s);
  LmShape shape;
  shape.max_seq = 64;
  LmPlan plan;
  if (!(s = PlanLm(model, shape, 1, &plan)).ok()) return Fail("plan", s);
  ArenaBuffer buffer(plan.arena_bytes);
  Arena arena(buffer.data(), plan.arena_bytes);
  LmSession session;
  if (!(s = session.Start(model, shape, &arena)).ok()) return Fail("start", s);
  const char prompt[] = "In the beginning";
  std::vector<int32_t> tokens(prompt, prompt + sizeof(prompt) - 1);
  std::vector<float> logits(model.config.vocab_size);
  SerialExecutor serial;
  std::printf("lm: %s", prompt);
  if (!(s = session.Feed(tokens.data(), tokens.size(), logits.data(), &serial)).ok()) {
    return Fail("feed", s);
  }
  for (int i = 0; i < 16; ++i) {
    uint64_t state = 0;
    const int32_t next = static_cast<int32_t>(
        SampleToken(logits.data(), logits.size(), SamplingParams(), &state, nullptr, nullptr));
    if (!(s = session.Feed(&next, 1, logits.data(), &serial)).ok()) return Fail("step", s);
    std::putchar(next >= 32 && next < 127 ? next : '?');
  }
  std::printf("\n");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s MODEL.attnrt LM.attnrt\n", argv[0]);
    return 2;
  }
  return RunModelFile(argv[1]) || Generate(argv[2]);
}
