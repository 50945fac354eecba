// Single attention-block architectures: torch.nn.MultiheadAttention and the two
// seed modules (003 SelfAttention, 001 SingleHeadAttention). Each record binds
// config keys, state_dict tensors and the forward pass (one attention block).
#include "architecture_record.h"
#include "config_reader.h"

namespace attnrt {
namespace {

Status AttentionOnly(const Model& m, const ModelInput& in, float* y, Forward* f) {
  return AttentionBlock(m.config, m.layers[0], in, in.x, y, f);
}

// ---- mha: torch.nn.MultiheadAttention(embed_dim, num_heads, ...) ----------------
// dropout is accepted so configs written for torch convert unchanged (inference
// ignores it); the options attnrt does not implement are accepted only at their defaults.
constexpr ConfigKey kMhaKeys[] = {
    {"embed_dim", ConfigType::kInt, true, 0, nullptr},
    {"num_heads", ConfigType::kInt, true, 0, nullptr},
    {"bias", ConfigType::kBool, false, 1, nullptr},
    {"dropout", ConfigType::kFloat, false, 0, nullptr},
    {"batch_first", ConfigType::kBool, false, 0, nullptr},
    {"is_causal", ConfigType::kBool, false, 0, nullptr},
    {"add_bias_kv", ConfigType::kBool, false, 0, nullptr, true},
    {"add_zero_attn", ConfigType::kBool, false, 0, nullptr, true},
    {"kdim", ConfigType::kInt, false, -1, nullptr, true},
    {"vdim", ConfigType::kInt, false, -1, nullptr, true},
};

constexpr TensorRecord kMhaTensors[] = {ATTNRT_MHA_TENSORS("")};

Status ReadMhaConfig(const WeightFile& file, ModelConfig* c) {
  size_t dim, heads;
  ATTNRT_RETURN_IF_ERROR(ReadDim(file, "embed_dim", &dim));
  ATTNRT_RETURN_IF_ERROR(ReadDim(file, "num_heads", &heads));
  ATTNRT_RETURN_IF_ERROR(ReadBool(file, "bias", true, &c->bias));
  ATTNRT_RETURN_IF_ERROR(ReadBool(file, "batch_first", false, &c->batch_first));
  ATTNRT_RETURN_IF_ERROR(ReadProbability(file, "dropout"));
  ATTNRT_RETURN_IF_ERROR(ReadIsCausal(file, c));
  return SplitHeads("embed_dim", dim, heads, c);
}

// ---- self-attention: seed 003 (W_q, W_k, W_v, W_o, no bias) ---------------------
// d_k and d_v default to d_model (the converter resolves the -1).
constexpr ConfigKey kSelfAttentionKeys[] = {
    {"d_model", ConfigType::kInt, true, 0, nullptr},
    {"d_k", ConfigType::kInt, false, -1, nullptr},
    {"d_v", ConfigType::kInt, false, -1, nullptr},
    {"is_causal", ConfigType::kBool, false, 0, nullptr},
};
constexpr TensorRecord kSelfAttentionTensors[] = {
    {"W_q.weight", 2, {Dim::kQkAll, Dim::kModel}, When::kAlways, Slot::kQWeight},
    {"W_k.weight", 2, {Dim::kQkAll, Dim::kModel}, When::kAlways, Slot::kKWeight},
    {"W_v.weight", 2, {Dim::kVAll, Dim::kModel}, When::kAlways, Slot::kVWeight},
    {"W_o.weight", 2, {Dim::kModel, Dim::kVAll}, When::kAlways, Slot::kOutWeight},
};

Status ReadSelfAttentionConfig(const WeightFile& file, ModelConfig* c) {
  ATTNRT_RETURN_IF_ERROR(ReadDim(file, "d_model", &c->model_dim));
  ATTNRT_RETURN_IF_ERROR(ReadDim(file, "d_k", &c->qk_dim));
  ATTNRT_RETURN_IF_ERROR(ReadDim(file, "d_v", &c->v_dim));
  ATTNRT_RETURN_IF_ERROR(ReadIsCausal(file, c));
  c->out_dim = c->model_dim;
  return Status::Ok();
}

// ---- single-head: seed 001 (query/key/value projections, always causal) ---------
constexpr ConfigKey kSingleHeadKeys[] = {
    {"embedding_dim", ConfigType::kInt, true, 0, nullptr},
    {"attention_dim", ConfigType::kInt, true, 0, nullptr},
};
constexpr TensorRecord kSingleHeadTensors[] = {
    {"query_proj.weight", 2, {Dim::kQkAll, Dim::kModel}, When::kAlways, Slot::kQWeight},
    {"key_proj.weight", 2, {Dim::kQkAll, Dim::kModel}, When::kAlways, Slot::kKWeight},
    {"value_proj.weight", 2, {Dim::kVAll, Dim::kModel}, When::kAlways, Slot::kVWeight},
};

Status ReadSingleHeadConfig(const WeightFile& file, ModelConfig* c) {
  ATTNRT_RETURN_IF_ERROR(ReadDim(file, "embedding_dim", &c->model_dim));
  ATTNRT_RETURN_IF_ERROR(ReadDim(file, "attention_dim", &c->qk_dim));
  c->v_dim = c->out_dim = c->qk_dim;
  c->causal = CausalKind::kUpperLeft;
  return Status::Ok();
}

}  // namespace

const ArchitectureRecord kMhaRecord = {
    "torch.nn.MultiheadAttention", kMhaKeys, CountOf(kMhaKeys),
    ReadMhaConfig, "", kMhaTensors, CountOf(kMhaTensors), nullptr, 0, AttentionOnly, false};

const ArchitectureRecord kSelfAttentionRecord = {
    "seed 003 SelfAttention", kSelfAttentionKeys,
    CountOf(kSelfAttentionKeys), ReadSelfAttentionConfig, "", kSelfAttentionTensors,
    CountOf(kSelfAttentionTensors), nullptr, 0, AttentionOnly, false};

const ArchitectureRecord kSingleHeadRecord = {
    "seed 001 SingleHeadAttention", kSingleHeadKeys,
    CountOf(kSingleHeadKeys), ReadSingleHeadConfig, "", kSingleHeadTensors,
    CountOf(kSingleHeadTensors), nullptr, 0, AttentionOnly, false};

}  // namespace attnrt
