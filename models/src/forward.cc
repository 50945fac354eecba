// The forward pass, written once against the step API (Forward) so the same
// code plans (measuring arena) and runs, and the blocks the architecture
// records put in sequence (forward_steps.h).
//
// Data layout: activations are row-major (batch * seq, width). The q/k/v
// projections land side by side in one (rows, 2*H*dk + H*dv) buffer; SDPA reads
// heads in place through strides (no transposes) and writes the concatenated
// head outputs straight into a (rows, H*dv) buffer.
#include <cstring>

#include "architecture_record.h"
#include "attnrt/kernels/elementwise.h"
#include "attnrt/kernels/kv_store.h"
#include "attnrt/kernels/layer_norm.h"
#include "attnrt/kernels/linear.h"
#include "attnrt/kernels/rope.h"
#include "attnrt/kernels/weight_codecs.h"
#include "attnrt/runtime/checked_math.h"
#include "attnrt/runtime/parallel.h"

namespace attnrt {
namespace {

void RunLinearRange(const void* params, size_t begin, size_t end, float* scratch) {
  LinearRun(*static_cast<const LinearParams*>(params), begin, end, scratch);
}

// Bytes a Linear reads and writes, its cost for RunWorkItems besides its flops: the
// weight in its stored type and `rows` rows of x and y.
uint64_t LinearBytes(const LinearWeights& w, size_t rows) {
  uint64_t weight, total;
  if (!MatrixBytes<uint64_t>(w.type, w.out, w.in, &weight) ||
      !CheckedAddU64(weight, PerItem({sizeof(float), rows, uint64_t{w.in} + w.out}, 1), &total)) {
    return UINT64_MAX;
  }
  return total;
}

// y = linear2(act(linear1(x))) over rows of model_dim.
Status FeedForward(const ModelConfig& c, const LayerWeights& w, const float* x, size_t rows,
                   float* hidden, float* y, Forward* f) {
  ATTNRT_RETURN_IF_ERROR(f->Linear(w.ff1, x, c.model_dim, rows, hidden, c.ff_dim));
  f->Activate(c.activation, hidden, rows * c.ff_dim);
  return f->Linear(w.ff2, hidden, c.ff_dim, rows, y, c.model_dim);
}

// The record's forward on batch-first data; a seq-first model's input is
// swapped into a batch-first copy and its output swapped back.
Status ForwardPass(const Model& m, const ModelInput& in, float* y, Forward* f) {
  const ArchitectureRecord& r = RecordFor(m.config.arch);
  if (r.forward == nullptr) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "%s is a language model: it takes token ids and runs with a KV cache "
                         "(language_model.h; attnrt run --tokens, attnrt generate)",
                         ArchitectureName(m.config.arch));
  }
  if (m.config.batch_first || r.image_input) return r.forward(m, in, y, f);
  const size_t rows = in.batch * in.seq;
  float *x_bf = nullptr, *y_bf = nullptr;
  ATTNRT_RETURN_IF_ERROR(f->Alloc(rows, m.config.model_dim, &x_bf));
  ATTNRT_RETURN_IF_ERROR(f->Alloc(rows, m.config.out_dim, &y_bf));
  f->SwapBatchAndSeq(in.x, in.seq, in.batch, m.config.model_dim, x_bf);
  ModelInput batch_first = in;
  batch_first.x = x_bf;
  ATTNRT_RETURN_IF_ERROR(r.forward(m, batch_first, y_bf, f));
  f->SwapBatchAndSeq(y_bf, in.batch, in.seq, m.config.out_dim, y);
  return Status::Ok();
}

// The rows of one call must be countable: batch * seq * widest activation fits size_t.
Status CheckCallSize(const ModelConfig& c, size_t batch, size_t seq) {
  size_t rows, floats;
  const size_t widest = 3 * c.model_dim + c.ff_dim + c.out_dim;
  if (!CheckedMul(batch, seq, &rows) || !CheckedMul(rows, widest, &floats) ||
      !CheckedMul(floats, sizeof(float), &floats)) {
    return Status::Error(StatusCode::kOverflow, "batch %z x seq %z overflows the activation size",
                         batch, seq);
  }
  return Status::Ok();
}

// Rows per sequence: the caller's seq, or the fixed token count of an image model.
size_t ModelTokens(const ModelConfig& c, size_t seq) {
  return RecordFor(c.arch).image_input ? VitTokens(c) : seq;
}

}  // namespace

