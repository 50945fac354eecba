// Model: a loaded architecture (config + pointers into the weight file) and its
// forward pass over a caller-owned arena.
//
// Plan and run share one code path: PlanModel runs the forward pass with a
// measuring arena (attnrt/runtime/arena.h), which makes every allocation a real
// run makes and computes nothing, so "plan == high-water mark" holds by design.
#pragma once

#include <cstddef>

#include "attnrt/kernels/sdpa_params.h"
#include "attnrt/models/model_config.h"
#include "attnrt/runtime/arena.h"
#include "attnrt/runtime/executor.h"
#include "attnrt/runtime/status.h"
#include "attnrt/runtime/tensor_shape.h"
#include "attnrt/runtime/weight_file.h"

namespace attnrt {

// A torch.nn.Linear's parameters: weight (out, in) row-major, optional bias.
struct LinearWeights {
  const float* weight = nullptr;
  const float* bias = nullptr;
  size_t in = 0;
  size_t out = 0;
};

struct Model {
  ModelConfig config;
  LinearWeights q, k, v;  // projections to H * qk_dim, H * qk_dim, H * v_dim
  LinearWeights o;        // output projection; absent (weight null) for single-head
  LinearWeights ff1, ff2; // encoder-layer feed-forward
  const float* norm1_weight = nullptr;
  const float* norm1_bias = nullptr;
  const float* norm2_weight = nullptr;
  const float* norm2_bias = nullptr;
};

// Reads the config from metadata, finds every expected tensor and checks its
// shape; a missing, extra or mis-shaped tensor is an error naming it.
Status LoadModel(const WeightFile& file, Model* model);

// One forward call: x is (batch, seq, model_dim) float32, y (batch, seq, out_dim).
struct ModelInput {
  const float* x = nullptr;
  size_t batch = 0;
  size_t seq = 0;
  // Optional attention mask with SDPA semantics (bool: nonzero = may attend;
  // float: added), broadcastable to (batch, heads, seq, seq).
  MaskKind mask_kind = MaskKind::kNone;
  const void* mask = nullptr;
  TensorShape mask_shape;
  CausalKind causal = CausalKind::kNone;  // single-head is always upper-left causal
  // Optional (batch, heads, seq, seq) attention weights of the model's attention
  // block; asking for them selects the materialized SDPA kernel.
  float* weights = nullptr;
};

struct ModelPlan {
  size_t activation_bytes = 0;  // buffers that live for the whole forward pass
  size_t scratch_bytes = 0;     // the largest per-step kernel scratch (all workers)
  size_t arena_bytes = 0;       // what the arena must hold: activations + scratch
};

// Exact arena bytes for a forward pass at this batch and sequence length with
// `workers` workers (a run at a shorter sequence needs no more); `with_weights`
// plans for a run that also returns attention weights.
Status PlanModel(const Model& model, size_t batch, size_t seq, size_t workers, ModelPlan* plan,
                 bool with_weights = false);

Status RunModel(const Model& model, const ModelInput& input, float* y, Arena* arena,
                Executor* executor);

}  // namespace attnrt
