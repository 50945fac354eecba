// Tokenizer: tokenizer.json -> the components, transformers' tokenizer_config.json rules, and
// the encode / decode pipelines (see tokenizer.h).
#include "tokenizer/tokenizer.h"

#include <limits>

#include "host/json_config.h"
#include "tokenizer/added_vocabulary.h"
#include "tokenizer/bpe_model.h"
#include "tokenizer/compact_form.h"
#include "tokenizer/decoder.h"
#include "tokenizer/gguf_vocab.h"
#include "tokenizer/json_fields.h"
#include "tokenizer/normalizer.h"
#include "tokenizer/post_processor.h"
#include "tokenizer/pre_tokenizer.h"
#include "tokenizer/utf8.h"

namespace attnrt {

using tok::Json;

struct Tokenizer::Impl {
  tok::Normalizer normalizer;
  tok::PreTokenizer pre_tokenizer;
  tok::BpeModel model;
  tok::PostProcessor post_processor;
  tok::Decoder decoder;
  tok::AddedVocabulary added;
  bool clean_up_spaces = false;  // transformers' clean_up_tokenization_spaces

  // `compact`: the vocabulary and merges come from there, not from root's model.
  bool LoadTokenizerJson(const Json& root, tok::CompactReader* compact, std::string* error);
  bool ApplyConfig(const Json& config, const Json& root, std::string* error);
  int64_t TokenToId(const std::string& token) const {
    const int64_t added_id = added.IdOf(token);
    return added_id >= 0 ? added_id : model.TokenToId(token);
  }
};

namespace {

constexpr size_t kMaxJsonDepth = 64;

// The classes whose __init__ rebuilds the post-processor from add_bos_token / add_eos_token.
bool RebuildsBosEos(const std::string& tokenizer_class) {
  for (const char* name : {"LlamaTokenizer", "LlamaTokenizerFast", "CodeLlamaTokenizer",
                           "CodeLlamaTokenizerFast", "GemmaTokenizer", "GemmaTokenizerFast"}) {
    if (tokenizer_class == name) return true;
  }
  return false;
}

// A token named in tokenizer_config.json: "text" or {"content": "text", ...flags}.
bool ConfigToken(const Json& v, const std::string& where, tok::AddedToken* out,
                 std::string* error) {
  *out = tok::AddedToken();
  out->special = true;
  out->normalized = false;
  if (v.is_string()) {
    out->content = v.get<std::string>();
    return true;
  }
  if (v.is_object() && v.contains("content") && v["content"].is_string()) {
    out->content = v["content"].get<std::string>();
    return tok::GetBool(v, "lstrip", false, where, &out->lstrip, error) &&
           tok::GetBool(v, "rstrip", false, where, &out->rstrip, error) &&
           tok::GetBool(v, "single_word", false, where, &out->single_word, error) &&
           tok::GetBool(v, "normalized", false, where, &out->normalized, error);
  }
  *error = where + ": expected a token string or {\"content\": ...}";
  return false;
}

// transformers' clean_up_tokenization: spaces before punctuation and English contractions.
std::string CleanUpTokenizationSpaces(std::string text) {
  static const char* const kPairs[][2] = {
      {" .", "."}, {" ?", "?"}, {" !", "!"}, {" ,", ","}, {" ' ", "'"},
      {" n't", "n't"}, {" 'm", "'m"}, {" 's", "'s"}, {" 've", "'ve"}, {" 're", "'re"}};
  for (const auto& pair : kPairs) {
    const std::string from = pair[0], to = pair[1];
    std::string out;
    size_t prev = 0;
    for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, prev)) {
      out.append(text, prev, at - prev);
      out += to;
      prev = at + from.size();
    }
    out.append(text, prev, std::string::npos);
    text.swap(out);
  }
  return text;
}

}  // namespace

