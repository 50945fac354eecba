// A GGUF file in memory -> weight-file writer (see gguf_import.h).
//
// The config step builds the record's keys as JSON (as the Hugging Face importer does)
// and hands them to the same WriteConfigMetadata / DeriveConfig, so a GGUF that converts
// is a file the runtime loads. What llama.cpp derives in code, not in keys, is derived
// here the same way (llama-model.cpp, src/models/<arch>.cpp of the llama.cpp release
// node-llama-cpp 3.22 ships): Gemma 3's every-sixth-layer-global pattern and its
// attention scale, Phi-3's disabled sliding window, Llama 3's rope_freqs.
#include "convert/gguf_import.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <new>

#include <nlohmann/json.hpp>

#include "attnrt/kernels/weight_codecs.h"
#include "attnrt/kernels/weight_q4_0.h"
#include "attnrt/models/model_spec.h"
#include "convert/config_metadata.h"
#include "convert/eos_metadata.h"
#include "convert/gguf_dequant.h"
#include "convert/tensor_encoding.h"
#include "host/json_config.h"
#include "host/with_path.h"
#include "npy/npy.h"

namespace attnrt {

using Json = nlohmann::json;

namespace {

bool Fail(std::string* error, const std::string& message) {
  *error = message;
  return false;
}

// A number from the file for messages: %g, not std::to_string's six decimals.
std::string Num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

// ---- the config step ----

// What the config step reads, for messages and the derived keys.
struct ConfigContext {
  const GgufFile& gguf;
  const GgufFamily& family;
  const std::string& where;  // "<path>"
  std::string arch;          // general.architecture
  Json ours = Json::object();

