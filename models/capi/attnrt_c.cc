// The C API (attnrt/attnrt.h) over the C++ runtime and models.
//
// Each handle's opaque storage holds one implementation object, built there by
// placement new on open/start; static_asserts check that it fits and is
// aligned. Nothing allocates, and nothing can throw: the layers below are built
// without exceptions and report through Status, whose message is copied into
// the handle.
#include "attnrt/attnrt.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <new>
#include <type_traits>

#include "attnrt/models/language_model.h"
#include "attnrt/models/lm_eos.h"
#include "attnrt/models/model.h"
#include "attnrt/models/sampling.h"
#include "attnrt/runtime/checked_math.h"
#include "attnrt/runtime/sdpa.h"

namespace attnrt {
namespace {

// The C codes are the C++ codes; keep them in step.
static_assert(static_cast<int>(StatusCode::kOk) == ATTNRT_OK, "status codes");
static_assert(static_cast<int>(StatusCode::kInvalidArgument) == ATTNRT_INVALID_ARGUMENT, "codes");
static_assert(static_cast<int>(StatusCode::kShapeMismatch) == ATTNRT_SHAPE_MISMATCH, "codes");
static_assert(static_cast<int>(StatusCode::kArenaTooSmall) == ATTNRT_ARENA_TOO_SMALL, "codes");
static_assert(static_cast<int>(StatusCode::kBadFile) == ATTNRT_BAD_FILE, "codes");
static_assert(static_cast<int>(StatusCode::kUnsupported) == ATTNRT_UNSUPPORTED, "codes");
static_assert(static_cast<int>(StatusCode::kOverflow) == ATTNRT_OVERFLOW, "codes");
static_assert(static_cast<int>(StatusCode::kBufferTooSmall) == ATTNRT_BUFFER_TOO_SMALL, "codes");
static_assert(sizeof(attnrt_message{}.text) == Status::kMaxMessage, "message size");
static_assert(ATTNRT_ARENA_ALIGNMENT == kArenaAlignment, "arena alignment");
static_assert(static_cast<int>(MaskKind::kBool) == ATTNRT_MASK_BOOL &&
                  static_cast<int>(MaskKind::kAdditive) == ATTNRT_MASK_ADDITIVE,
              "mask kinds");
static_assert(static_cast<int>(LinearActivations::kAuto) == ATTNRT_ACTIVATIONS_AUTO &&
                  static_cast<int>(LinearActivations::kF32) == ATTNRT_ACTIVATIONS_F32,
              "activations");
// attnrt embed writes KvType codes into headers as attnrt_kv_type values (NAME_KV_TYPE).
static_assert(static_cast<int>(KvType::kF32) == ATTNRT_KV_F32 &&
                  static_cast<int>(KvType::kF16) == ATTNRT_KV_F16 &&
                  static_cast<int>(KvType::kQ8) == ATTNRT_KV_Q8,
              "KV-cache types");
static_assert(static_cast<int>(CausalKind::kUpperLeft) == ATTNRT_CAUSAL_UPPER_LEFT &&
                  static_cast<int>(CausalKind::kLowerRight) == ATTNRT_CAUSAL_LOWER_RIGHT,
              "causal kinds");

// Marks storage that holds a live object (a zeroed or foreign handle does not).
constexpr uint32_t kModelMagic = 0x4d52544eu;  // "NTRM"
constexpr uint32_t kLmMagic = 0x4c52544eu;     // "NTRL"

void CopyMessage(const char* from, char* to) {
  size_t i = 0;
  for (; from[i] != '\0' && i + 1 < Status::kMaxMessage; ++i) to[i] = from[i];
  to[i] = '\0';
}

attnrt_status Code(const Status& s) { return static_cast<attnrt_status>(s.code()); }

// The caller's executor (or none: serial) as an attnrt::Executor.
class CExecutor final : public Executor {
 public:
  void Set(const attnrt_executor* e) {
    has_ = e != nullptr;
    if (has_) c_ = *e;
  }
  size_t workers() const override { return has_ ? c_.workers(c_.self) : 1; }
  void ParallelFor(size_t items, WorkFn fn, void* context) override {
    if (!has_) {
      if (items > 0) fn(context, 0, items, 0);
      return;
    }
    c_.parallel_for(c_.self, items, fn, context);
  }