bool Tokenizer::Impl::LoadTokenizerJson(const Json& root, tok::CompactReader* compact,
                                        std::string* error) {
  if (!root.is_object()) {
    *error = "expected a JSON object";
    return false;
  }
  if (!tok::CheckKeys(root, "tokenizer.json",
                      {"version", "truncation", "padding", "added_tokens", "normalizer",
                       "pre_tokenizer", "model", "post_processor", "decoder"}, error)) {
    return false;
  }
  auto field = [&root](const char* key) {
    const auto it = root.find(key);
    return it == root.end() ? Json() : *it;
  };
  const Json model_json = field("model");
  std::string type = "BPE";  // files from before "type" existed hold a BPE model
  if (!model_json.is_object() ||
      (model_json.contains("type") && !tok::GetType(model_json, "model", &type, error))) {
    if (error->empty()) *error = "model: expected an object";
    return false;
  }
  if (type != "BPE") {
    *error = "model: the model type '" + type + "' is not supported (supported: BPE)";
    return false;
  }
  return normalizer.Load(field("normalizer"), "normalizer", error) &&
         pre_tokenizer.Load(field("pre_tokenizer"), "pre_tokenizer", error) &&
         (compact != nullptr ? model.LoadCompact(model_json, "model", compact, error)
                             : model.Load(model_json, "model", error)) &&
         post_processor.Load(field("post_processor"), "post_processor", error) &&
         decoder.Load(field("decoder"), "decoder", error) &&
         added.Load(field("added_tokens"), model, normalizer, error);
}

bool Tokenizer::Impl::ApplyConfig(const Json& config, const Json& root, std::string* error) {
  const std::string where = "tokenizer_config.json";
  if (!config.is_object()) {
    *error = where + ": expected a JSON object";
    return false;
  }
  std::string tokenizer_class;
  bool split_special = false;
  if (!tok::GetString(config, "tokenizer_class", "", where, &tokenizer_class, error) ||
      !tok::GetBool(config, "clean_up_tokenization_spaces", false, where, &clean_up_spaces,
                    error) ||
      !tok::GetBool(config, "split_special_tokens", false, where, &split_special, error)) {
    return false;
  }
  if (split_special) added.SetSplitSpecialTokens(true);

  // Tokens the config names that tokenizer.json does not have become special added tokens.
  std::vector<tok::AddedToken> missing;
  auto consider = [&](const Json& v, const std::string& at) {
    tok::AddedToken t;
    if (!ConfigToken(v, at, &t, error)) return false;
    if (added.IdOf(t.content) < 0) missing.push_back(t);
    return true;
  };
  for (const char* key : {"bos_token", "eos_token", "unk_token", "sep_token", "pad_token",
                          "cls_token", "mask_token"}) {
    const auto it = config.find(key);
    if (it != config.end() && !it->is_null() && !consider(*it, where + ": " + key)) return false;
  }
  for (const char* key : {"additional_special_tokens", "extra_special_tokens"}) {
    const auto it = config.find(key);
    if (it == config.end() || it->is_null()) continue;
    if (!it->is_array() && !it->is_object()) {
      *error = where + ": '" + key + "' must be a list or an object";
      return false;
    }
    for (const Json& v : *it) {
      if (!consider(v, where + ": " + key)) return false;
    }
  }
  // added_tokens_decoder normally repeats tokenizer.json; one that differs would be re-added
  // by transformers with its flags, which is not done here.
  const auto decoder_tokens = config.find("added_tokens_decoder");
  if (decoder_tokens != config.end() && decoder_tokens->is_object()) {
    for (auto it = decoder_tokens->begin(); it != decoder_tokens->end(); ++it) {
      tok::AddedToken t;
      if (!ConfigToken(*it, where + ": added_tokens_decoder", &t, error)) return false;
      bool special = t.special;
      if (!tok::GetBool(*it, "special", false, where, &special, error)) return false;
      const int64_t id = added.IdOf(t.content);
      const tok::AddedToken* have = id >= 0 ? added.ById(static_cast<uint32_t>(id)) : nullptr;
      if (have == nullptr || std::to_string(id) != it.key() || have->lstrip != t.lstrip ||
          have->rstrip != t.rstrip || have->single_word != t.single_word ||
          have->normalized != t.normalized || have->special != special) {
        *error = where + ": added_tokens_decoder entry " + it.key() + " " +
                 Json(t.content).dump() +
                 " differs from tokenizer.json's added tokens (not supported)";
        return false;
      }
    }
  }
  for (tok::AddedToken& t : missing) {
    // Repeats within `missing` are harmless: the second is an identical token.
    t.special = true;
  }
  if (!missing.empty() && !added.Add(missing, model, normalizer, error)) return false;

  // transformers moves add_prefix_space into a top-level pre-tokenizer that has the key.
  const auto prefix = config.find("add_prefix_space");
  if (prefix != config.end() && prefix->is_boolean()) {
    const Json& pre = root.contains("pre_tokenizer") ? root["pre_tokenizer"] : Json();
    if (RebuildsBosEos(tokenizer_class)) {
      *error = where + ": add_prefix_space with " + tokenizer_class +
               " rebuilds the tokenizer from its SentencePiece model (not supported)";
      return false;
    }
    if (pre.is_object() && pre.contains("add_prefix_space") && pre["add_prefix_space"] != *prefix) {
      *error = where + ": add_prefix_space " + prefix->dump() +
               " overrides the pre-tokenizer's (not supported)";
      return false;
    }
  }
  if (!RebuildsBosEos(tokenizer_class)) return true;
  bool from_slow = false, add_bos = true, add_eos = false;
  if (!tok::GetBool(config, "from_slow", false, where, &from_slow, error) ||
      !tok::GetBool(config, "add_bos_token", true, where, &add_bos, error) ||
      !tok::GetBool(config, "add_eos_token", false, where, &add_eos, error)) {
    return false;
  }
  if (from_slow) {
    *error = where + ": from_slow rebuilds the tokenizer from its SentencePiece model (not supported)";
    return false;
  }
  int64_t ids[2] = {0, 0};
  const char* keys[2] = {"bos_token", "eos_token"};
  const bool wanted[2] = {add_bos, add_eos};
  for (int k = 0; k < 2; ++k) {
    if (!wanted[k]) continue;
    const auto it = config.find(keys[k]);
    tok::AddedToken t;
    if (it == config.end() || it->is_null()) {
      *error = where + ": add_" + std::string(keys[k]) + " is true but " + keys[k] + " is not set";
      return false;
    }
    if (!ConfigToken(*it, where + ": " + keys[k], &t, error)) return false;
    ids[k] = TokenToId(t.content);
    if (ids[k] < 0) {
      *error = where + ": " + keys[k] + " " + Json(t.content).dump() + " is not in the vocabulary";
      return false;
    }
  }
  post_processor.SetBosEos(add_bos, static_cast<uint32_t>(ids[0]), add_eos,
                           static_cast<uint32_t>(ids[1]));
  return true;
}

