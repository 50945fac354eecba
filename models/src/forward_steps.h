// The steps and blocks every forward pass is written with (internal to models/).
//
// Forward wraps the arena and executor: with a measuring arena every step
// allocates what it would use and returns before touching memory, so the one
// forward pass both plans and runs. The blocks (attention, encoder layer, layer
// stack) are what the architecture records in arch_*.cc put in sequence.
#pragma once

#include <cstddef>
#include <cstdint>

#include "attnrt/kernels/linear.h"
#include "attnrt/kernels/rope.h"
#include "attnrt/models/model.h"
#include "attnrt/runtime/sdpa.h"

namespace attnrt {

class Forward {
 public:
  // `activations` goes into every Linear call: it picks the kernel (linear_kernel.h), so
  // the planning pass must get the same value as the run it plans for.
  // `model`: whose packed weight copies (model.h) the Linear calls read, if any.
  Forward(Arena* arena, Executor* executor,
          LinearActivations activations = LinearActivations::kAuto, const Model* model = nullptr)
      : arena_(arena), executor_(executor), activations_(activations), model_(model) {}
  bool measuring() const { return arena_->measuring(); }
  Arena* arena() { return arena_; }

  // A (rows, cols) float activation in the arena.
  Status Alloc(size_t rows, size_t cols, float** out);
  // y[:, 0:out] = x W^T + b for `rows` rows.
  Status Linear(const LinearWeights& w, const float* x, size_t x_stride, size_t rows, float* y,
                size_t y_stride);
  // SDPA with `kernel`, or the kernel ChooseSdpaKernel picks when it is null.
  Status Sdpa(const SdpaParams& p, const SdpaKernel* kernel);
  // LayerNorm over `rows` rows of n floats, rows x_stride / y_stride apart.
  void LayerNorm(const float* x, size_t x_stride, size_t rows, size_t n, const float* gamma,
                 const float* beta, float eps, float* y, size_t y_stride);
  // RMSNorm (llama) over `rows` rows of n floats.
  void RmsNorm(const float* x, size_t x_stride, size_t rows, size_t n, const float* weight,
               float eps, float* y, size_t y_stride);
  // RoPE of `heads` heads per row, row r at position first_position + r (rope.h).
  void Rope(float* x, size_t x_stride, size_t rows, size_t heads, size_t head_dim,
            size_t first_position, const float* table, RopeStyle style);
  // gate = silu(gate) * up (SwiGLU), spread over the workers (a prefill chunk's
  // gate is rows x hidden floats, each an exp: serial, it would cap the speed-up).
  Status SiluMul(float* gate, const float* up, size_t n);
  // gate = gelu_tanh(gate) * up (Gemma's GeGLU), spread the same way.
  Status GeluTanhMul(float* gate, const float* up, size_t n);
  // x *= s (Gemma's embedding scale).
  void Scale(float* x, size_t n, float s);
  // Row ids[r] of a (vocab, width) table, widened to f32, into y row r, for r <
  // rows (ids checked against the table by the caller).
  void Gather(const LinearWeights& table, const int32_t* ids, size_t rows, size_t width,
              float* y, size_t y_stride);
  // `rows` rows of `width` floats, `src_stride` apart, into a KV cache block of type
  // `type` (rows `width` elements apart) and its per-row scales (q8 only).
  void StoreKv(KvType type, const float* src, size_t src_stride, size_t rows, size_t width,
               void* dst, float* scales);
  // n bytes from src to dst, which may overlap (a sliding-window cache moving its
  // newest rows to the front).
  void MoveBytes(void* dst, const void* src, size_t n);
  void Add(float* y, const float* x, size_t n);
  void Activate(Activation act, float* x, size_t n);
  // dst[b][s] = src[s][b] for rows of `width` floats: (seq, batch) <-> (batch, seq).
  void SwapBatchAndSeq(const float* src, size_t seq, size_t batch, size_t width, float* dst);

 private:
  Status GatedMul(void (*op)(float*, const float*, size_t), float* gate, const float* up,
                  size_t n);

  Arena* arena_;
  Executor* executor_;
  LinearActivations activations_;
  const Model* model_;
};

// The executor a planning pass runs with: it reports the worker count the plan is
// for and runs nothing (a measuring arena makes every step return before work).
class PlanningExecutor final : public Executor {
 public:
  explicit PlanningExecutor(size_t workers) : workers_(workers == 0 ? 1 : workers) {}
  size_t workers() const override { return workers_; }
  void ParallelFor(size_t, WorkFn, void*) override {}

 private:
  size_t workers_;
};

// Multi-head attention of x (batch * seq rows of model_dim, batch-first) into y
// (rows of out_dim), with the layer's q/k/v/o projections.
Status AttentionBlock(const ModelConfig& c, const LayerWeights& w, const ModelInput& in,
                      const float* x, float* y, Forward* f);

// torch.nn.TransformerEncoderLayer (eval) of x into y (x != y), post- or pre-norm.
Status EncoderLayerBlock(const ModelConfig& c, const LayerWeights& w, const ModelInput& in,
                         const float* x, float* y, Forward* f);

// config.num_layers encoder layers from x into y; each layer's temporaries are
// released before the next, so the arena holds two activations plus one layer.
Status EncoderStack(const Model& m, const ModelInput& in, const float* x, float* y, Forward* f);

}  // namespace attnrt
