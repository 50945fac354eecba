// Checked config readers (see config_reader.h).
#include "config_reader.h"

#include <cstring>

namespace attnrt {

Status ReadDim(const WeightFile& file, const char* key, size_t* out) {
  int64_t v;
  ATTNRT_RETURN_IF_ERROR(file.GetInt(key, &v));
  if (v <= 0 || v > (int64_t{1} << 24)) {
    // Negative values are printed as such, not clamped (a "got 0" for -5 misleads).
    if (v < 0) {
      return Status::Error(StatusCode::kBadFile, "config %s must be in 1..16777216, got -%z", key,
                           static_cast<size_t>(-(v + 1)) + 1);
    }
    return Status::Error(StatusCode::kBadFile, "config %s must be in 1..16777216, got %z", key,
                         static_cast<size_t>(v));
  }
  *out = static_cast<size_t>(v);
  return Status::Ok();
}

Status ReadOptionalDim(const WeightFile& file, const char* key, size_t* out) {
  int64_t v;
  if (file.GetInt(key, &v).ok()) return ReadDim(file, key, out);
  // Absent is "none"; present with another type is an error, not "none".
  const char* s;
  size_t len;
  double d;
  if (file.GetString(key, &s, &len).ok() || file.GetFloat(key, &d).ok()) {
    return Status::Error(StatusCode::kBadFile, "config %s must be an integer in 1..16777216", key);
  }
  *out = 0;
  return Status::Ok();
}

namespace {

// True when `key` is present with a type other than the one just asked for.
bool PresentWithAnotherType(const WeightFile& file, const char* key) {
  int64_t i;
  double d;
  const char* s;
  size_t len;
  return file.GetInt(key, &i).ok() || file.GetFloat(key, &d).ok() ||
         file.GetString(key, &s, &len).ok();
}

}  // namespace

Status ReadOptionalFloat(const WeightFile& file, const char* key, double* out, bool* present) {
  *present = file.GetFloat(key, out).ok();
  if (!*present && PresentWithAnotherType(file, key)) {
    return Status::Error(StatusCode::kBadFile, "config %s must be a number", key);
  }
  return Status::Ok();
}

Status ReadOptionalString(const WeightFile& file, const char* key, const char** out,
                          bool* present) {
  size_t len;
  *present = file.GetString(key, out, &len).ok();
  if (!*present && PresentWithAnotherType(file, key)) {
    return Status::Error(StatusCode::kBadFile, "config %s must be a string", key);
  }
  return Status::Ok();
}

Status ReadBool(const WeightFile& file, const char* key, bool fallback, bool* out) {
  int64_t v;
  if (!file.GetInt(key, &v).ok()) {
    const char* s;
    size_t len;
    // Absent is the fallback; present with another type is an error.
    if (file.GetString(key, &s, &len).ok()) {
      return Status::Error(StatusCode::kBadFile, "config %s must be 0 or 1", key);
    }
    double d;
    if (file.GetFloat(key, &d).ok()) {
      return Status::Error(StatusCode::kBadFile, "config %s must be 0 or 1", key);
    }
    *out = fallback;
    return Status::Ok();
  }
  if (v != 0 && v != 1) return Status::Error(StatusCode::kBadFile, "config %s must be 0 or 1", key);
  *out = v == 1;
  return Status::Ok();
}

Status ReadEps(const WeightFile& file, const char* key, float* out) {
  double eps;
  ATTNRT_RETURN_IF_ERROR(file.GetFloat(key, &eps));
  if (!(eps > 0.0 && eps < 1.0)) {
    return Status::Error(StatusCode::kBadFile, "config %s must be in (0, 1)", key);
  }
  *out = static_cast<float>(eps);
  return Status::Ok();
}

Status ReadProbability(const WeightFile& file, const char* key) {
  double p;
  ATTNRT_RETURN_IF_ERROR(file.GetFloat(key, &p));
  if (!(p >= 0.0 && p < 1.0)) {
    return Status::Error(StatusCode::kBadFile, "config %s must be in [0, 1)", key);
  }
  return Status::Ok();
}

Status ReadActivation(const WeightFile& file, const char* key, Activation* out) {
  const char* act;
  size_t len;
  ATTNRT_RETURN_IF_ERROR(file.GetString(key, &act, &len));
  if (std::strcmp(act, "relu") == 0) {
    *out = Activation::kRelu;
  } else if (std::strcmp(act, "gelu") == 0) {
    *out = Activation::kGelu;
  } else {
    return Status::Error(StatusCode::kBadFile, "config %s '%s' is not relu or gelu", key, act);
  }
  return Status::Ok();
}

Status ReadIsCausal(const WeightFile& file, ModelConfig* c) {
  bool causal;
  ATTNRT_RETURN_IF_ERROR(ReadBool(file, "is_causal", false, &causal));
  if (causal) c->causal = CausalKind::kUpperLeft;
  return Status::Ok();
}

Status SplitHeads(const char* dim_key, size_t dim, size_t heads, ModelConfig* c) {
  if (dim % heads != 0) {
    return Status::Error(StatusCode::kBadFile, "config %s (%z) must be divisible by heads (%z)",
                         dim_key, dim, heads);
  }
  c->model_dim = c->out_dim = dim;
  c->heads = c->kv_heads = heads;
  c->qk_dim = c->v_dim = dim / heads;
  return Status::Ok();
}

}  // namespace attnrt
