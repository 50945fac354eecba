// Architecture names, their config keys, and reading a config back from a
// weight file's metadata (see model_config.h).
#include "attnrt/models/model_config.h"

#include <cstring>

#include "attnrt/runtime/weight_file.h"

namespace attnrt {
namespace {

// Keys are PyTorch's constructor arguments. dropout and batch_first are accepted
// so configs written for torch convert unchanged; inference ignores dropout and
// always uses the batch-first (B, L, E) layout.
constexpr ConfigKey kMhaKeys[] = {
    {"embed_dim", ConfigType::kInt, true, 0, nullptr},
    {"num_heads", ConfigType::kInt, true, 0, nullptr},
    {"bias", ConfigType::kBool, false, 1, nullptr},
    {"dropout", ConfigType::kFloat, false, 0, nullptr},
    {"batch_first", ConfigType::kBool, false, 1, nullptr},
};
constexpr ConfigKey kEncoderKeys[] = {
    {"d_model", ConfigType::kInt, true, 0, nullptr},
    {"nhead", ConfigType::kInt, true, 0, nullptr},
    {"dim_feedforward", ConfigType::kInt, false, 2048, nullptr},
    {"activation", ConfigType::kString, false, 0, "relu"},
    {"layer_norm_eps", ConfigType::kFloat, false, 1e-5, nullptr},
    {"norm_first", ConfigType::kBool, false, 0, nullptr},
    {"bias", ConfigType::kBool, false, 1, nullptr},
    {"dropout", ConfigType::kFloat, false, 0.1, nullptr},
    {"batch_first", ConfigType::kBool, false, 1, nullptr},
};
// d_k and d_v default to d_model (seed 003); the converter resolves that.
constexpr ConfigKey kSelfAttentionKeys[] = {
    {"d_model", ConfigType::kInt, true, 0, nullptr},
    {"d_k", ConfigType::kInt, false, -1, nullptr},
    {"d_v", ConfigType::kInt, false, -1, nullptr},
};
constexpr ConfigKey kSingleHeadKeys[] = {
    {"embedding_dim", ConfigType::kInt, true, 0, nullptr},
    {"attention_dim", ConfigType::kInt, true, 0, nullptr},
};

struct ArchEntry {
  Architecture arch;
  const char* name;
  const ConfigKey* keys;
  size_t key_count;
};

constexpr ArchEntry kArchitectures[] = {
    {Architecture::kMha, "mha", kMhaKeys, sizeof(kMhaKeys) / sizeof(ConfigKey)},
    {Architecture::kEncoderLayer, "encoder-layer", kEncoderKeys,
     sizeof(kEncoderKeys) / sizeof(ConfigKey)},
    {Architecture::kSelfAttention, "self-attention", kSelfAttentionKeys,
     sizeof(kSelfAttentionKeys) / sizeof(ConfigKey)},
    {Architecture::kSingleHead, "single-head", kSingleHeadKeys,
     sizeof(kSingleHeadKeys) / sizeof(ConfigKey)},
};

const ArchEntry& Entry(Architecture arch) {
  for (const ArchEntry& e : kArchitectures) {
    if (e.arch == arch) return e;
  }
  return kArchitectures[0];
}

// Reads a positive dimension; metadata stores every int-like key as i64.
Status ReadDim(const WeightFile& file, const char* key, size_t* out) {
  int64_t v;
  ATTNRT_RETURN_IF_ERROR(file.GetInt(key, &v));
  // 1 << 24 keeps every derived size product far from overflow.
  if (v <= 0 || v > (int64_t{1} << 24)) {
    return Status::Error(StatusCode::kBadFile, "config %s must be in 1..16777216, got %z", key,
                         static_cast<size_t>(v < 0 ? 0 : v));
  }
  *out = static_cast<size_t>(v);
  return Status::Ok();
}

Status ReadBool(const WeightFile& file, const char* key, bool* out) {
  int64_t v;
  ATTNRT_RETURN_IF_ERROR(file.GetInt(key, &v));
  if (v != 0 && v != 1) {
    return Status::Error(StatusCode::kBadFile, "config %s must be 0 or 1", key);
  }
  *out = v == 1;
  return Status::Ok();
}

Status SplitHeads(const char* dim_key, size_t dim, size_t heads, ModelConfig* c) {
  if (dim % heads != 0) {
    return Status::Error(StatusCode::kBadFile, "config %s (%z) must be divisible by heads (%z)",
                         dim_key, dim, heads);
  }
  c->model_dim = c->out_dim = dim;
  c->heads = heads;
  c->qk_dim = c->v_dim = dim / heads;
  return Status::Ok();
}

Status ReadEncoderExtras(const WeightFile& file, ModelConfig* c) {
  ATTNRT_RETURN_IF_ERROR(ReadDim(file, "dim_feedforward", &c->ff_dim));
  ATTNRT_RETURN_IF_ERROR(ReadBool(file, "norm_first", &c->norm_first));
  double eps;
  ATTNRT_RETURN_IF_ERROR(file.GetFloat("layer_norm_eps", &eps));
  if (!(eps > 0.0 && eps < 1.0)) {
    return Status::Error(StatusCode::kBadFile, "config layer_norm_eps must be in (0, 1)");
  }
  c->layer_norm_eps = static_cast<float>(eps);
  const char* act;
  size_t len;
  ATTNRT_RETURN_IF_ERROR(file.GetString("activation", &act, &len));
  if (std::strcmp(act, "relu") == 0) {
    c->activation = Activation::kRelu;
  } else if (std::strcmp(act, "gelu") == 0) {
    c->activation = Activation::kGelu;
  } else {
    return Status::Error(StatusCode::kBadFile, "config activation '%s' is not relu or gelu", act);
  }
  return Status::Ok();
}

}  // namespace

const char* ArchitectureName(Architecture arch) { return Entry(arch).name; }

Status ParseArchitecture(const char* name, Architecture* arch) {
  for (const ArchEntry& e : kArchitectures) {
    if (std::strcmp(e.name, name) == 0) {
      *arch = e.arch;
      return Status::Ok();
    }
  }
  return Status::Error(StatusCode::kInvalidArgument,
                       "unknown architecture '%s' (expected mha, encoder-layer, self-attention or "
                       "single-head)",
                       name);
}

const ConfigKey* ArchitectureConfigKeys(Architecture arch, size_t* count) {
  const ArchEntry& e = Entry(arch);
  *count = e.key_count;
  return e.keys;
}

Status ReadModelConfig(const WeightFile& file, ModelConfig* c) {
  const char* arch_name;
  size_t len;
  ATTNRT_RETURN_IF_ERROR(file.GetString("arch", &arch_name, &len));
  Status st = ParseArchitecture(arch_name, &c->arch);
  if (!st.ok()) return Status::Error(StatusCode::kBadFile, "%s", st.message());
  *c = ModelConfig{c->arch};
  size_t dim, heads;
  switch (c->arch) {
    case Architecture::kMha:
      ATTNRT_RETURN_IF_ERROR(ReadDim(file, "embed_dim", &dim));
      ATTNRT_RETURN_IF_ERROR(ReadDim(file, "num_heads", &heads));
      ATTNRT_RETURN_IF_ERROR(ReadBool(file, "bias", &c->bias));
      return SplitHeads("embed_dim", dim, heads, c);
    case Architecture::kEncoderLayer:
      ATTNRT_RETURN_IF_ERROR(ReadDim(file, "d_model", &dim));
      ATTNRT_RETURN_IF_ERROR(ReadDim(file, "nhead", &heads));
      ATTNRT_RETURN_IF_ERROR(ReadBool(file, "bias", &c->bias));
      ATTNRT_RETURN_IF_ERROR(SplitHeads("d_model", dim, heads, c));
      return ReadEncoderExtras(file, c);
    case Architecture::kSelfAttention:
      ATTNRT_RETURN_IF_ERROR(ReadDim(file, "d_model", &c->model_dim));
      ATTNRT_RETURN_IF_ERROR(ReadDim(file, "d_k", &c->qk_dim));
      ATTNRT_RETURN_IF_ERROR(ReadDim(file, "d_v", &c->v_dim));
      c->out_dim = c->model_dim;
      return Status::Ok();
    case Architecture::kSingleHead:
      ATTNRT_RETURN_IF_ERROR(ReadDim(file, "embedding_dim", &c->model_dim));
      ATTNRT_RETURN_IF_ERROR(ReadDim(file, "attention_dim", &c->qk_dim));
      c->v_dim = c->out_dim = c->qk_dim;
      c->always_causal = true;
      return Status::Ok();
  }
  return Status::Error(StatusCode::kBadFile, "unknown architecture");
}

}  // namespace attnrt
