// See decoder_config.h. Key names are llama2.c's ModelArgs (dim, n_layers, ...);
// the records map them to each family's Hugging Face names.
#include "decoder_config.h"

#include <cmath>
#include <cstring>

#include "architecture_record.h"
#include "config_reader.h"

namespace attnrt {
namespace {

Status ReadKvHeads(const WeightFile& file, ModelConfig* c) {
  int64_t kv;
  if (!file.GetInt("n_kv_heads", &kv).ok()) return Status::Ok();  // gpt2: as many as heads
  if (kv == 0) return Status::Ok();  // absent: as many as the query heads
  if (kv < 0 || static_cast<uint64_t>(kv) > c->heads || c->heads % static_cast<size_t>(kv) != 0) {
    return Status::Error(StatusCode::kBadFile,
                         "config n_kv_heads (%s%z) must divide n_heads (%z)", kv < 0 ? "-" : "",
                         static_cast<size_t>(kv < 0 ? -(kv + 1) + 1 : kv), c->heads);
  }
  c->kv_heads = static_cast<size_t>(kv);
  return Status::Ok();
}

// dim, n_heads and head_dim: without head_dim a head is dim / n_heads wide; with it
// (Qwen3, Gemma 3) heads * head_dim need not be dim.
Status ReadHeads(const WeightFile& file, ModelConfig* c) {
  size_t dim, heads, head_dim;
  ATTNRT_RETURN_IF_ERROR(ReadDim(file, "dim", &dim));
  ATTNRT_RETURN_IF_ERROR(ReadDim(file, "n_heads", &heads));
  ATTNRT_RETURN_IF_ERROR(ReadOptionalDim(file, "head_dim", &head_dim));
  if (head_dim == 0) return SplitHeads("dim", dim, heads, c);
  c->model_dim = c->out_dim = dim;
  c->heads = c->kv_heads = heads;
  c->qk_dim = c->v_dim = head_dim;
  return Status::Ok();
}

Status CheckTheta(const char* key, double theta) {
  if (!(theta > 0.0) || !std::isfinite(theta)) {
    return Status::Error(StatusCode::kBadFile, "config %s must be a positive number", key);
  }
  return Status::Ok();
}

// rope_scaling_type (absent: none), "linear" with rope_scaling_factor, "llama3" with
// the factor, rope_low_freq_factor, rope_high_freq_factor, rope_original_max_positions.
Status ReadRopeScaling(const WeightFile& file, RopeScaling* s) {
  const char* type;
  bool present;
  ATTNRT_RETURN_IF_ERROR(ReadOptionalString(file, "rope_scaling_type", &type, &present));
  if (!present) return Status::Ok();
  if (std::strcmp(type, "linear") == 0) {
    s->kind = RopeScalingKind::kLinear;
  } else if (std::strcmp(type, "llama3") == 0) {
    s->kind = RopeScalingKind::kLlama3;
  } else {
    return Status::Error(StatusCode::kUnsupported,
                         "config rope_scaling_type '%s' is not supported (linear, llama3)", type);
  }
  ATTNRT_RETURN_IF_ERROR(file.GetFloat("rope_scaling_factor", &s->factor));
  if (!(s->factor >= 1.0) || !std::isfinite(s->factor)) {
    return Status::Error(StatusCode::kBadFile, "config rope_scaling_factor must be >= 1");
  }
  if (s->kind != RopeScalingKind::kLlama3) return Status::Ok();
  size_t original;
  ATTNRT_RETURN_IF_ERROR(file.GetFloat("rope_low_freq_factor", &s->low_freq_factor));
  ATTNRT_RETURN_IF_ERROR(file.GetFloat("rope_high_freq_factor", &s->high_freq_factor));
  ATTNRT_RETURN_IF_ERROR(ReadDim(file, "rope_original_max_positions", &original));
  s->original_max_positions = static_cast<double>(original);
  if (!(s->low_freq_factor > 0.0) || !(s->high_freq_factor > s->low_freq_factor) ||
      !std::isfinite(s->high_freq_factor)) {
    return Status::Error(StatusCode::kBadFile,
                         "config rope_high_freq_factor must be larger than rope_low_freq_factor "
                         "> 0");
  }
  return Status::Ok();
}

Status ReadRope(const WeightFile& file, ModelConfig* c) {
  ATTNRT_RETURN_IF_ERROR(file.GetFloat("rope_theta", &c->rope_theta));
  ATTNRT_RETURN_IF_ERROR(CheckTheta("rope_theta", c->rope_theta));
  bool present;
  ATTNRT_RETURN_IF_ERROR(ReadOptionalFloat(file, "rope_local_theta", &c->rope_local_theta, &present));
  if (present) ATTNRT_RETURN_IF_ERROR(CheckTheta("rope_local_theta", c->rope_local_theta));
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
  ATTNRT_RETURN_IF_ERROR(ReadOptionalDim(file, "rotary_dim", &c->rotary_dim));
  if (c->rotary_dim == 0) c->rotary_dim = c->qk_dim;
  if (c->rotary_dim > c->qk_dim || c->rotary_dim % 2 != 0) {
    return Status::Error(StatusCode::kBadFile,
                         "config rotary_dim (%z) must be even and at most the head size (%z): "
                         "RoPE rotates pairs of a head",
                         c->rotary_dim, c->qk_dim);
  }
  return ReadRopeScaling(file, &c->rope_scaling);
}

// sliding_window W (absent: none) and, when the family has a per-layer pattern,
// layer_types: one "sliding_attention" or "full_attention" per layer, comma separated.
Status ReadWindow(const WeightFile& file, ModelConfig* c) {
  ATTNRT_RETURN_IF_ERROR(ReadOptionalDim(file, "sliding_window", &c->sliding_window));
  const char* types;
  bool present;
  ATTNRT_RETURN_IF_ERROR(ReadOptionalString(file, "layer_types", &types, &present));
  if (!present) {
    c->window_layers = c->sliding_window == 0 ? 0 : AllLayers(c->num_layers);
    return Status::Ok();
  }
  c->window_layers = 0;
  const char* p = types;
  for (size_t l = 0; l < c->num_layers; ++l) {
    const char* end = std::strchr(p, ',');
    const size_t n = end != nullptr ? static_cast<size_t>(end - p) : std::strlen(p);
    if (n == 17 && std::strncmp(p, "sliding_attention", n) == 0) {
      c->window_layers |= uint64_t{1} << l;
    } else if (!(n == 14 && std::strncmp(p, "full_attention", n) == 0)) {
      return Status::Error(StatusCode::kBadFile,
                           "config layer_types: layer %z is neither sliding_attention nor "
                           "full_attention",
                           l);
    }
    if ((end == nullptr) != (l + 1 == c->num_layers)) {
      return Status::Error(StatusCode::kBadFile, "config layer_types must name %z layers",
                           c->num_layers);
    }
    p = end != nullptr ? end + 1 : p + n;
  }
  if (c->window_layers != 0 && c->sliding_window == 0) {
    return Status::Error(StatusCode::kBadFile,
                         "config layer_types has sliding_attention layers but no sliding_window");
  }
  return Status::Ok();
}

}  // namespace

Status ReadDecoderConfig(const WeightFile& file, ModelConfig* c) {
  const LmRecipe& recipe = *RecordFor(c->arch).lm_recipe;
  ATTNRT_RETURN_IF_ERROR(ReadHeads(file, c));
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
  if (recipe.position == PositionKind::kRope) ATTNRT_RETURN_IF_ERROR(ReadRope(file, c));
  // llama2.c's multiple_of only derives hidden_dim when hidden_dim is None; with
  // hidden_dim required it is accepted, checked and unused (other families have none).
  size_t multiple_of;
  ATTNRT_RETURN_IF_ERROR(ReadOptionalDim(file, "multiple_of", &multiple_of));
  double dropout;
  bool present;
  ATTNRT_RETURN_IF_ERROR(ReadOptionalFloat(file, "dropout", &dropout, &present));
  if (present) ATTNRT_RETURN_IF_ERROR(ReadProbability(file, "dropout"));
  ATTNRT_RETURN_IF_ERROR(ReadWindow(file, c));
  double scalar;
  ATTNRT_RETURN_IF_ERROR(ReadOptionalFloat(file, "query_pre_attn_scalar", &scalar, &present));
  if (present) {
    if (!(scalar > 0.0) || !std::isfinite(scalar)) {
      return Status::Error(StatusCode::kBadFile, "config query_pre_attn_scalar must be positive");
    }
    c->attention_scale = static_cast<float>(1.0 / std::sqrt(scalar));  // Gemma: scalar^-1/2
  }
  c->causal = CausalKind::kUpperLeft;
  return Status::Ok();
}

}  // namespace attnrt
