// The forward pass of every architecture, written once against a small step
// API (Forward) so that the same code plans (measuring arena) and runs.
//
// Data layout: activations are row-major (batch * seq, width). The q/k/v
// projections land side by side in one (rows, 2*H*dk + H*dv) buffer; SDPA reads
// heads in place through strides (no transposes) and writes the concatenated
// head outputs straight into a (rows, H*dv) buffer.
#include "attnrt/kernels/elementwise.h"
#include "attnrt/kernels/layer_norm.h"
#include "attnrt/kernels/linear.h"
#include "attnrt/models/model.h"
#include "attnrt/runtime/checked_math.h"
#include "attnrt/runtime/parallel.h"
#include "attnrt/runtime/sdpa.h"

namespace attnrt {
namespace {

void RunLinearRange(const void* params, size_t begin, size_t end, float* scratch) {
  LinearRun(*static_cast<const LinearParams*>(params), begin, end, scratch);
}

// One forward pass's steps. With a measuring arena every step allocates what it
// would use and returns before touching memory.
class Forward {
 public:
  Forward(Arena* arena, Executor* executor) : arena_(arena), executor_(executor) {}
  bool measuring() const { return arena_->measuring(); }

  Status Alloc(size_t rows, size_t cols, float** out) {
    size_t floats, bytes;
    if (!CheckedMul(rows, cols, &floats) || !CheckedMul(floats, sizeof(float), &bytes)) {
      return Status::Error(StatusCode::kOverflow, "activation of %z x %z floats overflows", rows, cols);
    }
    void* p;
    ATTNRT_RETURN_IF_ERROR(arena_->Allocate(bytes, kArenaAlignment, &p));
    *out = static_cast<float*>(p);
    return Status::Ok();
  }

  // y[:, 0:out] = x W^T + b for `rows` rows.
  Status Linear(const LinearWeights& w, const float* x, size_t x_stride, size_t rows, float* y,
                size_t y_stride) {
    LinearParams p{};
    p.rows = rows;
    p.in = w.in;
    p.out = w.out;
    p.x = x;
    p.x_stride = x_stride;
    p.w = w.weight;
    p.bias = w.bias;
    p.y = y;
    p.y_stride = y_stride;
    WorkItems work;
    work.count = LinearWorkItems(p);
    work.scratch_floats = LinearScratchFloats(p);
    work.run = RunLinearRange;
    work.params = &p;
    return RunWorkItems(work, arena_, executor_);
  }

  Status Sdpa(const SdpaParams& p) { return RunSdpa(p, ChooseSdpaKernel(p), arena_, executor_); }

  void LayerNorm(const float* x, size_t rows, size_t n, const float* gamma, const float* beta,
                 float eps, float* y) {
    if (!measuring()) LayerNormRows(x, n, rows, n, gamma, beta, eps, y, n);
  }
  void Add(float* y, const float* x, size_t n) {
    if (!measuring()) AddInPlace(y, x, n);
  }
  void Activate(Activation act, float* x, size_t n) {
    if (measuring()) return;
    if (act == Activation::kGelu) {
      GeluInPlace(x, n);
    } else {
      ReluInPlace(x, n);
    }
  }