Status Forward::Alloc(size_t rows, size_t cols, float** out) {
  size_t floats, bytes;
  if (!CheckedMul(rows, cols, &floats) || !CheckedMul(floats, sizeof(float), &bytes)) {
    return Status::Error(StatusCode::kOverflow, "activation of %z x %z floats overflows", rows, cols);
  }
  void* p;
  ATTNRT_RETURN_IF_ERROR(arena_->Allocate(bytes, kArenaAlignment, &p));
  *out = static_cast<float*>(p);
  return Status::Ok();
}

Status Forward::Linear(const LinearWeights& w, const float* x, size_t x_stride, size_t rows,
                       float* y, size_t y_stride) {
  LinearParams p{};
  p.rows = rows;
  p.in = w.in;
  p.out = w.out;
  p.x = x;
  p.x_stride = x_stride;
  p.w = w.weight;
  p.w_type = w.type;
  p.w_scales = w.scale_plane;
  p.w_packed = model_ != nullptr ? FindPackedCopy(*model_, w) : nullptr;
  p.bias = w.bias;
  p.y = y;
  p.y_stride = y_stride;
  p.activations = activations_;
  // x prepared once here (the integer kernel's 8-bit blocks of a decode step's row), not
  // once per work range a worker runs; released with the call.
  const size_t mark = arena_->Mark();
  const size_t prepared = LinearPreparedFloats(p);
  if (prepared != 0) {
    float* buffer;
    ATTNRT_RETURN_IF_ERROR(Alloc(1, prepared, &buffer));
    if (!arena_->measuring()) PrepareLinearActivations(p, buffer);
    p.x_prepared = buffer;
  }
  WorkItems work;
  work.count = LinearWorkItems(p);
  work.scratch_floats = LinearScratchFloats(p);
  work.flops_per_item = PerItem({2, rows, w.in, w.out}, work.count);
  work.bytes_per_item = PerItem({LinearBytes(w, rows)}, work.count);
  work.run = RunLinearRange;
  work.params = &p;
  const Status st = RunWorkItems(work, arena_, executor_);
  arena_->Reset(mark);
  return st;
}

Status Forward::Sdpa(const SdpaParams& p, const SdpaKernel* kernel) {
  return RunSdpa(p, kernel != nullptr ? *kernel : ChooseSdpaKernel(p), arena_, executor_);
}

void Forward::LayerNorm(const float* x, size_t x_stride, size_t rows, size_t n,
                        const float* gamma, const float* beta, float eps, float* y,
                        size_t y_stride) {
  if (!measuring()) LayerNormRows(x, x_stride, rows, n, gamma, beta, eps, y, y_stride);
}

void Forward::RmsNorm(const float* x, size_t x_stride, size_t rows, size_t n,
                      const float* weight, float eps, float* y, size_t y_stride) {
  if (!measuring()) RmsNormRows(x, x_stride, rows, n, weight, eps, y, y_stride);
}

void Forward::Rope(float* x, size_t x_stride, size_t rows, size_t heads, size_t head_dim,
                   size_t first_position, const float* table, RopeStyle style) {
  if (!measuring()) RopeRows(x, x_stride, rows, heads, head_dim, first_position, table, style);
}

namespace {

struct GatedMulParams {
  void (*op)(float*, const float*, size_t);
  float* gate;
  const float* up;
  size_t n;
};
constexpr size_t kElementwiseBlock = 4096;  // floats per work item
// Vector operations per float of SiluMulInPlace (kernels/hwy/elementwise.cc), its
// cost for RunWorkItems in the unit a Linear's flops count: 16 for the exponential
// (kernels/hwy/exp-inl.h: clamp, range reduction, degree-5 polynomial, scale), then
// abs, negate, add, divide, compare, select and three multiplies.
constexpr uint64_t kSiluMulFlopsPerFloat = 25;

void RunGatedMulRange(const void* params, size_t begin, size_t end, float*) {
  const auto& p = *static_cast<const GatedMulParams*>(params);
  const size_t from = begin * kElementwiseBlock;
  const size_t to = end * kElementwiseBlock < p.n ? end * kElementwiseBlock : p.n;
  p.op(p.gate + from, p.up + from, to - from);
}

}  // namespace

Status Forward::GatedMul(void (*op)(float*, const float*, size_t), float* gate, const float* up,
                         size_t n) {
  const GatedMulParams p{op, gate, up, n};
  WorkItems work;
  work.count = (n + kElementwiseBlock - 1) / kElementwiseBlock;
  // The cost of an exp-based gate per float (SiLU's and tanh-GELU's are alike).
  work.flops_per_item = PerItem({n, kSiluMulFlopsPerFloat}, work.count);
  work.bytes_per_item = PerItem({n, 3 * sizeof(float)}, work.count);  // gate, up in; gate out
  work.run = RunGatedMulRange;
  work.params = &p;
  return RunWorkItems(work, arena_, executor_);
}

