// torchvision.models.VisionTransformer in eval mode: patch embedding (the
// stride-patch_size convolution run as a matmul over patches), class token and
// position embedding, pre-norm encoder layers (GELU, LayerNorm eps 1e-6), final
// LayerNorm of the class token, and the classification head.
#include <cstring>

#include "architecture_record.h"
#include "attnrt/runtime/checked_math.h"
#include "config_reader.h"

namespace attnrt {
namespace {

constexpr size_t kImageChannels = 3;  // torchvision's conv_proj takes RGB
constexpr float kVitNormEps = 1e-6f;  // torchvision's default norm_layer

constexpr ConfigKey kVitKeys[] = {
    {"image_size", ConfigType::kInt, true, 0, nullptr},
    {"patch_size", ConfigType::kInt, true, 0, nullptr},
    {"num_layers", ConfigType::kInt, true, 0, nullptr},
    {"num_heads", ConfigType::kInt, true, 0, nullptr},
    {"hidden_dim", ConfigType::kInt, true, 0, nullptr},
    {"mlp_dim", ConfigType::kInt, true, 0, nullptr},
    {"dropout", ConfigType::kFloat, false, 0, nullptr},
    {"attention_dropout", ConfigType::kFloat, false, 0, nullptr},
    {"num_classes", ConfigType::kInt, false, 1000, nullptr},
    // A pre-logits layer (Linear + Tanh) is not implemented: only null is accepted.
    {"representation_size", ConfigType::kInt, false, 0, "null", true},
};

constexpr TensorRecord kVitLayerTensors[] = {
    {"ln_1.weight", 1, {Dim::kModel}, When::kAlways, Slot::kNorm1Weight},
    {"ln_1.bias", 1, {Dim::kModel}, When::kAlways, Slot::kNorm1Bias},
    ATTNRT_MHA_TENSORS("self_attention."),
    {"ln_2.weight", 1, {Dim::kModel}, When::kAlways, Slot::kNorm2Weight},
    {"ln_2.bias", 1, {Dim::kModel}, When::kAlways, Slot::kNorm2Bias},
    {"mlp.0.weight", 2, {Dim::kFf, Dim::kModel}, When::kAlways, Slot::kFf1Weight},
    {"mlp.0.bias", 1, {Dim::kFf}, When::kAlways, Slot::kFf1Bias},
    {"mlp.3.weight", 2, {Dim::kModel, Dim::kFf}, When::kAlways, Slot::kFf2Weight},
    {"mlp.3.bias", 1, {Dim::kModel}, When::kAlways, Slot::kFf2Bias},
};

constexpr TensorRecord kVitTensors[] = {
    {"class_token", 3, {Dim::kOne, Dim::kOne, Dim::kModel}, When::kAlways, Slot::kClassToken},
    {"conv_proj.weight", 4, {Dim::kModel, Dim::kChannels, Dim::kPatch, Dim::kPatch}, When::kAlways,
     Slot::kPatchWeight},
    {"conv_proj.bias", 1, {Dim::kModel}, When::kAlways, Slot::kPatchBias},
    {"encoder.pos_embedding", 3, {Dim::kOne, Dim::kTokens, Dim::kModel}, When::kAlways,
     Slot::kPosEmbedding},
    {"encoder.ln.weight", 1, {Dim::kModel}, When::kAlways, Slot::kFinalNormWeight},
    {"encoder.ln.bias", 1, {Dim::kModel}, When::kAlways, Slot::kFinalNormBias},
    {"heads.head.weight", 2, {Dim::kOut, Dim::kModel}, When::kAlways, Slot::kHeadWeight},
    {"heads.head.bias", 1, {Dim::kOut}, When::kAlways, Slot::kHeadBias},
};

Status ReadVitConfig(const WeightFile& file, ModelConfig* c) {
  size_t hidden, heads;
  ATTNRT_RETURN_IF_ERROR(ReadDim(file, "image_size", &c->image_size));
  ATTNRT_RETURN_IF_ERROR(ReadDim(file, "patch_size", &c->patch_size));
  if (c->image_size % c->patch_size != 0) {
    return Status::Error(StatusCode::kBadFile,
                         "config image_size (%z) must be divisible by patch_size (%z)",
                         c->image_size, c->patch_size);
  }
  ATTNRT_RETURN_IF_ERROR(ReadDim(file, "num_layers", &c->num_layers));
  if (c->num_layers > kMaxLayers) {
    return Status::Error(StatusCode::kBadFile, "config num_layers %z is more than attnrt's %z",
                         c->num_layers, kMaxLayers);
  }
  ATTNRT_RETURN_IF_ERROR(ReadDim(file, "num_heads", &heads));
  ATTNRT_RETURN_IF_ERROR(ReadDim(file, "hidden_dim", &hidden));
  ATTNRT_RETURN_IF_ERROR(SplitHeads("hidden_dim", hidden, heads, c));
  ATTNRT_RETURN_IF_ERROR(ReadDim(file, "mlp_dim", &c->ff_dim));
  ATTNRT_RETURN_IF_ERROR(ReadDim(file, "num_classes", &c->out_dim));
  ATTNRT_RETURN_IF_ERROR(ReadProbability(file, "dropout"));
  ATTNRT_RETURN_IF_ERROR(ReadProbability(file, "attention_dropout"));
  // A grid of 2^24 / patch per side keeps tokens * hidden far from overflow.
  const size_t grid = c->image_size / c->patch_size;
  if (grid > 4096) {
    return Status::Error(StatusCode::kBadFile, "config image_size / patch_size (%z) exceeds 4096",
                         grid);
  }
  c->channels = kImageChannels;
  c->bias = true;
  c->norm_first = true;
  c->activation = Activation::kGelu;
  c->layer_norm_eps = kVitNormEps;
  c->final_norm = true;
  c->final_norm_eps = kVitNormEps;
  return Status::Ok();
}

// patches[b * n + (r * grid + col)][(ch * p + i) * p + j] = x[b][ch][r * p + i][col * p + j]:
// the order of conv_proj's weight (hidden, C, p, p), so the convolution is one matmul.
void GatherPatches(const ModelConfig& c, const float* x, size_t batch, float* patches) {
  const size_t p = c.patch_size, grid = c.image_size / p, side = c.image_size;
  for (size_t b = 0; b < batch; ++b) {
    for (size_t r = 0; r < grid; ++r) {
      for (size_t col = 0; col < grid; ++col) {
        for (size_t ch = 0; ch < c.channels; ++ch) {
          const float* plane = x + (b * c.channels + ch) * side * side;
          for (size_t i = 0; i < p; ++i) {
            std::memcpy(patches, plane + (r * p + i) * side + col * p, p * sizeof(float));
            patches += p;
          }
        }
      }
    }
  }
}

Status VitForward(const Model& m, const ModelInput& in, float* y, Forward* f) {
  const ModelConfig& c = m.config;
  const size_t batch = in.batch, tokens = VitTokens(c), patches = tokens - 1, d = c.model_dim;
  const size_t patch_in = c.channels * c.patch_size * c.patch_size;
  size_t patch_rows, token_rows;
  if (!CheckedMul(batch, patches, &patch_rows) || !CheckedMul(batch, tokens, &token_rows)) {
    return Status::Error(StatusCode::kOverflow, "vit batch %z x %z tokens overflows", batch, tokens);
  }
  float *patch_x = nullptr, *x0 = nullptr, *encoded = nullptr, *cls = nullptr;
  ATTNRT_RETURN_IF_ERROR(f->Alloc(patch_rows, patch_in, &patch_x));
  ATTNRT_RETURN_IF_ERROR(f->Alloc(token_rows, d, &x0));
  ATTNRT_RETURN_IF_ERROR(f->Alloc(token_rows, d, &encoded));
  ATTNRT_RETURN_IF_ERROR(f->Alloc(batch, d, &cls));

  if (!f->measuring()) GatherPatches(c, in.x, batch, patch_x);
  for (size_t b = 0; b < batch; ++b) {
    // Token 0 of each image is the class token; patch embeddings follow it.
    ATTNRT_RETURN_IF_ERROR(f->Linear(m.patch, patch_x + b * patches * patch_in, patch_in, patches,
                                     x0 + (b * tokens + 1) * d, d));
    if (!f->measuring()) std::memcpy(x0 + b * tokens * d, m.class_token, d * sizeof(float));
    f->Add(x0 + b * tokens * d, m.pos_embedding, tokens * d);
  }
  ModelInput seq = in;
  seq.x = x0;
  seq.seq = tokens;
  ATTNRT_RETURN_IF_ERROR(EncoderStack(m, seq, x0, encoded, f));
  // Only the class token reaches the head, so only its row is normalized.
  f->LayerNorm(encoded, tokens * d, batch, d, m.final_norm_weight, m.final_norm_bias,
               c.final_norm_eps, cls, d);
  return f->Linear(m.head, cls, d, batch, y, c.out_dim);
}

}  // namespace

size_t VitTokens(const ModelConfig& c) {
  if (c.patch_size == 0) return 0;
  const size_t grid = c.image_size / c.patch_size;
  return grid * grid + 1;
}

const ArchitectureRecord kVitRecord = {
    "torchvision.models.VisionTransformer", kVitKeys,
    CountOf(kVitKeys), ReadVitConfig, "encoder.layers.encoder_layer_{i}.", kVitLayerTensors,
    CountOf(kVitLayerTensors), kVitTensors, CountOf(kVitTensors), VitForward, true};

}  // namespace attnrt