 private:
  bool has_ = false;
  attnrt_executor c_ = {};
};

Status CheckExecutor(const attnrt_executor* e) {
  if (e == nullptr) return Status::Ok();
  if (e->workers == nullptr || e->parallel_for == nullptr) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "executor: workers and parallel_for must both be set");
  }
  if (e->workers(e->self) == 0) {
    return Status::Error(StatusCode::kInvalidArgument, "executor: workers() returned 0");
  }
  return Status::Ok();
}

// The last failure's message, kept for attnrt_model_message and attnrt_lm_message.
struct LastMessage {
  char message[Status::kMaxMessage] = "ok";

  attnrt_status Fail(const Status& s) {
    CopyMessage(s.message(), message);
    return Code(s);
  }
};

struct ModelImpl : LastMessage {
  uint32_t magic = kModelMagic;
  bool open = false;
  // Counts opens of this handle: a session records it at start and refuses to run
  // on a model opened again since (its cache and arena were planned for the old one).
  uint32_t generation = 0;
  CExecutor executor;
  KvType kv_type = KvType::kF32;  // language models' cache (attnrt_model_set_kv_type)
  // Integer weights' Linear inputs (attnrt_model_set_activations), for plans, runs, sessions.
  LinearActivations activations = LinearActivations::kAuto;
  WeightFile file;
  Model model;
};

struct LmImpl : LastMessage {
  LmImpl(ModelImpl* m, void* buffer, size_t bytes) : model(m), arena(buffer, bytes) {}
  uint32_t magic = kLmMagic;
  bool started = false;
  ModelImpl* model;
  uint32_t model_generation = 0;  // the model's generation when the session started
  Arena arena;
  LmSession session;
};

static_assert(sizeof(ModelImpl) <= sizeof(attnrt_model),
              "ATTNRT_MODEL_STORAGE is too small for attnrt::Model: raise it in attnrt.h");
static_assert(alignof(ModelImpl) <= alignof(attnrt_model), "attnrt_model alignment");
static_assert(sizeof(LmImpl) <= sizeof(attnrt_lm),
              "ATTNRT_LM_STORAGE is too small for attnrt::LmSession: raise it in attnrt.h");
static_assert(alignof(LmImpl) <= alignof(attnrt_lm), "attnrt_lm alignment");

ModelImpl* Impl(attnrt_model* m) {
  if (m == nullptr) return nullptr;
  ModelImpl* impl = reinterpret_cast<ModelImpl*>(m->opaque.bytes);
  return impl->magic == kModelMagic ? impl : nullptr;
}
const ModelImpl* Impl(const attnrt_model* m) { return Impl(const_cast<attnrt_model*>(m)); }

// An open model, or null after recording why not (when there is a handle to record in).
ModelImpl* OpenImpl(attnrt_model* m) {
  ModelImpl* impl = Impl(m);
  return impl != nullptr && impl->open ? impl : nullptr;
}

LmImpl* Impl(attnrt_lm* lm) {
  if (lm == nullptr) return nullptr;
  LmImpl* impl = reinterpret_cast<LmImpl*>(lm->opaque.bytes);
  return impl->magic == kLmMagic ? impl : nullptr;
}

Status CheckArena(const void* arena, size_t bytes) {
  if (arena == nullptr && bytes != 0) {
    return Status::Error(StatusCode::kInvalidArgument, "arena is NULL but arena_bytes is %z",
                         bytes);
  }
  if (reinterpret_cast<uintptr_t>(arena) % kArenaAlignment != 0) {
    return Status::Error(StatusCode::kInvalidArgument, "arena must be %z-byte aligned",
                         kArenaAlignment);
  }
  return Status::Ok();
}

Status NotOpen() {
  return Status::Error(StatusCode::kInvalidArgument,
                       "the model is not open (attnrt_model_open failed or was not called)");
}