Tokenizer::Tokenizer() = default;
Tokenizer::~Tokenizer() = default;
Tokenizer::Tokenizer(Tokenizer&&) noexcept = default;
Tokenizer& Tokenizer::operator=(Tokenizer&&) noexcept = default;

bool Tokenizer::Load(std::string_view tokenizer_json, std::string_view config_json,
                     const std::string& name, Tokenizer* out, std::string* error) {
  // Offsets inside the tables are 32-bit; no real tokenizer.json is near this.
  constexpr size_t kMaxBytes = size_t{1} << 31;
  if (tokenizer_json.size() >= kMaxBytes || config_json.size() >= kMaxBytes) {
    *error = name + ": tokenizer files of 2 GiB or more are not supported";
    return false;
  }
  auto impl = std::make_unique<Impl>();
  Json root, config;
  std::string why;
  if (!ParseJson(tokenizer_json.data(), tokenizer_json.size(), "tokenizer.json", kMaxJsonDepth,
                 &root, &why) ||
      !impl->LoadTokenizerJson(root, nullptr, &why) ||
      (!config_json.empty() &&
       (!ParseJson(config_json.data(), config_json.size(), "tokenizer_config.json",
                   kMaxJsonDepth, &config, &why) ||
        !impl->ApplyConfig(config, root, &why)))) {
    *error = name + ": " + why;
    return false;
  }
  out->impl_ = std::move(impl);
  return true;
}

namespace {

constexpr const char* kCompactMagic = "attnrt tokenizer, compact form";
constexpr uint32_t kCompactVersion = 1;

// tokenizer.json without the vocabulary and merges, which the compact form keeps as tables.
Json WithoutTables(Json root) {
  auto model = root.find("model");
  if (model != root.end() && model->is_object()) {
    model->erase("vocab");
    model->erase("merges");
  }
  return root;
}

// The compact form's header: what precedes the tables.
void BeginCompact(Json root, std::string_view config_json, tok::CompactWriter* out) {
  out->Bytes(kCompactMagic);
  out->U32(kCompactVersion);
  out->Bytes(WithoutTables(std::move(root)).dump());
  out->Bytes(config_json);
}

}  // namespace

bool Tokenizer::Compile(std::string_view tokenizer_json, std::string_view config_json,
                        const std::string& name, std::string* compact, std::string* error) {
  Tokenizer t;
  if (!Load(tokenizer_json, config_json, name, &t, error)) return false;
  Json root;
  std::string why;
  if (!ParseJson(tokenizer_json.data(), tokenizer_json.size(), "tokenizer.json", kMaxJsonDepth,
                 &root, &why)) {
    *error = name + ": " + why;
    return false;
  }
  tok::CompactWriter out;
  BeginCompact(std::move(root), config_json, &out);
  t.impl_->model.AppendTables(&out);
  *compact = out.Finish();
  return true;
}

