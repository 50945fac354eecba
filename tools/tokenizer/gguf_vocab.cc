// TranslateGgufTokenizer (see gguf_vocab.h).
#include "tokenizer/gguf_vocab.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "tokenizer/bpe_model.h"
#include "tokenizer/gguf_pre.h"
#include "tokenizer/gguf_token_rules.h"
#include "tokenizer/utf8.h"

namespace attnrt::tok {
namespace {

// llama.cpp's token types (llama_token_type).
constexpr int kUnknown = 2, kControl = 3, kUserDefined = 4, kMaxType = 6;
constexpr const char* kSpace = "\xe2\x96\x81";  // U+2581, SentencePiece's space

struct Vocab {
  std::vector<std::string> tokens;
  std::vector<float> scores;   // 0 when the file has none
  std::vector<int> types;      // 1 (normal) when the file has none
  std::unordered_map<std::string, uint32_t> ids;
  int64_t Find(const std::string& text) const {
    const auto it = ids.find(text);
    return it == ids.end() ? -1 : static_cast<int64_t>(it->second);
  }
};

using MergeRow = BpeModel::MergeRow;

const Json* Key(const Json& meta, const char* key) {
  const auto it = meta.find(key);
  return it == meta.end() ? nullptr : &*it;
}

// An optional array of `n` elements, each accepted by `ok`.
bool ParallelArray(const Json& meta, const char* key, size_t n, const char* what,
                   const std::function<bool(const Json&)>& ok, const Json** out,
                   std::string* error) {
  *out = Key(meta, key);
  if (*out == nullptr) return true;
  if (!(*out)->is_array()) {
    *error = std::string(key) + " must be a list";
    return false;
  }
  if ((*out)->size() != n) {
    *error = std::string(key) + " has " + std::to_string((*out)->size()) + " entries for " +
             std::to_string(n) + " tokens (tokenizer.ggml.tokens)";
    return false;
  }
  for (size_t i = 0; i < n; ++i) {
    if (!ok((**out)[i])) {
      *error = std::string(key) + "[" + std::to_string(i) + "] is " + (**out)[i].dump() +
               ", not " + what;
      return false;
    }
  }
  return true;
}

bool ReadVocab(const Json& meta, Vocab* v, std::string* error) {
  const Json* tokens = Key(meta, "tokenizer.ggml.tokens");
  if (tokens == nullptr || !tokens->is_array() || tokens->empty()) {
    *error = "tokenizer.ggml.tokens is missing or not a non-empty list";
    return false;
  }
  const size_t n = tokens->size();
  if (n > UINT32_MAX / 2) {
    *error = "tokenizer.ggml.tokens has too many tokens";
    return false;
  }
  v->tokens.reserve(n);
  v->ids.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    const Json& t = (*tokens)[i];
    if (!t.is_string()) {
      *error = "tokenizer.ggml.tokens[" + std::to_string(i) + "] is not a string";
      return false;
    }
    std::string text = t.get<std::string>();
    if (text.empty()) text = "[EMPTY_" + std::to_string(i) + "]";  // as llama.cpp names it
    const auto [it, added] = v->ids.emplace(text, static_cast<uint32_t>(i));
    if (!added) {
      *error = "tokenizer.ggml.tokens[" + std::to_string(i) + "] repeats token " +
               std::to_string(it->second) + " " + t.dump() + " (not supported)";
      return false;
    }
    v->tokens.push_back(std::move(text));
  }
  const Json* scores = nullptr;
  const Json* types = nullptr;
  if (!ParallelArray(meta, "tokenizer.ggml.scores", n, "a number",
                     [](const Json& s) { return s.is_number() && !std::isnan(s.get<double>()); },
                     &scores, error) ||
      !ParallelArray(meta, "tokenizer.ggml.token_type", n, "a token type 0..6",
                     [](const Json& s) {
                       return s.is_number_integer() && s.get<int64_t>() >= 0 &&
                              s.get<int64_t>() <= kMaxType;
                     },
                     &types, error)) {
    return false;
  }
  v->scores.assign(n, 0.0f);
  v->types.assign(n, 1);
  for (size_t i = 0; i < n; ++i) {
    if (scores != nullptr) v->scores[i] = static_cast<float>((*scores)[i].get<double>());
    if (types != nullptr) v->types[i] = static_cast<int>((*types)[i].get<int64_t>());
  }
  ApplyLlamaCppTokenRules(meta, v->ids, &v->types);
  return true;
}

// A special id: the key's value when it names a token, else llama.cpp's default for the
// model (-1: none), as llama.cpp falls back.
bool SpecialId(const Json& meta, const char* key, int64_t fallback, size_t n, int64_t* id,
               std::string* error) {
  *id = fallback >= 0 && static_cast<size_t>(fallback) < n ? fallback : -1;
  const Json* v = Key(meta, key);
  if (v == nullptr) return true;
  if (!v->is_number_integer()) {
    *error = std::string(key) + " is " + v->dump() + ", not a token id";
    return false;
  }
  if (v->get<int64_t>() >= 0 && static_cast<uint64_t>(v->get<int64_t>()) < n) *id = v->get<int64_t>();
  return true;
}

bool Flag(const Json& meta, const char* key, bool fallback, bool* out, std::string* error) {
  *out = fallback;
  const Json* v = Key(meta, key);
  if (v == nullptr) return true;
  if (!v->is_boolean()) {
    *error = std::string(key) + " is " + v->dump() + ", not true or false";
    return false;
  }
  *out = v->get<bool>();
  return true;
}

// SentencePiece as llama.cpp runs it: every split of a token into two tokens merges into it,
// ranked by the token's score, highest first; equal scores share a rank, so the leftmost pair
// goes first, as in llama.cpp's queue.
std::vector<MergeRow> ScoreMerges(const Vocab& v) {
  std::vector<float> distinct = v.scores;
  std::sort(distinct.begin(), distinct.end(), std::greater<float>());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  auto rank_of = [&distinct](float score) {
    return static_cast<uint32_t>(std::lower_bound(distinct.begin(), distinct.end(), score,
                                                  std::greater<float>()) -
                                 distinct.begin());
  };
  std::vector<MergeRow> rows;
  for (uint32_t id = 0; id < v.tokens.size(); ++id) {
    const std::string& t = v.tokens[id];
    const uint32_t rank = rank_of(v.scores[id]);
    for (size_t at = SequenceLength(static_cast<uint8_t>(t[0])); at < t.size();
         at += SequenceLength(static_cast<uint8_t>(t[at]))) {
      const int64_t left = v.Find(t.substr(0, at)), right = v.Find(t.substr(at));
      if (left >= 0 && right >= 0) {
        rows.push_back({static_cast<uint32_t>(left), static_cast<uint32_t>(right), rank, id});
      }
    }
  }
  return rows;
}

// tokenizer.ggml.merges ("a b", split at the first space after the first byte as llama.cpp
// does), ranked by position; a repeated pair keeps its first rank, as llama.cpp's map does.
bool ListedMerges(const Json& meta, const Vocab& v, std::vector<MergeRow>* rows,
                  std::string* error) {
  const Json* merges = Key(meta, "tokenizer.ggml.merges");
  if (merges == nullptr || !merges->is_array()) {
    *error = "tokenizer.ggml.merges is missing or not a list (a gpt2 tokenizer needs it)";
    return false;
  }
  std::unordered_set<uint64_t> seen;
  for (size_t i = 0; i < merges->size(); ++i) {
    const Json& m = (*merges)[i];
    const std::string at = "tokenizer.ggml.merges[" + std::to_string(i) + "]";
    const size_t space = m.is_string() ? m.get_ref<const std::string&>().find(' ', 1)
                                       : std::string::npos;
    if (space == std::string::npos) {
      *error = at + " is " + m.dump() + ", not two tokens separated by a space";
      return false;
    }
    const std::string& s = m.get_ref<const std::string&>();
    const int64_t left = v.Find(s.substr(0, space)), right = v.Find(s.substr(space + 1));
    const int64_t merged = v.Find(s.substr(0, space) + s.substr(space + 1));
    if (left < 0 || right < 0 || merged < 0) {
      *error = at + " " + m.dump() + ": " +
               (left < 0 || right < 0 ? "a part" : "the joined text") +
               " is not a token (not supported)";
      return false;
    }
    if (!seen.insert(static_cast<uint64_t>(left) << 32 | static_cast<uint64_t>(right)).second) {
      continue;
    }
    rows->push_back({static_cast<uint32_t>(left), static_cast<uint32_t>(right),
                    static_cast<uint32_t>(i), static_cast<uint32_t>(merged)});
  }
  return true;
}

// Control, user-defined and unknown tokens, found whole in the raw text (llama.cpp's special
// tokens cache); user-defined ones stay in decoded text as llama.cpp renders them.
Json AddedTokens(const Vocab& v) {
  Json added = Json::array();
  for (uint32_t id = 0; id < v.tokens.size(); ++id) {
    const int type = v.types[id];
    if (type != kUnknown && type != kControl && type != kUserDefined) continue;
    added.push_back({{"id", id}, {"content", v.tokens[id]}, {"single_word", false},
                     {"lstrip", false}, {"rstrip", false}, {"normalized", false},
                     {"special", type != kUserDefined}});
  }
  return added;
}

Json StringReplace(const std::string& from, const std::string& to) {
  return {{"type", "Replace"}, {"pattern", {{"String", from}}}, {"content", to}};
}

void SentencePieceParts(bool add_space_prefix, int64_t unk, const Vocab& v, Json* root) {
  Json normalizers = Json::array();
  if (add_space_prefix) normalizers.push_back({{"type", "Prepend"}, {"prepend", kSpace}});
  normalizers.push_back(StringReplace(" ", kSpace));
  (*root)["normalizer"] = {{"type", "Sequence"}, {"normalizers", normalizers}};
  (*root)["model"] = {{"type", "BPE"}, {"byte_fallback", true}, {"fuse_unk", false},
                      {"unk_token", unk >= 0 ? Json(v.tokens[unk]) : Json()}};
  Json decoders = {StringReplace(kSpace, " "), {{"type", "ByteFallback"}}, {{"type", "Fuse"}}};
  if (add_space_prefix) {
    decoders.push_back({{"type", "Strip"}, {"content", " "}, {"start", 1u}, {"stop", 0u}});
  }
  (*root)["decoder"] = {{"type", "Sequence"}, {"decoders", decoders}};
}

// The BOS / EOS llama.cpp adds with add_special, as tokenizer.json says it.
Json BosEosTemplate(bool add_bos, int64_t bos, bool add_eos, int64_t eos) {
  Json single = Json::array(), specials = Json::object();
  auto special = [&](const char* name, int64_t id) {
    single.push_back({{"SpecialToken", {{"id", name}, {"type_id", 0u}}}});
    specials[name] = {{"id", name}, {"ids", {static_cast<uint64_t>(id)}}, {"tokens", {name}}};
  };
  if (add_bos) special("bos", bos);
  single.push_back({{"Sequence", {{"id", "A"}, {"type_id", 0u}}}});
  if (add_eos) special("eos", eos);
  return {{"type", "TemplateProcessing"}, {"single", single}, {"special_tokens", specials}};
}

void ByteLevelParts(const GgufPre& pre, Json* root) {
  Json steps = Json::array();
  for (const std::string& regex : pre.regexes) {
    steps.push_back({{"type", "Split"}, {"pattern", {{"Regex", regex}}},
                     {"behavior", "Isolated"}, {"invert", false}});
  }
  steps.push_back({{"type", "ByteLevel"}, {"add_prefix_space", false}, {"trim_offsets", false},
                   {"use_regex", false}});
  (*root)["pre_tokenizer"] = {{"type", "Sequence"}, {"pretokenizers", steps}};
  (*root)["model"] = {{"type", "BPE"}, {"ignore_merges", pre.ignore_merges}};
  (*root)["decoder"] = {{"type", "ByteLevel"}};
}

}  // namespace