LmShape ShapeFor(const ModelImpl& model, size_t max_seq) {
  LmShape shape;
  shape.batch = 1;
  shape.max_seq = max_seq;
  shape.kv_type = model.kv_type;
  shape.linear_activations = model.activations;
  return shape;
}

// A C caller may store any value in an enum field (C allows it); reading one outside
// the enumerators as the C++ enum type is undefined, so enum fields are read as the
// integer type underneath (its size differs: 1 byte with arm-none-eabi's short enums).
template <typename E>
long RawEnum(const E& field) {
  std::underlying_type_t<E> value;
  static_assert(sizeof(value) == sizeof(E), "an enum has its underlying type's size");
  std::memcpy(&value, &field, sizeof value);
  return static_cast<long>(value);
}

// Fills a runtime SDPA block from the C description; kernel and bound block out.
Status BindSdpa(const attnrt_sdpa_params* c, SdpaParams* p, const SdpaKernel** kernel) {
  if (c == nullptr) return Status::Error(StatusCode::kInvalidArgument, "sdpa params are NULL");
  const long mask_kind = RawEnum(c->mask_kind), causal = RawEnum(c->causal);
  if (mask_kind != ATTNRT_MASK_NONE && mask_kind != ATTNRT_MASK_BOOL &&
      mask_kind != ATTNRT_MASK_ADDITIVE) {
    return Status::Error(StatusCode::kInvalidArgument, "unknown mask kind %z", mask_kind);
  }
  if (causal != ATTNRT_CAUSAL_NONE && causal != ATTNRT_CAUSAL_UPPER_LEFT &&
      causal != ATTNRT_CAUSAL_LOWER_RIGHT) {
    return Status::Error(StatusCode::kInvalidArgument, "unknown causal rule %z", causal);
  }
  const TensorShape q{4, {c->batch, c->q_heads, c->q_len, c->qk_dim}};
  const TensorShape k{4, {c->batch, c->kv_heads, c->kv_len, c->qk_dim}};
  const TensorShape v{4, {c->batch, c->kv_heads, c->kv_len, c->v_dim}};
  const TensorShape mask{4, {c->mask_batch, c->mask_heads, c->q_len, c->kv_len}};
  const MaskKind kind = static_cast<MaskKind>(mask_kind);
  const bool masked = kind != MaskKind::kNone;
  if (masked && c->mask == nullptr) {
    return Status::Error(StatusCode::kInvalidArgument, "mask_kind is set but mask is NULL");
  }
  TensorShape out, weights;
  *p = SdpaParams();
  ATTNRT_RETURN_IF_ERROR(BindSdpaShapes(q, k, v, masked ? &mask : nullptr, kind, p, &out, &weights));
  p->q = c->q;
  p->k = c->k;
  p->v = c->v;
  p->out = c->out;
  p->weights = c->weights;
  p->mask = masked ? c->mask : nullptr;
  p->causal = static_cast<CausalKind>(causal);
  if (!std::isfinite(c->scale)) {
    return Status::Error(StatusCode::kInvalidArgument, "scale must be finite");
  }
  p->scale = c->scale == 0.0f ? DefaultSdpaScale(c->qk_dim) : c->scale;
  if (c->kernel == nullptr) {
    *kernel = &ChooseSdpaKernel(*p);
  } else {
    *kernel = FindSdpaKernel(c->kernel);
    if (*kernel == nullptr) {
      return Status::Error(StatusCode::kInvalidArgument, "no SDPA kernel named '%s'", c->kernel);
    }
  }
  if (!(*kernel)->available()) {
    return Status::Error(StatusCode::kUnsupported, "SDPA kernel '%s' cannot run on this CPU",
                         (*kernel)->name);
  }
  if (p->weights != nullptr && !(*kernel)->returns_weights) {
    return Status::Error(StatusCode::kUnsupported, "SDPA kernel '%s' does not return weights",
                         (*kernel)->name);
  }
  return Status::Ok();
}