  const GgufValue* Key(const char* suffix) const { return gguf.Find(arch + "." + suffix); }
  std::string Named(const char* suffix) const { return where + ": " + arch + "." + suffix; }
};

// An integer key (or a per-layer array holding one value, as llama.cpp allows).
bool UIntKey(const ConfigContext& c, const char* suffix, uint64_t* out, std::string* error) {
  const GgufValue* v = c.Key(suffix);
  if (v == nullptr) return Fail(error, c.Named(suffix) + " is missing");
  if (v->type == GgufType::kArray) {
    if (v->count == 0) return Fail(error, c.Named(suffix) + " is an empty array");
    for (uint64_t i = 0; i < v->count; ++i) {
      uint64_t x;
      if (!v->UIntAt(i, &x)) {
        return Fail(error, c.Named(suffix) + " must hold non-negative integers, got " + v->Describe());
      }
      if (i > 0 && x != *out) {
        return Fail(error, c.Named(suffix) + " differs between layers (" + std::to_string(*out) +
                               ", " + std::to_string(x) + "); attnrt runs one value for all layers");
      }
      *out = x;
    }
    return true;
  }
  if (!v->AsUInt(out)) {
    return Fail(error, c.Named(suffix) + " must be a non-negative integer, got " + v->Describe());
  }
  return true;
}

bool OptionalUIntKey(const ConfigContext& c, const char* suffix, uint64_t* out,
                     std::string* error) {
  return c.Key(suffix) == nullptr || UIntKey(c, suffix, out, error);
}

bool OptionalNumberKey(const ConfigContext& c, const char* suffix, double* out,
                       std::string* error) {
  const GgufValue* v = c.Key(suffix);
  if (v == nullptr) return true;
  if (!v->AsNumber(out) || !std::isfinite(*out)) {
    return Fail(error, c.Named(suffix) + " must be a finite number, got " + v->Describe());
  }
  return true;
}

const GgufKeyRule* FindKeyRule(const GgufFamily& family, const std::string& suffix) {
  for (size_t i = 0; i < family.key_count; ++i) {
    if (suffix == family.keys[i].key) return &family.keys[i];
  }
  for (size_t i = 0; i < kGgufCommonKeyCount; ++i) {
    if (suffix == kGgufCommonKeys[i].key) return &kGgufCommonKeys[i];
  }
  return nullptr;
}

bool RecordHasKey(Architecture arch, const char* name) {
  size_t count = 0;
  const ConfigKey* keys = ArchitectureConfigKeys(arch, &count);
  for (size_t i = 0; i < count; ++i) {
    if (std::strcmp(keys[i].name, name) == 0) return true;
  }
  return false;
}

// Every "<arch>." key must be known; those with a record key are copied.
bool CopyKeys(ConfigContext* c, std::string* error) {
  const std::string prefix = c->arch + ".";
  for (const GgufKeyValue& kv : c->gguf.metadata) {
    if (kv.key.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string suffix = kv.key.substr(prefix.size());
    const GgufKeyRule* rule = FindKeyRule(c->family, suffix);
    if (rule == nullptr) {
      return Fail(error, c->where + ": key '" + kv.key + "' is not known to attnrt for " + c->arch +
                             " (refused rather than ignored: it may change what the model "
                             "computes)");
    }
    if (rule->ours == nullptr) continue;
    if (kv.value.type == GgufType::kF32 || kv.value.type == GgufType::kF64) {
      double v = 0;
      kv.value.AsNumber(&v);
      c->ours[rule->ours] = v;
      continue;
    }
    uint64_t v = 0;
    if (!UIntKey(*c, suffix.c_str(), &v, error)) return false;
    if (!RecordHasKey(c->family.record, rule->ours)) continue;  // checked by the steps
    if (v > (uint64_t{1} << 40)) return Fail(error, c->Named(suffix.c_str()) + " is absurd");
    c->ours[rule->ours] = v;
  }
  return true;
}

// The mixture-of-experts, causality and per-record checks every family shares, and the
// head size: attention.key_length when it is not embedding_length / head_count.
bool CommonStep(ConfigContext* c, uint64_t* head_dim, std::string* error) {
  uint64_t experts = 0, used = 0;
  if (!OptionalUIntKey(*c, "expert_count", &experts, error) ||
      !OptionalUIntKey(*c, "expert_used_count", &used, error)) {
    return false;
  }
  if (experts != 0 || used != 0) {
    return Fail(error, c->Named("expert_count") + " is " + std::to_string(experts) +
                           ": attnrt runs no mixture-of-experts model");
  }
  if (const GgufValue* causal = c->Key("attention.causal")) {
    bool v = false;
    if (!causal->AsBool(&v) || !v) {
      return Fail(error, c->Named("attention.causal") + " is " + causal->Describe() +
                             ": attnrt runs causal language models only");
    }
  }
  uint64_t dim = 0, heads = 0, kv_heads = 0;
  if (!UIntKey(*c, "embedding_length", &dim, error) ||
      !UIntKey(*c, "attention.head_count", &heads, error)) {
    return false;
  }
  if (heads == 0) return Fail(error, c->Named("attention.head_count") + " is 0");
  kv_heads = heads;
  if (!OptionalUIntKey(*c, "attention.head_count_kv", &kv_heads, error)) return false;
  if (!RecordHasKey(c->family.record, "n_kv_heads") && kv_heads != heads) {
    return Fail(error, c->Named("attention.head_count_kv") + " is " + std::to_string(kv_heads) +
                           ": " + c->arch + " has as many key/value heads as query heads (" +
                           std::to_string(heads) + ")");
  }
  *head_dim = dim / heads;
  uint64_t value_dim = *head_dim;
  if (!OptionalUIntKey(*c, "attention.key_length", head_dim, error) ||
      !OptionalUIntKey(*c, "attention.value_length", &value_dim, error)) {
    return false;
  }
  if (c->Key("attention.value_length") == nullptr) value_dim = *head_dim;
  if (value_dim != *head_dim) {
    return Fail(error, c->Named("attention.value_length") + " (" + std::to_string(value_dim) +
                           ") differs from the key length (" + std::to_string(*head_dim) +
                           "): attnrt's decoders use one head size");
  }
  if (*head_dim * heads != dim || dim % heads != 0) {
    if (!RecordHasKey(c->family.record, "head_dim")) {
      return Fail(error, c->Named("attention.key_length") + " (" + std::to_string(*head_dim) +
                             ") is not embedding_length / head_count");
    }
    c->ours["head_dim"] = *head_dim;
  }
  return true;
}

// Llama 3.1's rope scaling, which llama.cpp's converter stores as rope_freqs: one divisor
// per rotated pair, 1 for short wavelengths, `factor` for long ones, blended between. The
// record keeps (factor, low, high, original context); the divisors fix the factor and the
// line the blend follows, orig / (high - low) and low / (high - low), so with the original
// context (the file's, else Llama 3's 8192) the parameters follow, and every divisor is
// then checked against the ones they give. Anything else in rope_freqs is refused.
bool FitLlama3(ConfigContext* c, const GgufTensorInfo& t, uint64_t rotary_dim, double theta,
               std::string* error) {
  const std::string named = c->where + ": tensor 'rope_freqs.weight'";
  if (t.n_dims != 1 || t.ne[0] != rotary_dim / 2 || !CanDequantizeGgml(t.type)) {
    return Fail(error, named + " must be " + std::to_string(rotary_dim / 2) +
                           " f32 values (one per rotated pair)");
  }
  std::vector<float> r(t.elements);
  DequantizeGgml(t.type, t.data, t.elements, r.data());
  double factor = 1.0;
  for (float v : r) {
    if (!(v >= 1.0f) || !std::isfinite(v)) {
      return Fail(error, named + " holds " + Num(v) +
                             ": Llama 3 scaling divides frequencies by factors >= 1");
    }
    factor = std::max(factor, static_cast<double>(v));
  }
  if (factor == 1.0) return true;  // no scaling at all
  const double kPi = 3.14159265358979323846;
  // smooth = a / wavelength - b over the pairs strictly between the bands.
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  size_t n = 0;
  for (size_t i = 0; i < r.size(); ++i) {
    if (r[i] == 1.0f || r[i] == static_cast<float>(factor)) continue;
    const double f = std::pow(theta, -double(2 * i) / double(rotary_dim));
    const double x = f / (2 * kPi);
    const double y = (factor / r[i] - 1.0) / (factor - 1.0);
    sx += x; sy += y; sxx += x * x; sxy += x * y;
    ++n;
  }
  const double det = double(n) * sxx - sx * sx;
  if (n < 2 || !(std::fabs(det) > 0)) {
    return Fail(error, named + " has fewer than two blended pairs: attnrt cannot tell its "
                               "Llama 3 scaling parameters");
  }
  const double a = (double(n) * sxy - sx * sy) / det;
  const double b = -(sy - a * sx) / double(n);
  uint64_t original = 8192;
  if (!OptionalUIntKey(*c, "rope.scaling.original_context_length", &original, error)) return false;
  if (!(a > 0) || original == 0) return Fail(error, named + " is not Llama 3 scaling");
  const double low = b * double(original) / a;
  const double high = low + double(original) / a;
  RopeScaling s;
  s.kind = RopeScalingKind::kLlama3;
  s.factor = factor;
  s.low_freq_factor = low;
  s.high_freq_factor = high;
  s.original_max_positions = double(original);
  for (size_t i = 0; i < r.size(); ++i) {
    const double f = std::pow(theta, -double(2 * i) / double(rotary_dim));
    const double divisor = f / RopeFrequency(i, rotary_dim, theta, s);
    if (!(low > 0) || !(high > low) || !(std::fabs(divisor - r[i]) <= 1e-4 * r[i])) {
      return Fail(error, named + " is not Llama 3 scaling: pair " + std::to_string(i) +
                             " divides by " + Num(r[i]) + ", the best Llama 3 fit by " +
                             Num(divisor));
    }
  }
  c->ours["rope_scaling_type"] = "llama3";
  c->ours["rope_scaling_factor"] = factor;
  c->ours["rope_low_freq_factor"] = low;
  c->ours["rope_high_freq_factor"] = high;
  c->ours["rope_original_max_positions"] = original;
  return true;
}

// RoPE: style, rotated dims (rope.dimension_count), linear scaling; YaRN and LongRoPE are
// refused by name.
bool RopeStep(ConfigContext* c, uint64_t head_dim, std::string* error) {
  c->ours["rope_style"] = c->family.rope_style;
  uint64_t rotary = head_dim;
  if (!OptionalUIntKey(*c, "rope.dimension_count", &rotary, error)) return false;
  if (rotary != head_dim) {
    if (c->family.record == Architecture::kLlama && c->family.rope_style[0] == 'i') {
      // llama.cpp refuses it too (llama-model.cpp: "invalid n_rot").
      return Fail(error, c->Named("rope.dimension_count") + " (" + std::to_string(rotary) +
                             ") must equal the head size (" + std::to_string(head_dim) +
                             ") for llama");
    }
    c->ours["rotary_dim"] = rotary;
  }
  std::string type = "linear";  // llama.cpp's default: a factor alone is linear scaling
  if (const GgufValue* v = c->Key("rope.scaling.type")) {
    if (!v->AsString(&type)) {
      return Fail(error, c->Named("rope.scaling.type") + " must be a string, got " + v->Describe());
    }
  }
  double factor = 0, attn_factor = 1;
  if (c->Key("rope.scaling.factor") != nullptr) {
    if (!OptionalNumberKey(*c, "rope.scaling.factor", &factor, error)) return false;
  } else if (!OptionalNumberKey(*c, "rope.scale_linear", &factor, error)) {
    return false;
  }
  if (!OptionalNumberKey(*c, "rope.scaling.attn_factor", &attn_factor, error)) return false;
  if (attn_factor != 1.0) {
    return Fail(error, c->Named("rope.scaling.attn_factor") + " is " + Num(attn_factor) +
                           " (attnrt runs 1)");
  }
  if (type == "yarn" || type == "longrope") {
    return Fail(error, c->Named("rope.scaling.type") + " '" + type +
                           "' is not supported (attnrt runs none, linear and Llama 3 scaling)");
  }
  if (type != "none" && type != "linear") {
    return Fail(error, c->Named("rope.scaling.type") + " '" + type + "' is not a RoPE scaling "
                           "attnrt knows (none, linear)");
  }
  if (type == "linear" && factor != 0.0 && factor != 1.0) {
    if (!(factor > 1.0)) {
      return Fail(error, c->Named("rope.scaling.factor") + " is " + Num(factor) +
                             " (a linear factor must be >= 1)");
    }
    c->ours["rope_scaling_type"] = "linear";
    c->ours["rope_scaling_factor"] = factor;
  }
  if (const GgufTensorInfo* freqs = c->gguf.FindTensor("rope_freqs.weight")) {
    if (c->family.record != Architecture::kLlama || c->ours.contains("rope_scaling_type")) {
      return Fail(error, c->where + ": tensor 'rope_freqs.weight' is only read as Llama 3 "
                                    "scaling of a llama model without other scaling");
    }
    double theta = 10000;
    if (!OptionalNumberKey(*c, "rope.freq_base", &theta, error)) return false;
    if (!(theta > 0)) return Fail(error, c->Named("rope.freq_base") + " must be positive");
    return FitLlama3(c, *freqs, rotary, theta, error);
  }
  return true;
}

// Gemma 3 (llama.cpp's gemma3.cpp): with a sliding window, layer l is global when
// l % pattern == pattern - 1 (pattern 6 unless the file says), or as a per-layer bool
// array says; the local layers use rope.freq_base_swa (10000) unscaled. Queries are
// scaled by key_length^-1/2, or (embedding_length / head_count)^-1/2 for the 62-layer 27B.
bool Gemma3Step(ConfigContext* c, uint64_t head_dim, std::string* error) {
  for (const char* cap : {"final_logit_softcapping", "attn_logit_softcapping"}) {
    double v = 0;
    if (!OptionalNumberKey(*c, cap, &v, error)) return false;
    if (v != 0.0) {
      return Fail(error, c->Named(cap) + " is " + Num(v) + ": attnrt runs Gemma 3 "
                                         "without softcapping");
    }
  }
  uint64_t layers = 0, dim = 0, heads = 0, window = 0;
  if (!UIntKey(*c, "block_count", &layers, error) || !UIntKey(*c, "embedding_length", &dim, error) ||
      !UIntKey(*c, "attention.head_count", &heads, error) ||
      !OptionalUIntKey(*c, "attention.sliding_window", &window, error)) {
    return false;
  }
  const double scalar = layers == 62 ? double(dim / heads) : double(head_dim);
  c->ours["query_pre_attn_scalar"] = scalar;
  if (window == 0) return true;  // llama.cpp: no window, every layer global at rope.freq_base
  if (layers > 1024) return true;  // the record's reader refuses the layer count by name
  c->ours["sliding_window"] = window;
  double local_theta = 10000;
  if (!OptionalNumberKey(*c, "rope.freq_base_swa", &local_theta, error)) return false;
  c->ours["rope_local_theta"] = local_theta;
  std::string types;
  const GgufValue* pattern = c->Key("attention.sliding_window_pattern");
  if (pattern != nullptr && pattern->type == GgufType::kArray) {
    if (pattern->element_type != GgufType::kBool || pattern->count != layers) {
      return Fail(error, c->Named("attention.sliding_window_pattern") + " must be " +
                             std::to_string(layers) + " bools (one per layer), got " +
                             pattern->Describe());
    }
    for (uint64_t l = 0; l < layers; ++l) {
      double swa = 0;
      pattern->NumberAt(l, &swa);
      types += std::string(l == 0 ? "" : ",") + (swa != 0 ? "sliding_attention" : "full_attention");
    }
  } else {
    uint64_t n = 6;
    if (!OptionalUIntKey(*c, "attention.sliding_window_pattern", &n, error)) return false;
    for (uint64_t l = 0; l < layers; ++l) {
      const bool swa = n == 0 || l % n < n - 1;
      types += std::string(l == 0 ? "" : ",") + (swa ? "sliding_attention" : "full_attention");
    }
  }
  c->ours["layer_types"] = types;
  return true;
}

// llama: a sliding window the file states is applied (Mistral's). llama.cpp's llama graph
// has none and its converter writes none, so files it wrote never carry one.
bool WindowStep(ConfigContext* c, std::string* error) {
  uint64_t window = 0;
  if (!OptionalUIntKey(*c, "attention.sliding_window", &window, error)) return false;
  if (c->family.sliding_window && window != 0) c->ours["sliding_window"] = window;
  return true;
}

// vocab_size from token_embd (llama.cpp takes it from the tokenizer; they must agree).
bool VocabStep(ConfigContext* c, std::string* error) {
  const GgufTensorInfo* embd = c->gguf.FindTensor("token_embd.weight");
  if (embd == nullptr || embd->n_dims != 2) {
    return Fail(error, c->where + ": no 2-D tensor 'token_embd.weight' (the token embedding)");
  }
  const uint64_t vocab = embd->ne[1];
  uint64_t stated = vocab;
  if (!OptionalUIntKey(*c, "vocab_size", &stated, error)) return false;
  if (stated != vocab) {
    return Fail(error, c->Named("vocab_size") + " (" + std::to_string(stated) +
                           ") differs from token_embd.weight's " + std::to_string(vocab) + " rows");
  }
  if (const GgufValue* tokens = c->gguf.Find("tokenizer.ggml.tokens")) {
    if (tokens->type == GgufType::kArray && tokens->count != vocab) {
      return Fail(error, c->where + ": tokenizer.ggml.tokens has " + std::to_string(tokens->count) +
                             " tokens but token_embd.weight has " + std::to_string(vocab) + " rows");
    }
  }
  c->ours["vocab_size"] = vocab;
  return true;
}

Json ToJson(const GgufValue& v) {
  double d = 0;
  switch (v.type) {
    case GgufType::kString: return std::string(v.text);
    case GgufType::kBool: return v.bits != 0;
    case GgufType::kF32: case GgufType::kF64: v.AsNumber(&d); return d;
    case GgufType::kI8: case GgufType::kI16: case GgufType::kI32: case GgufType::kI64:
      v.AsNumber(&d);
      return static_cast<int64_t>(d);
    case GgufType::kArray: break;
    default: return v.bits;
  }
  Json a = Json::array();
  for (const std::string_view s : v.strings) a.push_back(std::string(s));
  for (const GgufValue& item : v.items) a.push_back(ToJson(item));
  if (v.raw != nullptr) {
    for (uint64_t i = 0; i < v.count; ++i) {
      GgufValue e;
      e.type = v.element_type;
      uint64_t u = 0;
      if (v.element_type == GgufType::kF32 || v.element_type == GgufType::kF64 ||
          v.element_type == GgufType::kBool || !v.UIntAt(i, &u)) {
        v.NumberAt(i, &d);
        if (v.element_type == GgufType::kBool) {
          a.push_back(d != 0);
        } else if (v.element_type == GgufType::kF32 || v.element_type == GgufType::kF64) {
          a.push_back(d);
        } else {
          a.push_back(static_cast<int64_t>(d));  // a negative integer
        }
      } else {
        a.push_back(u);
      }
    }
  }
  return a;
}

// Where in the tokenizer keys text that is not UTF-8 is: "KEY" or "KEY[i]".
std::string FirstNonUtf8(const Json& tokenizer) {
  auto valid = [](const Json& v) {
    try {
      v.dump();
      return true;
    } catch (const nlohmann::json::type_error&) {
      return false;
    }
  };
  for (auto it = tokenizer.begin(); it != tokenizer.end(); ++it) {
    if (valid(*it)) continue;
    for (size_t i = 0; it->is_array() && i < it->size(); ++i) {
      if (!valid((*it)[i])) return it.key() + "[" + std::to_string(i) + "]";
    }
    return it.key();
  }
  return "the tokenizer metadata";
}

}  // namespace

bool GgufTokenizerJson(const GgufFile& gguf, const std::string& source, std::string* json,
                       std::string* error) {
  json->clear();
  Json tokenizer = Json::object();
  for (const GgufKeyValue& kv : gguf.metadata) {
    if (kv.key.compare(0, 10, "tokenizer.") == 0) tokenizer[kv.key] = ToJson(kv.value);
  }
  if (tokenizer.empty()) return true;
  try {
    *json = tokenizer.dump();
  } catch (const nlohmann::json::type_error&) {
    return Fail(error, source + ": " + FirstNonUtf8(tokenizer) + " is not UTF-8");
  }
  return true;
}

namespace {

// llama.cpp ends a generation at the end-of-generation ids the file names (eos, eot, eom);
// attnrt's generate and chat stop at the same ones (lm_eos.h).
bool KeepEosIds(const ConfigContext& c, WeightFileWriter* writer, std::string* error) {
  const uint64_t vocab = c.ours.at("vocab_size").get<uint64_t>();
  std::vector<int64_t> ids;
  for (const char* key : {"tokenizer.ggml.eos_token_id", "tokenizer.ggml.eot_token_id",
                          "tokenizer.ggml.eom_token_id"}) {
    const GgufValue* v = c.gguf.Find(key);
    if (v == nullptr) continue;
    uint64_t id = 0;
    if (!v->AsUInt(&id) || id >= vocab) {
      return Fail(error, c.where + ": " + key + " " + v->Describe() +
                             " is not a token id in [0, " + std::to_string(vocab) + ")");
    }
    if (std::find(ids.begin(), ids.end(), static_cast<int64_t>(id)) == ids.end()) {
      ids.push_back(static_cast<int64_t>(id));
    }
  }
  WriteEosTokenIds(ids, writer);
  return true;
}

// The tokenizer.* keys as one JSON object, the eos ids, and "source".
bool KeepMetadata(const ConfigContext& c, WeightFileWriter* writer, std::string* error) {
  std::string tokenizer;
  if (!GgufTokenizerJson(c.gguf, c.where, &tokenizer, error)) return false;
  if (!tokenizer.empty()) writer->SetString("gguf.tokenizer", tokenizer);
  if (!KeepEosIds(c, writer, error)) return false;
  std::string name;
  if (const GgufValue* v = c.gguf.Find("general.name")) v->AsString(&name);
  writer->SetString("source", "GGUF " + c.arch + " file (version " +
                                  std::to_string(c.gguf.version) + ")" +
                                  (name.empty() ? "" : ", general.name '" + name + "'"));
  return true;
}

bool PrepareImpl(const GgufFile& gguf, const std::string& source, WeightFileWriter* writer,
                 ModelConfig* config, GgufImport* import, std::string* error) {
  const GgufValue* arch_value = gguf.Find("general.architecture");
  std::string arch;
  if (arch_value == nullptr || !arch_value->AsString(&arch)) {
    return Fail(error, source + ": general.architecture is missing or not a string");
  }
  const GgufFamily* family = FindGgufFamily(arch);
  if (family == nullptr) {
    return Fail(error, source + ": general.architecture '" + arch +
                           "' is not supported (attnrt imports " + GgufFamilyNames() + ")");
  }
  if (const GgufValue* split = gguf.Find("split.count")) {
    uint64_t n = 0;
    if (!split->AsUInt(&n) || n > 1) {
      return Fail(error, source + ": a split GGUF (split.count " + split->Describe() +
                             "): merge it first (llama-gguf-split --merge)");
    }
  }
  ConfigContext c{gguf, *family, source, arch};
  uint64_t head_dim = 0;
  if (!CopyKeys(&c, error) || !CommonStep(&c, &head_dim, error) || !VocabStep(&c, error)) {
    return false;
  }
  if (family->rope_style != nullptr && !RopeStep(&c, head_dim, error)) return false;
  if (family->record == Architecture::kGemma3 && !Gemma3Step(&c, head_dim, error)) return false;
  if (family->record == Architecture::kLlama && !WindowStep(&c, error)) return false;
  JsonConfig translated;
  const std::string as_ours =
      source + " (as attnrt's " + ArchitectureName(family->record) + " keys)";
  if (!ParseJsonConfig(c.ours.dump(), as_ours, &translated, error) ||
      !WriteConfigMetadata(family->record, translated, writer, error)) {
    return false;
  }
  if (!DeriveConfig(*writer, config, error)) {  // the runtime's checks name no file
    *error = WithPath(as_ours, *error);
    return false;
  }
  if (!KeepMetadata(c, writer, error)) return false;
  import->family = family;
  return true;
}

// ---- the tensor step ----

// A tensor of the file, or a row range of a fused one, by the name it would have apart.
struct Source {
  std::string name;     // llama.cpp's name ("blk.0.attn_q.weight")
  std::string origin;   // for messages: the file's tensor (and the part)
  uint32_t type = 0;
  std::vector<size_t> shape;  // C order
  const uint8_t* data = nullptr;
  size_t bytes = 0;
  bool used = false;
};

size_t Elements(const std::vector<size_t>& shape) {
  size_t n = 1;
  for (size_t d : shape) n *= d;  // the reader checked every product
  return n;
}

// Splits a tensor's rows (its first C-order dimension; the elements of a vector) into
// named parts; every part is whole blocks, so quantized data splits byte for byte.
bool SplitRows(const GgufTensorInfo& t, const std::vector<std::pair<std::string, size_t>>& parts,
               const std::string& where, std::vector<Source>* out, std::string* error) {
  const std::vector<size_t> shape = t.TorchShape();
  const GgmlTypeInfo* info = FindGgmlType(t.type);
  size_t total = 0;
  for (const auto& p : parts) total += p.second;
  if (shape.empty() || shape[0] != total || shape.size() > 2) {
    return Fail(error, where + ": tensor '" + t.name + "' has shape " + npy::ShapeString(shape) +
                           "; its parts need " + std::to_string(total) + " rows");
  }
  const size_t row_elements = shape.size() == 2 ? shape[1] : 1;
  size_t first = 0;
  for (const auto& p : parts) {
    const size_t elements = p.second * row_elements;
    if (elements % info->block != 0 || (first * row_elements) % info->block != 0) {
      return Fail(error, where + ": tensor '" + t.name + "' (" + info->name +
                             ") cannot be split at whole blocks");
    }
    Source s;
    s.name = p.first;
    s.origin = t.name + " (" + p.first + " part)";
    s.type = t.type;
    s.shape = shape;
    s.shape[0] = p.second;
    s.data = t.data + first * row_elements / info->block * info->bytes;
    s.bytes = elements / info->block * info->bytes;
    out->push_back(s);
    first += p.second;
  }
  return true;
}

bool EndsWith(const std::string& s, const char* suffix) {
  const size_t n = std::strlen(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

// The file's tensors with fused q|k|v (attn_qkv) and Phi-3's gate|up (ffn_up) split.
bool CollectSources(const GgufFamily& family, const ModelConfig& c, const GgufFile& gguf,
                    const std::string& where, std::vector<Source>* out, std::string* error) {
  const size_t q = c.heads * c.qk_dim, kv = c.kv_heads * c.qk_dim;
  for (const GgufTensorInfo& t : gguf.tensors) {
    if (t.name == "rope_freqs.weight" && family.record == Architecture::kLlama) continue;
    const std::string stem = t.name.substr(0, t.name.rfind('.') + 1);  // "blk.0.attn_qkv."
    const std::string kind = t.name.substr(stem.size());              // "weight" or "bias"
    if (EndsWith(stem, ".attn_qkv.")) {
      const std::string blk = stem.substr(0, stem.size() - 9);
      if (!SplitRows(t, {{blk + "attn_q." + kind, q}, {blk + "attn_k." + kind, kv},
                         {blk + "attn_v." + kind, kv}},
                     where, out, error)) {
        return false;
      }
      continue;
    }
    if (family.fused_gate_up && t.name.compare(0, 4, "blk.") == 0 &&
        EndsWith(t.name, ".ffn_up.weight")) {
      const std::string blk = stem.substr(0, stem.size() - 7);
      if (!SplitRows(t, {{blk + "ffn_gate.weight", c.ff_dim}, {blk + "ffn_up.weight", c.ff_dim}},
                     where, out, error)) {
        return false;
      }
      continue;
    }
    Source s;
    s.name = s.origin = t.name;
    s.type = t.type;
    s.shape = t.TorchShape();
    s.data = t.data;
    s.bytes = t.bytes;
    out->push_back(s);
  }
  for (size_t i = 0; i < out->size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if ((*out)[i].name == (*out)[j].name) {
        return Fail(error, where + ": tensor '" + (*out)[i].name + "' is in the file twice (" +
                               (*out)[j].origin + ", " + (*out)[i].origin + ")");
      }
    }
  }
  return true;
}

// The record's name -> llama.cpp's, for every tensor of this config.
std::map<std::string, std::string> NameMap(const GgufFamily& f, const ModelConfig& c) {
  std::map<std::string, std::string> names;
  const std::string pattern = ArchitectureLayerPrefix(c.arch);
  for (size_t l = 0; l < c.num_layers; ++l) {
    std::string prefix = pattern;
    const size_t at = prefix.find("{i}");
    if (at != std::string::npos) prefix.replace(at, 3, std::to_string(l));
    for (size_t i = 0; i < f.layer_tensor_count; ++i) {
      names[prefix + f.layer_tensors[i].ours] =
          "blk." + std::to_string(l) + "." + f.layer_tensors[i].gguf;
    }
  }
  for (size_t i = 0; i < f.model_tensor_count; ++i) {
    names[f.model_tensors[i].ours] = f.model_tensors[i].gguf;
  }
  return names;
}

// The attnrt type a file type is kept as, value for value; false for none.
bool KeptType(uint32_t ggml, WeightType* out) {
  switch (static_cast<GgmlType>(ggml)) {
    case GgmlType::kF32: *out = WeightType::kF32; return true;
    case GgmlType::kF16: *out = WeightType::kF16; return true;
    case GgmlType::kBF16: *out = WeightType::kBF16; return true;
    case GgmlType::kQ8_0: *out = WeightType::kQ8; return true;  // the same int8 and f16 scales
    case GgmlType::kQ4_0: *out = WeightType::kQ4_0; return true;  // q4_0 is block_q4_0
    case GgmlType::kQ4_K: *out = WeightType::kQ4_K; return true;  // q4_K is block_q4_K
    case GgmlType::kQ6_K: *out = WeightType::kQ6_K; return true;  // q6_K is block_q6_K
    default: return false;
  }
}

// The bytes of a kept matrix in attnrt's layout: F32/F16/BF16, Q4_0, Q4_K and Q6_K as they
// are (the block types' f16 scales checked finite, as the runtime will); Q8_0's in-block
// scales moved to q8's scale plane, each checked finite (q8 stores no other).
bool KeptBytes(const Source& s, WeightType type, size_t rows, size_t cols,
               const std::string& named, std::vector<uint8_t>* out, std::string* error) {
  const BlockF16Field* fields = nullptr;
  if (const size_t field_count = SuperBlockF16Fields(type, &fields)) {
    const WeightTypeInfo& info = *FindWeightType(type);
    if (!RowWidthIsStorable(info, cols)) {  // GGUF's own rule too; the reader may not check it
      return Fail(error, named + ": rows of " + std::to_string(cols) + " values are not whole " +
                             std::to_string(info.block) + "-value blocks");
    }
    const size_t blocks = WeightBlocksPerRow(info, cols);
    for (size_t r = 0; r < rows; ++r) {
      for (size_t b = 0; b < blocks; ++b) {
        for (size_t f = 0; f < field_count; ++f) {
          const uint8_t* at = s.data + (r * blocks + b) * info.bytes + fields[f].at;
          if (((at[0] | at[1] << 8) & 0x7C00) == 0x7C00) {
            return Fail(error, named + ": block " + std::to_string(b) + " of row " +
                                   std::to_string(r) + " has a " + fields[f].name +
                                   " that is not finite");
          }
        }
      }
    }
  }
  if (type == WeightType::kQ4_0) {
    const size_t blocks = WeightBlocksPerRow(kQ4_0Info, cols);
    for (size_t r = 0; r < rows; ++r) {
      for (size_t b = 0; b < blocks; ++b) {
        const uint8_t* block = s.data + (r * blocks + b) * kQ4_0BlockBytes;
        if ((Q4_0ScaleBits(block) & 0x7C00u) == 0x7C00u) {
          return Fail(error, named + ": block " + std::to_string(b) + " of row " +
                                 std::to_string(r) + " has a scale that is not finite");
        }
      }
    }
  }
  if (type != WeightType::kQ8) {
    out->assign(s.data, s.data + s.bytes);
    return true;
  }
  size_t bytes = 0;
  MatrixBytes(type, rows, cols, &bytes);  // no larger than the Q8_0 data the reader bounded
  out->assign(bytes, 0);
  const size_t blocks = cols / 32, row_bytes = blocks * 34;
  uint16_t* scales = reinterpret_cast<uint16_t*>(out->data() + Q8ScalesOffset(rows, cols));
  for (size_t r = 0; r < rows; ++r) {
    SplitQ8_0Row(s.data + r * row_bytes, cols, reinterpret_cast<int8_t*>(out->data() + r * cols),
                 scales + r * blocks);
    for (size_t b = 0; b < blocks; ++b) {
      if ((scales[r * blocks + b] & 0x7C00u) == 0x7C00u) {
        return Fail(error, named + ": block " + std::to_string(b) + " of row " +
                               std::to_string(r) + " has a scale that is not finite");
      }
    }
  }
  return true;
}

// ||decoded - x|| / ||x|| of an encoded matrix against its source values.
double RelativeRms(WeightType type, const std::vector<uint8_t>& bytes, size_t rows, size_t cols,
                   const std::vector<float>& x) {
  const void* scales =
      type == WeightType::kQ8 ? bytes.data() + Q8ScalesOffset(rows, cols) : nullptr;
  std::vector<float> row(cols);
  double err = 0, ref = 0;
  for (size_t r = 0; r < rows; ++r) {
    WidenMatrixRow(type, bytes.data(), scales, cols, r, row.data());
    for (size_t k = 0; k < cols; ++k) {
      const double d = double(row[k]) - double(x[r * cols + k]);
      err += d * d;
      ref += double(x[r * cols + k]) * x[r * cols + k];
    }
  }
  if (ref == 0) return err == 0 ? 0.0 : INFINITY;
  return std::sqrt(err / ref);
}

bool AddOne(const Source& s, const TensorSpec& spec, const TensorStorage& storage,
            const std::string& where, WeightFileWriter* writer, std::vector<GgufTensorNote>* notes,
            std::string* error) {
  const GgmlTypeInfo* info = FindGgmlType(s.type);
  const std::string named = where + ": tensor '" + s.origin + "' (" + info->name + ")";
  WeightType kept = WeightType::kF32;
  const bool keepable = KeptType(s.type, &kept);
  if (spec.matrix && !keepable && storage.keep) {
    return Fail(error, named + " is a type attnrt does not run: give --dtype (" +
                           WeightTypeNames() + ") or --dtype-for CLASS=TYPE to re-encode it, "
                           "with the loss reported per tensor");
  }
  if (!CanDequantizeGgml(s.type)) {
    return Fail(error, named + ": attnrt cannot read this type (it reads F32, F16, BF16, Q4_0, "
                               "Q4_1, Q5_0, Q5_1, Q8_0, Q4_K, Q5_K, Q6_K)");
  }
  const size_t n = Elements(s.shape);
  const size_t rows = s.shape.empty() ? 1 : s.shape[0];
  const size_t cols = rows == 0 ? 0 : n / rows;
  std::vector<uint8_t> bytes;
  if (spec.matrix && keepable && (storage.keep || storage.type == kept)) {
    if (!KeptBytes(s, kept, rows, cols, named, &bytes, error)) return false;
    GgufTensorNote note{spec.name, s.origin, info->name, kept, false, 0.0};
    notes->push_back(note);
    return writer->AddTensorEncoded(spec.name, s.shape, kept, bytes.data(), bytes.size(), error);
  }
  std::vector<float> values(n);
  DequantizeGgml(s.type, s.data, n, values.data());
  if (!spec.matrix) return writer->AddTensor(spec.name, s.shape, values.data(), WeightType::kF32, error);
  std::string encode_error;
  if (!EncodeMatrix(storage.type, rows, cols, values.data(), &bytes, &encode_error)) {
    return Fail(error, named + " as " + WeightTypeName(storage.type) + ": " + encode_error);
  }
  GgufTensorNote note{spec.name, s.origin, info->name, storage.type, true,
                      RelativeRms(storage.type, bytes, rows, cols, values)};
  notes->push_back(note);
  return writer->AddTensorEncoded(spec.name, s.shape, storage.type, bytes.data(), bytes.size(),
                                  error);
}

// True when the file has no output matrix of its own (llama.cpp then reads token_embd).
bool OutputTied(const ModelConfig& config, const std::map<std::string, std::string>& names,
                const std::vector<Source>& sources) {
  const size_t n = ModelTensorCount(config);
  for (size_t i = 0; i < n; ++i) {
    TensorSpec spec;
    if (!ModelTensorAt(config, i, &spec) || !spec.optional || spec.role != MatrixRole::kOutput) {
      continue;
    }
    const auto name = names.find(spec.name);
    if (name == names.end()) return false;  // AddImpl names the missing mapping
    for (const Source& s : sources) {
      if (s.name == name->second) return false;
    }
    return true;
  }
  return false;
}

bool AddImpl(const GgufImport& import, const ModelConfig& config, const GgufFile& gguf,
             const std::string& source, const MatrixTypeRequest& types,
             WeightFileWriter* writer, std::vector<GgufTensorNote>* notes, std::string* error) {
  const GgufFamily& family = *import.family;
  std::vector<Source> sources;
  if (!CollectSources(family, config, gguf, source, &sources, error)) return false;
  const std::map<std::string, std::string> names = NameMap(family, config);
  std::vector<TensorStorage> storage;
  if (!ChooseTensorStorage(types, config, OutputTied(config, names, sources), &storage, error)) {
    return Fail(error, source + ": " + *error);
  }
  const size_t n = ModelTensorCount(config);
  for (size_t i = 0; i < n; ++i) {
    TensorSpec spec;
    if (!ModelTensorAt(config, i, &spec)) return Fail(error, "internal: record tensor " + std::to_string(i));
    const auto name = names.find(spec.name);
    if (name == names.end()) {
      return Fail(error, std::string("internal: no GGUF name for ") + spec.name);
    }
    Source* s = nullptr;
    for (Source& candidate : sources) {
      if (candidate.name == name->second) s = &candidate;
    }
    const std::vector<size_t> want(spec.shape.dims, spec.shape.dims + spec.shape.rank);
    if (s == nullptr) {
      if (spec.optional) continue;  // output.weight: tied to token_embd, as llama.cpp does
      return Fail(error, source + ": missing tensor '" + name->second + "' (expected shape " +
                             npy::ShapeString(want) + ") for " + family.arch);
    }
    if (s->shape != want) {
      return Fail(error, source + ": tensor '" + s->origin + "' has shape " +
                             npy::ShapeString(s->shape) + " but the config implies " +
                             npy::ShapeString(want));
    }
    s->used = true;
    if (!AddOne(*s, spec, storage[i], source, writer, notes, error)) return false;
  }
  for (const Source& s : sources) {
    if (!s.used) {
      return Fail(error, source + ": unexpected tensor '" + s.origin + "' for " + family.arch +
                             " (attnrt does not run it; refused rather than ignored)");
    }
  }
  return true;
}

}  // namespace

bool PrepareGgufConversion(const GgufFile& gguf, const std::string& source,
                           WeightFileWriter* writer, ModelConfig* config, GgufImport* import,
                           std::string* error) {
  try {
    return PrepareImpl(gguf, source, writer, config, import, error);
  } catch (const std::bad_alloc&) {
    return Fail(error, source + ": out of memory while reading the GGUF metadata");
  }
}

bool AddGgufTensors(const GgufImport& import, const ModelConfig& config, const GgufFile& gguf,
                    const std::string& source, const MatrixTypeRequest& types,
                    WeightFileWriter* writer, std::vector<GgufTensorNote>* notes,
                    std::string* error) {
  try {
    return AddImpl(import, config, gguf, source, types, writer, notes, error);
  } catch (const std::bad_alloc&) {
    return Fail(error, source + ": out of memory while converting the GGUF tensors");
  }
}

}  // namespace attnrt