Status Forward::SiluMul(float* gate, const float* up, size_t n) {
  return GatedMul(SiluMulInPlace, gate, up, n);
}

Status Forward::GeluTanhMul(float* gate, const float* up, size_t n) {
  return GatedMul(GeluTanhMulInPlace, gate, up, n);
}

void Forward::Scale(float* x, size_t n, float s) {
  if (!measuring()) ScaleInPlace(x, n, s);
}

void Forward::Gather(const LinearWeights& table, const int32_t* ids, size_t rows, size_t width,
                     float* y, size_t y_stride) {
  if (measuring()) return;  // a planning pass has no ids to read
  for (size_t r = 0; r < rows; ++r) {
    WidenMatrixRow(table.type, table.weight, table.scale_plane, width, static_cast<size_t>(ids[r]),
                   y + r * y_stride);
  }
}

void Forward::StoreKv(KvType type, const float* src, size_t src_stride, size_t rows,
                      size_t width, void* dst, float* scales) {
  if (!measuring()) StoreKvRows(type, src, src_stride, rows, width, dst, width, scales, 1);
}

void Forward::MoveBytes(void* dst, const void* src, size_t n) {
  if (!measuring()) std::memmove(dst, src, n);
}

void Forward::Add(float* y, const float* x, size_t n) {
  if (!measuring()) AddInPlace(y, x, n);
}

void Forward::Activate(Activation act, float* x, size_t n) {
  if (measuring()) return;
  if (act == Activation::kGelu) {
    GeluInPlace(x, n);
  } else if (act == Activation::kGeluTanh) {
    GeluTanhInPlace(x, n);
  } else {
    ReluInPlace(x, n);
  }
}

void Forward::SwapBatchAndSeq(const float* src, size_t seq, size_t batch, size_t width,
                              float* dst) {
  if (measuring()) return;
  for (size_t s = 0; s < seq; ++s) {
    for (size_t b = 0; b < batch; ++b) {
      std::memcpy(dst + (b * seq + s) * width, src + (s * batch + b) * width,
                  width * sizeof(float));
    }
  }
}

SdpaParams ModelSdpaShape(const ModelConfig& c, const ModelInput& in) {
  SdpaParams p;
  p.batch = in.batch;
  p.q_heads = c.heads;
  p.kv_heads = c.kv_heads;
  p.q_len = p.kv_len = in.seq;
  p.qk_dim = c.qk_dim;
  p.v_dim = c.v_dim;
  p.scale = DefaultSdpaScale(c.qk_dim);
  // The model's own causal rule wins; the caller's may only add one (checked in RunModel).
  p.causal = c.causal != CausalKind::kNone ? c.causal : in.causal;
  return p;
}

Status AttentionBlock(const ModelConfig& c, const LayerWeights& w, const ModelInput& in,
                      const float* x, float* y, Forward* f) {
  const size_t rows = in.batch * in.seq;
  const size_t qk = c.heads * c.qk_dim, vw = c.heads * c.v_dim, ld = 2 * qk + vw;
  float* qkv = nullptr;  // set by Alloc; arm-none-eabi-gcc cannot see that (-Wmaybe-uninitialized)
  ATTNRT_RETURN_IF_ERROR(f->Alloc(rows, ld, &qkv));
  // Without an output projection SDPA writes the heads straight into y.
  float* heads = y;
  if (w.o.weight != nullptr) ATTNRT_RETURN_IF_ERROR(f->Alloc(rows, vw, &heads));

  ATTNRT_RETURN_IF_ERROR(f->Linear(w.q, x, c.model_dim, rows, qkv, ld));
  ATTNRT_RETURN_IF_ERROR(f->Linear(w.k, x, c.model_dim, rows, qkv + qk, ld));
  ATTNRT_RETURN_IF_ERROR(f->Linear(w.v, x, c.model_dim, rows, qkv + 2 * qk, ld));

  SdpaParams p = ModelSdpaShape(c, in);
  p.q = qkv;
  p.k = qkv + qk;
  p.v = qkv + 2 * qk;
  p.q_strides = p.k_strides = p.v_strides = Strides3{in.seq * ld, c.qk_dim, ld};
  p.v_strides.head = c.v_dim;
  p.out = heads;
  p.out_strides = Strides3{in.seq * vw, c.v_dim, vw};
  p.weights = in.weights;
  p.weights_strides = Strides3{c.heads * in.seq * in.seq, in.seq * in.seq, in.seq};
  ATTNRT_RETURN_IF_ERROR(BindSdpaMask(in.mask_shape, in.mask_kind, 4, &p));
  p.mask = in.mask;
  ATTNRT_RETURN_IF_ERROR(f->Sdpa(p, in.kernel));

  if (w.o.weight != nullptr) {
    ATTNRT_RETURN_IF_ERROR(f->Linear(w.o, heads, vw, rows, y, c.model_dim));
  }
  return Status::Ok();
}