bool Tokenizer::CompileGguf(std::string_view metadata_json, const std::string& name,
                            std::string* compact, std::string* error) {
  Json meta;
  tok::GgufTokenizer gguf;
  std::string why;
  if (!ParseJson(metadata_json.data(), metadata_json.size(), kGgufMetadataKey, kMaxJsonDepth,
                 &meta, &why) ||
      !tok::TranslateGgufTokenizer(meta, &gguf, &why)) {
    *error = name + ": GGUF tokenizer: " + why;
    return false;
  }
  tok::CompactWriter out;
  BeginCompact(std::move(gguf.root), gguf.config, &out);
  gguf.WriteTables(&out);
  *compact = out.Finish();
  return true;
}

bool Tokenizer::LoadGguf(std::string_view metadata_json, const std::string& name,
                         Tokenizer* out, std::string* error) {
  std::string compact;
  bool stale = false;
  return CompileGguf(metadata_json, name, &compact, error) &&
         LoadCompact(compact, name, out, &stale, error);
}

bool Tokenizer::LoadCompact(std::string_view compact, const std::string& name, Tokenizer* out,
                            bool* stale, std::string* error) {
  *stale = false;
  tok::CompactReader in;
  std::string_view magic, json, config;
  uint32_t version = 0;
  if (!in.Open(compact) || !in.Bytes(&magic) || magic != kCompactMagic || !in.U32(&version)) {
    *error = name + ": the compact tokenizer is damaged (no header)";
    return false;
  }
  if (version != kCompactVersion) {
    *stale = true;
    *error = name + ": the compact tokenizer has version " + std::to_string(version) +
             ", this attnrt reads version " + std::to_string(kCompactVersion);
    return false;
  }
  auto impl = std::make_unique<Impl>();
  Json root, config_root;
  std::string why;
  const bool ok =
      in.Bytes(&json) && in.Bytes(&config) &&
      ParseJson(json.data(), json.size(), "tokenizer.json", kMaxJsonDepth, &root, &why) &&
      impl->LoadTokenizerJson(root, &in, &why) &&
      (config.empty() || (ParseJson(config.data(), config.size(), "tokenizer_config.json",
                                    kMaxJsonDepth, &config_root, &why) &&
                          impl->ApplyConfig(config_root, root, &why)));
  if (!ok || in.remaining() != 0) {
    *error = name + ": compact tokenizer: " + (why.empty() ? "damaged" : why);
    return false;
  }
  out->impl_ = std::move(impl);
  return true;
}

bool Tokenizer::Encode(std::string_view text, bool add_special_tokens, std::vector<uint32_t>* ids,
                       std::string* error) const {
  ids->clear();
  if (!impl_) {
    *error = "no tokenizer loaded";
    return false;
  }
  const size_t bad = tok::FirstInvalidUtf8(text);
  if (bad != std::string_view::npos) {
    *error = "the text is not valid UTF-8 (byte " + std::to_string(bad) + ")";
    return false;
  }
  std::vector<tok::Piece> pieces;
  if (!impl_->added.ExtractAndNormalize(text, impl_->normalizer, &pieces, error) ||
      !impl_->pre_tokenizer.Apply(&pieces, error)) {
    return false;
  }
  for (const tok::Piece& p : pieces) {
    if (p.token_id >= 0) {
      ids->push_back(static_cast<uint32_t>(p.token_id));
    } else if (!impl_->model.Tokenize(p.text, ids, error)) {
      return false;
    }
  }
  if (add_special_tokens) impl_->post_processor.Apply(ids);
  return true;
}

bool Tokenizer::Decode(const std::vector<uint32_t>& ids, bool skip_special_tokens,
                       std::string* text, std::string* error) const {
  text->clear();
  if (!impl_) {
    *error = "no tokenizer loaded";
    return false;
  }
  std::vector<std::string> tokens;
  tokens.reserve(ids.size());
  for (uint32_t id : ids) {
    const tok::AddedToken* added = impl_->added.ById(id);
    std::string_view token;
    if (added != nullptr) token = added->content;
    else if (!impl_->model.IdToToken(id, &token)) continue;
    if (skip_special_tokens && impl_->added.IsSpecial(token)) continue;
    tokens.emplace_back(token);
  }
  if (!impl_->decoder.Decode(std::move(tokens), text, error)) return false;
  if (impl_->clean_up_spaces) *text = CleanUpTokenizationSpaces(std::move(*text));
  return true;
}

}  // namespace attnrt
