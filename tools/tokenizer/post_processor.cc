// PostProcessor (see post_processor.h).
#include "tokenizer/post_processor.h"

#include <map>

namespace attnrt::tok {

bool PostProcessor::Load(const Json& j, const std::string& where, std::string* error) {
  steps_.clear();
  if (j.is_null()) return true;
  return LoadComponents(j, where, "processors", Bind(this, &PostProcessor::LoadOne), error);
}

void PostProcessor::SetBosEos(bool add_bos, uint32_t bos, bool add_eos, uint32_t eos) {
  steps_.clear();
  Wrap w;
  if (add_bos) w.before.push_back(bos);
  if (add_eos) w.after.push_back(eos);
  steps_.push_back(std::move(w));
}

bool PostProcessor::LoadTemplate(const Json& j, const std::string& at, std::string* error) {
  if (!CheckKeys(j, at, {"type", "single", "pair", "special_tokens"}, error)) return false;
  // special_tokens: name -> {"id": name, "ids": [...], "tokens": [...]}
  std::map<std::string, std::vector<uint32_t>> specials;
  const auto st = j.find("special_tokens");
  if (st != j.end() && !st->is_null()) {
    if (!st->is_object()) {
      *error = at + ": 'special_tokens' must be an object";
      return false;
    }
    for (auto it = st->begin(); it != st->end(); ++it) {
      const Json& ids = it->is_object() && it->contains("ids") ? (*it)["ids"] : Json();
      std::vector<uint32_t> list;
      bool ok = ids.is_array();
      for (const Json& id : ids) {
        ok = ok && id.is_number_unsigned() && id.get<uint64_t>() <= UINT32_MAX;
        if (ok) list.push_back(id.get<uint32_t>());
      }
      if (!ok) {
        *error = at + ": special token '" + it.key() + "' has no valid 'ids' list";
        return false;
      }
      specials[it.key()] = std::move(list);
    }
  }
  const auto single = j.find("single");
  if (single == j.end() || !single->is_array()) {
    *error = at + ": expected a 'single' template list";
    return false;
  }
  Wrap w;
  bool seen_a = false;
  for (const Json& piece : *single) {
    const std::string where = at + ".single";
    if (piece.is_object() && piece.size() == 1 && piece.contains("SpecialToken")) {
      const Json& s = piece["SpecialToken"];
      const std::string name = s.is_object() && s.contains("id") && s["id"].is_string()
                                   ? s["id"].get<std::string>() : "";
      const auto found = specials.find(name);
      if (found == specials.end()) {
        *error = where + ": the special token '" + name + "' is not in special_tokens";
        return false;
      }
      std::vector<uint32_t>& side = seen_a ? w.after : w.before;
      side.insert(side.end(), found->second.begin(), found->second.end());
    } else if (piece.is_object() && piece.size() == 1 && piece.contains("Sequence")) {
      const Json& s = piece["Sequence"];
      if (!s.is_object() || !s.contains("id") || s["id"] != "A" || seen_a) {
        *error = where + ": a single-sequence template takes the sequence A once, got " +
                 piece.dump();
        return false;
      }
      seen_a = true;
    } else {
      *error = where + ": unknown template piece " + piece.dump();
      return false;
    }
  }
  if (!seen_a) {
    *error = at + ".single: the template has no sequence A";
    return false;
  }
  steps_.push_back(std::move(w));
  return true;
}

bool PostProcessor::LoadClsSep(const Json& j, const std::string& at, std::string* error) {
  if (!CheckKeys(j, at, {"type", "cls", "sep", "trim_offsets", "add_prefix_space"}, error)) {
    return false;
  }
  Wrap w;
  for (const char* key : {"cls", "sep"}) {
    const auto it = j.find(key);
    if (it == j.end() || !it->is_array() || it->size() != 2 || !(*it)[1].is_number_unsigned() ||
        (*it)[1].get<uint64_t>() > UINT32_MAX) {
      *error = at + ": '" + key + "' must be [token, id]";
      return false;
    }
    (std::string(key) == "cls" ? w.before : w.after).push_back((*it)[1].get<uint32_t>());
  }
  steps_.push_back(std::move(w));
  return true;
}

bool PostProcessor::LoadOne(const Json& j, const std::string& where, const std::string& type,
                            std::string* error) {
  const std::string at = Describe(where, j);
  if (type == "TemplateProcessing") return LoadTemplate(j, at, error);
  if (type == "BertProcessing" || type == "RobertaProcessing") return LoadClsSep(j, at, error);
  if (type == "ByteLevel") {
    // Offsets only: the ids pass through.
    return CheckKeys(j, at, {"type", "add_prefix_space", "trim_offsets", "use_regex"}, error);
  }
  *error = where + ": the post-processor '" + type +
           "' is not supported (supported: TemplateProcessing, BertProcessing, "
           "RobertaProcessing, ByteLevel, Sequence)";
  return false;
}

void PostProcessor::Apply(std::vector<uint32_t>* ids) const {
  for (const Wrap& w : steps_) {
    if (w.before.empty() && w.after.empty()) continue;
    std::vector<uint32_t> out;
    out.reserve(w.before.size() + ids->size() + w.after.size());
    out.insert(out.end(), w.before.begin(), w.before.end());
    out.insert(out.end(), ids->begin(), ids->end());
    out.insert(out.end(), w.after.begin(), w.after.end());
    ids->swap(out);
  }
}

}  // namespace attnrt::tok