// torch.nn.TransformerEncoderLayer in eval mode:
//   post-norm: t = norm1(x + sa(x));  y = norm2(t + ff(t))
//   pre-norm:  t = x + sa(norm1(x));  y = t + ff(norm2(t))
Status EncoderLayerBlock(const ModelConfig& c, const LayerWeights& w, const ModelInput& in,
                         const float* x, float* y, Forward* f) {
  const size_t rows = in.batch * in.seq, n = rows * c.model_dim, d = c.model_dim;
  float *t = nullptr, *u = nullptr, *hidden = nullptr;  // (see qkv above)
  ATTNRT_RETURN_IF_ERROR(f->Alloc(rows, d, &t));
  ATTNRT_RETURN_IF_ERROR(f->Alloc(rows, d, &u));
  ATTNRT_RETURN_IF_ERROR(f->Alloc(rows, c.ff_dim, &hidden));
  const float eps = c.layer_norm_eps;
  if (!c.norm_first) {
    ATTNRT_RETURN_IF_ERROR(AttentionBlock(c, w, in, x, t, f));
    f->Add(t, x, n);
    f->LayerNorm(t, d, rows, d, w.norm1_weight, w.norm1_bias, eps, t, d);
    ATTNRT_RETURN_IF_ERROR(FeedForward(c, w, t, rows, hidden, y, f));
    f->Add(y, t, n);
    f->LayerNorm(y, d, rows, d, w.norm2_weight, w.norm2_bias, eps, y, d);
    return Status::Ok();
  }
  f->LayerNorm(x, d, rows, d, w.norm1_weight, w.norm1_bias, eps, u, d);
  ATTNRT_RETURN_IF_ERROR(AttentionBlock(c, w, in, u, t, f));
  f->Add(t, x, n);
  f->LayerNorm(t, d, rows, d, w.norm2_weight, w.norm2_bias, eps, u, d);
  ATTNRT_RETURN_IF_ERROR(FeedForward(c, w, u, rows, hidden, y, f));
  f->Add(y, t, n);
  return Status::Ok();
}

Status EncoderStack(const Model& m, const ModelInput& in, const float* x, float* y, Forward* f) {
  const ModelConfig& c = m.config;
  // Layer i reads `from` and writes `to`; the last writes y. With more than one
  // layer, one ping-pong buffer lives for the whole stack.
  float* between = nullptr;
  if (c.num_layers > 1) ATTNRT_RETURN_IF_ERROR(f->Alloc(in.batch * in.seq, c.model_dim, &between));
  const float* from = x;
  for (size_t i = 0; i < c.num_layers; ++i) {
    // Layers alternate between y and `between`, arranged so the last one writes y.
    float* to = (c.num_layers - 1 - i) % 2 == 0 ? y : between;
    const size_t mark = f->arena()->Mark();
    ATTNRT_RETURN_IF_ERROR(EncoderLayerBlock(c, m.layers[i], in, from, to, f));
    f->arena()->Reset(mark);
    from = to;
  }
  return Status::Ok();
}

Status ModelInputShape(const ModelConfig& c, size_t batch, size_t seq, TensorShape* s) {
  if (RecordFor(c.arch).image_input) {
    *s = TensorShape{4, {batch, c.channels, c.image_size, c.image_size}};
  } else if (c.batch_first) {
    *s = TensorShape{3, {batch, seq, c.model_dim, 0}};
  } else {
    *s = TensorShape{3, {seq, batch, c.model_dim, 0}};
  }
  return CheckCallSize(c, batch, ModelTokens(c, seq));
}

Status ModelOutputShape(const ModelConfig& c, size_t batch, size_t seq, TensorShape* s) {
  if (RecordFor(c.arch).image_input) {
    *s = TensorShape{2, {batch, c.out_dim, 0, 0}};
  } else if (c.batch_first) {
    *s = TensorShape{3, {batch, seq, c.out_dim, 0}};
  } else {
    *s = TensorShape{3, {seq, batch, c.out_dim, 0}};
  }
  return CheckCallSize(c, batch, ModelTokens(c, seq));
}

