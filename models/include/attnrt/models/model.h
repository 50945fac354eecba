// Model: a loaded architecture (config + pointers into the weight file) and its
// forward pass over a caller-owned arena.
//
// Plan and run share one code path: PlanModel runs the forward pass with a
// measuring arena (attnrt/runtime/arena.h), which makes every allocation a real
// run makes and computes nothing, so "plan == high-water mark" holds by design.
#pragma once

#include <cstddef>

#include "attnrt/kernels/linear.h"
#include "attnrt/kernels/weight_codecs.h"
#include "attnrt/kernels/sdpa_params.h"
#include "attnrt/models/model_config.h"
#include "attnrt/runtime/arena.h"
#include "attnrt/runtime/executor.h"
#include "attnrt/runtime/status.h"
#include "attnrt/runtime/tensor_shape.h"
#include "attnrt/runtime/weight_file.h"

namespace attnrt {

struct SdpaKernel;

// A torch.nn.Linear's parameters: weight (out, in) row-major in its stored type
// (f32, f16, bf16 or q8; the kernel widens in registers), optional f32 bias.
// Token embeddings use it too: (vocab, dim) rows, which a tied output multiplies by.
struct LinearWeights {
  const void* weight = nullptr;
  WeightType type = WeightType::kF32;
  // kF16Plane types (q8): the f16 scale plane (out x WeightBlocksPerRow(in); weight_type.h).
  const void* scale_plane = nullptr;
  const float* bias = nullptr;
  size_t in = 0;
  size_t out = 0;
};

// A matrix's packed copy (PackModelWeights), found by the matrix it copies: a Model keeps them
// in one sorted table rather than a pointer per LinearWeights, so a firmware's Model (which
// has none) stays as small as it was.
struct PackedMatrix {
  const void* weight;  // LinearWeights::weight, in, out of the matrix
  size_t in, out;
  const void* packed;
};

// One attention (+ feed-forward) layer. Architectures without a feed-forward
// block leave ff1/ff2 and the norms null; single-head has no output projection.
struct LayerWeights {
  LinearWeights q, k, v;  // projections to H * qk_dim, H * qk_dim, H * v_dim
  LinearWeights o;        // output projection
  LinearWeights ff1, ff2; // feed-forward
  LinearWeights ff3;      // llama's SwiGLU up projection: ff2(silu(ff1 x) * ff3 x)
  const float* norm1_weight = nullptr;
  const float* norm1_bias = nullptr;
  const float* norm2_weight = nullptr;
  const float* norm2_bias = nullptr;
  const float* q_norm_weight = nullptr;  // (qk_dim): each q / k head's RMSNorm (Qwen3, Gemma 3)
  const float* k_norm_weight = nullptr;
  const float* post_attn_norm_weight = nullptr;  // Gemma 3's sandwich norms
  const float* post_ffn_norm_weight = nullptr;
};

struct Model {
  ModelConfig config;
  LayerWeights layers[kMaxLayers];
  const float* final_norm_weight = nullptr;  // encoder `norm.*`, vit `encoder.ln.*`
  const float* final_norm_bias = nullptr;
  LinearWeights patch;                       // vit conv_proj as a (hidden, C*p*p) matrix
  const float* class_token = nullptr;        // vit (hidden)
  const float* pos_embedding = nullptr;      // vit (tokens, hidden); gpt2 wpe (max_seq_len, dim)
  LinearWeights head;                        // vit heads.head; llama output (or tok_embeddings)
  LinearWeights token_embedding;             // llama tok_embeddings (vocab, dim): in = dim
  // The Linear kernels' packed copies of its matrices (PackModelWeights), sorted by
  // (weight, in, out); none: nullptr, 0.
  const PackedMatrix* packed = nullptr;
  size_t packed_count = 0;
};

// Reads the config from metadata, finds every expected tensor and checks its
// shape; a missing, extra or mis-shaped tensor is an error naming it.
Status LoadModel(const WeightFile& file, Model* model);

// Whether a forward pass multiplies a matrix stored as `type` through Linear: a layer's
// projections, vit's patch, the output or classifier head (token embeddings are gathered, not
// multiplied, unless a tied output reuses them as the head). A file may mix types per tensor
// (convert --dtype q4_K_M, --dtype-for, GGUF files), and each type may run on another Linear
// kernel (linear_kernel.h), so a report of the kernels a run used asks this per type.
bool ModelMultipliesType(const Model& model, WeightType type);

// Packed copies of the weights (LinearParams::w_packed): the layouts the `auto` Linear
// kernels for `activations` read fastest (today the panel copies of q4_0, q8, q4_K and q6_K on AVX2
// and AVX-512 x86, kernels/include/attnrt/kernels/weight_panels.h; nothing elsewhere). They cost
// memory outside the arena (as much again as those matrices take in the file) and a pass
// over them at load; docs/performance.md has what they gain. Bytes of all of them and of
// their table (kPackedAlignment-aligned each); 0 when no matrix has one.
constexpr size_t kPackedAlignment = 64;
Status ModelPackedBytes(const Model& model, LinearActivations activations, size_t* bytes);
// Writes the table and the copies to `buffer` (kPackedAlignment-aligned, at least
// ModelPackedBytes bytes, to outlive the model's use) and sets model->packed.
Status PackModelWeights(Model* model, LinearActivations activations, void* buffer,
                        size_t bytes);
// The packed copy of matrix w of `model`, or nullptr.
const void* FindPackedCopy(const Model& model, const LinearWeights& w);

// Tokens per sequence a vit sees: one class token plus (image_size / patch_size)^2 patches.
size_t VitTokens(const ModelConfig& config);

// The layout of one forward call's input and output:
//   sequence models: (batch, seq, model_dim) -> (batch, seq, out_dim), or
//                    (seq, batch, ...) for both when batch_first is false;
//   vit:             (batch, channels, image_size, image_size) -> (batch, num_classes).
Status ModelInputShape(const ModelConfig& config, size_t batch, size_t seq, TensorShape* shape);
Status ModelOutputShape(const ModelConfig& config, size_t batch, size_t seq, TensorShape* shape);
// Reads batch and seq off an input shape, checking it against the layout above
// (for vit, seq is the token count). The message names the expected layout.
Status ModelBatchAndSeq(const ModelConfig& config, const TensorShape& input, size_t* batch,
                        size_t* seq);

// One forward call: x and y as ModelInputShape / ModelOutputShape describe.
struct ModelInput {
  const float* x = nullptr;
  size_t batch = 0;
  size_t seq = 0;
  // Optional attention mask with SDPA semantics (bool: nonzero = may attend;
  // float: added), broadcastable to (batch, heads, seq, seq); every layer uses it.
  MaskKind mask_kind = MaskKind::kNone;
  const void* mask = nullptr;
  TensorShape mask_shape;
  // Adds a causal rule to a model that does not store one (the config's
  // is_causal); a model's own rule always applies.
  CausalKind causal = CausalKind::kNone;
  // Optional (batch, heads, seq, seq) attention weights of a single-layer model's
  // attention block; asking for them selects the materialized SDPA kernel.
  float* weights = nullptr;
  // The SDPA kernel every attention block runs; null: ChooseSdpaKernel per call.
  // A kernel that cannot serve a call (weights it cannot return, ...) fails it.
  const SdpaKernel* kernel = nullptr;
  // Which activations integer weights (q8, q4_0, q4_K, q6_K) meet in every Linear: kAuto rounds them to
  // 8-bit blocks for the integer kernel, kF32 keeps them f32 (exact in the stored weights,
  // slower; `--activations f32`). Plan with the same value: the kernels' scratch differs.
  LinearActivations linear_activations = LinearActivations::kAuto;
};

struct ModelPlan {
  size_t activation_bytes = 0;  // buffers that live for the whole forward pass
  size_t scratch_bytes = 0;     // the largest per-step need beyond them (layer temporaries, kernel scratch)
  size_t arena_bytes = 0;       // what the arena must hold: activations + scratch
};

// Exact arena bytes for a forward pass at this batch and sequence length with
// `workers` workers (a run at a shorter sequence needs no more); `with_weights`
// plans for a run that also returns attention weights; `kernel` plans for a run
// whose ModelInput::kernel is that kernel (null: chosen per call); `activations` plans for a
// run whose ModelInput::linear_activations is that value. For vit, seq is ignored.
Status PlanModel(const Model& model, size_t batch, size_t seq, size_t workers, ModelPlan* plan,
                 bool with_weights = false, const SdpaKernel* kernel = nullptr,
                 LinearActivations activations = LinearActivations::kAuto);

// Refuses a LinearActivations value outside the enum (a cast from a caller's integer).
Status CheckLinearActivations(LinearActivations activations);

// The shape of the SDPA call each attention block of this model makes for `input`
// (batch, heads, seq, dims, scale, the causal rule that applies); no pointers.
SdpaParams ModelSdpaShape(const ModelConfig& config, const ModelInput& input);

Status RunModel(const Model& model, const ModelInput& input, float* y, Arena* arena,
                Executor* executor);

}  // namespace attnrt
