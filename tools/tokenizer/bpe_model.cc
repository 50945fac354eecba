// BpeModel (see bpe_model.h).
#include "tokenizer/bpe_model.h"

#include <algorithm>
#include <cstdio>
#include <queue>

#include "tokenizer/utf8.h"

namespace attnrt::tok {
namespace {

std::string Quoted(std::string_view s) { return Json(std::string(s)).dump(-1, ' ', false, Json::error_handler_t::replace); }

// A merge as tokenizer.json gives it: "a b" (exactly one space) or ["a", "b"].
bool MergePair(const Json& m, size_t rank, const std::string& where, std::string* a,
               std::string* b, std::string* error) {
  if (m.is_string()) {
    const std::string& s = m.get_ref<const std::string&>();
    const size_t space = s.find(' ');
    if (space != std::string::npos && s.find(' ', space + 1) == std::string::npos) {
      *a = s.substr(0, space);
      *b = s.substr(space + 1);
      return true;
    }
  } else if (m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string()) {
    *a = m[0].get<std::string>();
    *b = m[1].get<std::string>();
    return true;
  }
  *error = where + ": merge " + std::to_string(rank) + " is neither \"a b\" nor [a, b]: " +
           m.dump(-1, ' ', false, Json::error_handler_t::replace);
  return false;
}

}  // namespace

bool BpeModel::ReserveIds(size_t count, uint64_t max_id, const std::string& where,
                          std::string* error) {
  // Real vocabularies number their tokens 0..n-1 (with a few gaps at most).
  if (count > 0 && max_id > 4 * uint64_t{count} + 65536) {
    *error = where + ": vocabulary ids up to " + std::to_string(max_id) + " for " +
             std::to_string(count) + " tokens are not supported (too sparse)";
    return false;
  }
  id_to_token_.assign(count == 0 ? 0 : static_cast<size_t>(max_id) + 1, kNoToken);
  vocab_.Reserve(count);
  bmp_char_ids_.assign(0x10000, -1);
  return true;
}

bool BpeModel::AddToken(std::string_view token, uint32_t id, const std::string& where,
                        std::string* error) {
  uint64_t handle = 0;
  if (id >= id_to_token_.size()) {
    *error = where + ": vocab id " + std::to_string(id) + " is out of range";
    return false;
  }
  if (id_to_token_[id] != kNoToken) {
    *error = where + ": vocab id " + std::to_string(id) + " is given to both " +
             Quoted(vocab_.Text(id_to_token_[id])) + " and " + Quoted(token);
    return false;
  }
  if (!vocab_.Insert(token, id, &handle)) {
    *error = where + ": the token " + Quoted(token) + " is in the vocabulary twice";
    return false;
  }
  id_to_token_[id] = handle;
  ++token_count_;
  if (!token.empty() && SequenceLength(static_cast<uint8_t>(token[0])) == token.size()) {
    size_t i = 0;
    const uint32_t cp = NextCodePoint(token, &i);
    if (cp < 0x10000) bmp_char_ids_[cp] = static_cast<int32_t>(id);
  }
  return true;
}

void BpeModel::FindByteTokens() {
  for (int b = 0; b < 256; ++b) {
    char name[8];
    std::snprintf(name, sizeof(name), "<0x%02X>", b);
    byte_ids_[b] = static_cast<int32_t>(vocab_.Find(name));
  }
}

bool BpeModel::LoadVocab(const Json& vocab, const std::string& where, std::string* error) {
  if (!vocab.is_object()) {
    *error = where + ": 'vocab' must be an object (token -> id)";
    return false;
  }
  uint64_t max_id = 0;
  for (auto it = vocab.begin(); it != vocab.end(); ++it) {
    if (!it->is_number_unsigned() || it->get<uint64_t>() > UINT32_MAX) {
      *error = where + ": vocab entry " + Quoted(it.key()) + " has no valid id";
      return false;
    }
    max_id = std::max(max_id, it->get<uint64_t>());
  }
  if (!ReserveIds(vocab.size(), max_id, where, error)) return false;
  for (auto it = vocab.begin(); it != vocab.end(); ++it) {
    if (!AddToken(it.key(), it->get<uint32_t>(), where, error)) return false;
  }
  FindByteTokens();
  return true;
}

bool BpeModel::LoadMerges(const Json& merges, const std::string& where, std::string* error) {
  if (!merges.is_array()) {
    *error = where + ": 'merges' must be a list";
    return false;
  }
  merges_.Reserve(merges.size());
  std::string a, b;
  for (size_t rank = 0; rank < merges.size(); ++rank) {
    if (!MergePair(merges[rank], rank, where, &a, &b, error)) return false;
    const int64_t a_id = vocab_.Find(a), b_id = vocab_.Find(b);
    if (a_id < 0 || b_id < 0) {
      *error = where + ": merge " + std::to_string(rank) + ": " + Quoted(a_id < 0 ? a : b) +
               " is not in the vocabulary";
      return false;
    }
    if (!prefix_.empty() && b.compare(0, prefix_.size(), prefix_) != 0) {
      *error = where + ": merge " + std::to_string(rank) + ": " + Quoted(b) +
               " does not start with the continuing_subword_prefix";
      return false;
    }
    const std::string merged = a + b.substr(prefix_.size());
    const int64_t new_id = vocab_.Find(merged);
    if (new_id < 0) {
      *error = where + ": merge " + std::to_string(rank) + ": the result " + Quoted(merged) +
               " is not in the vocabulary";
      return false;
    }
    merges_.Set(static_cast<uint32_t>(a_id), static_cast<uint32_t>(b_id),
                {static_cast<uint32_t>(rank), static_cast<uint32_t>(new_id)});
  }
  return true;
}

bool BpeModel::LoadParams(const Json& j, const std::string& at, std::string* error) {
  if (!CheckKeys(j, at, {"type", "dropout", "unk_token", "continuing_subword_prefix",
                         "end_of_word_suffix", "fuse_unk", "byte_fallback", "ignore_merges",
                         "vocab", "merges"}, error)) {
    return false;
  }
  const auto dropout = j.find("dropout");
  if (dropout != j.end() && !dropout->is_null()) {
    if (!dropout->is_number() || dropout->get<double>() != 0.0) {
      *error = at + ": BPE dropout " + dropout->dump() +
               " is not supported (it makes tokenization random)";
      return false;
    }
  }
  has_unk_ = j.contains("unk_token") && !j["unk_token"].is_null();
  return GetString(j, "unk_token", "", at, &unk_token_, error) &&
         GetString(j, "continuing_subword_prefix", "", at, &prefix_, error) &&
         GetString(j, "end_of_word_suffix", "", at, &suffix_, error) &&
         GetBool(j, "fuse_unk", false, at, &fuse_unk_, error) &&
         GetBool(j, "byte_fallback", false, at, &byte_fallback_, error) &&
         GetBool(j, "ignore_merges", false, at, &ignore_merges_, error);
}

bool BpeModel::Load(const Json& j, const std::string& where, std::string* error) {
  const std::string at = Describe(where, j);
  if (!LoadParams(j, at, error)) return false;
  const auto vocab = j.find("vocab");
  const auto merges = j.find("merges");
  if (vocab == j.end() || merges == j.end()) {
    *error = at + ": needs 'vocab' and 'merges'";
    return false;
  }
  return LoadVocab(*vocab, at, error) && LoadMerges(*merges, at, error);
}

void BpeModel::WriteTables(const std::vector<std::pair<uint32_t, std::string_view>>& tokens,
                           uint32_t max_id, const std::vector<MergeRow>& merges,
                           CompactWriter* out) {
  out->U32(static_cast<uint32_t>(tokens.size()));
  out->U32(max_id);
  for (const auto& [id, text] : tokens) {
    out->U32(id);
    out->Bytes(text);
  }
  out->U32(static_cast<uint32_t>(merges.size()));
  for (const MergeRow& row : merges) {
    out->U32(row.left);
    out->U32(row.right);
    out->U32(row.rank);
    out->U32(row.merged);
  }
}

void BpeModel::AppendTables(CompactWriter* out) const {
  std::vector<std::pair<uint32_t, std::string_view>> tokens;
  tokens.reserve(token_count_);
  for (size_t id = 0; id < id_to_token_.size(); ++id) {
    if (id_to_token_[id] != kNoToken) {
      tokens.emplace_back(static_cast<uint32_t>(id), vocab_.Text(id_to_token_[id]));
    }
  }
  std::vector<MergeRow> rows;
  rows.reserve(merges_.size());
  merges_.ForEach([&rows](uint32_t l, uint32_t r, PairMerges::Merge m) {
    rows.push_back({l, r, m.rank, m.new_id});
  });
  std::sort(rows.begin(), rows.end(),
            [](const MergeRow& x, const MergeRow& y) { return x.rank < y.rank; });
  WriteTables(tokens, static_cast<uint32_t>(id_to_token_.empty() ? 0 : id_to_token_.size() - 1),
              rows, out);
}

bool BpeModel::LoadCompact(const Json& j, const std::string& where, CompactReader* in,
                           std::string* error) {
  const std::string at = Describe(where, j);
  if (!LoadParams(j, at, error)) return false;
  const std::string damaged = at + ": the compact vocabulary or merges are damaged";
  uint32_t count = 0, max_id = 0;
  if (!in->U32(&count) || !in->U32(&max_id) || count > in->remaining() / 8) {
    *error = damaged;
    return false;
  }
  if (!ReserveIds(count, max_id, at, error)) return false;
  for (uint32_t i = 0; i < count; ++i) {
    uint32_t id = 0;
    std::string_view token;
    if (!in->U32(&id) || !in->Bytes(&token)) {
      *error = damaged;
      return false;
    }
    if (FirstInvalidUtf8(token) != std::string_view::npos) {
      *error = at + ": vocab id " + std::to_string(id) + " is not valid UTF-8";
      return false;
    }
    if (!AddToken(token, id, at, error)) return false;
  }
  FindByteTokens();
  if (!in->U32(&count) || count > in->remaining() / 16) {
    *error = damaged;
    return false;
  }
  merges_.Reserve(count);
  for (uint32_t i = 0; i < count; ++i) {
    uint32_t row[4];
    for (uint32_t& v : row) {
      if (!in->U32(&v)) {
        *error = damaged;
        return false;
      }
    }
    if (!HasId(row[0]) || !HasId(row[1]) || !HasId(row[3])) {
      *error = at + ": compact merge " + std::to_string(row[2]) + " names an unknown token id";
      return false;
    }
    merges_.Set(row[0], row[1], {row[2], row[3]});
  }
  return true;
}

bool BpeModel::IdToToken(uint32_t id, std::string_view* token) const {
  if (!HasId(id)) return false;
  *token = vocab_.Text(id_to_token_[id]);
  return true;
}

int64_t BpeModel::CharId(std::string_view ch, bool first, bool last) const {
  const bool affixed = (!first && !prefix_.empty()) || (last && !suffix_.empty());
  if (!affixed) {
    size_t i = 0;
    const uint32_t cp = NextCodePoint(ch, &i);
    if (cp < 0x10000) return bmp_char_ids_[cp];
    return vocab_.Find(ch);
  }
  std::string s;
  if (!first) s = prefix_;
  s.append(ch.data(), ch.size());
  if (last) s += suffix_;
  return vocab_.Find(s);
}

bool BpeModel::InitialSymbols(std::string_view word, std::vector<Symbol>* symbols,
                              std::string* error) const {
  symbols->clear();
  // The pending unknown run: the reference adds it when the next known character comes.
  bool unk_pending = false;
  auto add = [symbols](uint32_t id) {
    const int32_t n = static_cast<int32_t>(symbols->size());
    symbols->push_back({id, n - 1, n + 1, false});
  };
  auto unk_id = [&](int64_t* id) {
    *id = vocab_.Find(unk_token_);
    if (*id >= 0) return true;
    *error = "the unk token " + Quoted(unk_token_) + " is not in the vocabulary";
    return false;
  };
  int64_t unk = -1;
  for (size_t i = 0; i < word.size();) {
    const size_t start = i;
    i += SequenceLength(static_cast<uint8_t>(word[i]));
    const std::string_view ch = word.substr(start, i - start);
    const bool first = start == 0, last = i == word.size();
    const int64_t id = CharId(ch, first, last);
    if (id >= 0) {
      if (unk_pending) add(static_cast<uint32_t>(unk));
      unk_pending = false;
      add(static_cast<uint32_t>(id));
      continue;
    }
    if (byte_fallback_) {
      // The bytes of the character as looked up, affixes included.
      std::string s;
      if (!first) s = prefix_;
      s.append(ch.data(), ch.size());
      if (last) s += suffix_;
      bool all = true;
      for (unsigned char b : s) all = all && byte_ids_[b] >= 0;
      if (all) {
        for (unsigned char b : s) add(static_cast<uint32_t>(byte_ids_[b]));
        continue;
      }
    }
    if (!has_unk_) continue;  // the reference drops the character
    if (unk_pending && fuse_unk_) continue;
    if (unk_pending) add(static_cast<uint32_t>(unk));
    if (!unk_id(&unk)) return false;
    unk_pending = true;
  }
  if (unk_pending) add(static_cast<uint32_t>(unk));
  if (!symbols->empty()) symbols->back().next = -1;
  return true;
}

void BpeModel::MergeAll(std::vector<Symbol>* symbols) const {
  struct Candidate {
    uint32_t rank;
    uint32_t pos;
    uint32_t new_id;
  };
  // Lowest rank first, then leftmost.
  auto later = [](const Candidate& x, const Candidate& y) {
    return x.rank != y.rank ? x.rank > y.rank : x.pos > y.pos;
  };
  std::vector<Candidate> storage;
  storage.reserve(symbols->size());
  std::priority_queue<Candidate, std::vector<Candidate>, decltype(later)> queue(later,
                                                                                std::move(storage));
  std::vector<Symbol>& s = *symbols;
  for (size_t i = 0; i + 1 < s.size(); ++i) {
    if (const PairMerges::Merge* m = merges_.Find(s[i].id, s[i + 1].id)) {
      queue.push({m->rank, static_cast<uint32_t>(i), m->new_id});
    }
  }
  while (!queue.empty()) {
    const Candidate top = queue.top();
    queue.pop();
    Symbol& left = s[top.pos];
    if (left.removed || left.next < 0) continue;
    Symbol& right = s[left.next];
    // A stale entry: the pair there is no longer one that merges into this token.
    const PairMerges::Merge* now = merges_.Find(left.id, right.id);
    if (now == nullptr || now->new_id != top.new_id) continue;
    left.id = top.new_id;
    right.removed = true;
    left.next = right.next;
    if (right.next >= 0) s[right.next].prev = static_cast<int32_t>(top.pos);
    if (left.prev >= 0) {
      if (const PairMerges::Merge* m = merges_.Find(s[left.prev].id, left.id)) {
        queue.push({m->rank, static_cast<uint32_t>(left.prev), m->new_id});
      }
    }
    if (left.next >= 0) {
      if (const PairMerges::Merge* m = merges_.Find(left.id, s[left.next].id)) {
        queue.push({m->rank, top.pos, m->new_id});
      }
    }
  }
}

bool BpeModel::Tokenize(std::string_view word, std::vector<uint32_t>* ids,
                        std::string* error) const {
  if (word.empty()) return true;
  if (ignore_merges_) {
    const int64_t whole = vocab_.Find(word);
    if (whole >= 0) {
      ids->push_back(static_cast<uint32_t>(whole));
      return true;
    }
  }
  const bool cacheable = word.size() < kCachedWordBytes;
  if (cacheable) {
    const auto hit = cache_.find(std::string(word));
    if (hit != cache_.end()) {
      ids->insert(ids->end(), hit->second.begin(), hit->second.end());
      return true;
    }
  }
  std::vector<Symbol> symbols;
  if (!InitialSymbols(word, &symbols, error)) return false;
  MergeAll(&symbols);
  const size_t first = ids->size();
  for (const Symbol& sym : symbols) {
    if (!sym.removed) ids->push_back(sym.id);
  }
  if (cacheable && cache_.size() < kCacheWords) {
    cache_.emplace(std::string(word), std::vector<uint32_t>(ids->begin() + first, ids->end()));
  }
  return true;
}

}  // namespace attnrt::tok
