// AddedVocabulary (see added_vocabulary.h).
#include "tokenizer/added_vocabulary.h"

#include <algorithm>

#include "tokenizer/unicode_props.h"
#include "tokenizer/utf8.h"

namespace attnrt::tok {
namespace {

bool SameToken(const AddedToken& a, const AddedToken& b) {
  return a.content == b.content && a.single_word == b.single_word && a.lstrip == b.lstrip &&
         a.rstrip == b.rstrip && a.normalized == b.normalized && a.special == b.special;
}

bool EndsWithWordChar(std::string_view s) {
  if (s.empty()) return false;
  size_t start = 0;
  return IsRegexWordChar(PreviousCodePoint(s, s.size(), &start));
}

bool StartsWithWordChar(std::string_view s) {
  if (s.empty()) return false;
  size_t i = 0;
  return IsRegexWordChar(NextCodePoint(s, &i));
}

// Where the whitespace that ends `s` begins (s.size() when there is none).
size_t TrailingSpaceStart(std::string_view s) {
  size_t end = s.size();
  while (end > 0) {
    size_t start = 0;
    if (!IsWhiteSpace(PreviousCodePoint(s, end, &start))) break;
    end = start;
  }
  return end;
}

// Bytes of whitespace that start `s`.
size_t LeadingSpaceLength(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    size_t next = i;
    if (!IsWhiteSpace(NextCodePoint(s, &next))) break;
    i = next;
  }
  return i;
}

using Edge = std::pair<uint8_t, uint32_t>;
bool ByteLess(const Edge& x, const Edge& y) { return x.first < y.first; }

}  // namespace

void AddedVocabulary::Trie::Add(std::string_view pattern, uint32_t id) {
  uint32_t node = 0;
  for (unsigned char b : pattern) {
    auto& next = nodes[node].next;
    auto it = std::lower_bound(next.begin(), next.end(), Edge{b, 0}, ByteLess);
    if (it == next.end() || it->first != b) {
      const uint32_t child = static_cast<uint32_t>(nodes.size());
      it = next.insert(it, Edge{b, child});
      nodes.emplace_back();
    }
    node = it->second;
  }
  if (!pattern.empty()) first_byte[static_cast<unsigned char>(pattern[0])] = true;
  if (nodes[node].id < 0) nodes[node].id = id;  // the first of equal patterns wins
}

int64_t AddedVocabulary::Trie::LongestAt(std::string_view text, size_t at,
                                         size_t* length) const {
  int64_t found = -1;
  uint32_t node = 0;
  for (size_t i = at; i < text.size(); ++i) {
    const auto& next = nodes[node].next;
    const unsigned char b = static_cast<unsigned char>(text[i]);
    const auto it = std::lower_bound(next.begin(), next.end(), Edge{b, 0}, ByteLess);
    if (it == next.end() || it->first != b) break;
    node = it->second;
    if (nodes[node].id >= 0) {
      found = nodes[node].id;
      *length = i + 1 - at;
    }
  }
  return found;
}

bool AddedVocabulary::Load(const Json& j, const BpeModel& model, const Normalizer& normalizer,
                           std::string* error) {
  if (j.is_null()) return true;
  if (!j.is_array()) {
    *error = "added_tokens: expected a list";
    return false;
  }
  std::vector<AddedToken> tokens;
  for (size_t i = 0; i < j.size(); ++i) {
    const std::string where = "added_tokens[" + std::to_string(i) + "]";
    const Json& e = j[i];
    if (!e.is_object()) {
      *error = where + ": expected an object";
      return false;
    }
    AddedToken t;
    uint64_t id = 0;  // the reference recomputes ids (see the header) and so do we
    if (!CheckKeys(e, where, {"id", "content", "single_word", "lstrip", "rstrip", "normalized",
                              "special"}, error) ||
        !GetUint(e, "id", 0, where, &id, error) ||
        !GetString(e, "content", "", where, &t.content, error) ||
        !GetBool(e, "single_word", false, where, &t.single_word, error) ||
        !GetBool(e, "lstrip", false, where, &t.lstrip, error) ||
        !GetBool(e, "rstrip", false, where, &t.rstrip, error) ||
        !GetBool(e, "special", false, where, &t.special, error) ||
        !GetBool(e, "normalized", !t.special, where, &t.normalized, error)) {
      return false;
    }
    tokens.push_back(std::move(t));
  }
  return Add(tokens, model, normalizer, error);
}