void GgufTokenizer::WriteTables(CompactWriter* out) const {
  std::vector<std::pair<uint32_t, std::string_view>> ids;
  ids.reserve(tokens.size());
  for (uint32_t id = 0; id < tokens.size(); ++id) ids.emplace_back(id, tokens[id]);
  BpeModel::WriteTables(ids, static_cast<uint32_t>(tokens.size() - 1), merges, out);
}

bool TranslateGgufTokenizer(const Json& meta, GgufTokenizer* out, std::string* error) {
  if (!meta.is_object()) {
    *error = "the GGUF tokenizer metadata is not a JSON object";
    return false;
  }
  const Json* model = Key(meta, "tokenizer.ggml.model");
  if (model == nullptr || !model->is_string()) {
    *error = "tokenizer.ggml.model is missing or not a string";
    return false;
  }
  const std::string kind = model->get<std::string>();
  if (kind != "llama" && kind != "gpt2") {
    *error = "tokenizer.ggml.model '" + kind + "' is not supported (supported: llama, gpt2)";
    return false;
  }
  const bool spm = kind == "llama";
  GgufPre pre;
  if (!spm) {
    const Json* name = Key(meta, "tokenizer.ggml.pre");
    if (name != nullptr && !name->is_string()) {
      *error = "tokenizer.ggml.pre is not a string";
      return false;
    }
    const std::string pre_name = name == nullptr ? "" : name->get<std::string>();
    if (!FindGgufPre(pre_name, &pre)) {
      *error = "tokenizer.ggml.pre '" + pre_name + "' is not a pre-tokenizer attnrt knows (" +
               KnownGgufPreNames() + ")";
      return false;
    }
  }
  Vocab v;
  if (!ReadVocab(meta, &v, error)) return false;
  const size_t n = v.tokens.size();
  int64_t bos = -1, eos = -1, unk = -1;
  bool add_space_prefix = true, add_bos = false, add_eos = false;
  if (!SpecialId(meta, "tokenizer.ggml.bos_token_id", spm ? 1 : 11, n, &bos, error) ||
      !SpecialId(meta, "tokenizer.ggml.eos_token_id", spm ? 2 : 11, n, &eos, error) ||
      !SpecialId(meta, "tokenizer.ggml.unknown_token_id", spm ? 0 : -1, n, &unk, error) ||
      !Flag(meta, "tokenizer.ggml.add_bos_token", spm || pre.add_bos, &add_bos, error) ||
      !Flag(meta, "tokenizer.ggml.add_eos_token", false, &add_eos, error) ||
      !Flag(meta, "tokenizer.ggml.add_space_prefix", spm, &add_space_prefix, error)) {
    return false;
  }
  if ((add_bos && bos < 0) || (add_eos && eos < 0)) {
    *error = std::string(add_bos && bos < 0 ? "tokenizer.ggml.add_bos_token" :
                                              "tokenizer.ggml.add_eos_token") +
             " is true but the file names no such token";
    return false;
  }
  out->config = Json{{"clean_up_tokenization_spaces", !spm && pre.clean_spaces}}.dump();
  out->merges.clear();
  if (spm) {
    out->merges = ScoreMerges(v);
  } else if (!ListedMerges(meta, v, &out->merges, error)) {
    return false;
  }
  out->root = Json::object();
  out->root["added_tokens"] = AddedTokens(v);
  out->root["post_processor"] = BosEosTemplate(add_bos, bos, add_eos, eos);
  if (spm) {
    SentencePieceParts(add_space_prefix, unk, v, &out->root);
  } else {
    ByteLevelParts(pre, &out->root);
  }
  out->tokens = std::move(v.tokens);
  return true;
}

}  // namespace attnrt::tok
