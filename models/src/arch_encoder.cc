// Encoder architectures: torch.nn.TransformerEncoderLayer (one layer, as PyTorch
// names its tensors) and torch.nn.TransformerEncoder (num_layers such layers under
// "layers.{i}." and an optional final LayerNorm "norm.*"), both in eval mode.
#include "architecture_record.h"
#include "config_reader.h"

namespace attnrt {
namespace {

// nn.TransformerEncoderLayer's constructor arguments (dropout is accepted and
// ignored in eval mode; batch_first defaults to False as in PyTorch).
#define ATTNRT_ENCODER_LAYER_KEYS                                        \
  {"d_model", ConfigType::kInt, true, 0, nullptr},                      \
  {"nhead", ConfigType::kInt, true, 0, nullptr},                        \
  {"dim_feedforward", ConfigType::kInt, false, 2048, nullptr},          \
  {"activation", ConfigType::kString, false, 0, "relu"},                \
  {"layer_norm_eps", ConfigType::kFloat, false, 1e-5, nullptr},         \
  {"norm_first", ConfigType::kBool, false, 0, nullptr},                 \
  {"bias", ConfigType::kBool, false, 1, nullptr},                       \
  {"dropout", ConfigType::kFloat, false, 0.1, nullptr},                 \
  {"batch_first", ConfigType::kBool, false, 0, nullptr},                \
  {"is_causal", ConfigType::kBool, false, 0, nullptr}

constexpr ConfigKey kEncoderLayerKeys[] = {ATTNRT_ENCODER_LAYER_KEYS};

constexpr ConfigKey kEncoderKeys[] = {
    ATTNRT_ENCODER_LAYER_KEYS,
    {"num_layers", ConfigType::kInt, true, 0, nullptr},
    {"final_norm", ConfigType::kBool, false, 0, nullptr},
    {"final_norm_eps", ConfigType::kFloat, false, 1e-5, nullptr},
    // Only changes what padded positions hold (zeros with nested tensors); accepted.
    {"enable_nested_tensor", ConfigType::kBool, false, 1, nullptr},
};

constexpr TensorRecord kEncoderLayerTensors[] = {
    ATTNRT_MHA_TENSORS("self_attn."),
    {"linear1.weight", 2, {Dim::kFf, Dim::kModel}, When::kAlways, Slot::kFf1Weight},
    {"linear1.bias", 1, {Dim::kFf}, When::kBias, Slot::kFf1Bias},
    {"linear2.weight", 2, {Dim::kModel, Dim::kFf}, When::kAlways, Slot::kFf2Weight},
    {"linear2.bias", 1, {Dim::kModel}, When::kBias, Slot::kFf2Bias},
    {"norm1.weight", 1, {Dim::kModel}, When::kAlways, Slot::kNorm1Weight},
    {"norm1.bias", 1, {Dim::kModel}, When::kBias, Slot::kNorm1Bias},
    {"norm2.weight", 1, {Dim::kModel}, When::kAlways, Slot::kNorm2Weight},
    {"norm2.bias", 1, {Dim::kModel}, When::kBias, Slot::kNorm2Bias},
};

// The final norm is a plain nn.LayerNorm the user passed: it always has a bias.
constexpr TensorRecord kEncoderTensors[] = {
    {"norm.weight", 1, {Dim::kModel}, When::kFinalNorm, Slot::kFinalNormWeight},
    {"norm.bias", 1, {Dim::kModel}, When::kFinalNorm, Slot::kFinalNormBias},
};

Status ReadEncoderLayerConfig(const WeightFile& file, ModelConfig* c) {
  size_t dim, heads;
  ATTNRT_RETURN_IF_ERROR(ReadDim(file, "d_model", &dim));
  ATTNRT_RETURN_IF_ERROR(ReadDim(file, "nhead", &heads));
  ATTNRT_RETURN_IF_ERROR(ReadBool(file, "bias", true, &c->bias));
  ATTNRT_RETURN_IF_ERROR(SplitHeads("d_model", dim, heads, c));
  ATTNRT_RETURN_IF_ERROR(ReadDim(file, "dim_feedforward", &c->ff_dim));
  ATTNRT_RETURN_IF_ERROR(ReadBool(file, "norm_first", false, &c->norm_first));
  ATTNRT_RETURN_IF_ERROR(ReadBool(file, "batch_first", false, &c->batch_first));
  ATTNRT_RETURN_IF_ERROR(ReadEps(file, "layer_norm_eps", &c->layer_norm_eps));
  ATTNRT_RETURN_IF_ERROR(ReadActivation(file, "activation", &c->activation));
  ATTNRT_RETURN_IF_ERROR(ReadProbability(file, "dropout"));
  return ReadIsCausal(file, c);
}

Status ReadEncoderConfig(const WeightFile& file, ModelConfig* c) {
  ATTNRT_RETURN_IF_ERROR(ReadEncoderLayerConfig(file, c));
  ATTNRT_RETURN_IF_ERROR(ReadDim(file, "num_layers", &c->num_layers));
  if (c->num_layers > kMaxLayers) {
    return Status::Error(StatusCode::kBadFile, "config num_layers %z is more than attnrt's %z",
                         c->num_layers, kMaxLayers);
  }
  ATTNRT_RETURN_IF_ERROR(ReadBool(file, "final_norm", false, &c->final_norm));
  if (c->final_norm) ATTNRT_RETURN_IF_ERROR(ReadEps(file, "final_norm_eps", &c->final_norm_eps));
  return Status::Ok();
}

Status OneEncoderLayer(const Model& m, const ModelInput& in, float* y, Forward* f) {
  return EncoderLayerBlock(m.config, m.layers[0], in, in.x, y, f);
}

// layers, then norm(y) in place when the encoder has a final norm.
Status EncoderForward(const Model& m, const ModelInput& in, float* y, Forward* f) {
  const ModelConfig& c = m.config;
  ATTNRT_RETURN_IF_ERROR(EncoderStack(m, in, in.x, y, f));
  if (c.final_norm) {
    f->LayerNorm(y, c.model_dim, in.batch * in.seq, c.model_dim, m.final_norm_weight,
                 m.final_norm_bias, c.final_norm_eps, y, c.model_dim);
  }
  return Status::Ok();
}

}  // namespace

const ArchitectureRecord kEncoderLayerRecord = {
    "torch.nn.TransformerEncoderLayer",
    kEncoderLayerKeys, CountOf(kEncoderLayerKeys), ReadEncoderLayerConfig, "",
    kEncoderLayerTensors, CountOf(kEncoderLayerTensors), nullptr, 0, OneEncoderLayer, false};

const ArchitectureRecord kEncoderRecord = {
    "torch.nn.TransformerEncoder", kEncoderKeys,
    CountOf(kEncoderKeys), ReadEncoderConfig, "layers.{i}.", kEncoderLayerTensors,
    CountOf(kEncoderLayerTensors), kEncoderTensors, CountOf(kEncoderTensors), EncoderForward,
    false};

}  // namespace attnrt
