// libFuzzer target for what `attnrt run` does with its inputs before and around the
// forward pass: the input's layout check (ModelBatchAndSeq), PyTorch's key padding
// mask merged with an SDPA mask (MergeKeyPaddingMask), the mask's broadcast binding,
// the plan, and a run in an arena of exactly the planned size. Small models of every
// architecture come from the tests' fixture (random weights, built once).
//
// Language models (llama) take another path: a session shape (batch, max_seq,
// chunk, all logits) planned with PlanLm, then a series of Feeds of fuzzed token
// ids (in and out of the vocabulary) and lengths (zero, past max_seq).
//
// Invariants (abort on violation, ASan catches the rest): a run in the planned arena
// never fails for lack of arena, and touches only the buffers its shapes describe
// (allocated exactly that large); a refused Feed leaves the position unchanged, an
// accepted one advances it by its length, never past max_seq.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "attnrt/runtime/checked_math.h"
#include "fuzz_input.h"
#include "cli/key_padding_mask.h"
#include "attnrt/models/language_model.h"
#include "models/model_fixture.h"

namespace attnrt {
namespace {

constexpr size_t kDims[16] = {0, 1, 2, 3, 4, 5, 7, 8, 16, 20, 24, 33, 64, 65,
                              size_t{1} << 31, SIZE_MAX};
constexpr size_t kMaxElements = 1 << 14;
constexpr Architecture kArchitectures[] = {Architecture::kMha, Architecture::kEncoderLayer,
                                           Architecture::kSelfAttention, Architecture::kSingleHead,
                                           Architecture::kEncoder, Architecture::kVit};
constexpr size_t kArchCount = sizeof(kArchitectures) / sizeof(kArchitectures[0]);

[[noreturn]] void Die(const char* what, const char* detail) {
  std::fprintf(stderr, "model_input_fuzzer: %s: %s\n", what, detail);
  std::abort();
}

using fuzz::Reader;

const testing::ModelFixture& Fixture(size_t i) {
  static std::unique_ptr<testing::ModelFixture> fixtures[kArchCount];
  if (!fixtures[i]) {
    fixtures[i] = std::make_unique<testing::ModelFixture>();
    std::string error;
    if (!testing::MakeModel(kArchitectures[i], true, i % 2 == 0, fixtures[i].get(), &error)) {
      Die("fixture", error.c_str());
    }
  }
  return *fixtures[i];
}

std::vector<size_t> ReadDims(Reader* r, size_t max_rank) {
  std::vector<size_t> dims(r->Next() % (max_rank + 1));
  for (size_t& d : dims) d = kDims[r->Next() & 15];
  return dims;
}

bool Count(const std::vector<size_t>& dims, size_t* n) {
  return CheckedProduct(dims.data(), dims.size(), n);
}

// An npy array of `dims` (bool or float32) filled from the input; false if too large.
bool ReadArray(Reader* r, std::vector<size_t> dims, bool is_bool, npy::Array* a) {
  size_t n;
  if (!Count(dims, &n) || n > kMaxElements) return false;
  a->shape = std::move(dims);
  a->dtype = is_bool ? npy::DType::kBool : npy::DType::kFloat32;
  if (is_bool) {
    a->b8.resize(n);
    for (uint8_t& b : a->b8) b = r->Next() & 1;
  } else {
    a->f32.resize(n);
    for (float& f : a->f32) f = (r->Next() & 7) == 0 ? -INFINITY : (r->Next() % 9) - 4.0f;
  }
  return true;
}

const testing::ModelFixture& LanguageModel() {
  static std::unique_ptr<testing::ModelFixture> fixture;
  if (!fixture) {
    fixture = std::make_unique<testing::ModelFixture>();
    std::string error;
    if (!testing::MakeModel(Architecture::kLlama, false, true, fixture.get(), &error)) {
      Die("fixture", error.c_str());
    }
  }
  return *fixture;
}

// Token ids: mostly valid, sometimes just outside the vocabulary or far off.
int32_t ReadToken(Reader* r, size_t vocab) {
  const uint8_t b = r->Next();
  switch (b & 7) {
    case 0: return -1;
    case 1: return static_cast<int32_t>(vocab);
    case 2: return b & 8 ? INT32_MIN : INT32_MAX;
    default: return static_cast<int32_t>(b % vocab);
  }
}

void FuzzLanguageModel(Reader* r) {
  const Model& m = LanguageModel().model;
  const size_t vocab = m.config.vocab_size;
  constexpr size_t kSeqs[8] = {0, 1, 2, 5, 16, 48, 49, SIZE_MAX};
  LmShape shape;
  shape.batch = r->Next() % 4;
  shape.max_seq = kSeqs[r->Next() & 7];
  shape.chunk = kSeqs[r->Next() & 7] % 64;
  shape.all_logits = r->Next() & 1;
  LmPlan plan;
  if (!PlanLm(m, shape, 1, &plan).ok() || plan.arena_bytes > (size_t{64} << 20)) return;
  LmShape resolved;
  if (!CheckLmShape(m, shape, &resolved).ok()) Die("plan", "PlanLm accepted what CheckLmShape refuses");
  std::vector<uint8_t> storage;
  Arena arena = fuzz::ExactArena(plan.arena_bytes, &storage);
  SerialExecutor executor;
  LmSession session;
  Status st = session.Start(m, shape, &arena);
  if (!st.ok()) Die("start in the planned arena", st.message());
  for (size_t feed = 0; feed < 8 && r->at < r->size; ++feed) {
    const size_t n = r->Next() % 24;
    std::vector<int32_t> tokens(shape.batch * n);
    for (int32_t& t : tokens) t = ReadToken(r, vocab);
    std::vector<float> logits((shape.all_logits ? n : 1) * shape.batch * vocab);
    const size_t before = session.position();
    st = session.Feed(n == 0 ? nullptr : tokens.data(), n, logits.data(), &executor);
    if (!st.ok() && std::strstr(st.message(), "arena") != nullptr) {
      Die("planned arena too small", st.message());
    }
    const size_t want = st.ok() ? before + n : before;
    if (session.position() != want || session.position() > shape.max_seq) {
      Die("position", st.ok() ? "an accepted feed did not advance by its length"
                              : "a refused feed moved the position");
    }
    if (r->Next() % 5 == 0) session.Reset();
  }
}

}  // namespace

void fuzz::FuzzOne(Reader* r) {
  const size_t choice = r->Next() % (kArchCount + 1);
  if (choice == kArchCount) {
    FuzzLanguageModel(r);
    return;
  }
  const testing::ModelFixture& fx = Fixture(choice);
  const ModelConfig& c = fx.model.config;
  TensorShape x_shape;
  const std::vector<size_t> x_dims = ReadDims(r, 5);
  if (x_dims.size() > TensorShape::kMaxRank) return;
  x_shape.rank = x_dims.size();
  for (size_t i = 0; i < x_dims.size(); ++i) x_shape.dims[i] = x_dims[i];
  ModelInput in;
  if (!ModelBatchAndSeq(c, x_shape, &in.batch, &in.seq).ok()) return;
  size_t x_count;
  if (!Count(x_dims, &x_count) || x_count > kMaxElements) return;

  const uint8_t mode = r->Next();
  in.causal = static_cast<CausalKind>(mode % 3);
  npy::Array mask, padding, merged;
  const bool has_mask = mode & 4, has_padding = mode & 8;
  if (has_mask && !ReadArray(r, ReadDims(r, 4), mode & 16, &mask)) return;
  if (has_padding) {
    if (!ReadArray(r, ReadDims(r, 3), mode & 32, &padding)) return;
    std::string error;
    if (!cli::MergeKeyPaddingMask(has_mask ? &mask : nullptr, padding, in.batch, in.seq, &merged,
                                  &error)) {
      return;
    }
  } else if (has_mask) {
    merged = mask;
  }
  if (has_mask || has_padding) {
    if (merged.shape.size() > TensorShape::kMaxRank) return;
    in.mask_shape.rank = merged.shape.size();
    for (size_t i = 0; i < merged.shape.size(); ++i) in.mask_shape.dims[i] = merged.shape[i];
    in.mask_kind = merged.dtype == npy::DType::kBool ? MaskKind::kBool : MaskKind::kAdditive;
    in.mask = in.mask_kind == MaskKind::kBool ? static_cast<const void*>(merged.b8.data())
                                              : static_cast<const void*>(merged.f32.data());
  }

  ModelPlan plan;
  if (!PlanModel(fx.model, in.batch, in.seq, 1, &plan).ok()) return;
  TensorShape y_shape;
  size_t y_count;
  if (!ModelOutputShape(c, in.batch, in.seq, &y_shape).ok() ||
      !CheckedProduct(y_shape.dims, y_shape.rank, &y_count) || y_count > kMaxElements ||
      plan.arena_bytes > (size_t{64} << 20)) {
    return;
  }
  std::vector<float> x(x_count), y(y_count);
  for (float& v : x) v = (r->Next() % 17) * 0.125f - 1.0f;
  in.x = x.data();
  std::vector<uint8_t> storage;
  Arena arena = fuzz::ExactArena(plan.arena_bytes, &storage);
  SerialExecutor executor;
  const Status st = RunModel(fx.model, in, y.data(), &arena, &executor);
  if (!st.ok() && std::strstr(st.message(), "arena") != nullptr) Die("planned arena too small", st.message());
}

}  // namespace attnrt
