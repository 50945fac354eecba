// llama: a decoder-only Llama as Meta's reference code and llama2.c's model.py
// name it (tok_embeddings, layers.{i}.attention.{wq,wk,wv,wo},
// feed_forward.{w1,w2,w3}, attention_norm / ffn_norm / norm, output). RMSNorm,
// RoPE (interleaved or half pairs), SwiGLU, grouped-query attention, causal, no
// biases. It runs through language_model.h: tokens in, logits out, a KV cache in
// the arena; the record has no batch forward of float rows.
#include <cmath>
#include <cstring>

#include "arch_llama.h"
#include "config_reader.h"

namespace attnrt {

// llama2.c's ModelArgs. n_kv_heads null (absent) means n_heads; multiple_of only
// derives hidden_dim when hidden_dim is None, so with hidden_dim required it is
// accepted and unused; dropout is ignored in inference. sliding_window is
// Mistral's (a query sees itself and the W - 1 positions before it); null or
// absent is full causal attention and leaves no record in the file, so files
// written before the key existed read as they always did.
// The last field is the key's name in a Hugging Face LlamaConfig (config.json).
const ConfigKey kLlamaKeys[] = {
    {"dim", ConfigType::kInt, true, 0, nullptr, false, "hidden_size"},
    {"n_layers", ConfigType::kInt, true, 0, nullptr, false, "num_hidden_layers"},
    {"n_heads", ConfigType::kInt, true, 0, nullptr, false, "num_attention_heads"},
    {"n_kv_heads", ConfigType::kInt, false, 0, nullptr, false, "num_key_value_heads"},
    {"vocab_size", ConfigType::kInt, true, 0, nullptr, false, "vocab_size"},
    {"hidden_dim", ConfigType::kInt, true, 0, nullptr, false, "intermediate_size"},
    {"norm_eps", ConfigType::kFloat, false, 1e-5, nullptr, false, "rms_norm_eps"},
    {"max_seq_len", ConfigType::kInt, true, 0, nullptr, false, "max_position_embeddings"},
    {"rope_theta", ConfigType::kFloat, false, 10000, nullptr, false, "rope_theta"},
    {"rope_style", ConfigType::kString, false, 0, "interleaved"},
    {"multiple_of", ConfigType::kInt, false, 256, nullptr},
    {"dropout", ConfigType::kFloat, false, 0, nullptr, false, "attention_dropout"},
    {"sliding_window", ConfigType::kInt, false, 0, "null", false, "sliding_window"},
};
const size_t kLlamaKeyCount = CountOf(kLlamaKeys);

namespace {

constexpr TensorRecord kLlamaLayerTensors[] = {ATTNRT_LLAMA_LAYER_TENSORS};

}  // namespace

// Without output.weight the output layer shares tok_embeddings (tied embeddings).
const TensorRecord kLlamaTensors[] = {
    {"tok_embeddings.weight", 2, {Dim::kVocab, Dim::kModel}, When::kAlways, Slot::kTokenEmbedding,
     "model.embed_tokens.weight"},
    {"norm.weight", 1, {Dim::kModel}, When::kAlways, Slot::kFinalNormWeight, "model.norm.weight"},
    {"output.weight", 2, {Dim::kVocab, Dim::kModel}, When::kOptional, Slot::kHeadWeight,
     "lm_head.weight"},
};
const size_t kLlamaTensorCount = CountOf(kLlamaTensors);

namespace {

Status ReadKvHeads(const WeightFile& file, ModelConfig* c) {
  int64_t kv;
  ATTNRT_RETURN_IF_ERROR(file.GetInt("n_kv_heads", &kv));
  if (kv == 0) return Status::Ok();  // absent: as many as the query heads
  if (kv < 0 || static_cast<uint64_t>(kv) > c->heads || c->heads % static_cast<size_t>(kv) != 0) {
    return Status::Error(StatusCode::kBadFile,
                         "config n_kv_heads (%s%z) must divide n_heads (%z)", kv < 0 ? "-" : "",
                         static_cast<size_t>(kv < 0 ? -(kv + 1) + 1 : kv), c->heads);
  }
  c->kv_heads = static_cast<size_t>(kv);
  return Status::Ok();
}

Status ReadRope(const WeightFile& file, ModelConfig* c) {
  double theta;
  ATTNRT_RETURN_IF_ERROR(file.GetFloat("rope_theta", &theta));
  if (!(theta > 0.0) || !std::isfinite(theta)) {
    return Status::Error(StatusCode::kBadFile, "config rope_theta must be a positive number");
  }
  c->rope_theta = theta;
  const char* style;
  size_t len;
  ATTNRT_RETURN_IF_ERROR(file.GetString("rope_style", &style, &len));
  if (std::strcmp(style, "interleaved") == 0) {
    c->rope_style = RopeStyle::kInterleaved;
  } else if (std::strcmp(style, "half") == 0) {
    c->rope_style = RopeStyle::kHalf;
  } else {
    return Status::Error(StatusCode::kBadFile,
                         "config rope_style '%s' is not \"interleaved\" (Meta, llama2.c) or "
                         "\"half\" (GPT-NeoX, Hugging Face rotate_half)",
                         style);
  }
  if (c->qk_dim % 2 != 0) {
    return Status::Error(StatusCode::kBadFile,
                         "config dim / n_heads (%z) must be even: RoPE rotates pairs", c->qk_dim);
  }
  return Status::Ok();
}

}  // namespace

Status ReadLlamaConfig(const WeightFile& file, ModelConfig* c) {
  size_t dim, heads;
  ATTNRT_RETURN_IF_ERROR(ReadDim(file, "dim", &dim));
  ATTNRT_RETURN_IF_ERROR(ReadDim(file, "n_heads", &heads));
  ATTNRT_RETURN_IF_ERROR(SplitHeads("dim", dim, heads, c));
  ATTNRT_RETURN_IF_ERROR(ReadKvHeads(file, c));
  ATTNRT_RETURN_IF_ERROR(ReadDim(file, "n_layers", &c->num_layers));
  if (c->num_layers > kMaxLayers) {
    return Status::Error(StatusCode::kBadFile, "config n_layers %z is more than attnrt's %z",
                         c->num_layers, kMaxLayers);
  }
  ATTNRT_RETURN_IF_ERROR(ReadDim(file, "vocab_size", &c->vocab_size));
  c->out_dim = c->vocab_size;
  ATTNRT_RETURN_IF_ERROR(ReadDim(file, "hidden_dim", &c->ff_dim));
  ATTNRT_RETURN_IF_ERROR(ReadEps(file, "norm_eps", &c->layer_norm_eps));
  ATTNRT_RETURN_IF_ERROR(ReadDim(file, "max_seq_len", &c->max_seq_len));
  ATTNRT_RETURN_IF_ERROR(ReadRope(file, c));
  size_t multiple_of;
  ATTNRT_RETURN_IF_ERROR(ReadDim(file, "multiple_of", &multiple_of));
  ATTNRT_RETURN_IF_ERROR(ReadProbability(file, "dropout"));
  ATTNRT_RETURN_IF_ERROR(ReadOptionalDim(file, "sliding_window", &c->sliding_window));
  c->causal = CausalKind::kUpperLeft;
  return Status::Ok();
}

const LmRecipe kLlamaRecipe = {NormKind::kRms, MlpKind::kSwiGlu, PositionKind::kRope,
                               ResidualKind::kPreNorm, EmbeddingScale::kNone, false};

const ArchitectureRecord kLlamaRecord = {
    "Llama (Meta reference / llama2.c Transformer)", kLlamaKeys,
    CountOf(kLlamaKeys), ReadLlamaConfig, "layers.{i}.", kLlamaLayerTensors,
    CountOf(kLlamaLayerTensors), kLlamaTensors, CountOf(kLlamaTensors), nullptr, false,
    &kLlamaRecipe, "model.layers.{i}."};

}  // namespace attnrt