attnrt_status Report(const Status& s, attnrt_message* message) {
  if (message != nullptr) CopyMessage(s.message(), message->text);
  return Code(s);
}

}  // namespace
}  // namespace attnrt

using namespace attnrt;

extern "C" {

const char* attnrt_status_name(attnrt_status status) {
  if (static_cast<int>(status) < 0 || static_cast<int>(status) > ATTNRT_BUFFER_TOO_SMALL) {
    return "unknown";
  }
  return StatusCodeName(static_cast<StatusCode>(status));
}

attnrt_status attnrt_model_open(attnrt_model* m, const void* file, size_t file_bytes) {
  if (m == nullptr) return ATTNRT_INVALID_ARGUMENT;
  const ModelImpl* before = Impl(m);
  const uint32_t generation = before != nullptr ? before->generation + 1 : 0;
  ModelImpl* impl = new (m->opaque.bytes) ModelImpl();
  impl->generation = generation;
  const Status opened = WeightFile::Open(file, file_bytes, &impl->file);
  if (!opened.ok()) return impl->Fail(opened);
  const Status loaded = LoadModel(impl->file, &impl->model);
  if (!loaded.ok()) return impl->Fail(loaded);
  impl->open = true;
  return ATTNRT_OK;
}

const char* attnrt_model_message(const attnrt_model* m) {
  const ModelImpl* impl = Impl(m);
  if (impl == nullptr) return "the model handle was never passed to attnrt_model_open";
  return impl->message;
}

attnrt_status attnrt_model_set_executor(attnrt_model* m, const attnrt_executor* executor) {
  ModelImpl* impl = OpenImpl(m);
  if (impl == nullptr) return Impl(m) ? Impl(m)->Fail(NotOpen()) : ATTNRT_INVALID_ARGUMENT;
  const Status s = CheckExecutor(executor);
  if (!s.ok()) return impl->Fail(s);
  impl->executor.Set(executor);
  return ATTNRT_OK;
}

attnrt_status attnrt_model_packed_bytes(const attnrt_model* cm, size_t* bytes) {
  attnrt_model* m = const_cast<attnrt_model*>(cm);  // only the message changes
  ModelImpl* impl = OpenImpl(m);
  if (impl == nullptr) return Impl(m) ? Impl(m)->Fail(NotOpen()) : ATTNRT_INVALID_ARGUMENT;
  if (bytes == nullptr) {
    return impl->Fail(Status::Error(StatusCode::kInvalidArgument, "bytes is NULL"));
  }
  const Status s = ModelPackedBytes(impl->model, impl->activations, bytes);
  return s.ok() ? ATTNRT_OK : impl->Fail(s);
}

attnrt_status attnrt_model_pack(attnrt_model* m, void* buffer, size_t bytes) {
  ModelImpl* impl = OpenImpl(m);
  if (impl == nullptr) return Impl(m) ? Impl(m)->Fail(NotOpen()) : ATTNRT_INVALID_ARGUMENT;
  size_t need = 0;
  const Status sized = ModelPackedBytes(impl->model, impl->activations, &need);
  if (!sized.ok()) return impl->Fail(sized);
  if (need == 0) return ATTNRT_OK;  // nothing has a copy here: m runs as it did
  if (buffer == nullptr) {
    return impl->Fail(Status::Error(StatusCode::kInvalidArgument, "buffer is NULL"));
  }
  const Status s = PackModelWeights(&impl->model, impl->activations, buffer, bytes);
  return s.ok() ? ATTNRT_OK : impl->Fail(s);
}

size_t attnrt_model_input_dim(const attnrt_model* m) {
  const ModelImpl* impl = OpenImpl(const_cast<attnrt_model*>(m));
  if (impl == nullptr) return 0;
  const ModelConfig& c = impl->model.config;
  if (!ArchitectureTakesImages(c.arch)) return c.model_dim;
  size_t n = 0;
  const size_t dims[3] = {c.channels, c.image_size, c.image_size};
  return CheckedProduct(dims, 3, &n) ? n : 0;
}

size_t attnrt_model_output_dim(const attnrt_model* m) {
  const ModelImpl* impl = OpenImpl(const_cast<attnrt_model*>(m));
  return impl == nullptr ? 0 : impl->model.config.out_dim;
}

attnrt_status attnrt_model_plan(const attnrt_model* cm, size_t batch, size_t seq,
                                size_t* arena_bytes) {
  attnrt_model* m = const_cast<attnrt_model*>(cm);  // only the message changes
  ModelImpl* impl = OpenImpl(m);
  if (impl == nullptr) return Impl(m) ? Impl(m)->Fail(NotOpen()) : ATTNRT_INVALID_ARGUMENT;
  if (arena_bytes == nullptr) {
    return impl->Fail(Status::Error(StatusCode::kInvalidArgument, "arena_bytes is NULL"));
  }
  ModelPlan plan;
  const Status s = PlanModel(impl->model, batch, seq, impl->executor.workers(), &plan,
                             /*with_weights=*/false, /*kernel=*/nullptr, impl->activations);
  if (!s.ok()) return impl->Fail(s);
  *arena_bytes = plan.arena_bytes;
  return ATTNRT_OK;
}

attnrt_status attnrt_model_run(attnrt_model* m, const float* x, size_t batch, size_t seq,
                               float* y, void* arena, size_t arena_bytes) {
  ModelImpl* impl = OpenImpl(m);
  if (impl == nullptr) return Impl(m) ? Impl(m)->Fail(NotOpen()) : ATTNRT_INVALID_ARGUMENT;
  if (x == nullptr || y == nullptr) {
    return impl->Fail(Status::Error(StatusCode::kInvalidArgument, "x and y must not be NULL"));
  }
  const Status arena_ok = CheckArena(arena, arena_bytes);
  if (!arena_ok.ok()) return impl->Fail(arena_ok);
  ModelInput input;
  input.x = x;
  input.batch = batch;
  input.seq = seq;
  input.linear_activations = impl->activations;
  Arena a(arena, arena_bytes);
  const Status s = RunModel(impl->model, input, y, &a, &impl->executor);
  return s.ok() ? ATTNRT_OK : impl->Fail(s);
}

attnrt_status attnrt_model_set_kv_type(attnrt_model* m, attnrt_kv_type kv_type) {
  ModelImpl* impl = OpenImpl(m);
  if (impl == nullptr) return Impl(m) ? Impl(m)->Fail(NotOpen()) : ATTNRT_INVALID_ARGUMENT;
  if (!ArchitectureIsLanguageModel(impl->model.config.arch)) {
    return impl->Fail(Status::Error(StatusCode::kInvalidArgument,
                                    "a KV-cache type applies to language models only"));
  }
  // Read as the integer underneath: a C caller may pass any value.
  const long code = RawEnum(kv_type);
  const KvType type = static_cast<KvType>(code);
  if (code < 0 || code > 255 || !IsKvType(type)) {
    return impl->Fail(Status::Error(StatusCode::kUnsupported,
                                    "KV-cache type %z is not one of ATTNRT_KV_F32 (1), "
                                    "ATTNRT_KV_F16 (2), ATTNRT_KV_Q8 (4)",
                                    code));
  }
  impl->kv_type = type;
  return ATTNRT_OK;
}

attnrt_status attnrt_model_set_activations(attnrt_model* m, attnrt_activations activations) {
  ModelImpl* impl = OpenImpl(m);
  if (impl == nullptr) return Impl(m) ? Impl(m)->Fail(NotOpen()) : ATTNRT_INVALID_ARGUMENT;
  // Read as the integer underneath: a C caller may pass any value, and one past the C++
  // enum's 8 bits must not wrap into a valid code.
  const long code = RawEnum(activations);
  if (code < 0 || code > UINT8_MAX ||
      !CheckLinearActivations(static_cast<LinearActivations>(code)).ok()) {
    return impl->Fail(Status::Error(StatusCode::kInvalidArgument,
                                    "activations %z is neither ATTNRT_ACTIVATIONS_AUTO (0) "
                                    "nor ATTNRT_ACTIVATIONS_F32 (1)",
                                    code));
  }
  impl->activations = static_cast<LinearActivations>(code);
  return ATTNRT_OK;
}

size_t attnrt_lm_vocab(const attnrt_model* m) {
  const ModelImpl* impl = OpenImpl(const_cast<attnrt_model*>(m));
  if (impl == nullptr || !ArchitectureIsLanguageModel(impl->model.config.arch)) return 0;
  return impl->model.config.vocab_size;
}

attnrt_status attnrt_lm_eos(const attnrt_model* cm, int32_t* ids, size_t capacity,
                            size_t* count) {
  attnrt_model* m = const_cast<attnrt_model*>(cm);  // only the message changes
  ModelImpl* impl = OpenImpl(m);
  if (impl == nullptr) return Impl(m) ? Impl(m)->Fail(NotOpen()) : ATTNRT_INVALID_ARGUMENT;
  if (count == nullptr || (ids == nullptr && capacity != 0)) {
    return impl->Fail(Status::Error(StatusCode::kInvalidArgument,
                                    "count is NULL, or ids is NULL with capacity %z", capacity));
  }
  *count = 0;
  if (!ArchitectureIsLanguageModel(impl->model.config.arch)) {
    return impl->Fail(Status::Error(StatusCode::kInvalidArgument,
                                    "the model is not a language model: it has no eos ids"));
  }
  const Status s = LmEosTokens(impl->file, impl->model.config.vocab_size, ids, capacity, count);
  return s.ok() ? ATTNRT_OK : impl->Fail(s);
}

attnrt_status attnrt_lm_plan(const attnrt_model* cm, size_t max_seq, size_t* arena_bytes) {
  attnrt_model* m = const_cast<attnrt_model*>(cm);  // only the message changes
  ModelImpl* impl = OpenImpl(m);
  if (impl == nullptr) return Impl(m) ? Impl(m)->Fail(NotOpen()) : ATTNRT_INVALID_ARGUMENT;
  if (arena_bytes == nullptr) {
    return impl->Fail(Status::Error(StatusCode::kInvalidArgument, "arena_bytes is NULL"));
  }
  LmPlan plan;
  const Status s = PlanLm(impl->model, ShapeFor(*impl, max_seq), impl->executor.workers(), &plan);
  if (!s.ok()) return impl->Fail(s);
  *arena_bytes = plan.arena_bytes;
  return ATTNRT_OK;
}

attnrt_status attnrt_lm_start(attnrt_lm* lm, attnrt_model* m, size_t max_seq, void* arena,
                              size_t arena_bytes) {
  if (lm == nullptr) return ATTNRT_INVALID_ARGUMENT;
  ModelImpl* model = OpenImpl(m);
  LmImpl* impl = new (lm->opaque.bytes) LmImpl(model, arena, arena_bytes);
  if (model == nullptr) return impl->Fail(NotOpen());
  const Status arena_ok = CheckArena(arena, arena_bytes);
  if (!arena_ok.ok()) return impl->Fail(arena_ok);
  // Refuse a short arena now rather than at the first feed that outgrows it.
  LmPlan plan;
  const Status planned = PlanLm(model->model, ShapeFor(*model, max_seq), model->executor.workers(), &plan);
  if (!planned.ok()) return impl->Fail(planned);
  if (arena_bytes < plan.arena_bytes) {
    return impl->Fail(Status::Error(StatusCode::kArenaTooSmall,
                                    "arena too small: need %z bytes, have %z", plan.arena_bytes,
                                    arena_bytes));
  }
  const Status s = impl->session.Start(model->model, ShapeFor(*model, max_seq), &impl->arena);
  if (!s.ok()) return impl->Fail(s);
  impl->model_generation = model->generation;
  impl->started = true;
  return ATTNRT_OK;
}

attnrt_status attnrt_lm_feed(attnrt_lm* lm, const int32_t* tokens, size_t n, float* logits) {
  LmImpl* impl = Impl(lm);
  if (impl == nullptr) return ATTNRT_INVALID_ARGUMENT;
  if (!impl->started) {
    return impl->Fail(Status::Error(StatusCode::kInvalidArgument,
                                    "the session is not started (attnrt_lm_start failed)"));
  }
  if (impl->model->magic != kModelMagic || !impl->model->open ||
      impl->model->generation != impl->model_generation) {
    return impl->Fail(Status::Error(StatusCode::kInvalidArgument,
                                    "the model was re-opened (or closed) after this session "
                                    "started: call attnrt_lm_start again"));
  }
  const Status s = impl->session.Feed(tokens, n, logits, &impl->model->executor);
  return s.ok() ? ATTNRT_OK : impl->Fail(s);
}

void attnrt_lm_reset(attnrt_lm* lm) {
  LmImpl* impl = Impl(lm);
  if (impl != nullptr && impl->started) impl->session.Reset();
}

size_t attnrt_lm_position(const attnrt_lm* lm) {
  LmImpl* impl = Impl(const_cast<attnrt_lm*>(lm));
  return impl != nullptr && impl->started ? impl->session.position() : 0;
}

const char* attnrt_lm_message(const attnrt_lm* lm) {
  LmImpl* impl = Impl(const_cast<attnrt_lm*>(lm));
  if (impl == nullptr) return "the session handle was never passed to attnrt_lm_start";
  return impl->message;
}

uint64_t attnrt_sampling_seed(uint64_t seed) { return SamplingSeed(seed); }

attnrt_status attnrt_sample(const float* logits, size_t vocab, const attnrt_sampling* params,
                            uint64_t* state, float* probabilities, uint32_t* order,
                            int32_t* token) {
  if (logits == nullptr || token == nullptr || vocab == 0 || vocab > INT32_MAX) {
    return ATTNRT_INVALID_ARGUMENT;
  }
  SamplingParams p;
  if (params != nullptr) {
    if (!(params->temperature >= 0.0f) || !std::isfinite(params->temperature) ||
        !(params->top_p > 0.0f && params->top_p <= 1.0f)) {
      return ATTNRT_INVALID_ARGUMENT;
    }
    p.temperature = params->temperature;
    p.top_k = params->top_k;
    p.top_p = params->top_p;
  }
  if (p.temperature > 0.0f && (state == nullptr || probabilities == nullptr || order == nullptr)) {
    return ATTNRT_INVALID_ARGUMENT;
  }
  if (!CheckLogits(logits, vocab).ok()) return ATTNRT_INVALID_ARGUMENT;
  uint64_t unused = 0;
  *token = static_cast<int32_t>(
      SampleToken(logits, vocab, p, state != nullptr ? state : &unused, probabilities, order));
  return ATTNRT_OK;
}

attnrt_status attnrt_sdpa_plan(const attnrt_sdpa_params* c, const attnrt_executor* executor,
                               size_t* arena_bytes, attnrt_message* message) {
  SdpaParams p;
  const SdpaKernel* kernel = nullptr;
  Status s = CheckExecutor(executor);
  if (s.ok()) s = BindSdpa(c, &p, &kernel);
  if (s.ok() && arena_bytes == nullptr) {
    s = Status::Error(StatusCode::kInvalidArgument, "arena_bytes is NULL");
  }
  if (s.ok()) {
    CExecutor ex;
    ex.Set(executor);
    s = SdpaScratchBytes(p, *kernel, ex.workers(), arena_bytes);
  }
  return Report(s, message);
}

attnrt_status attnrt_sdpa(const attnrt_sdpa_params* c, const attnrt_executor* executor,
                          void* arena, size_t arena_bytes, attnrt_message* message) {
  SdpaParams p;
  const SdpaKernel* kernel = nullptr;
  Status s = CheckExecutor(executor);
  if (s.ok()) s = BindSdpa(c, &p, &kernel);
  if (s.ok()) s = CheckArena(arena, arena_bytes);
  if (s.ok()) {
    CExecutor ex;
    ex.Set(executor);
    Arena a(arena, arena_bytes);
    s = RunSdpa(p, *kernel, &a, &ex);
  }
  return Report(s, message);
}

}  // extern "C"