Status ModelBatchAndSeq(const ModelConfig& c, const TensorShape& x, size_t* batch, size_t* seq) {
  const char* arch = ArchitectureName(c.arch);
  if (RecordFor(c.arch).image_input) {
    if (x.rank != 4 || x.dims[1] != c.channels || x.dims[2] != c.image_size ||
        x.dims[3] != c.image_size) {
      return Status::Error(StatusCode::kShapeMismatch, "%s input must be images (batch, %z, %z, %z)",
                           arch, c.channels, c.image_size, c.image_size);
    }
    *batch = x.dims[0];
    *seq = VitTokens(c);
  } else {
    if (x.rank != 3 || x.dims[2] != c.model_dim) {
      return Status::Error(StatusCode::kShapeMismatch, "input must be %s with model_dim %z",
                           c.batch_first ? "(batch, seq, model_dim) (batch_first true)"
                                         : "(seq, batch, model_dim) (batch_first false)",
                           c.model_dim);
    }
    *batch = c.batch_first ? x.dims[0] : x.dims[1];
    *seq = c.batch_first ? x.dims[1] : x.dims[0];
  }
  if (*batch == 0 || *seq == 0) {
    return Status::Error(StatusCode::kShapeMismatch, "%s input has no rows (batch %z, seq %z)",
                         arch, *batch, *seq);
  }
  return CheckCallSize(c, *batch, *seq);
}

Status CheckLinearActivations(LinearActivations activations) {
  if (activations == LinearActivations::kAuto || activations == LinearActivations::kF32) {
    return Status::Ok();
  }
  return Status::Error(StatusCode::kInvalidArgument,
                       "linear activations code %z is neither auto (0) nor f32 (1)",
                       static_cast<size_t>(activations));
}

Status PlanModel(const Model& model, size_t batch, size_t seq, size_t workers, ModelPlan* plan,
                 bool with_weights, const SdpaKernel* kernel, LinearActivations activations) {
  ATTNRT_RETURN_IF_ERROR(CheckLinearActivations(activations));
  PlanningExecutor executor(workers);
  ModelInput in;
  in.batch = batch;
  in.seq = ModelTokens(model.config, seq);
  in.kernel = kernel;
  if (batch == 0 || in.seq == 0) {
    return Status::Error(StatusCode::kInvalidArgument, "plan needs batch and seq >= 1 (got %z, %z)",
                         batch, in.seq);
  }
  ATTNRT_RETURN_IF_ERROR(CheckCallSize(model.config, batch, in.seq));
  if (with_weights && model.config.num_layers != 1) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "attention weights are returned for single-layer models only");
  }
  Arena arena = Arena::Measuring();
  Forward f(&arena, &executor, activations, &model);
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
  const ModelConfig& c = model.config;
  if (input.batch == 0 || input.seq == 0) {
    return Status::Error(StatusCode::kInvalidArgument, "model input has no rows (batch %z, seq %z)",
                         input.batch, input.seq);
  }
  if (input.x == nullptr || y == nullptr) {
    return Status::Error(StatusCode::kInvalidArgument, "model input or output pointer is null");
  }
  ATTNRT_RETURN_IF_ERROR(CheckCallSize(c, input.batch, input.seq));
  ATTNRT_RETURN_IF_ERROR(CheckLinearActivations(input.linear_activations));
  if (RecordFor(c.arch).image_input) {
    if (input.mask != nullptr || input.causal != CausalKind::kNone) {
      return Status::Error(StatusCode::kInvalidArgument,
                           "%s attends over every patch: masks and causal rules are not accepted",
                           ArchitectureName(c.arch));
    }
    if (input.seq != VitTokens(c)) {
      return Status::Error(StatusCode::kInvalidArgument, "%s runs %z tokens per image, not %z",
                           ArchitectureName(c.arch), VitTokens(c), input.seq);
    }
  }
  if (c.causal != CausalKind::kNone && input.causal != CausalKind::kNone &&
      input.causal != c.causal) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "the model is causal (upper-left) and the call asks for lower-right");
  }
  if (input.weights != nullptr && c.num_layers != 1) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "attention weights are returned for single-layer models only (this one has %z layers)",
                         c.num_layers);
  }
  const size_t mark = arena->Mark();
  Forward f(arena, executor, input.linear_activations, &model);
  const Status st = ForwardPass(model, input, y, &f);
  arena->Reset(mark);
  return st;
}

}  // namespace attnrt
