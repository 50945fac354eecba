// The Hugging Face families (see hf_families.h). Defaults are the transformers
// config classes' (LlamaConfig, MistralConfig, Qwen2Config, Qwen3Config,
// Gemma3TextConfig, Phi3Config, GPT2Config); the steps below follow each family's
// modelling code.
#include "convert/hf_families.h"

#include <cmath>
#include <cstring>
#include <utility>
#include <vector>

#include "npy/npy.h"

namespace attnrt {

using Json = nlohmann::json;

const HfKeyRule kHfCommonRules[] = {
    {"architectures", nullptr},  // read by the importer
    {"model_type", nullptr},     // checked by the importer
    {"_name_or_path", nullptr},
    {"transformers_version", nullptr},
    {"torch_dtype", nullptr},  // the stored dtype is each tensor's own
    {"dtype", nullptr},
    {"use_cache", nullptr},
    {"initializer_range", nullptr},
    {"bos_token_id", nullptr},  // kept with config.json and generation_config.json
    {"eos_token_id", nullptr},
    {"pad_token_id", nullptr},
    {"tie_word_embeddings", nullptr},  // the importer ties or refuses
    {"output_attentions", nullptr},
    {"output_hidden_states", nullptr},
    {"return_dict", nullptr},
    {"torchscript", nullptr},
    {"auto_map", nullptr},
    {"transformers.js_config", nullptr},
    {"is_llama_config", nullptr},  // SmolLM's marker
    {"pretraining_tp", nullptr},   // training-time slicing; the same product at inference
    {"max_window_layers", nullptr},  // Qwen: only with use_sliding_window
    {"cache_implementation", nullptr},
    {"quantization_config", "null"},  // a quantized checkpoint: its own format
};
const size_t kHfCommonRuleCount = sizeof(kHfCommonRules) / sizeof(kHfCommonRules[0]);

namespace {

bool Fail(std::string* error, const std::string& message) {
  *error = message;
  return false;
}

// ---- config steps ----

// One RoPE object: rope_scaling {"rope_type" (or "type"): "default" | "linear" |
// "llama3", ...}, or transformers 5's rope_parameters, which also holds rope_theta.
// `theta_key` receives rope_theta when the object has one (nullptr: it may not).
bool TranslateRopeObject(const Json& rs, const std::string& what, const char* theta_key,
                         Json* ours, std::string* error) {
  if (!rs.is_object()) return Fail(error, "config.json: " + what + " must be null or an object");
  std::string type = "default";
  for (const char* key : {"rope_type", "type"}) {
    if (rs.contains(key) && rs[key].is_string()) type = rs[key].get<std::string>();
  }
  std::vector<std::string> allowed = {"rope_type", "type"};
  if (theta_key != nullptr) allowed.push_back("rope_theta");
  if (type == "linear") {
    allowed.push_back("factor");
  } else if (type == "llama3") {
    for (const char* k : {"factor", "low_freq_factor", "high_freq_factor",
                          "original_max_position_embeddings"}) {
      allowed.push_back(k);
    }
  } else if (type != "default") {
    return Fail(error, "config.json: " + what + " type '" + type +
                           "' is not supported (attnrt runs default, linear, llama3)");
  }
  for (const auto& item : rs.items()) {
    bool known = false;
    for (const std::string& k : allowed) known = known || item.key() == k;
    if (!known) {
      return Fail(error, "config.json: " + what + " key '" + item.key() +
                             "' is not supported for " + type + " RoPE");
    }
  }
  if (theta_key != nullptr && rs.contains("rope_theta")) (*ours)[theta_key] = rs["rope_theta"];
  if (type == "default") return true;
  for (const std::string& k : allowed) {
    if (k != "rope_type" && k != "type" && k != "rope_theta" && !rs.contains(k)) {
      return Fail(error, "config.json: " + what + " (" + type + ") has no '" + k + "'");
    }
  }
  (*ours)["rope_scaling_type"] = type;
  (*ours)["rope_scaling_factor"] = rs["factor"];
  if (type == "llama3") {
    (*ours)["rope_low_freq_factor"] = rs["low_freq_factor"];
    (*ours)["rope_high_freq_factor"] = rs["high_freq_factor"];
    (*ours)["rope_original_max_positions"] = rs["original_max_position_embeddings"];
  }
  return true;
}

// rope_scaling (null: none) and rope_parameters (transformers 5; null: none).
bool TranslateRopeScaling(const Json& hf, Json* ours, std::string* error) {
  const Json& scaling = hf.contains("rope_scaling") ? hf["rope_scaling"] : Json();
  if (!scaling.is_null() && !TranslateRopeObject(scaling, "rope_scaling", nullptr, ours, error)) {
    return false;
  }
  const Json& parameters = hf.contains("rope_parameters") ? hf["rope_parameters"] : Json();
  return parameters.is_null() ||
         TranslateRopeObject(parameters, "rope_parameters", "rope_theta", ours, error);
}

// Hugging Face rotates with rotate_half: the pairs (i, i + head_dim / 2).
bool TranslateLlamaLike(const Json& hf, Json* ours, std::string* error) {
  (*ours)["rope_style"] = "half";
  return TranslateRopeScaling(hf, ours, error);
}

// Qwen2 / Qwen3 slide their window only with use_sliding_window (refused); transformers
// 4.54+ also writes layer_types, which must then say full_attention for every layer.
bool TranslateQwen(const Json& hf, Json* ours, std::string* error) {
  const Json& types = hf.contains("layer_types") ? hf["layer_types"] : Json();
  if (!types.is_null()) {
    if (!types.is_array()) return Fail(error, "config.json: layer_types must be a list");
    for (const Json& t : types) {
      if (t != "full_attention") {
        return Fail(error, "config.json: layer_types entry " + t.dump() +
                               " is not supported for Qwen (sliding-window layers come with "
                               "use_sliding_window, which attnrt does not run)");
      }
    }
  }
  return TranslateLlamaLike(hf, ours, error);
}

// Phi-3 rotates the first head_dim * partial_rotary_factor dims of each head.
bool TranslatePhi3(const Json& hf, Json* ours, std::string* error) {
  if (!TranslateLlamaLike(hf, ours, error)) return false;
  const Json& factor = hf["partial_rotary_factor"];
  if (!factor.is_number() || !(factor.get<double>() > 0.0) || factor.get<double>() > 1.0) {
    return Fail(error, "config.json: partial_rotary_factor must be a number in (0, 1]");
  }
  if (!hf["hidden_size"].is_number_integer() || !hf["num_attention_heads"].is_number_integer() ||
      hf["num_attention_heads"].get<int64_t>() <= 0) {
    return true;  // the record's reader names the bad key
  }
  const int64_t head_dim =
      hf["hidden_size"].get<int64_t>() / hf["num_attention_heads"].get<int64_t>();
  // Phi3's modelling code: int(head_dim * partial_rotary_factor).
  const int64_t rotary = static_cast<int64_t>(static_cast<double>(head_dim) * factor.get<double>());
  if (rotary != head_dim) (*ours)["rotary_dim"] = rotary;
  return true;
}

// Gemma 3: layer_types, or the older sliding_window_pattern (every pattern-th layer
// is global), as the comma list the record reads.
bool TranslateGemma3(const Json& hf, Json* ours, std::string* error) {
  const Json& parameters = hf.contains("rope_parameters") ? hf["rope_parameters"] : Json();
  if (parameters.is_object() &&
      (parameters.contains("full_attention") || parameters.contains("sliding_attention"))) {
    // transformers 5: one RoPE object per layer type; the sliding layers' is unscaled.
    Json global = hf;
    global["rope_parameters"] = parameters.contains("full_attention") ? parameters["full_attention"]
                                                                      : Json();
    if (!TranslateLlamaLike(global, ours, error)) return false;
    if (parameters.contains("sliding_attention")) {
      Json local = Json::object();
      if (!TranslateRopeObject(parameters["sliding_attention"], "rope_parameters.sliding_attention",
                               "rope_local_theta", &local, error)) {
        return false;
      }
      if (local.contains("rope_scaling_type")) {
        return Fail(error, "config.json: rope_parameters.sliding_attention must not scale RoPE");
      }
      if (local.contains("rope_local_theta")) (*ours)["rope_local_theta"] = local["rope_local_theta"];
    }
    for (const auto& item : parameters.items()) {
      if (item.key() != "full_attention" && item.key() != "sliding_attention") {
        return Fail(error, "config.json: rope_parameters key '" + item.key() + "' is not a layer type");
      }
    }
  } else if (!TranslateLlamaLike(hf, ours, error)) {
    return false;
  }
  const Json& n = hf["num_hidden_layers"];
  if (!n.is_number_integer() || n.get<int64_t>() <= 0 || n.get<int64_t>() > 1024) return true;
  const int64_t layers = n.get<int64_t>();
  std::string types;
  const Json& listed = hf["layer_types"];
  if (listed.is_array()) {
    if (listed.size() != static_cast<size_t>(layers)) {
      return Fail(error, "config.json: layer_types names " + std::to_string(listed.size()) +
                             " layers, num_hidden_layers is " + std::to_string(layers));
    }
    for (const Json& t : listed) {
      if (!t.is_string() ||
          (t.get<std::string>() != "sliding_attention" && t.get<std::string>() != "full_attention")) {
        return Fail(error, "config.json: layer_types entry " + t.dump() +
                               " is not \"sliding_attention\" or \"full_attention\"");
      }
      types += (types.empty() ? "" : ",") + t.get<std::string>();
    }
  } else if (!listed.is_null()) {
    return Fail(error, "config.json: layer_types must be a list");
  } else {
    Json pattern = hf["sliding_window_pattern"];
    if (pattern.is_null()) pattern = hf["_sliding_window_pattern"];
    if (!pattern.is_number_integer() || pattern.get<int64_t>() <= 0) {
      return Fail(error, "config.json: sliding_window_pattern must be a positive integer");
    }
    for (int64_t l = 0; l < layers; ++l) {
      const bool global = (l + 1) % pattern.get<int64_t>() == 0;
      types += std::string(l == 0 ? "" : ",") + (global ? "full_attention" : "sliding_attention");
    }
  }
  (*ours)["layer_types"] = types;
  return true;
}

// GPT-2: n_inner null is 4 * n_embd.
bool TranslateGpt2(const Json& hf, Json* ours, std::string*) {
  if (!hf["n_inner"].is_null()) {
    (*ours)["hidden_dim"] = hf["n_inner"];  // the record's reader checks it
  } else if (hf["n_embd"].is_number_integer() && hf["n_embd"].get<int64_t>() > 0 &&
             hf["n_embd"].get<int64_t>() < (int64_t{1} << 40)) {
    (*ours)["hidden_dim"] = 4 * hf["n_embd"].get<int64_t>();
  }
  return true;
}

// ---- tensor steps ----

bool EndsWith(const std::string& s, const char* suffix) {
  const size_t n = std::strlen(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

SafetensorsTensor* FindTensor(SafetensorsFile* st, const std::string& name) {
  for (SafetensorsTensor& t : st->tensors) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

bool IsMatrix(const SafetensorsTensor& t, size_t rows, size_t cols) {
  return t.shape.size() == 2 && t.shape[0] == rows && t.shape[1] == cols;
}

// Replaces the (sum of `rows`, cols) matrix `name` by its row blocks, named `parts`.
bool SplitRows(SafetensorsFile* st, const std::string& name, size_t cols,
               const std::vector<std::pair<std::string, size_t>>& parts, std::string* error) {
  SafetensorsTensor* t = FindTensor(st, name);
  if (t == nullptr) return Fail(error, "missing tensor '" + name + "'");
  size_t total = 0;
  for (const auto& p : parts) total += p.second;
  if (!IsMatrix(*t, total, cols)) {
    return Fail(error, "tensor '" + name + "' has shape " + npy::ShapeString(t->shape) +
                           " but the config implies (" + std::to_string(total) + ", " +
                           std::to_string(cols) + ")");
  }
  const SafetensorsTensor whole = std::move(*t);
  st->tensors.erase(st->tensors.begin() + (t - st->tensors.data()));
  size_t first = 0;
  for (const auto& p : parts) {
    SafetensorsTensor part;
    part.name = p.first;
    part.shape = {p.second, cols};
    part.source_dtype = whole.source_dtype;
    part.values.assign(whole.values.begin() + first * cols,
                       whole.values.begin() + (first + p.second) * cols);
    first += p.second;
    st->tensors.push_back(std::move(part));
  }
  return true;
}

// Phi-3: qkv_proj rows are q (heads * hd), k, v (kv_heads * hd each); gate_up_proj's
// first half is the gate, the second the up projection (up * silu(gate)).
bool ReshapePhi3(const ModelConfig& c, SafetensorsFile* st, std::string* error) {
  for (size_t l = 0; l < c.num_layers; ++l) {
    const std::string p = "model.layers." + std::to_string(l) + ".";
    const size_t q = c.heads * c.qk_dim, kv = c.kv_heads * c.qk_dim;
    if (!SplitRows(st, p + "self_attn.qkv_proj.weight", c.model_dim,
                   {{p + "self_attn.q_proj.weight", q},
                    {p + "self_attn.k_proj.weight", kv},
                    {p + "self_attn.v_proj.weight", kv}},
                   error) ||
        !SplitRows(st, p + "mlp.gate_up_proj.weight", c.model_dim,
                   {{p + "mlp.gate_proj.weight", c.ff_dim}, {p + "mlp.up_proj.weight", c.ff_dim}},
                   error)) {
      return false;
    }
  }
  return true;
}

// Gemma's RMSNorm multiplies by (1 + w): the file stores 1 + w (float32, as Gemma
// computes it) and the runtime's RMSNorm multiplies by that.
bool ReshapeGemma3(const ModelConfig&, SafetensorsFile* st, std::string*) {
  for (SafetensorsTensor& t : st->tensors) {
    const std::string& n = t.name;
    if (EndsWith(n, "layernorm.weight") || EndsWith(n, "q_norm.weight") ||
        EndsWith(n, "k_norm.weight") ||
        n == "model.norm.weight") {
      for (float& v : t.values) v = 1.0f + v;
    }
  }
  return true;
}

// Transposes a (rows, cols) tensor in place.
void Transpose(SafetensorsTensor* t) {
  const size_t rows = t->shape[0], cols = t->shape[1];
  std::vector<float> out(t->values.size());
  for (size_t r = 0; r < rows; ++r) {
    for (size_t k = 0; k < cols; ++k) out[k * rows + r] = t->values[r * cols + k];
  }
  t->values = std::move(out);
  t->shape = {cols, rows};
}

// GPT-2's Conv1D stores (in, out) and computes x W + b; c_attn's out is q | k | v.
// The file holds (out, in) matrices with q, k, v apart. The attn.bias / attn.masked_bias
// buffers some checkpoints carry are the causal mask, which the runtime applies.
bool ReshapeGpt2(const ModelConfig& c, SafetensorsFile* st, std::string* error) {
  // A GPT2Model saved alone has no "transformer." prefix.
  for (SafetensorsTensor& t : st->tensors) {
    if (t.name.rfind("h.", 0) == 0 || t.name.rfind("wte.", 0) == 0 ||
        t.name.rfind("wpe.", 0) == 0 || t.name.rfind("ln_f.", 0) == 0) {
      t.name = "transformer." + t.name;
    }
  }
  std::vector<SafetensorsTensor> kept;
  for (SafetensorsTensor& t : st->tensors) {
    const std::string& n = t.name;
    if (!EndsWith(n, ".attn.bias") && !EndsWith(n, ".attn.masked_bias")) kept.push_back(std::move(t));
  }
  st->tensors = std::move(kept);
  const size_t d = c.model_dim, ff = c.ff_dim;
  for (size_t l = 0; l < c.num_layers; ++l) {
    const std::string p = "transformer.h." + std::to_string(l) + ".";
    for (const auto& m : std::vector<std::pair<std::string, std::pair<size_t, size_t>>>{
             {"attn.c_attn.weight", {d, 3 * d}},
             {"attn.c_proj.weight", {d, d}},
             {"mlp.c_fc.weight", {d, ff}},
             {"mlp.c_proj.weight", {ff, d}}}) {
      SafetensorsTensor* t = FindTensor(st, p + m.first);
      if (t == nullptr) return Fail(error, "missing tensor '" + p + m.first + "'");
      if (!IsMatrix(*t, m.second.first, m.second.second)) {
        return Fail(error, "tensor '" + p + m.first + "' has shape " + npy::ShapeString(t->shape) +
                               " but the config implies (" + std::to_string(m.second.first) +
                               ", " + std::to_string(m.second.second) + ") (Conv1D: in, out)");
      }
      Transpose(t);
    }
    if (!SplitRows(st, p + "attn.c_attn.weight", d,
                   {{p + "attn.q_proj.weight", d}, {p + "attn.k_proj.weight", d},
                    {p + "attn.v_proj.weight", d}},
                   error)) {
      return false;
    }
    SafetensorsTensor* bias = FindTensor(st, p + "attn.c_attn.bias");
    if (bias == nullptr) return Fail(error, "missing tensor '" + p + "attn.c_attn.bias'");
    if (bias->shape != std::vector<size_t>{3 * d}) {
      return Fail(error, "tensor '" + p + "attn.c_attn.bias' has shape " + npy::ShapeString(bias->shape) +
                             " but the config implies (" + std::to_string(3 * d) + ",)");
    }
    bias->shape = {3 * d, 1};  // a column, so SplitRows cuts it
    if (!SplitRows(st, p + "attn.c_attn.bias", 1,
                   {{p + "attn.q_proj.bias", d}, {p + "attn.k_proj.bias", d},
                    {p + "attn.v_proj.bias", d}},
                   error)) {
      return false;
    }
    for (const char* name : {"attn.q_proj.bias", "attn.k_proj.bias", "attn.v_proj.bias"}) {
      FindTensor(st, p + name)->shape = {d};
    }
  }
  return true;
}

// ---- the families ----

// Llama-like families: the activation must be SiLU, no biases where Llama has none.
const HfKeyRule kLlamaRules[] = {
    {"hidden_act", "\"silu\""},
    {"attention_bias", "false"},
    {"mlp_bias", "false"},
    {"sliding_window", "null"},  // LlamaConfig has none; Hugging Face would ignore it
    {"rope_scaling", nullptr},   // translate_config
    {"rope_parameters", nullptr},
    {"rope_interleaved", "false"},  // SmolLM's: rotate_half
};

const HfKeyRule kMistralRules[] = {
    {"hidden_act", "\"silu\""},
    {"rope_scaling", nullptr},
    {"rope_parameters", nullptr},
};

// Qwen2 and Qwen3 slide their window only with use_sliding_window.
const HfKeyRule kQwenRules[] = {
    {"hidden_act", "\"silu\""},
    {"attention_bias", "false"},  // Qwen3's (Qwen2's q/k/v biases are its record's)
    {"use_sliding_window", "false"},
    {"sliding_window", nullptr},
    {"layer_types", nullptr},  // translate_config: full_attention only
    {"rope_scaling", nullptr},
    {"rope_parameters", nullptr},
};

const HfKeyRule kGemma3Rules[] = {
    {"hidden_activation", "\"gelu_pytorch_tanh\""},
    {"hidden_act", "null|\"gelu_pytorch_tanh\""},
    {"attention_bias", "false"},
    {"attn_logit_softcapping", "null"},
    {"final_logit_softcapping", "null"},
    {"use_bidirectional_attention", "false"},
    {"rope_scaling", nullptr},
    {"rope_parameters", nullptr},
    {"sliding_window_pattern", nullptr},  // translate_config
    {"_sliding_window_pattern", nullptr},
    {"layer_types", nullptr},
};

const HfKeyRule kPhi3Rules[] = {
    {"hidden_act", "\"silu\""},
    {"attention_bias", "false"},
    {"resid_pdrop", nullptr},
    {"embd_pdrop", nullptr},
    {"original_max_position_embeddings", nullptr},  // used by longrope scaling only
    {"partial_rotary_factor", nullptr},              // translate_config
    {"rope_scaling", nullptr},
    {"rope_parameters", nullptr},
};

const HfKeyRule kGpt2Rules[] = {
    {"activation_function", "\"gelu_new\"|\"gelu_pytorch_tanh\""},
    {"n_ctx", nullptr},  // an old alias of n_positions
    {"n_inner", nullptr},  // translate_config
    {"resid_pdrop", nullptr},
    {"embd_pdrop", nullptr},
    {"attn_pdrop", nullptr},
    {"summary_type", nullptr},  // the sequence-summary head, not part of the LM
    {"summary_use_proj", nullptr},
    {"summary_activation", nullptr},
    {"summary_proj_to_labels", nullptr},
    {"summary_first_dropout", nullptr},
    {"task_specific_params", nullptr},
    {"scale_attn_weights", "true"},
    {"scale_attn_by_inverse_layer_idx", "false"},
    {"reorder_and_upcast_attn", nullptr},  // float32 attention math, as attnrt's
    {"add_cross_attention", "false"},
};

#define ATTNRT_RULES(rules) rules, sizeof(rules) / sizeof(rules[0])

const HfFamily kFamilies[] = {
    {"LlamaForCausalLM", "llama", Architecture::kLlama,
     R"({"vocab_size": 32000, "hidden_size": 4096, "intermediate_size": 11008,
         "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": null,
         "hidden_act": "silu", "max_position_embeddings": 2048, "rms_norm_eps": 1e-6,
         "tie_word_embeddings": false, "rope_theta": 10000.0, "rope_scaling": null,
         "attention_bias": false, "attention_dropout": 0.0, "mlp_bias": false,
         "head_dim": null})",
     ATTNRT_RULES(kLlamaRules), TranslateLlamaLike, nullptr},
    {"MistralForCausalLM", "mistral", Architecture::kLlama,
     R"({"vocab_size": 32000, "hidden_size": 4096, "intermediate_size": 14336,
         "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8,
         "head_dim": null, "hidden_act": "silu", "max_position_embeddings": 131072,
         "rms_norm_eps": 1e-6, "tie_word_embeddings": false, "rope_theta": 10000.0,
         "sliding_window": 4096, "attention_dropout": 0.0})",
     ATTNRT_RULES(kMistralRules), TranslateLlamaLike, nullptr},
    {"Qwen2ForCausalLM", "qwen2", Architecture::kQwen2,
     R"({"vocab_size": 151936, "hidden_size": 4096, "intermediate_size": 22016,
         "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 32,
         "hidden_act": "silu", "max_position_embeddings": 32768, "rms_norm_eps": 1e-6,
         "tie_word_embeddings": false, "rope_theta": 10000.0, "rope_scaling": null,
         "use_sliding_window": false, "sliding_window": 4096, "attention_dropout": 0.0})",
     ATTNRT_RULES(kQwenRules), TranslateQwen, nullptr},
    {"Qwen3ForCausalLM", "qwen3", Architecture::kQwen3,
     R"({"vocab_size": 151936, "hidden_size": 4096, "intermediate_size": 22016,
         "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 32,
         "head_dim": 128, "hidden_act": "silu", "max_position_embeddings": 32768,
         "rms_norm_eps": 1e-6, "tie_word_embeddings": false, "rope_theta": 10000.0,
         "rope_scaling": null, "attention_bias": false, "use_sliding_window": false,
         "sliding_window": 4096, "attention_dropout": 0.0})",
     ATTNRT_RULES(kQwenRules), TranslateQwen, nullptr},
    {"Gemma3ForCausalLM", "gemma3_text", Architecture::kGemma3,
     R"({"vocab_size": 262208, "hidden_size": 2304, "intermediate_size": 9216,
         "num_hidden_layers": 26, "num_attention_heads": 8, "num_key_value_heads": 4,
         "head_dim": 256, "hidden_activation": "gelu_pytorch_tanh",
         "max_position_embeddings": 131072, "rms_norm_eps": 1e-6, "tie_word_embeddings": true,
         "rope_theta": 1000000.0, "attention_bias": false, "attention_dropout": 0.0,
         "query_pre_attn_scalar": 256, "sliding_window": 4096, "layer_types": null,
         "sliding_window_pattern": 6, "final_logit_softcapping": null,
         "attn_logit_softcapping": null, "rope_scaling": null, "rope_local_base_freq": 10000.0,
         "use_bidirectional_attention": false})",
     ATTNRT_RULES(kGemma3Rules), TranslateGemma3, ReshapeGemma3},
    {"Phi3ForCausalLM", "phi3", Architecture::kLlama,
     R"({"vocab_size": 32064, "hidden_size": 3072, "intermediate_size": 8192,
         "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": null,
         "attention_dropout": 0.0, "hidden_act": "silu", "max_position_embeddings": 4096,
         "rms_norm_eps": 1e-5, "tie_word_embeddings": false, "rope_theta": 10000.0,
         "rope_scaling": null, "partial_rotary_factor": 1.0, "sliding_window": null})",
     ATTNRT_RULES(kPhi3Rules), TranslatePhi3, ReshapePhi3},
    {"GPT2LMHeadModel", "gpt2", Architecture::kGpt2,
     R"({"vocab_size": 50257, "n_positions": 1024, "n_embd": 768, "n_layer": 12,
         "n_head": 12, "n_inner": null, "activation_function": "gelu_new",
         "layer_norm_epsilon": 1e-5, "scale_attn_weights": true, "tie_word_embeddings": true,
         "scale_attn_by_inverse_layer_idx": false, "reorder_and_upcast_attn": false,
         "add_cross_attention": false})",
     ATTNRT_RULES(kGpt2Rules), TranslateGpt2, ReshapeGpt2},
};

}  // namespace

const HfFamily* FindHfFamily(const std::string& architecture) {
  for (const HfFamily& f : kFamilies) {
    if (architecture == f.architecture) return &f;
  }
  return nullptr;
}

std::string HfFamilyNames() {
  std::string names;
  for (const HfFamily& f : kFamilies) names += (names.empty() ? "" : ", ") + std::string(f.architecture);
  return names;
}

}  // namespace attnrt