bool AddedVocabulary::AddOne(const AddedToken& token, const BpeModel& model, std::string* error) {
  if (token.content.empty()) return true;
  // An identical token (same content and flags) already given is ignored.
  const auto known = ids_.find(token.content);
  if (known != ids_.end()) {
    const auto same = by_id_.find(known->second);
    if (same != by_id_.end() && SameToken(same->second, token)) return true;
  }
  uint32_t id;
  const int64_t in_model = model.TokenToId(token.content);
  if (known != ids_.end()) {
    id = known->second;
  } else if (in_model >= 0) {
    id = static_cast<uint32_t>(in_model);
  } else {
    // After the largest added id, or the model's size when no added id reaches it.
    const uint32_t vocab = static_cast<uint32_t>(model.vocab_size());
    if (!ids_.empty() && max_id_ == UINT32_MAX) {
      *error = "added token " + Json(token.content).dump() + ": no token id is left";
      return false;
    }
    if (ids_.empty()) id = vocab;
    else id = (max_id_ >= vocab || vocab == 0) ? max_id_ + 1 : vocab;
  }
  max_id_ = ids_.empty() ? id : std::max(max_id_, id);
  ids_[token.content] = id;
  by_id_[id] = token;
  if (!special_contents_.count(token.content)) others_.push_back(token);
  return true;
}

bool AddedVocabulary::Add(const std::vector<AddedToken>& tokens, const BpeModel& model,
                          const Normalizer& normalizer, std::string* error) {
  for (const AddedToken& t : tokens) {
    if (t.special && !t.content.empty() && special_contents_.emplace(t.content, true).second) {
      specials_.push_back(t);
    }
  }
  for (const AddedToken& t : tokens) {
    if (!AddOne(t, model, error)) return false;
  }
  return Refresh(model, normalizer, error);
}

bool AddedVocabulary::Refresh(const BpeModel& model, const Normalizer& normalizer,
                              std::string* error) {
  raw_trie_ = Trie();
  normalized_trie_ = Trie();
  for (const std::vector<AddedToken>* list : {&specials_, &others_}) {
    for (const AddedToken& t : *list) {
      const auto known = ids_.find(t.content);
      const int64_t id = known != ids_.end() ? known->second : model.TokenToId(t.content);
      if (id < 0) continue;  // cannot happen: every listed token got an id
      if (!t.normalized) {
        raw_trie_.Add(t.content, static_cast<uint32_t>(id));
        continue;
      }
      std::string pattern = t.content;
      bool at_origin = true;
      if (!normalizer.Apply(&pattern, &at_origin, error)) return false;
      normalized_trie_.Add(pattern, static_cast<uint32_t>(id));
    }
  }
  return true;
}

void AddedVocabulary::SplitOut(const Piece& piece, const Trie& trie,
                               std::vector<Piece>* out) const {
  const std::string& text = piece.text;
  auto emit = [&](size_t start, size_t end, int64_t id) {
    Piece p;
    p.text = text.substr(start, end - start);
    p.token_id = id;
    p.at_origin = piece.at_origin && start == 0;
    if (!p.text.empty()) out->push_back(std::move(p));
  };
  size_t search = 0;  // where the next leftmost-longest search starts
  size_t done = 0;    // end of what has been emitted
  while (search < text.size()) {
    size_t start = search, length = 0;
    int64_t id = -1;
    for (; start < text.size(); ++start) {
      if (trie.first_byte[static_cast<unsigned char>(text[start])] &&
          (id = trie.LongestAt(text, start, &length)) >= 0) {
        break;
      }
    }
    if (id < 0) break;
    size_t stop = start + length;
    search = stop;
    const AddedToken& token = by_id_.at(static_cast<uint32_t>(id));
    if (split_special_tokens_ && special_contents_.count(token.content)) continue;
    if (token.single_word) {
      const std::string_view before(text.data(), start);
      const std::string_view after(text.data() + stop, text.size() - stop);
      if (EndsWithWordChar(before) || StartsWithWordChar(after)) continue;
    }
    if (token.lstrip) {
      start = std::max(TrailingSpaceStart(std::string_view(text.data(), start)), done);
    }
    if (token.rstrip) {
      stop += LeadingSpaceLength(std::string_view(text.data() + stop, text.size() - stop));
    }
    if (done < start) emit(done, start, -1);
    emit(start, stop, id);
    done = stop;
  }
  if (done < text.size()) emit(done, text.size(), -1);
}

bool AddedVocabulary::ExtractAndNormalize(std::string_view text, const Normalizer& normalizer,
                                          std::vector<Piece>* pieces, std::string* error) const {
  pieces->clear();
  if (text.empty()) return true;
  Piece whole;
  whole.text.assign(text.data(), text.size());
  whole.at_origin = true;
  std::vector<Piece> raw;
  SplitOut(whole, raw_trie_, &raw);
  for (Piece& p : raw) {
    if (p.token_id >= 0) {
      pieces->push_back(std::move(p));
      continue;
    }
    if (!normalizer.Apply(&p.text, &p.at_origin, error)) return false;
    if (!p.text.empty()) SplitOut(p, normalized_trie_, pieces);
  }
  return true;
}

const AddedToken* AddedVocabulary::ById(uint32_t id) const {
  const auto it = by_id_.find(id);
  return it == by_id_.end() ? nullptr : &it->second;
}

int64_t AddedVocabulary::IdOf(std::string_view content) const {
  const auto it = ids_.find(std::string(content));
  return it == ids_.end() ? int64_t{-1} : int64_t{it->second};
}

bool AddedVocabulary::IsSpecial(std::string_view content) const {
  return special_contents_.count(std::string(content)) != 0;
}

}  // namespace attnrt::tok