 private:
  Arena* arena_;
  Executor* executor_;
};

// Multi-head attention of x (rows = batch * seq, model_dim) into y (rows, out_dim).
Status Attention(const Model& m, const ModelInput& in, const float* x, float* y, Forward* f) {
  const ModelConfig& c = m.config;
  const size_t rows = in.batch * in.seq;
  const size_t qk = c.heads * c.qk_dim, vw = c.heads * c.v_dim, ld = 2 * qk + vw;
  float* qkv = nullptr;  // set by Alloc; arm-none-eabi-gcc cannot see that (-Wmaybe-uninitialized)
  ATTNRT_RETURN_IF_ERROR(f->Alloc(rows, ld, &qkv));
  // Without an output projection SDPA writes the heads straight into y.
  float* heads = y;
  if (m.o.weight != nullptr) ATTNRT_RETURN_IF_ERROR(f->Alloc(rows, vw, &heads));

  ATTNRT_RETURN_IF_ERROR(f->Linear(m.q, x, c.model_dim, rows, qkv, ld));
  ATTNRT_RETURN_IF_ERROR(f->Linear(m.k, x, c.model_dim, rows, qkv + qk, ld));
  ATTNRT_RETURN_IF_ERROR(f->Linear(m.v, x, c.model_dim, rows, qkv + 2 * qk, ld));

  SdpaParams p;
  p.batch = in.batch;
  p.q_heads = p.kv_heads = c.heads;
  p.q_len = p.kv_len = in.seq;
  p.qk_dim = c.qk_dim;
  p.v_dim = c.v_dim;
  p.q = qkv;
  p.k = qkv + qk;
  p.v = qkv + 2 * qk;
  p.q_strides = p.k_strides = p.v_strides = Strides3{in.seq * ld, c.qk_dim, ld};
  p.v_strides.head = c.v_dim;
  p.out = heads;
  p.out_strides = Strides3{in.seq * vw, c.v_dim, vw};
  p.weights = in.weights;
  p.weights_strides = Strides3{c.heads * in.seq * in.seq, in.seq * in.seq, in.seq};
  p.scale = DefaultSdpaScale(c.qk_dim);
  p.causal = c.always_causal ? CausalKind::kUpperLeft : in.causal;
  ATTNRT_RETURN_IF_ERROR(BindSdpaMask(in.mask_shape, in.mask_kind, 4, &p));
  p.mask = in.mask;
  ATTNRT_RETURN_IF_ERROR(f->Sdpa(p));

  if (m.o.weight != nullptr) {
    ATTNRT_RETURN_IF_ERROR(f->Linear(m.o, heads, vw, rows, y, c.out_dim));
  }
  return Status::Ok();
}

// y = linear2(act(linear1(x))) over rows of model_dim.
Status FeedForward(const Model& m, const float* x, size_t rows, float* hidden, float* y,
                   Forward* f) {
  const ModelConfig& c = m.config;
  ATTNRT_RETURN_IF_ERROR(f->Linear(m.ff1, x, c.model_dim, rows, hidden, c.ff_dim));
  f->Activate(c.activation, hidden, rows * c.ff_dim);
  return f->Linear(m.ff2, hidden, c.ff_dim, rows, y, c.model_dim);
}

// torch.nn.TransformerEncoderLayer in eval mode:
//   post-norm: t = norm1(x + sa(x));  y = norm2(t + ff(t))
//   pre-norm:  t = x + sa(norm1(x));  y = t + ff(norm2(t))
Status EncoderLayer(const Model& m, const ModelInput& in, float* y, Forward* f) {
  const ModelConfig& c = m.config;
  const size_t rows = in.batch * in.seq, n = rows * c.model_dim;
  float *t = nullptr, *u = nullptr, *hidden = nullptr;  // (see qkv above)
  ATTNRT_RETURN_IF_ERROR(f->Alloc(rows, c.model_dim, &t));
  ATTNRT_RETURN_IF_ERROR(f->Alloc(rows, c.model_dim, &u));
  ATTNRT_RETURN_IF_ERROR(f->Alloc(rows, c.ff_dim, &hidden));
  if (!c.norm_first) {
    ATTNRT_RETURN_IF_ERROR(Attention(m, in, in.x, t, f));
    f->Add(t, in.x, n);
    f->LayerNorm(t, rows, c.model_dim, m.norm1_weight, m.norm1_bias, c.layer_norm_eps, t);
    ATTNRT_RETURN_IF_ERROR(FeedForward(m, t, rows, hidden, y, f));
    f->Add(y, t, n);
    f->LayerNorm(y, rows, c.model_dim, m.norm2_weight, m.norm2_bias, c.layer_norm_eps, y);
    return Status::Ok();
  }
  f->LayerNorm(in.x, rows, c.model_dim, m.norm1_weight, m.norm1_bias, c.layer_norm_eps, u);
  ATTNRT_RETURN_IF_ERROR(Attention(m, in, u, t, f));
  f->Add(t, in.x, n);
  f->LayerNorm(t, rows, c.model_dim, m.norm2_weight, m.norm2_bias, c.layer_norm_eps, u);
  ATTNRT_RETURN_IF_ERROR(FeedForward(m, u, rows, hidden, y, f));
  f->Add(y, t, n);
  return Status::Ok();
}

Status ForwardPass(const Model& m, const ModelInput& in, float* y, Forward* f) {
  if (m.config.arch == Architecture::kEncoderLayer) return EncoderLayer(m, in, y, f);
  return Attention(m, in, in.x, y, f);
}

}  // namespace

Status PlanModel(const Model& model, size_t batch, size_t seq, size_t workers, ModelPlan* plan,
                 bool with_weights) {
  // The measuring executor reports the worker count the plan is for.
  struct CountingExecutor final : Executor {
    size_t n;
    explicit CountingExecutor(size_t w) : n(w == 0 ? 1 : w) {}
    size_t workers() const override { return n; }
    void ParallelFor(size_t, WorkFn, void*) override {}
  } executor(workers);
  Arena arena = Arena::Measuring();
  Forward f(&arena, &executor);
  ModelInput in;
  in.batch = batch;
  in.seq = seq;
  // Any non-null addresses: the measuring pass never touches input or output.
  in.x = reinterpret_cast<const float*>(kArenaAlignment);
  float* y = reinterpret_cast<float*>(kArenaAlignment);
  if (with_weights) in.weights = y;
  ATTNRT_RETURN_IF_ERROR(ForwardPass(model, in, y, &f));
  // Activations stay allocated to the end of the pass, so what remains in use
  // is the activation total; the rest of the high-water mark is peak scratch.
  plan->arena_bytes = arena.high_water();
  plan->activation_bytes = arena.used();
  plan->scratch_bytes = plan->arena_bytes - plan->activation_bytes;
  return Status::Ok();
}

Status RunModel(const Model& model, const ModelInput& input, float* y, Arena* arena,
                Executor* executor) {
  if (input.x == nullptr || y == nullptr) {
    return Status::Error(StatusCode::kInvalidArgument, "model input or output pointer is null");
  }
  const size_t mark = arena->Mark();
  Forward f(arena, executor);
  const Status st = ForwardPass(model, input, y, &f);
  arena->Reset(mark);
  return st;
}

}  // namespace attnrt
